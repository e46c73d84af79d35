"""The outputs of ``score``, ``judge``, ``annotate`` and two small runs equal those of the code before the spine.

``before.json`` holds the normalised outputs of commit 7dcbe03 (see ``capture.py``). The only differences
allowed are listed in ``CHANGED``, each with the reason (a bug fix or a documented format change).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.equivalence.capture import capture

BEFORE = Path(__file__).with_name("before.json")

USAGE = "bug fix: reports now show the usage-and-cost table (`--prices` was parsed and ignored)"

OUTCOME = (
    "reply rows record their `outcome` (issue 16: one outcome taxonomy for every system kind; docs/reliability.md)"
)

CHANGED: dict[tuple[str, str], str] = {
    ("run-da", "report.html"): USAGE,
    ("run-da", "report.md"): USAGE,
    ("run-style", "report.html"): USAGE,
    ("run-style", "report.md"): USAGE,
    ("run-da", "<stdout>"): "Table 1 gains voxeval's gold-coverage column (issue 17) and the latency table (issue 30)",
    ("score", "<stdout>"): "Table 1 gains voxeval's gold-coverage column (issue 17)",
    ("score", "report.md"): "Table 1 gains voxeval's gold-coverage column (issue 17)",
    ("run-da", "replies.jsonl"): OUTCOME,
    ("run-style", "replies.jsonl"): OUTCOME,
    ("run-da", "config.json"): "ja-assistant conformed to the labelling guide's settled cases (issue 17): new sha256",
    ("run-da", "tables.csv"): "the latency table (issue 30): per-system reply latency, measured, so never equal",
    ("run-style", "<stdout>"): "the latency table (issue 30): per-system reply latency under the style scores",
    ("score", "config.json"): "new: records the gold and prediction files, so `voxeval report` can rebuild the folder",
}
"""(command, file) whose content may differ from ``before.json``, and why."""


COVERAGE = "gold_coverage"
"""voxeval's gold-side LCS (issue 17), a new key in rows and summaries: removed before comparing."""


def without_coverage(value: Any) -> Any:
    """``value`` without the keys of the gold-coverage addition."""
    if isinstance(value, dict):
        return {k: without_coverage(v) for k, v in value.items() if not k.startswith(COVERAGE)}
    if isinstance(value, list):
        return [without_coverage(v) for v in value]
    return value


def test_outputs_are_unchanged_apart_from_documented_fixes() -> None:
    before: dict[str, Any] = json.loads(BEFORE.read_text(encoding="utf-8"))
    after = capture()
    assert set(after) == set(before)
    for command, old in before.items():
        new = after[command]
        assert new["exit"] == old["exit"], command
        names = set(old["files"]) | set(new["files"])
        for name in sorted(names):
            if (command, name) in CHANGED:
                continue
            got = without_coverage(new["files"].get(name))
            if isinstance(got, list):  # JSONL rows, sorted by their text: sort again without the new key
                got = sorted(got, key=lambda r: json.dumps(r, sort_keys=True, ensure_ascii=False))
            assert got == old["files"].get(name), f"{command}: {name} changed"
        if (command, "<stdout>") not in CHANGED:
            assert new["stdout"] == old["stdout"], f"{command}: printed output changed"
