"""Latency per system (median and p90 with bootstrap CIs) and the comparison of two runs' latencies (pure).

Built from reply rows' ``latency`` records (:mod:`voxeval.run._latency`): seconds on the client's monotonic clock,
network included, from the end of the input. Every call that returned a reply has one (an empty or oversized
reply took its time too); a call that raised has none and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from voxeval.report._escape import fixed
from voxeval.report._stats import QuantileInterval, bootstrap_quantile_ci, paired_test

SUMMARISED = ("first_audio_s", "first_text_s", "total_s", "rtf")
"""Latency fields summarised per system, in table order."""
LABELS = {"first_audio_s": "first audio s", "first_text_s": "first text s", "total_s": "total s", "rtf": "RTF"}
"""Column names of the fields."""


@dataclass(frozen=True)
class FieldStats:
    """One latency field of one system."""

    median: QuantileInterval
    """Median with its CI."""
    p90: QuantileInterval
    """90th percentile with its CI."""


@dataclass(frozen=True)
class SystemLatency:
    """The latency of one system's replies."""

    system: str
    """System name."""
    replies: int
    """Replies with a latency record."""
    timed_by: tuple[str, ...]
    """Who measured (``system``: streaming timings; ``call``: the whole call), as found in the rows."""
    fields: Mapping[str, FieldStats | None]
    """Stats per field of :data:`SUMMARISED`; ``None`` when no reply observed it (e.g. no audio)."""


def latency_values(rows: Iterable[Mapping[str, Any]], name: str) -> list[float]:
    """The observed values of one latency field (rows without a latency record and unobserved values left out)."""
    out = []
    for row in rows:
        latency = row.get("latency")
        if not isinstance(latency, dict):
            continue
        value = latency.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(float(value))
    return out


def field_stats(values: list[float]) -> FieldStats | None:
    """Median and p90 with bootstrap CIs; ``None`` for no values."""
    median, p90 = bootstrap_quantile_ci(values, 0.5), bootstrap_quantile_ci(values, 0.9)
    return None if median is None or p90 is None else FieldStats(median, p90)


def system_latency(replies: Mapping[str, Mapping[str, Any]]) -> list[SystemLatency]:
    """One summary per system (sorted by name) over every dataset of the run."""
    by_system: dict[str, list[Mapping[str, Any]]] = {}
    for row in replies.values():
        if isinstance(row.get("latency"), dict):
            by_system.setdefault(str(row.get("system")), []).append(row)
    out = []
    for system, rows in sorted(by_system.items()):
        timed = tuple(sorted({str(r["latency"].get("timed_by")) for r in rows}))
        fields = {name: field_stats(latency_values(rows, name)) for name in SUMMARISED}
        out.append(SystemLatency(system, len(rows), timed, fields))
    return out


def _q(iv: QuantileInterval) -> str:
    digits = 3 if iv.value < 10 else 1
    return f"{fixed(iv.value, digits)} [{fixed(iv.low, digits)}, {fixed(iv.high, digits)}]"


LATENCY_HEAD = [
    "system",
    "replies",
    "timed by",
    *(f"{LABELS[f]} {stat}" for f in SUMMARISED for stat in ("median [95% CI]", "p90 [95% CI]")),
]
"""Columns of the latency rows in ``tables.csv`` (every field, whoever timed it)."""


def latency_rows(summaries: list[SystemLatency]) -> list[list[object]]:
    """The latency rows of ``tables.csv`` (:data:`LATENCY_HEAD`)."""
    rows: list[list[object]] = []
    for s in summaries:
        cells: list[object] = [s.system, s.replies, "/".join(s.timed_by)]
        for name in SUMMARISED:
            stats = s.fields[name]
            cells += ["—", "—"] if stats is None else [_q(stats.median), _q(stats.p90)]
        rows.append(cells)
    return rows


TIMING_FIELDS = ("first_audio_s", "first_text_s", "total_s")
"""The fields that are one number for a system timed by call (the whole call's duration)."""
SAME_AS_TOTAL = "= total"
"""The cell of a first-audio or first-text column for a system timed by call, in a table with streamed systems."""


def latency_columns(summaries: list[SystemLatency]) -> list[tuple[str, str]]:
    """(field, column name) of the fields the table shows: for systems all timed by call one ``reply s`` (their
    first audio, first text and total are the same number), else first audio, first text and total; and RTF. A
    field no system observed (no audio, say) gets no column."""
    observed = {f for s in summaries for f, stats in s.fields.items() if stats is not None}
    if all(s.timed_by == ("call",) for s in summaries):
        timing = [("total_s", "reply s")]
    else:
        timing = [(f, LABELS[f]) for f in TIMING_FIELDS]
    return [(f, name) for f, name in [*timing, ("rtf", LABELS["rtf"])] if f in observed]


def _cells(s: SystemLatency, field: str, compact: bool) -> list[str]:
    stats = s.fields[field]
    if stats is None:
        return ["—"] if compact else ["—", "—"]
    if field in TIMING_FIELDS[:2] and s.timed_by == ("call",):
        return [SAME_AS_TOTAL] if compact else [SAME_AS_TOTAL, SAME_AS_TOTAL]
    if compact:
        digits = 3 if stats.p90.value < 10 else 1
        return [f"{stats.median.value:.{digits}f} / {stats.p90.value:.{digits}f}"]
    return [_q(stats.median), _q(stats.p90)]


def latency_table(summaries: list[SystemLatency], *, compact: bool = False) -> tuple[list[str], list[list[object]]]:
    """The latency table a person reads, with the columns of :func:`latency_columns`: each field's median and p90
    with their 95% CIs, or (``compact``, for a terminal) one ``median / p90`` cell per field, headed by its name.
    (``tables.csv`` keeps every field: :data:`LATENCY_HEAD`.)"""
    columns = latency_columns(summaries)
    stats = ("median [95% CI]", "p90 [95% CI]")
    named = [name for _, name in columns] if compact else [f"{name} {stat}" for _, name in columns for stat in stats]
    head = ["system", "replies", "timed by", *named]
    rows: list[list[object]] = [
        [s.system, s.replies, "/".join(s.timed_by), *(c for f, _ in columns for c in _cells(s, f, compact))]
        for s in summaries
    ]
    return head, rows


LATENCY_NOTE = (
    "Seconds from the end of the input audio, on voxeval's monotonic clock (client side, network included). "
    "Timed by system: the streaming system reports its first audio byte, first text and end of reply; timed by "
    "call: the reply stage timed the whole request, so first audio = first text = total (one reply s column when "
    'every system is timed by call; "= total" beside streamed systems). RTF = total / reply '
    "audio duration (below 1: produced faster than it plays). 95% CIs: percentile bootstrap of the median and "
    "p90, 2000 resamples, seed 0. Calls that raised (failed replies) have no latency and are left out."
)
"""What the latency table means (shown under it)."""


def compare_latency(a_rows: Mapping[str, Mapping[str, Any]], b_rows: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Latency of the same samples in run A and run B: medians and the paired B − A difference per field.

    ``a_rows`` / ``b_rows``: one system's reply rows by sample (``(dataset, id)`` rendered as a string key).
    """
    out: dict[str, Any] = {}
    for name in ("first_audio_s", "total_s"):
        va, vb = _by_key(a_rows, name), _by_key(b_rows, name)
        common = sorted(set(va) & set(vb))
        test = paired_test([vb[k] for k in common], [va[k] for k in common])
        ma, mb = bootstrap_quantile_ci(list(va.values()), 0.5), bootstrap_quantile_ci(list(vb.values()), 0.5)
        out[name] = {
            "median_a": None if ma is None else ma.value,
            "median_b": None if mb is None else mb.value,
            "paired_n": len(common),
            "b_minus_a": None if test is None else test.mean_diff,
            "ci": None if test is None else [test.ci.low, test.ci.high],
            "p_value": None if test is None else test.p_value,
        }
    return out


def _by_key(rows: Mapping[str, Mapping[str, Any]], name: str) -> dict[str, float]:
    out = {}
    for key, row in rows.items():
        found = latency_values([row], name)
        if found:
            out[key] = found[0]
    return out
