"""``voxeval score`` gives today's outputs byte for byte (captured before the streaming rewrite) and today's errors.

The fixtures under ``data/score_identity`` were written by the in-memory scorer: the paper's examples, a messy
random set (shuffled, missing, failed, empty, lenient labels, zero weights, integer ids) and a plain one with
extra ids. The only intended difference is voxeval's gold coverage (a key per row and two summary keys), which
is stripped before comparing; Table 1 gains its column, checked separately.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.score_error_cases import HERE, cases, run_case
from voxeval.cli import main

SETS = [
    ("paper", "examples/paper/gold.jsonl", "examples/paper/pred.jsonl", "paper/expected", []),
    ("messy", "messy/gold.jsonl", "messy/pred.jsonl", "messy/expected", []),
    ("plain", "plain/gold.jsonl", "plain/pred.jsonl", "plain/expected", []),
    (
        "extra",
        "plain/gold.jsonl",
        "plain/pred_extra.jsonl",
        "plain/expected_extra",
        ["--ignore-extra", "--dataset-name", "ds|x", "--system-name", "sys"],
    ),
]
ROOT = Path(__file__).resolve().parents[2]
COVERAGE_NOTE = (
    " Gold coverage is voxeval's addition, not the paper's: the share of the gold importance a reply covers "
    "(LCS with gold-side weights), so a one-act reply cannot look perfect the way it can under WLCS."
)


def strip_coverage(text: str) -> str:
    """Today's output without voxeval's gold-coverage additions."""
    text = re.sub(r',"gold_coverage":[^,]+', "", text)
    text = re.sub(r'\n  "gold_coverage_(mean|std)": [^\n]+', "", text)
    return text


@pytest.mark.parametrize(("name", "gold", "pred", "expected", "extra"), SETS, ids=[s[0] for s in SETS])
def test_outputs_identical_to_before(tmp_path, capsys, name, gold, pred, expected, extra) -> None:
    base = HERE if not gold.startswith("examples") else ROOT
    out = tmp_path / "out"
    assert main(["score", "--gold", str(base / gold), "--pred", str(base / pred), "--out", str(out), *extra]) == 0
    stdout = capsys.readouterr().out
    want = HERE / expected
    for name_ in ("scores.jsonl", "summary.json"):
        assert strip_coverage((out / name_).read_text(encoding="utf-8")) == (want / name_).read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert 0.0 <= summary["gold_coverage_mean"] <= 1.0
    for got, file in ((stdout, "stdout.txt"), ((out / "report.md").read_text(encoding="utf-8"), "report.md")):
        before = (want / file).read_text(encoding="utf-8").replace(str(want.relative_to(ROOT)), str(out))
        assert _without_coverage_column(got) == before, file


def _without_coverage_column(text: str) -> str:
    """Table 1 without its gold coverage column (the one after WLCS std)."""
    lines, in_table = [], False
    for line in text.splitlines(keepends=True):
        in_table = line.startswith("| dataset | system | n |") or (in_table and line.startswith("|"))
        if in_table:
            cells = re.split(r"(?<!\\)\|", line)  # cells may hold escaped bars (\|)
            del cells[6]
            line = "|".join(cells)
        lines.append(line)
    return "".join(lines).replace(COVERAGE_NOTE, "")


ERRORS = json.loads((HERE / "errors.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("name", "gold", "pred", "extra"), cases(), ids=[c[0] for c in cases()])
def test_errors_and_outputs_identical_to_before(tmp_path, name, gold, pred, extra) -> None:
    code, err, files = run_case(tmp_path, gold, pred, extra)
    want = ERRORS[name]
    assert (code, err) == (want["code"], want["stderr"])
    stripped = {k: strip_coverage(v) if k != "report.md" else _without_coverage_column(v) for k, v in files.items()}
    assert stripped == want["files"]
