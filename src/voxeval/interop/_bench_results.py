"""Scores of the multi-turn benchmarks as :class:`~voxeval.interop._results.Score` records, read from the run's own
``summary.json`` (the numbers of its report): ``dialogues`` (per system under each history condition, and the
gains between conditions) and ``duplex`` (the turn-taking figures by the server's events).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.interop._results import Score

CONDITION_METRICS = {"turn_wlcs": "turn_wlcs", "turn_wed": "turn_wed", "dialogue_success": "dialogue_success"}
"""Metric → its entry in a dialogue summary's ``conditions`` rows."""

GAIN_METRICS = ("context_gain", "drift")
"""Metrics of a dialogue summary's ``gains`` rows (between conditions: exported under the bare system name)."""

DUPLEX_METRICS = {
    "onset_latency_p50": ("onset_latency", "p50"),
    "takeover_rate": ("takeover_rate", None),
    "stop_rate": ("stop_rate", None),
    "stop_latency_p50": ("stop_latency", "p50"),
    "continuation_rate": ("continuation_rate", None),
}
"""Metric → (figure of a duplex summary, its quantile for a latency)."""


def _summary(run_dir: Path, benchmark: str) -> dict[str, Any]:
    from voxeval.io import read_json_object

    path = run_dir / "summary.json"
    summary = read_json_object(path)
    if summary is None:
        raise InputError(Location(str(path)), "missing: finish the run (or `voxeval report RUN`) before exporting")
    if summary.get("benchmark") != benchmark:
        raise InputError(Location(str(path), field="benchmark"), f"{summary.get('benchmark')!r}, not {benchmark!r}")
    return summary


def _estimate(dataset: str, system: str, metric: str, cell: Any, n_key: str, excluded: int = 0) -> Score:
    """A score from a summary cell ``{value, low, high, …}`` (``None``: nothing scored)."""
    if not isinstance(cell, dict):
        return Score(dataset, system, metric, None, excluded=excluded)
    return Score(
        dataset, system, metric, cell.get("value"), cell.get("low"), cell.get("high"), int(cell.get(n_key) or 0),
        excluded,
    )  # fmt: skip


def dialogue_scores(run_dir: Path) -> tuple[list[Score], dict[str, dict[str, Any]]]:
    """Turn WLCS / WED and dialogue success per (dataset, system under a history condition), with their
    cluster-bootstrap intervals; context gain and drift per (dataset, system)."""
    from voxeval.run._dialogue_replies import conditioned_name
    from voxeval.run._keys import read_run_log

    summary = _summary(run_dir, "dialogues")
    where = Location(str(run_dir / "summary.json"))
    scores = []
    for k, row in enumerate(summary.get("conditions") or []):
        try:
            system = conditioned_name(row["system"], row["history"])
            excluded = len(row.get("excluded") or {})
            for metric, key in CONDITION_METRICS.items():
                n_key = "dialogues" if metric == "dialogue_success" else "turns"
                scores.append(_estimate(row["dataset"], system, metric, row.get(key), n_key, excluded))
        except (KeyError, TypeError) as exc:
            raise InputError(where.child(f"conditions[{k}]"), f"not a condition row ({exc})") from None
    for k, row in enumerate(summary.get("gains") or []):
        if not isinstance(row, dict) or "dataset" not in row or "system" not in row:
            raise InputError(where.child(f"gains[{k}]"), "not a gains row (needs dataset and system)")
        for metric in GAIN_METRICS:
            if metric in row:
                scores.append(_estimate(row["dataset"], row["system"], metric, row[metric], "turns"))
    return scores, read_run_log(run_dir / "replies.jsonl")


def duplex_scores(run_dir: Path, dataset: str) -> tuple[list[Score], dict[str, dict[str, Any]]]:
    """The turn-taking figures of each system by the server's own events, with their bootstrap intervals (a
    latency's is the interval of its median)."""
    summary = _summary(run_dir, "duplex")
    scores = []
    for system, block in (summary.get("systems") or {}).items():
        server = ((block or {}).get("figures") or {}).get("server") or {}
        for metric, (figure, quantile) in DUPLEX_METRICS.items():
            cell = server.get(figure)
            if quantile is not None and isinstance(cell, dict):
                cell = cell.get(quantile)
            scores.append(_estimate(dataset, system, metric, cell, "n"))
    return scores, {}
