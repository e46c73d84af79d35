"""A duplex run's summary: the four turn-taking figures per system and evidence with bootstrap intervals, the
outcome of every session, audio after cancels, and the interruption replies' WLCS / WED (pure over the records
and the annotation rows; :func:`summarise_duplex` reads and writes the files)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voxeval.duplex import (
    Evidence,
    Latency,
    Rate,
    SessionEnded,
    SessionRecord,
    audio_after_cancel,
    continuation,
    continuation_rate,
    onset_latency,
    onset_summary,
    stop,
    stop_latency,
    stop_rate,
    takeover,
    takeover_rate,
)

FIGURES = ("onset_latency", "takeover_rate", "stop_rate", "stop_latency", "continuation_rate")
"""The figures of a duplex summary, in report order."""


def _rate(rate: Rate) -> dict[str, Any]:
    i = rate.interval
    value = None if i is None else {"value": i.mean, "low": i.low, "high": i.high, "n": i.n}
    return {"evidence": rate.evidence, **(value or {"value": None, "n": 0}), "statuses": rate.statuses}


def _latency(latency: Latency) -> dict[str, Any]:
    def q(x: Any) -> dict[str, Any] | None:
        return None if x is None else {"value": x.value, "low": x.low, "high": x.high, "n": x.n}

    return {"evidence": latency.evidence, "p50": q(latency.p50), "p90": q(latency.p90), "statuses": latency.statuses}


def figures(records: Sequence[SessionRecord], evidence: Evidence) -> dict[str, Any]:
    """Every figure of one system's records by ``evidence`` (records of a scenario the figure is not about are
    left out; a figure of no records has no value and empty statuses)."""

    def of(kind: str) -> list[SessionRecord]:
        return [r for r in records if r.scenario.kind == kind]

    stops = [stop(r, evidence) for r in of("interruption")]
    return {
        "onset_latency": _latency(onset_summary([onset_latency(r, evidence) for r in of("end_of_turn")], evidence)),
        "takeover_rate": _rate(takeover_rate([takeover(r, evidence) for r in of("pause")], evidence)),
        "stop_rate": _rate(stop_rate(stops, evidence)),
        "stop_latency": _latency(stop_latency(stops, evidence)),
        "continuation_rate": _rate(continuation_rate([continuation(r, evidence) for r in of("backchannel")], evidence)),
    }


def system_summary(records: Sequence[SessionRecord]) -> dict[str, Any]:
    """One system: sessions by scenario and outcome, audio after cancels, and the figures by each evidence
    available (``vad`` only when every record has VAD spans)."""
    ends = [r.events[-1] for r in records]
    after = [audio_after_cancel(r) for r in records]
    evidences: list[Evidence] = ["server"]
    if records and all(r.model_speech is not None for r in records):
        evidences.append("vad")
    return {
        "sessions": dict(Counter(r.scenario.kind for r in records)),
        "outcomes": dict(Counter(e.outcome for e in ends if isinstance(e, SessionEnded))),
        "audio_after_cancel": {"chunks": sum(a.chunks for a in after), "seconds": sum(a.seconds for a in after)},
        "figures": {e: figures(records, e) for e in evidences},
    }


def summarise_records(records: Sequence[SessionRecord], systems: Sequence[str]) -> dict[str, Any]:
    """Every system's summary, in the run's order (a system without records has zero sessions)."""
    return {s: system_summary([r for r in records if r.system == s]) for s in systems}


def summarise_duplex(run_dir: Path, systems: Sequence[str], scored: dict[str, Any]) -> dict[str, Any]:
    """Read ``sessions.jsonl``, summarise, add the final replies' scores, write ``summary.json``."""
    from voxeval.benchmark._duplex_sessions import SESSIONS_LOG
    from voxeval.data import atomic_write_json
    from voxeval.duplex import read_records

    path = run_dir / SESSIONS_LOG
    records = [r for _, r in read_records(path)] if path.exists() else []
    per_system = summarise_records(records, systems)
    for system, scores in scored.items():
        per_system.setdefault(system, {})["interruption_reply"] = scores
    summary = {"benchmark": "duplex", "systems": per_system}
    atomic_write_json(run_dir / "summary.json", summary)
    return summary


def scored_reply_summary(scored: Any) -> dict[str, Any]:
    """WLCS / WED of a :class:`~voxeval.run.ScoredSet` of final replies, as summary JSON (with the bootstrap
    interval of each mean)."""
    from voxeval.report._stats import bootstrap_ci

    s = scored.summary

    def ci(values: list[float]) -> dict[str, Any] | None:
        i = bootstrap_ci(values)
        return None if i is None else {"value": i.mean, "low": i.low, "high": i.high, "n": i.n}

    return {
        "n": s.n,
        "excluded": dict(s.excluded),
        "wlcs": ci([x.wlcs for x in scored.scores]),
        "wed": ci([x.edit.total for x in scored.scores]),
    }
