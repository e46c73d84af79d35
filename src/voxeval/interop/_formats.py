"""A run's results in the formats others read (pure): the Hub's ``.eval_results`` YAML and Every Eval Ever records.

* ``.eval_results/*.yaml`` (https://huggingface.co/docs/hub/eval-results; the annotated specification is
  ``eval_results.yaml`` of github.com/huggingface/hub-docs): a list of ``{dataset: {id, task_id}, value, date,
  source: {url, name}, notes}`` in a model repository. One file per (dataset, metric) task of each system, the
  run's fingerprint as the source's name.
* Every Eval Ever (github.com/evaleval/every_eval_ever, ``eval.schema.json`` version 0.2.0): one JSON record per
  model with every (dataset, metric) as an ``evaluation_results`` entry, the 95% interval as its uncertainty.

YAML is written as JSON scalars (YAML is a superset of JSON), so no YAML library is needed to write it.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from voxeval.interop._results import METRICS, RunResults, Score

EEE_SCHEMA_VERSION = "0.2.0"
"""The Every Eval Ever schema version the records follow."""

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """A file-name-safe form of a system or dataset name.

    >>> slug("replay:my run/1")
    'replay-my-run-1'
    """
    return _SLUG.sub("-", text).strip("-.") or "x"


def iso_date(created: str) -> str:
    """``2026-12-02T02:59:38+0000`` → ``2026-12-02T02:59:38+00:00`` (ISO-8601 extended, as the Hub asks).

    >>> iso_date("2026-12-02T02:59:38+0000")
    '2026-12-02T02:59:38+00:00'
    """
    match = re.fullmatch(r"(.*[T ]\d\d:\d\d:\d\d)([+-]\d\d)(\d\d)", created)
    return f"{match.group(1)}{match.group(2)}:{match.group(3)}" if match else created


def base_dataset(name: str) -> str:
    """A run's dataset name without its split (``ja-assistant:test`` → ``ja-assistant``)."""
    return name.split(":", 1)[0]


def task_id(score: Score) -> str:
    """The task of a score: its dataset (split included) and metric, e.g. ``ja-assistant-test_wlcs``."""
    return f"{slug(score.dataset.replace(':', '-'))}_{score.metric}"


def _notes(results: RunResults, score: Score) -> str:
    ci = "" if score.low is None else f"; 95% CI [{score.low:.4f}, {score.high:.4f}]"
    return (
        f"voxeval {results.version}, benchmark {results.benchmark}, scored by {results.scorer} "
        f"({results.validity}); n={score.n}, {score.excluded} excluded{ci}; config fingerprint {results.fingerprint}"
    )


def eval_result_entry(
    results: RunResults, score: Score, dataset_ids: Mapping[str, str], source_url: str
) -> dict[str, Any]:
    """One ``.eval_results`` entry (only scored values: a score of ``None`` has no entry)."""
    name = base_dataset(score.dataset)
    return {
        "dataset": {"id": dataset_ids.get(name, f"voxeval/{name}"), "task_id": task_id(score)},
        "value": score.value,
        "date": iso_date(results.created),
        "source": {"url": source_url, "name": f"voxeval run {results.fingerprint}"},
        "notes": _notes(results, score),
    }


def _yaml(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, Mapping):
        lines = []
        for key, item in value.items():
            if isinstance(item, Mapping):
                lines.append(f"{pad}{key}:\n{_yaml(item, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {json.dumps(item, ensure_ascii=False)}")
        return "\n".join(lines)
    return pad + json.dumps(value, ensure_ascii=False)


def eval_results_yaml(entries: list[dict[str, Any]]) -> str:
    """A ``.eval_results`` file: a YAML list of entries (block style, JSON scalars).

    >>> print(eval_results_yaml([{"dataset": {"id": "a/b", "task_id": "t"}, "value": 0.5}]))
    - dataset:
        id: "a/b"
        task_id: "t"
      value: 0.5
    <BLANKLINE>
    """
    out = []
    for entry in entries:
        body = _yaml(entry, 2)
        out.append("- " + body[2:])
    return "\n".join(out) + "\n"


def eval_results_files(results: RunResults, dataset_ids: Mapping[str, str], source_url: str) -> dict[str, str]:
    """``SYSTEM/.eval_results/TASK.yaml`` → text, one per system and (dataset, metric) that has a value."""
    files = {}
    for score in results.scores:
        if score.value is None:
            continue
        entry = eval_result_entry(results, score, dataset_ids, source_url)
        files[f"{slug(score.system)}/.eval_results/{task_id(score)}.yaml"] = eval_results_yaml([entry])
    return files


def _eee_result(results: RunResults, score: Score) -> dict[str, Any]:
    metric = METRICS[score.metric]
    details: dict[str, Any] = {"score": score.value, "details": {"excluded": str(score.excluded)}}
    uncertainty: dict[str, Any] = {"num_samples": score.n}
    if score.low is not None and score.high is not None:
        uncertainty["confidence_interval"] = {
            "lower": score.low, "upper": score.high, "confidence_level": 0.95, "method": "percentile bootstrap",
        }  # fmt: skip
    details["uncertainty"] = uncertainty
    return {
        "evaluation_name": f"{score.dataset} {score.metric}",
        "source_data": {
            "dataset_name": base_dataset(score.dataset),
            "source_type": "other",
            "additional_details": {
                "sha256": results.datasets.get(score.dataset, ""),
                "split": results.split or "all",
                "limit": str(results.limit) if results.limit else "none",
            },
        },
        "evaluation_timestamp": iso_date(results.created),
        "metric_config": {
            "evaluation_description": metric["about"],
            "lower_is_better": metric["lower_is_better"],
            "score_type": "continuous",
            "min_score": metric["min"],
            "max_score": metric["max"],
        },
        "score_details": details,
    }


def eee_record(
    results: RunResults, system: str, model_ids: Mapping[str, str], organisation: str, retrieved: int
) -> dict[str, Any]:
    """The Every Eval Ever record (schema 0.2.0) of one system of a run; ``retrieved`` is the Unix time now."""
    scored = [s for s in results.scores if s.system == system and s.value is not None]
    return {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": f"voxeval-{results.benchmark}/{slug(system)}/{retrieved}",
        "evaluation_timestamp": iso_date(results.created),
        "retrieved_timestamp": str(retrieved),
        "source_metadata": {
            "source_name": f"voxeval run {results.fingerprint}",
            "source_type": "evaluation_run",
            "source_organization_name": organisation,
            "evaluator_relationship": "third_party",
        },
        "eval_library": {"name": "voxeval", "version": results.version},
        "model_info": {
            "name": system,
            "id": model_ids.get(system, system),
            "additional_details": {"voxeval_system": system, "config_fingerprint": results.fingerprint},
        },
        "evaluation_results": [_eee_result(results, s) for s in scored],
    }


def eee_file(results: RunResults, system: str) -> str:
    """Where a system's record goes: ``SYSTEM/UUID.json``, the UUID fixed by the run and system (a second export
    replaces the record instead of adding a duplicate)."""
    name = uuid.uuid5(uuid.NAMESPACE_URL, f"voxeval:{results.fingerprint}:{system}")
    return f"{slug(system)}/{name}.json"
