"""Validating an annotator against gold dialogue acts (``voxeval annotator-check``)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.acts import LABELS, Acts
from voxeval.annotate._echo import annotate_guarded
from voxeval.annotate._protocol import AnnotationFailed, AnnotationInput, Annotator, Reference
from voxeval.data import GoldSample
from voxeval.metrics import weighted_edit_distance, weighted_lcs


def aligned_pairs(pred: Acts, gold: Acts) -> list[tuple[str, str]]:
    """(gold label, predicted label) for the steps the optimal WED path pairs up (matches and substitutions)."""
    result = weighted_edit_distance(gold=gold, pred=pred)
    return [
        (gold[op.gold_index].act, pred[op.pred_index].act)
        for op in result.ops
        if op.pred_index is not None and op.gold_index is not None
    ]


def label_metrics(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Accuracy, per-label precision/recall/F1 and macro-F1 (over labels present in gold or prediction)."""
    confusion = Counter(pairs)
    per_label: dict[str, dict[str, float]] = {}
    for label in LABELS:
        tp = confusion[(label, label)]
        gold_n = sum(n for (g, _), n in confusion.items() if g == label)
        pred_n = sum(n for (_, p), n in confusion.items() if p == label)
        if not gold_n and not pred_n:
            continue
        precision = tp / pred_n if pred_n else 0.0
        recall = tp / gold_n if gold_n else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = {"precision": precision, "recall": recall, "f1": f1, "support": gold_n}
    correct = sum(n for (g, p), n in confusion.items() if g == p)
    return {
        "aligned_steps": len(pairs),
        "accuracy": correct / len(pairs) if pairs else None,
        "macro_f1": sum(v["f1"] for v in per_label.values()) / len(per_label) if per_label else None,
        "per_label": per_label,
        "confusion": {g: {p: confusion[(g, p)] for p in LABELS if confusion[(g, p)]} for g in LABELS},
    }


@dataclass(frozen=True)
class CheckResult:
    """How far an annotator's labels are from gold on a dataset."""

    report: dict[str, Any]
    """The numbers (also written as JSON)."""
    rows: list[dict[str, Any]]
    """Per-sample annotations and scores."""
    predicted: dict[str, Acts] = dataclasses.field(default_factory=dict)
    """The annotator's acts by sample id (first repeat; failed annotations left out)."""


def row_reference(sample: GoldSample) -> Reference | None:
    """The reference reply a gold row asks the annotator to see (``annotator_context.reference``: ``{text, steps}``,
    written by ``voxeval agreement --export`` for a run that annotated with it), so the check measures the annotator
    as the run used it; ``None`` for a row without one (a dataset's own gold rows)."""
    from voxeval.acts import parse_acts
    from voxeval.errors import InputError, Location

    context = sample.raw.get("annotator_context")
    if context is None:
        return None
    where = Location(None, sample.line, f"{sample.id}: annotator_context.reference")
    ref = context.get("reference") if isinstance(context, dict) else None
    if not isinstance(ref, dict) or not isinstance(ref.get("text"), str):
        raise InputError(where, "must be an object {text, steps} (the reference reply and its gold acts)")
    return Reference(ref["text"], parse_acts(ref.get("steps"), where.child("steps"), allow_empty=False))


def reference_note(samples: Sequence[GoldSample]) -> str:
    """Which context the check annotated with, said in the report (``voxeval agreement`` says the same)."""
    n = sum(1 for s in samples if row_reference(s) is not None)
    if n == 0:
        return "without the reference reply as context"
    return f"with the reference reply as context (annotator_context.reference) on {n} of {len(samples)} replies"


async def _annotate_all(annotator: Annotator, samples: Sequence[GoldSample], concurrency: int) -> list[Any]:
    limit = asyncio.Semaphore(concurrency)

    async def one(s: GoldSample) -> Any:
        async with limit:
            try:
                return await annotate_guarded(
                    annotator,
                    AnnotationInput(
                        s.output_text, s.input_text, s.background, reference=row_reference(s), language=s.language
                    ),
                )
            except AnnotationFailed as exc:
                return exc

    return list(await asyncio.gather(*(one(s) for s in samples)))


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def check_annotator(
    annotator: Annotator, samples: Sequence[GoldSample], *, repeats: int = 1, concurrency: int = 8
) -> CheckResult:
    """Annotate the gold replies (``repeats`` times) and compare with the gold sequences; ``predicted`` keeps the acts
    for the system-level figures (:func:`voxeval.report._validity.system_level`)."""
    runs = [asyncio.run(_annotate_all(annotator, samples, concurrency)) for _ in range(max(repeats, 1))]
    rows, wed, wlcs, pairs, failures = [], [], [], [], []
    predicted: dict[str, Acts] = {}
    for sample, result in zip(samples, runs[0], strict=True):
        if isinstance(result, AnnotationFailed):
            failures.append({"id": sample.id, "error": str(result), "raw": result.raw})
            continue
        predicted[sample.id] = result.acts
        edit = weighted_edit_distance(gold=sample.acts, pred=result.acts)
        wed.append(edit.total)
        wlcs.append(weighted_lcs(gold=sample.acts, pred=result.acts))
        pairs += aligned_pairs(result.acts, sample.acts)
        rows.append(
            {
                "id": sample.id,
                "wed": edit.total,
                "wlcs": wlcs[-1],
                "pred": [(a.act, round(a.importance, 3)) for a in result.acts],
                "gold": [(a.act, round(a.importance, 3)) for a in sample.acts],
            }
        )
    report: dict[str, Any] = {
        "annotator": annotator.describe(),
        "reference_context": reference_note(samples),
        "by_group": by_group(samples, rows),
        "samples": len(samples),
        "failed": len(failures),
        "failures": failures[:50],
        "wed_mean": _mean(wed),
        "wlcs_mean": _mean(wlcs),
        "exact_sequence_rate": _mean([float(r["wed"] == 0.0) for r in rows]),
        **label_metrics(pairs),
    }
    if repeats > 1:
        report["self_consistency"] = _consistency(runs)
    return CheckResult(report, rows, predicted)


def _consistency(runs: list[list[Any]]) -> dict[str, Any]:
    # Mean pairwise WED between repeated annotations of the same reply, and how often all k agree exactly.
    pair_wed, identical = [], []
    for results in zip(*runs, strict=True):
        ok = [r for r in results if not isinstance(r, AnnotationFailed)]
        if len(ok) < 2:
            continue
        for a, b in itertools.combinations(ok, 2):
            pair_wed.append(weighted_edit_distance(gold=b.acts, pred=a.acts).total)
        identical.append(float(all([s.act for s in r.acts] == [s.act for s in ok[0].acts] for r in ok)))
    return {"repeats": len(runs), "mean_pairwise_wed": _mean(pair_wed), "all_labels_identical_rate": _mean(identical)}


GROUP_FIELDS = ("style", "flaw", "author")
"""Row fields (of authored data, e.g. the annotator's validation split) that the check reports by."""


def by_group(samples: Sequence[GoldSample], rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Mean WED, WLCS and exact label-sequence rate per value of each of :data:`GROUP_FIELDS` present in the data."""
    raw = {s.id: s.raw for s in samples}
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        for name in GROUP_FIELDS:
            value = raw.get(row["id"], {}).get(name)
            if isinstance(value, str) and value:
                groups.setdefault(f"{name}={value}", []).append(row)
    return {
        key: {
            "n": len(members),
            "wed_mean": _mean([r["wed"] for r in members]),
            "wlcs_mean": _mean([r["wlcs"] for r in members]),
            "exact_sequence_rate": _mean(
                [float([a for a, _ in r["pred"]] == [a for a, _ in r["gold"]]) for r in members]
            ),
        }
        for key, members in sorted(groups.items())
    }


GARBAGE_LIMIT = 0.05
"""Garbage replies must score a mean WLCS at most this (an empty reply scores 0)."""


def garbage_check(annotator: Annotator, samples: Sequence[GoldSample], concurrency: int = 8) -> dict[str, Any]:
    """Replay garbage replies (see ``_garbage``) for every sample: per kind, mean WLCS against the gold acts and the
    share of replies given no acts. An annotator that labels noise lets garbage score like a real reply. The
    informational kinds (another input's reply of the same domain) are reported with ``passes: null`` and do not
    count towards the verdict."""
    from voxeval.annotate._garbage import INFORMATIONAL_KINDS, KINDS

    out: dict[str, Any] = {"limit_wlcs": GARBAGE_LIMIT, "kinds": {}, "informational": {}}
    for kind in KINDS + INFORMATIONAL_KINDS:
        verdict = kind in KINDS
        (out["kinds"] if verdict else out["informational"])[kind] = _replay(
            annotator, samples, kind, concurrency, verdict
        )
    out["passes"] = all(k["passes"] for k in out["kinds"].values())
    return out


def _replay(
    annotator: Annotator, samples: Sequence[GoldSample], kind: str, concurrency: int, verdict: bool
) -> dict[str, Any]:
    from voxeval.annotate._garbage import garbage_reply

    fakes = [dataclasses.replace(s, output_text=garbage_reply(kind, s, samples)) for s in samples]
    results = asyncio.run(_annotate_all(annotator, fakes, concurrency))
    scores, empty, failed = [], [], 0
    for sample, result in zip(samples, results, strict=True):
        if isinstance(result, AnnotationFailed):
            failed += 1
            continue
        scores.append(weighted_lcs(sample.acts, result.acts))
        empty.append(float(not result.acts))
    wlcs = _mean(scores)
    return {
        "wlcs_mean": wlcs,
        "empty_rate": _mean(empty),
        "failed": failed,
        "passes": (wlcs is not None and wlcs <= GARBAGE_LIMIT) if verdict else None,
    }
