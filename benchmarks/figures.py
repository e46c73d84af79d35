"""The figures of issue 18 that ``make bench`` records: which benchmark row holds each, its target and its limit.

A figure is one field of one JSON row printed by a ``benchmarks/bench_*.py`` script; its limit is the field of a
row (of the same or another benchmark) it is measured against: the plain-Python reference, the batched annotator,
the full 30 s Whisper window, the ideal concurrency, a bare interpreter start.
"""

from __future__ import annotations

from dataclasses import dataclass

Row = dict[str, object]


@dataclass(frozen=True)
class Figure:
    """One number issue 18 sets a target for."""

    name: str
    """What is measured."""
    match: tuple[tuple[str, object], ...]
    """Fields (name, value) that identify the row holding the figure."""
    field: str
    """The row's field holding the figure."""
    unit: str
    """Unit shown after the value."""
    target: float
    """The target (issue 18)."""
    higher_is_better: bool
    """``True``: met when the figure ≥ target; ``False``: when ≤ target."""
    limit: str
    """What the figure is measured against."""
    limit_match: tuple[tuple[str, object], ...] = ()
    """Fields identifying the row holding the limit's value (none: the limit is described, not measured)."""
    limit_field: str = ""
    """The limit row's field."""
    limit_unit: str | None = None
    """Unit of the limit's value (None: the figure's unit)."""
    size_bound: bool = False
    """The target holds at the full size only (``--quick`` runs a smaller size: not compared)."""

    def value(self, rows: list[Row]) -> float | None:
        """The figure in ``rows``, or None when no row holds it."""
        return _pick(rows, self.match, self.field)

    def limit_value(self, rows: list[Row]) -> float | None:
        """The limit's value in ``rows``, when it is measured."""
        return _pick(rows, self.limit_match, self.limit_field) if self.limit_match else None

    def met(self, value: float) -> bool:
        """Whether ``value`` meets the target."""
        return value >= self.target if self.higher_is_better else value <= self.target


def _pick(rows: list[Row], match: tuple[tuple[str, object], ...], field: str) -> float | None:
    for row in rows:
        if all(row.get(k) == v for k, v in match) and isinstance(row.get(field), int | float):
            return float(row[field])  # type: ignore[arg-type]
    return None


@dataclass(frozen=True)
class Bench:
    """One benchmark script as ``make bench`` runs it."""

    script: str
    """File name under ``benchmarks/``."""
    args: tuple[str, ...] = ()
    """Arguments of the full run."""
    quick: tuple[str, ...] | None = None
    """Arguments under ``--quick``; None: skipped under ``--quick``."""
    figures: tuple[Figure, ...] = ()
    """Issue 18 figures this script measures."""
    owner: str = ""
    """Who provides the script when it is a hook for another area's benchmark."""


def _m(**fields: object) -> tuple[tuple[str, object], ...]:
    return tuple(fields.items())


METRICS = Bench(
    "bench_metrics.py",
    ("--pairs", "1000000", "--repeats", "3"),
    ("--pairs", "100000", "--repeats", "1"),
    (
        Figure("voxeval score, 1M pairs: wall time", _m(benchmark="metrics", program="voxeval"), "wall_s", "s", 15,
               False, "plain-Python reference, same rows", _m(benchmark="metrics", program="reference"), "wall_s",
               size_bound=True),
        Figure("voxeval score, 1M pairs: peak memory (RSS summed over its processes)",
               _m(benchmark="metrics", program="voxeval"), "tree_rss_mb", "MB",
               500, False, "plain-Python reference", _m(benchmark="metrics", program="reference"), "peak_mb",
               size_bound=True),
        Figure("voxeval score: speed-up over the reference", _m(benchmark="metrics", program="voxeval"),
               "speedup_vs_reference_wall", "×", 3.5, True, "1× = the plain-Python reference",
               size_bound=True),  # voxeval's fixed start-up weighs more on fewer pairs
    ),
)  # fmt: skip
ANNOTATOR = Bench(
    "bench_annotator.py",
    (),
    (),
    (
        Figure("voxeval annotate --annotator offline, 3,000 replies incl. start-up (issue 18's input: 336 replies "
               "cycled)", _m(benchmark="annotator", input="repeated"), "command_replies_per_s", "replies/s", 1000,
               True, "annotate_batch after loading", _m(benchmark="annotator", input="repeated"),
               "annotate_batch_replies_per_s"),
        Figure("voxeval annotate, 3,000 distinct replies incl. start-up", _m(benchmark="annotator", input="distinct"),
               "command_replies_per_s", "replies/s", 1000, True, "annotate_batch after loading",
               _m(benchmark="annotator", input="distinct"), "annotate_batch_replies_per_s"),
    ),
)  # fmt: skip
ASR = Bench(
    "bench_asr.py",
    ("--clips", "12", "--repeats", "3"),
    ("--clips", "12", "--repeats", "3", "--full-repeats", "1"),
    (
        Figure("ASR per short clip (≤ 3 s), language known, one at a time",
               _m(benchmark="asr", language="ja", path="short_path"), "s_per_clip", "s", 0.4, False,
               "faster-whisper's 30 s window", _m(benchmark="asr", language="ja", path="full_window"), "s_per_clip"),
        Figure("ASR per short clip, language known, batched",
               _m(benchmark="asr", language="ja", path="short_path_batched"), "s_per_clip", "s", 0.4, False,
               "faster-whisper's 30 s window", _m(benchmark="asr", language="ja", path="full_window"), "s_per_clip"),
        Figure("ASR per short clip, language detected, batched",
               _m(benchmark="asr", language="detected", path="short_path_batched"), "s_per_clip", "s", 0.4, False,
               "faster-whisper's 30 s window + language pass",
               _m(benchmark="asr", language="detected", path="full_window"), "s_per_clip"),
        Figure("ASR short path CER minus the full window's (language known)",
               _m(benchmark="asr", language="ja", path="short_path_batched"), "cer_minus_full", "", 0.01, False,
               "0 = what the 30 s window hears"),
    ),
)  # fmt: skip
PROVIDERS = Bench(
    "bench_providers.py",
    ("--repeats", "3", "--per-width", "20"),
    ("--repeats", "1", "--per-width", "10", "--client", "pooled"),
    (
        Figure("reply stage at width 4 (mock in its own process)",
               _m(benchmark="reply_stage", client="pooled", width=4), "ratio_to_ideal", "× ideal", 1.05, False,
               "ideal N × latency / width", _m(benchmark="reply_stage", client="pooled", width=4), "ideal_s",
               limit_unit="s"),
        Figure("reply stage at width 64", _m(benchmark="reply_stage", client="pooled", width=64), "ratio_to_ideal",
               "× ideal", 1.5, False, "ideal N × latency / width",
               _m(benchmark="reply_stage", client="pooled", width=64), "ideal_s", limit_unit="s"),
    ),
)  # fmt: skip
STARTUP = Bench(
    "bench_startup.py",
    ("--runs", "21"),
    ("--runs", "5"),
    (
        Figure("voxeval --help start-up", _m(benchmark="startup", command="voxeval --help"), "median_wall_s", "s",
               0.2, False, "python -c pass", _m(benchmark="startup", command="python -c pass"), "median_wall_s"),
    ),
)  # fmt: skip

OTHERS = (
    Bench("bench_runner.py", (), ("--samples", "64", "--concurrency", "16,64")),
    Bench("bench_acoustic.py", (), ()),
    Bench("bench_synthesis.py", (), ("--limit", "60")),
    Bench("bench_realtime.py", (), ("--rounds", "1")),
    Bench("bench_duplex.py", (), ("--rounds", "1")),
)
"""Benchmarks without an issue 18 figure that still run under ``--quick`` (smaller)."""

BENCHES: tuple[Bench, ...] = (METRICS, ANNOTATOR, ASR, PROVIDERS, STARTUP, *OTHERS)
"""The benchmarks behind issue 18's figures, in the order they run, then others; every ``bench_*.py`` not listed
here runs after them with no arguments (skipped under ``--quick``)."""
