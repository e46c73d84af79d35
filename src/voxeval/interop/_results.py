"""A run's results as small typed records: what every export format and the leaderboard are written from.

Read-only over a run directory: the scores come from the benchmark's own reader (the same numbers as the report),
each with its 95% bootstrap interval where the benchmark scores per sample.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from voxeval.duplex._figures import STOP_WINDOW_S
from voxeval.errors import InputError, Location
from voxeval.llm.stream._options import StreamSettings


@dataclass(frozen=True)
class Score:
    """One metric of one system on one dataset."""

    dataset: str
    """Dataset name as the run records it (``ja-assistant``, ``ja-assistant:test``)."""
    system: str
    """System name in the run."""
    metric: str
    """A key of :data:`METRICS`: ``wlcs``, ``wed`` (da), ``vstyle`` (style), ``turn_wlcs``, … (dialogues),
    ``onset_latency_p50``, … (duplex)."""
    value: float | None
    """The score; ``None`` when nothing could be scored."""
    low: float | None = None
    """Lower end of the 95% bootstrap interval (``None``: no interval)."""
    high: float | None = None
    """Upper end of the 95% interval."""
    n: int = 0
    """Samples scored."""
    excluded: int = 0
    """Samples excluded (failed or unfinished)."""


METRICS: dict[str, dict[str, Any]] = {
    "wlcs": {"lower_is_better": False, "min": 0.0, "max": 1.0, "about": "weighted LCS of dialogue acts"},
    "wed": {"lower_is_better": True, "min": 0.0, "max": 2.0, "about": "weighted edit distance of dialogue acts"},
    "vstyle": {"lower_is_better": False, "min": 1.0, "max": 5.0, "about": "VStyle-weighted style adherence (1-5)"},
    "turn_wlcs": {"lower_is_better": False, "min": 0.0, "max": 1.0, "about": "mean turn WLCS of dialogue acts"},
    "turn_wed": {"lower_is_better": True, "min": 0.0, "max": 2.0, "about": "mean turn WED of dialogue acts"},
    "dialogue_success": {
        "lower_is_better": False, "min": 0.0, "max": 1.0,
        "about": "share of dialogues whose every scored turn holds its reference's most important act",
    },
    "context_gain": {
        "lower_is_better": False, "min": -1.0, "max": 1.0,
        "about": "turn WLCS with the reference history minus without history, on context-needed turns",
    },
    "drift": {
        "lower_is_better": True, "min": -1.0, "max": 1.0,
        "about": "turn WLCS with the reference history minus with the system's own earlier replies",
    },
    "onset_latency_p50": {
        "lower_is_better": True, "min": 0.0, "max": StreamSettings().answer_timeout_s,
        "about": "median seconds from the end of the user's turn to the reply's first audio (server events)",
    },
    "takeover_rate": {
        "lower_is_better": True, "min": 0.0, "max": 1.0,
        "about": "share of mid-turn pauses in which the model took the turn (server events)",
    },
    "stop_rate": {
        "lower_is_better": False, "min": 0.0, "max": 1.0,
        "about": "share of interruptions after which the speaking model stopped (server events)",
    },
    "stop_latency_p50": {
        "lower_is_better": True, "min": 0.0, "max": STOP_WINDOW_S,
        "about": "median seconds from an interruption's start to the model's stop (server events)",
    },
    "continuation_rate": {
        "lower_is_better": False, "min": 0.0, "max": 1.0,
        "about": "share of backchannels the speaking model talked on through (server events)",
    },
}  # fmt: skip
"""What each metric is, its range and which way is better (a duplex latency's range is its measurement window:
a session ends as ``timeout`` after the answer timeout of silence, a stop counts only within the stop window)."""


@dataclass(frozen=True)
class SystemFacts:
    """What a leaderboard row shows beside the scores."""

    latency: dict[str, float | None] = field(default_factory=dict)
    """Median first-audio and total seconds (``None``: not observed)."""
    replies: int = 0
    """Replies recorded."""
    tokens: tuple[int, int] | None = None
    """Input and output tokens the provider reported (``None``: none reported)."""


@dataclass(frozen=True)
class RunResults:
    """Everything exported from one run directory."""

    run_dir: Path
    """The run directory."""
    benchmark: str
    """``da``, ``style``, ``dialogues`` or ``duplex``."""
    fingerprint: str
    """The run's config fingerprint."""
    created: str
    """When the run was started (``config.json``)."""
    version: str
    """voxeval version that wrote the run."""
    command: tuple[str, ...]
    """The command line that made it (rerunning it reproduces the run)."""
    scorer: str
    """Annotator (da) or judge (style) spec."""
    validity: str
    """The scorer's measured validity, in words (``not measured`` when nothing was measured)."""
    datasets: dict[str, str]
    """Dataset name → sha256 of its file."""
    prompts: dict[str, str]
    """``system`` / ``user`` → sha256 of the prompt text."""
    split: str | None
    """Only this split of each dataset, if the run took one."""
    limit: int | None
    """Only the first N samples of each dataset, if the run was limited."""
    scores: tuple[Score, ...]
    """Every score of the run."""
    systems: dict[str, SystemFacts]
    """Facts per system name."""
    histories: tuple[str, ...] = ()
    """History conditions of a dialogues run (``gold``, ``own``, ``none``); empty for other benchmarks."""

    def to_json(self) -> dict[str, Any]:
        """The ``--format json`` record."""
        out = asdict(self)
        out["run_dir"] = str(self.run_dir)
        return out


def _interval(values: list[float]) -> tuple[float | None, float | None, float | None]:
    from voxeval.report._stats import bootstrap_ci

    iv = bootstrap_ci(values)
    return (None, None, None) if iv is None else (iv.mean, iv.low, iv.high)


def _da_scores(run_dir: Path) -> tuple[list[Score], dict[str, dict[str, Any]]]:
    from voxeval.benchmark._da import load_run

    data = load_run(run_dir)
    scores = []
    for s in data.sets:
        excluded = len(s.summary.excluded)
        for metric, values in (("wlcs", [x.wlcs for x in s.scores]), ("wed", [x.edit.total for x in s.scores])):
            mean, low, high = _interval(values)
            scores.append(Score(s.dataset, s.system, metric, mean, low, high, len(values), excluded))
    return scores, data.replies


def _style_scores(run_dir: Path) -> tuple[list[Score], dict[str, dict[str, Any]]]:
    from voxeval.io import read_json_object
    from voxeval.run._keys import read_run_log

    summary = read_json_object(run_dir / "summary.json") or {}
    config = read_json_object(run_dir / "config.json") or {}
    dataset = "+".join(config.get("datasets") or {}) or "style"
    scores = [
        Score(
            dataset,
            name,
            "vstyle",
            block.get("overall"),
            n=int(block.get("ok", 0)),
            excluded=int(block.get("failed", 0)),
        )
        for name, block in sorted((summary.get("systems") or {}).items())
    ]
    return scores, read_run_log(run_dir / "replies.jsonl")


def _facts(replies: dict[str, dict[str, Any]]) -> dict[str, SystemFacts]:
    from voxeval.report._latency import system_latency
    from voxeval.report._usage import usage_rows

    latency = {
        s.system: {
            name: (None if s.fields.get(name) is None else s.fields[name].median.value)  # type: ignore[union-attr]
            for name in ("first_audio_s", "total_s")
        }
        for s in system_latency(replies)
    }
    out = {}
    for system, calls, reported, tokens_in, tokens_out, _ in usage_rows(replies):
        tokens = (int(str(tokens_in)), int(str(tokens_out))) if reported else None
        out[str(system)] = SystemFacts(latency.get(str(system), {}), int(str(calls)), tokens)
    return out


def _validity(config: dict[str, Any], benchmark: str) -> str:
    """The scorer's measured validity in words: gold references are exact; else what was measured, and where."""
    from voxeval.report._trust import measured_system_level

    described = (config.get("components") or {}).get("judge" if benchmark == "style" else "annotator") or {}
    if described.get("annotator") == "gold":
        return "exact: the gold reference acts"
    found = measured_system_level(config) if benchmark == "da" else None
    if found and "all" in found[0]:
        wlcs = found[0]["all"]["wlcs"]
        low, high = wlcs.get("ci") or (None, None)
        ci = f" [{low:+.3f}, {high:+.3f}]" if low is not None else ""
        return f"WLCS bias {wlcs['delta']:+.3f}{ci} vs gold, n={found[0]['all']['n']} ({found[1]})"
    agreement = described.get("agreement") or described.get("measured")
    return f"measured: {agreement}" if isinstance(agreement, str) else "not measured"


def _scores(run_dir: Path, benchmark: str, config: dict[str, Any]) -> tuple[list[Score], dict[str, dict[str, Any]]]:
    from voxeval.interop._bench_results import dialogue_scores, duplex_scores

    if benchmark == "da":
        return _da_scores(run_dir)
    if benchmark == "style":
        return _style_scores(run_dir)
    if benchmark == "dialogues":
        return dialogue_scores(run_dir)
    return duplex_scores(run_dir, "+".join(config.get("datasets") or {}) or "duplex")


SUPPORTED = ("da", "style", "dialogues", "duplex")
"""Benchmarks whose runs export results and make leaderboards."""


def run_results(run_dir: Path) -> RunResults:
    """Read a finished (or partial) run directory's results; a folder that is no run, or a run of a benchmark
    without a results reader, is an :class:`InputError` naming it."""
    from voxeval.run._config import read_config

    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    settings = config["settings"]
    benchmark = settings.get("benchmark")
    where = Location(str(run_dir / "config.json"), field="settings.benchmark")
    if benchmark not in SUPPORTED:
        raise InputError(
            where, f"run {run_dir} is of benchmark {benchmark!r}: results export reads {', '.join(SUPPORTED)} runs"
        )
    if "fingerprint" not in config:
        raise InputError(
            Location(where.path, field="fingerprint"), f"run {run_dir} has no config fingerprint; not a `voxeval run`"
        )
    scores, replies = _scores(run_dir, str(benchmark), config)
    datasets = {k: str(v.get("sha256")) for k, v in (config.get("datasets") or {}).items() if isinstance(v, dict)}
    prompts = {k: str(v.get("sha256")) for k, v in (config.get("prompts") or {}).items() if isinstance(v, dict)}
    duplex = benchmark == "duplex"
    histories = (settings.get("extra") or {}).get("history") if benchmark == "dialogues" else None
    return RunResults(
        run_dir=run_dir,
        benchmark=str(benchmark),
        fingerprint=str(config["fingerprint"]),
        created=str(config.get("created") or ""),
        version=str(config.get("voxeval_version") or ""),
        command=tuple(str(a) for a in config.get("command") or ()),
        scorer="server events" if duplex else str(settings.get("annotator")),
        validity="turn-taking timed by the server's own events" if duplex else _validity(config, str(benchmark)),
        datasets=datasets,
        prompts=prompts,
        split=settings.get("split"),
        limit=config.get("limit"),
        scores=tuple(scores),
        systems=_facts(replies),
        histories=tuple(str(h) for h in histories or ()),
    )
