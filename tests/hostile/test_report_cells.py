"""Report cells made inert (issue 31, groups 6 and 7): no raw HTML in ``report.md``, no formula in a CSV cell.

Values in a report come from outside: reply texts, sample ids, input texts, dataset file names, model names from a
VStyle file. ``voxeval.report._escape`` is the one place they are neutralised, for every Markdown and CSV writer.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, pred_row, write_jsonl
from voxeval.cli import main
from voxeval.judge import EachReply, Judgement, StyleItem, judges
from voxeval.testing.mockserver import sine_wav

XSS = "<img src=x onerror=alert(1)>"
PAYLOADS = [XSS, "<script>alert(1)</script>", "a | b | <b>c</b> & d", "</td><svg onload=alert(1)>"]
FORMULAS = ['=HYPERLINK("http://x";"y")', "+1+cmd", "-2+3", "@SUM(1+1)"]


def _table_rows(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("|")]


def _columns(row: str) -> int:
    """Cells in a Markdown table row, counting only unescaped pipes."""
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def _assert_inert_markdown(md: str) -> None:
    assert "<img" not in md and "<script" not in md and "<svg" not in md and "<b>" not in md and "</td>" not in md
    for table in md.split("\n\n"):
        rows = _table_rows(table)
        assert len({_columns(r) for r in rows}) <= 1, f"a cell broke its table: {rows}"


@pytest.mark.parametrize(
    ("field", "payload"), list(zip(["id", "reply", "input", "gold-reply"], PAYLOADS, strict=True)), ids=lambda v: v[:8]
)
def test_score_report_md_escapes_html_and_pipes_in_every_cell(tmp_path, field, payload) -> None:
    sid = payload if field == "id" else "a"
    gold = gold_row(sid, [("Answer", 1.0)])
    if field == "input":
        gold["input"]["text"] = payload
    if field == "gold-reply":
        gold["output"]["text"] = payload
    pred = pred_row(sid, [("Inform", 1.0)])
    pred["text"] = payload if field == "reply" else "hi"
    write_jsonl(tmp_path / "gold.jsonl", [gold])
    write_jsonl(tmp_path / "pred.jsonl", [pred])
    out = tmp_path / "out"
    args = ["score", "--gold", str(tmp_path / "gold.jsonl"), "--pred", str(tmp_path / "pred.jsonl"), "--out", str(out)]
    assert main(args) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    _assert_inert_markdown(md)
    assert "&lt;" in md, "the payload is shown escaped, not dropped"


def _run(tmp_path: Path, dataset_name: str, system: str) -> Path:
    root = tmp_path / "data"
    root.mkdir(exist_ok=True)
    rows = [gold_row("a", [("Answer", 1.0)]), gold_row("b", [("Answer", 1.0)])]
    write_jsonl(root / f"{dataset_name}.jsonl", rows)
    out = tmp_path / "run"
    args = ["run", "--dataset", str(root / f"{dataset_name}.jsonl"), "--system", system]
    assert main([*args, "--annotator", "gold:paper-examples", "--out", str(out), "--quiet"]) == 0
    return out


def _csv_cells(path: Path) -> list[str]:
    return [c for row in csv.reader(path.read_text(encoding="utf-8").splitlines()) for c in row]


@pytest.mark.parametrize("formula", FORMULAS, ids=["hyperlink", "plus", "minus-expression", "at"])
def test_da_run_tables_csv_neutralises_formulas_in_dataset_names(tmp_path, formula) -> None:
    out = _run(tmp_path, formula.replace("/", "_"), "python:tests.hostile.test_report_cells:html_reply")
    cells = _csv_cells(out / "tables.csv")
    risky = [c for c in cells if c[:1] in "=+-@" and not re.fullmatch(r"[+-]?[\d.]+(e[+-]?\d+)?", c)]
    assert risky == [], risky
    assert any(c.startswith("'" + formula[0]) for c in cells), "the name is kept, behind an apostrophe"
    # Numbers stay numbers: the WED column of a system that scored 1.0 is not prefixed.
    assert all(not c.startswith("'") or c[1:2] in "=+-@" for c in cells)
    md = (out / "report.md").read_text(encoding="utf-8")
    _assert_inert_markdown(md)
    assert main(["report", str(out)]) == 0
    _assert_inert_markdown((out / "report.md").read_text(encoding="utf-8"))


def html_reply(turn: Any) -> str:
    """A system whose every reply is an HTML payload (importable as a ``python:`` system)."""
    return f"{XSS} | <b>bold</b> & more"


class _CellsJudge(EachReply):
    """Scores every reply 3, offline."""

    concurrency = 1

    def __init__(self, arg: str) -> None:
        self.name = "hostile-cells-judge"

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        return Judgement(item.id, item.ability, 3, "ok", self.name)

    def describe(self) -> dict[str, Any]:
        return {"judge": "hostile-cells-judge"}


if "hostile-cells-judge" not in judges.names():
    judges.register("hostile-cells-judge")(lambda arg, **options: _CellsJudge(arg))


@pytest.mark.parametrize("model", [XSS, FORMULAS[0], "@cmd|x"], ids=["html", "hyperlink", "at-pipe"])
def test_style_report_escapes_model_names_from_a_vstyle_file(tmp_path, monkeypatch, model) -> None:
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "vstyle"
    (root / "wav").mkdir(parents=True)
    (root / "wav" / "a1.wav").write_bytes(sine_wav(0.05))
    row = {"id": "a1", "instruct_id": "1", "model_name": model, "ability": "instruction/style", "instruct_text": "x"}
    (tmp_path / "meta.jsonl").write_text(json.dumps({**row, "response_audio_path": "wav/a1.wav"}) + "\n")
    out = tmp_path / "out"
    args = ["judge", "--judge", "hostile-cells-judge", "--in", str(tmp_path / "meta.jsonl"), "--root", str(root)]
    assert main([*args, "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    _assert_inert_markdown(md)
    cells = _csv_cells(out / "tables.csv")
    # In the CSV a name is text, not HTML: kept as it is unless a spreadsheet would run it.
    assert ("'" + model if model[0] in "=@" else model) in cells
