"""The figures over many sessions: rates and latency quantiles with 95% bootstrap intervals (pure, seeded).

Every summary keeps the count of each status, so sessions a figure does not apply to (no reply to interrupt, the
model silent at a backchannel, a record whose interruption was never sent) are listed, not silently dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from voxeval.duplex._bargein import Continuation, Stop
from voxeval.duplex._figures import Evidence, OnsetLatency, Takeover

if TYPE_CHECKING:
    from voxeval.report._stats import Interval, QuantileInterval


class _Result(Protocol):
    @property
    def evidence(self) -> Evidence: ...

    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class Rate:
    """A share of sessions with its bootstrap interval."""

    evidence: Evidence
    """What the figures were computed from."""
    interval: Interval | None
    """Mean of the 0/1 outcomes over the sessions counted, with its 95% interval; ``None`` when none counted."""
    statuses: dict[str, int]
    """Sessions by status, counted or not."""


@dataclass(frozen=True)
class Latency:
    """Latency quantiles with their bootstrap intervals."""

    evidence: Evidence
    """What the figures were computed from."""
    p50: QuantileInterval | None
    """Median, seconds; ``None`` when nothing was measured."""
    p90: QuantileInterval | None
    """90th percentile, seconds."""
    statuses: dict[str, int]
    """Sessions by status, measured or not."""


def _statuses(results: Sequence[_Result], evidence: Evidence) -> dict[str, int]:
    other = sorted({r.evidence for r in results} - {evidence})
    if other:
        raise ValueError(f"a summary of {evidence} evidence was given figures of {', '.join(other)} evidence")
    return dict(Counter(r.status for r in results))


def _rate(results: Sequence[_Result], evidence: Evidence, hit: str, counted: set[str]) -> Rate:
    from voxeval.report._stats import bootstrap_ci

    statuses = _statuses(results, evidence)
    outcomes = [1.0 if r.status == hit else 0.0 for r in results if r.status in counted]
    return Rate(evidence, bootstrap_ci(outcomes), statuses)


def _latency(results: Sequence[_Result], evidence: Evidence, values: list[float]) -> Latency:
    from voxeval.report._stats import bootstrap_quantile_ci

    statuses = _statuses(results, evidence)
    return Latency(evidence, bootstrap_quantile_ci(values, 0.5), bootstrap_quantile_ci(values, 0.9), statuses)


def onset_summary(results: Sequence[OnsetLatency], evidence: Evidence) -> Latency:
    """Response onset latency p50 / p90 over the sessions where it was measured."""
    return _latency(results, evidence, [r.latency_s for r in results if r.latency_s is not None])


def takeover_rate(results: Sequence[Takeover], evidence: Evidence) -> Rate:
    """Share of sent pauses where the model took the turn."""
    return _rate(results, evidence, "took_over", {"took_over", "waited"})


def stop_rate(results: Sequence[Stop], evidence: Evidence) -> Rate:
    """Share of interruptions of a speaking model after which it stopped."""
    return _rate(results, evidence, "stopped", {"stopped", "kept_talking"})


def stop_latency(results: Sequence[Stop], evidence: Evidence) -> Latency:
    """Stop latency p50 / p90 over the interruptions the model stopped for."""
    return _latency(results, evidence, [r.latency_s for r in results if r.latency_s is not None])


def continuation_rate(results: Sequence[Continuation], evidence: Evidence) -> Rate:
    """Share of backchannels over a speaking model that it talked on through (stopping or restarting counts
    against; a reply the server says ended on its own is not counted)."""
    return _rate(results, evidence, "continued", {"continued", "stopped", "restarted"})
