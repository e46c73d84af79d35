"""A leaderboard over several runs (pure): which runs may be ranked together, the ranked rows, and their JSON.

Runs are comparable when they scored the same dataset files (sha256), split and sample limit, with the same prompts
and the same annotator or judge, in the same benchmark. Anything else is refused with the differences listed,
unless the caller allows mixing; then the page says what differs.
"""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, replace
from typing import Any

from voxeval.errors import ConfigError
from voxeval.interop._results import METRICS, RunResults, Score

PRIMARY = {"da": "wlcs", "style": "vstyle", "dialogues": "turn_wlcs"}
"""The metric a benchmark's leaderboard ranks by (a dialogues row is a system under one history condition)."""


@dataclass(frozen=True)
class Row:
    """One ranked system of one run on one dataset."""

    rank: int
    """1 for the best (ties share no rank: order is value, then name)."""
    system: str
    """System name in its run."""
    run: str
    """The run directory."""
    dataset: str
    """Dataset name."""
    scores: dict[str, dict[str, float | int | None]]
    """Metric → ``{value, low, high, n, excluded}``."""
    latency: dict[str, float | None]
    """Median first-audio and total seconds."""
    tokens: tuple[int, int] | None
    """Reported input / output tokens."""
    cost_usd: float | None
    """Cost from the prices file (``None``: no price or no token counts)."""
    scorer: str
    """Annotator or judge."""
    validity: str
    """Its measured validity."""
    fingerprint: str
    """The run's config fingerprint."""
    reproduce: str
    """The command that reproduces the run."""


def _settings(r: RunResults) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "benchmark": r.benchmark,
        "datasets": r.datasets,
        "split": r.split,
        "limit": r.limit,
        "prompts": r.prompts,
        "annotator / judge": r.scorer,
    }
    if r.benchmark == "dialogues":
        settings["history conditions"] = list(r.histories)
    return settings


def differences(runs: list[RunResults]) -> list[str]:
    """Why the runs cannot be ranked together (empty: they can), each against the first run."""
    first = _settings(runs[0])
    out = []
    for run in runs[1:]:
        for key, value in _settings(run).items():
            if value != first[key]:
                out.append(f"{run.run_dir}: {key} {_show(value)} ≠ {_show(first[key])} in {runs[0].run_dir}")
    return out


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {str(v)[:12]}" for k, v in sorted(value.items())) + "}"
    return repr(value)


def _cost(tokens: tuple[int, int] | None, price: Any) -> float | None:
    if tokens is None or not price:
        return None
    return (tokens[0] * price["input_per_million"] + tokens[1] * price["output_per_million"]) / 1e6


def _row(run: RunResults, system: str, dataset: str, prices: dict[str, Any] | None) -> Row:
    scores: dict[str, dict[str, float | int | None]] = {}
    for s in run.scores:
        if (s.system, s.dataset) == (system, dataset):
            scores[s.metric] = {"value": s.value, "low": s.low, "high": s.high, "n": s.n, "excluded": s.excluded}
    facts = run.systems.get(system)
    tokens = facts.tokens if facts else None
    return Row(
        rank=0,
        system=system,
        run=str(run.run_dir),
        dataset=dataset,
        scores=scores,
        latency=dict(facts.latency) if facts else {},
        tokens=tokens,
        cost_usd=_cost(tokens, (prices or {}).get(system)),
        scorer=run.scorer,
        validity=run.validity,
        fingerprint=run.fingerprint,
        reproduce=shlex.join(run.command) if run.command else "(no command recorded)",
    )


def _order(benchmark: str, row: Row) -> tuple[bool, float, str]:
    metric = PRIMARY[benchmark]
    value = row.scores.get(metric, {}).get("value")
    sign = 1.0 if METRICS[metric]["lower_is_better"] else -1.0
    return (value is None, sign * float(value or 0.0), row.system)


def rank(runs: list[RunResults], *, allow_mixed: bool, prices: dict[str, Any] | None = None) -> dict[str, Any]:
    """The leaderboard of ``runs``: rows ranked by the benchmark's metric, and what differs between the runs.

    Refused (:class:`ConfigError`, the differences listed) when the runs differ and ``allow_mixed`` is false.
    """
    if not runs:
        raise ConfigError("a leaderboard needs at least one run")
    diffs = differences(runs)
    if diffs and not allow_mixed:
        raise ConfigError(
            "these runs cannot be ranked together (pass --allow-mixed to rank them anyway, marked as mixed):\n  "
            + "\n  ".join(diffs)
        )
    benchmark = runs[0].benchmark
    if benchmark not in PRIMARY:
        raise ConfigError(
            f"{runs[0].run_dir}: a {benchmark} run has no single ranking metric; leaderboards rank "
            f"{', '.join(PRIMARY)} runs (export its figures with voxeval export-results)"
        )
    rows = [
        _row(run, system, dataset, prices)
        for run in runs
        for system, dataset in dict.fromkeys((s.system, s.dataset) for s in run.scores)
    ]
    # Rows without the ranking metric (a dialogue run's gains between conditions, under the bare system name)
    # are not ranked; they stay in the results export.
    rows = [r for r in rows if PRIMARY[benchmark] in r.scores]
    ranked = [replace(r, rank=k) for k, r in enumerate(sorted(rows, key=lambda r: _order(benchmark, r)), 1)]
    return {
        "benchmark": benchmark,
        "metric": PRIMARY[benchmark],
        "metrics": sorted({m for r in rows for m in r.scores}, key=list(METRICS).index),
        "comparable": not diffs,
        "differences": diffs,
        "settings": _settings(runs[0]),
        "rows": [asdict(r) for r in ranked],
    }


def format_score(cell: dict[str, Any] | None) -> str:
    """``0.812 [0.781, 0.840]`` (or ``—``).

    >>> format_score({"value": 0.8125, "low": 0.75, "high": 0.875})
    '0.812 [0.750, 0.875]'
    """
    if not cell or cell.get("value") is None:
        return "—"
    text = f"{cell['value']:.3f}"
    return text + (f" [{cell['low']:.3f}, {cell['high']:.3f}]" if cell.get("low") is not None else "")


__all__ = ["Row", "Score", "differences", "format_score", "rank"]
