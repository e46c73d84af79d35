"""Run every ``benchmarks/bench_*.py`` once and write ``docs/performance.md`` (``make bench``).

Each benchmark prints JSON lines; this collects them into one table per benchmark. All numbers in the file come
from this one run on this machine, so ratios between them are meaningful; absolute times depend on the machine
and its load.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(script: Path) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if done.returncode != 0:
        return [{"benchmark": script.stem, "error": done.stderr.strip().splitlines()[-1:] or ["failed"]}]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def fmt(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def main() -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    sections = []
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        print(f"running {script.name} …", file=sys.stderr, flush=True)
        rows = run(script)
        keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k != "benchmark"]
        lines = [
            f"## {script.stem.removeprefix('bench_')}",
            "",
            (script.read_text().split('"""')[1]).strip(),
            "",
            "| " + " | ".join(keys) + " |",
            "|" + "---|" * len(keys),
        ]
        lines += ["| " + " | ".join(fmt(r.get(k, "")) for k in keys) + " |" for r in rows]
        sections.append("\n".join(lines))
    header = (
        f"# Performance\n\nMeasured by `make bench` on {started} ({platform.processor() or platform.machine()}, "
        f"{__import__('os').cpu_count()} cores, Python {platform.python_version()}). One run; machines here are "
        "noisy, so compare ratios within this file rather than absolute times across files.\n"
    )
    (ROOT / "docs" / "performance.md").write_text(header + "\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    print("wrote docs/performance.md", file=sys.stderr)


if __name__ == "__main__":
    main()
