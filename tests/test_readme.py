"""README's "What `make demo` does" stays a short numbered list; the measured timings live in docs/performance.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURED = re.compile(r"\d(\.\d+)?\s*(s|ms|min|minutes?|h)\b|\b\d\.\d{2,}\b|\d{4}-\d\d-\d\d")
"""A duration (``205 s``, ``~7 min``), a score (``0.597``) or a date: what belongs in docs/performance.md."""


def _section(text: str, heading: str) -> list[str]:
    after = text.split(heading + "\n", 1)[1]
    return re.split(r"\n#+ ", after, maxsplit=1)[0].strip().splitlines()


def test_the_demo_section_is_a_short_numbered_list_without_figures() -> None:
    lines = _section((ROOT / "README.md").read_text(encoding="utf-8"), "### What `make demo` does")
    items = [line for line in lines if re.match(r"\d+\. ", line)]
    assert [int(line.split(".")[0]) for line in items] == list(range(1, len(items) + 1)) and 3 <= len(items) <= 7
    assert len(lines) <= 20, f"{len(lines)} lines: keep the section a short list, details in docs/performance.md"
    assert not [line for line in lines if MEASURED.search(line)], "measured figures belong in docs/performance.md"
    assert "docs/performance.md#make-demo" in "\n".join(lines)


def test_the_measured_demo_timings_are_in_the_performance_doc_with_their_commands() -> None:
    lines = _section((ROOT / "docs/performance.md").read_text(encoding="utf-8"), "## `make demo`")
    rows = [line for line in lines if line.startswith("| `make demo")]
    assert len(rows) >= 5 and all(MEASURED.search(row) for row in rows[:3])
    assert any("DEMO_LANG=en" in row for row in rows)


def test_the_pattern_tells_figures_from_counts() -> None:
    assert all(MEASURED.search(t) for t in ("205 s", "~7 min", "WLCS 0.597", "measured 2026-11-28", "9–10 min"))
    assert not any(MEASURED.search(t) for t in ("the first 40 inputs", "24 instructions", "Qwen2.5 1.5B", "WLCS / WED"))
