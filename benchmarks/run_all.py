"""Run the benchmarks and write ``docs/performance.md`` (``make bench``; ``--quick`` for a short smoke run).

The benchmarks behind issue 18's figures run first (``benchmarks/figures.py`` lists them with their arguments,
targets and limits), then every other ``benchmarks/bench_*.py`` with no arguments. Each prints JSON lines; the file
gets a summary of the figures against target and limit, then one table per benchmark with the command, the
1-minute load average before and after it, and its rows. All numbers come from this one run on this machine, so
ratios between them are meaningful; absolute times depend on the machine and its load.

Only the part of the file between the ``bench:begin`` / ``bench:end`` markers is rewritten; notes outside are kept.
``--quick`` runs smaller sizes (size-bound targets are then not compared) and writes ``runs/performance-quick.md``
unless ``--out`` is given. The raw rows are kept in ``runs/bench-rows.json``; ``--render`` rewrites the file from
them without running anything; ``--only bench_x.py,…`` re-runs those benchmarks and keeps the others' saved results.
Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from figures import BENCHES, Bench, Figure, Row  # benchmarks/ is on the path when run as a script

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
"""Markers around the generated part of the output file."""


@dataclass
class Outcome:
    """One benchmark's run."""

    bench: Bench
    """What ran."""
    command: str
    """The command line, as a user would type it from the repository root."""
    rows: list[Row] = field(default_factory=list)
    """JSON rows it printed."""
    error: str = ""
    """Why it failed or did not run."""
    load: tuple[float, float] = (0.0, 0.0)
    """1-minute load average before and after."""
    seconds: float = 0.0
    """Wall time of the whole script."""
    at: str = ""
    """When it started (UTC); shown where it differs from the run's start (``--only`` re-runs)."""


def run(bench: Bench, args: tuple[str, ...], timeout: float) -> Outcome:
    """Run one benchmark script in its own process (this tree's ``src`` first on the path)."""
    script = ROOT / "benchmarks" / bench.script
    outcome = Outcome(bench, " ".join(["python", f"benchmarks/{bench.script}", *args]))
    if not script.exists():
        outcome.error = f"benchmarks/{bench.script} is missing (to be provided by {bench.owner or 'nobody'})"
        return outcome
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    outcome.at = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    before, started = os.getloadavg()[0], time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(script), *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        outcome.error = f"timed out after {timeout:.0f} s"
    else:
        if done.returncode != 0:
            outcome.error = (done.stderr.strip().splitlines() or ["failed"])[-1]
        outcome.rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    outcome.seconds = time.perf_counter() - started
    outcome.load = (before, os.getloadavg()[0])
    return outcome


def plan(quick: bool) -> list[tuple[Bench, tuple[str, ...]]]:
    """Benchmarks to run with their arguments: issue 18's first, then the other ``bench_*.py`` (full runs only)."""
    known = {b.script for b in BENCHES}
    others = [Bench(p.name) for p in sorted((ROOT / "benchmarks").glob("bench_*.py")) if p.name not in known]
    out = []
    for bench in [*BENCHES, *others]:
        args = bench.quick if quick else bench.args
        if args is not None:
            out.append((bench, args))
    return out


def fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(fmt(v) for v in value)
    return str(value).replace("|", "\\|")


def figure_line(figure: Figure, outcome: Outcome, rows: list[Row], quick: bool) -> str:
    """One row of the summary table."""
    value = figure.value(rows)
    sign = "≥" if figure.higher_is_better else "≤"
    target = f"{sign} {figure.target:g} {figure.unit}".strip()
    if value is None:
        measured, met = f"not measured: {outcome.error or 'no row holds it'}", "—"
    else:
        measured = f"{value:.4g} {figure.unit}".strip()
        met = "— (quick: smaller size)" if quick and figure.size_bound else ("yes" if figure.met(value) else "**no**")
    limit_value = figure.limit_value(rows)
    unit = figure.unit if figure.limit_unit is None else figure.limit_unit
    limit = figure.limit if limit_value is None else f"{figure.limit}: {limit_value:.4g} {unit}".rstrip()
    load = f"{outcome.load[0]:.1f} → {outcome.load[1]:.1f}" if outcome.seconds else "—"
    return f"| {figure.name} | {measured} | {target} | {met} | {limit} | {load} | `{outcome.command}` |"


def summary(outcomes: list[Outcome], quick: bool) -> str:
    rows = [r for o in outcomes for r in o.rows]
    lines = [
        "## Issue 18 figures against target and limit",
        "",
        "| figure | measured | target | met | limit it chases | load avg (1 min) | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        lines += [figure_line(f, outcome, rows, quick) for f in outcome.bench.figures]
    return "\n".join(lines)


def section(outcome: Outcome, started: str) -> str:
    """The benchmark's docstring, command, load and rows."""
    script = ROOT / "benchmarks" / outcome.bench.script
    doc = script.read_text(encoding="utf-8").split('"""')[1].strip() if script.exists() else ""
    lines = [f"## {outcome.bench.script.removesuffix('.py').removeprefix('bench_')}", "", doc, ""]
    if outcome.seconds:
        rerun = f", re-run on {outcome.at} UTC" if outcome.at and outcome.at != started else ""
        lines.append(f"`{outcome.command}` — {outcome.seconds:.0f} s{rerun}, load average {outcome.load[0]:.1f} → "
                     f"{outcome.load[1]:.1f}")  # fmt: skip
    if outcome.error:
        lines += ["", f"**Not measured / failed:** {outcome.error}"]
    keys = [k for k in dict.fromkeys(k for r in outcome.rows for k in r) if k != "benchmark"]
    if keys:
        lines += ["", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
        lines += ["| " + " | ".join(fmt(row.get(k, "")) for k in keys) + " |" for row in outcome.rows]
    return "\n".join(lines)


def render(outcomes: list[Outcome], quick: bool, started: str) -> str:
    cpu = platform.processor() or platform.machine()
    machine = f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"
    command = "python benchmarks/run_all.py --quick" if quick else "make bench"
    head = (
        f"Measured by `{command}` on {started} UTC ({machine}). One run; the machine is shared, so the load average "
        "is given with each benchmark: compare ratios within this file rather than absolute times across files."
    )
    if any(o.at and o.at != started for o in outcomes):
        head += " Benchmarks re-run alone later (`run_all.py --only`) say when under their heading."
    parts = [BEGIN, head, summary(outcomes, quick), *(section(o, started) for o in outcomes), END]
    return "\n\n".join(parts)


def write(path: Path, generated: str) -> None:
    """Replace the generated part of ``path`` (or create it), keeping hand-written notes outside the markers."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Performance\n"
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + generated + old[old.index(END) + len(END) :]
    else:
        new = old.rstrip("\n") + "\n\n" + generated + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")


def save(path: Path, outcomes: list[Outcome], quick: bool, started: str) -> None:
    """The run's raw results, so the file can be rendered again (``--render``) without re-running."""
    runs = [{"script": o.bench.script, **{k: v for k, v in vars(o).items() if k != "bench"}} for o in outcomes]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"quick": quick, "started": started, "runs": runs}, ensure_ascii=False, indent=1))


def load(path: Path) -> tuple[list[Outcome], bool, str]:
    """Outcomes saved by :func:`save` (benchmarks matched by script name)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    by_script = {b.script: b for b, _ in plan(False)}
    outcomes = []
    for run_ in data["runs"]:
        bench = by_script.get(run_.pop("script")) or Bench("unknown.py")
        outcomes.append(Outcome(bench, **{**run_, "load": tuple(run_["load"])}))
    return outcomes, data["quick"], data["started"]


def rerun(rows: Path, scripts: set[str], timeout: float) -> tuple[list[Outcome], bool, str]:
    """The saved outcomes with ``scripts`` run again (at the saved run's sizes); the others kept as they were."""
    if not rows.exists():
        raise SystemExit(
            f"run_all.py: error: --only re-runs benchmarks into the rows of an earlier full run ({rows}), "
            "and there are "
            "none: run `make bench` (or `python benchmarks/run_all.py`) once, or run the benchmark on its own "
            "(e.g. `python benchmarks/bench_metrics.py`)"
        )
    outcomes, quick, started = load(rows)
    sizes = dict((b.script, a) for b, a in plan(quick))
    unknown = scripts - set(sizes)
    if unknown:
        raise SystemExit(f"run_all.py: error: --only: no such benchmark: {', '.join(sorted(unknown))}")
    for i, outcome in enumerate(outcomes):
        if outcome.bench.script in scripts:
            print(f"running {outcome.bench.script} {' '.join(sizes[outcome.bench.script])} …", file=sys.stderr)
            outcomes[i] = run(outcome.bench, sizes[outcome.bench.script], timeout)
    return outcomes, quick, started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--out", type=Path, help="output file (default docs/performance.md; quick: runs/…-quick.md)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per benchmark")
    parser.add_argument("--rows", type=Path, default=ROOT / "runs" / "bench-rows.json", help="raw results file")
    parser.add_argument("--render", action="store_true", help="only render --rows again (no benchmark runs)")
    parser.add_argument("--only", help="re-run these scripts (comma-separated, e.g. bench_ray.py) and keep the "
                        "other benchmarks' results from --rows")  # fmt: skip
    args = parser.parse_args()
    if args.render:
        outcomes, quick, started = load(args.rows)
    elif args.only:
        outcomes, quick, started = rerun(args.rows, set(args.only.split(",")), args.timeout)
        save(args.rows, outcomes, quick, started)
    else:
        quick, started = args.quick, time.strftime("%Y-%m-%d %H:%M", time.gmtime())
        outcomes = []
        for bench, bench_args in plan(quick):
            print(f"running {bench.script} {' '.join(bench_args)} …", file=sys.stderr, flush=True)
            outcomes.append(run(bench, bench_args, args.timeout))
            if outcomes[-1].error:
                print(f"  {outcomes[-1].error}", file=sys.stderr, flush=True)
        save(args.rows, outcomes, quick, started)
    out = args.out or ROOT / ("runs/performance-quick.md" if quick else "docs/performance.md")
    write(out, render(outcomes, quick, started))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
