"""Benchmarks: the registry of what ``voxeval run --benchmark`` can run, and the report of any voxeval folder.

A benchmark implements :class:`voxeval.run.Benchmark` and registers a factory here; the command line and the
runner find it by name. Built in: ``da`` (dialogue acts, spec 003), ``style`` (VStyle judge, spec 002) and
``dialogues`` (multi-turn dialogue acts under three kinds of history) and ``duplex`` (turn-taking on streamed
sessions).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, InputError, Location
from voxeval.registry import Registry
from voxeval.run import Benchmark

benchmarks: Registry[Callable[[], Benchmark]] = Registry("benchmark")
"""Benchmark factories by ``--benchmark`` name."""


@benchmarks.register("da")
def _da() -> Benchmark:
    from voxeval.benchmark._da import DialogueActsBenchmark

    return DialogueActsBenchmark()


@benchmarks.register("style")
def _style() -> Benchmark:
    from voxeval.benchmark._style import StyleBenchmark

    return StyleBenchmark()


@benchmarks.register("dialogues")
def _dialogues() -> Benchmark:
    from voxeval.benchmark._dialogues import DialoguesBenchmark

    return DialoguesBenchmark()


@benchmarks.register("duplex")
def _duplex() -> Benchmark:
    from voxeval.benchmark._duplex import DuplexBenchmark

    return DuplexBenchmark()


def get_benchmark(name: str) -> Benchmark:
    """The benchmark registered as ``name``."""
    return benchmarks.get(name)()


def benchmark_of(run_dir: Path) -> Benchmark:
    """The benchmark whose folder ``run_dir`` is: a run names it in ``config.json``; a ``voxeval judge`` folder is
    a style folder."""
    from voxeval.run._config import read_config

    path = run_dir / "config.json"
    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    settings = config["settings"]
    name = settings.get("benchmark") or ("style" if "judge" in settings else None)
    if name is None:
        raise InputError(Location(str(path), field="settings.benchmark"), "missing: cannot tell which report to build")
    return get_benchmark(name)


def build_reports(
    run_dir: Path, human: Path | None = None, prices: Path | None = None, content: str | None = None
) -> dict[str, Path]:
    """Write the report files of any folder voxeval writes (a run, a ``voxeval judge`` folder); ``content`` (a
    span similarity) adds WLCS-c / WED-c to a dialogue-act report."""
    from voxeval.report._usage import read_prices

    bench = benchmark_of(run_dir)
    if content is None:
        return bench.report(run_dir, human, read_prices(prices))
    if bench.name not in ("da", "dialogues"):
        raise ConfigError(f"--content applies to dialogue-act reports only; {run_dir} is a {bench.name} run")
    report: Any = bench.report
    paths: dict[str, Path] = report(run_dir, human, read_prices(prices), content)
    return paths


__all__ = ["benchmark_of", "benchmarks", "build_reports", "get_benchmark"]
