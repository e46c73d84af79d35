"""``voxeval score`` end to end: the paper's numbers, output files, and errors that name file, line, field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import gold_row, pred_row, write_jsonl
from voxeval.cli import main


def read_scores(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "scores.jsonl").read_text(encoding="utf-8").splitlines())}


def test_score_reproduces_paper(paper_files, tmp_path, capsys) -> None:
    gold, pred = paper_files
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    scores = read_scores(out)
    # On load P is renormalised (eq. 3): [.7, .15, .05] / .9, so WLCS = (.7 + .15) / .9.
    assert scores["wlcs"]["wlcs"] == pytest.approx(0.85 / 0.9, abs=1e-12)
    assert scores["t2-1"]["wed"] == pytest.approx(0.85) and scores["t2-1"]["insertion"] == pytest.approx(0.85)
    assert (scores["t2-2"]["deletion"], scores["t2-2"]["insertion"]) == pytest.approx((0.70, 0.35))
    assert scores["t2-3"]["substitution"] == pytest.approx(1.0)
    assert scores["t2-4"]["wed"] == 0.0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["n"] == 5 and summary["missing_predictions"] == 0
    assert summary["deletion_mean"] + summary["insertion_mean"] + summary["substitution_mean"] == pytest.approx(
        summary["wed_mean"]
    )
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "largest insertion (=0.85)" in report and "10分のタイマーをセットして" in report
    assert "smallest distance (=0.00)" in report
    assert "| gold | pred | 5 |" in capsys.readouterr().out


def test_json_flag_prints_summary(paper_files, tmp_path, capsys) -> None:
    gold, pred = paper_files
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(tmp_path / "o"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 5


def test_missing_prediction_counts_as_empty_and_is_reported(tmp_path) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [gold_row("a", [("Answer", 1)]), gold_row("b", [("Answer", 1)])])
    pred = write_jsonl(tmp_path / "p.jsonl", [pred_row("a", [("Answer", 1)])])
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["missing_predictions"] == 1 and summary["missing_ids"] == ["b"]
    assert summary["wed_mean"] == pytest.approx(0.5) and summary["wlcs_mean"] == pytest.approx(0.5)
    assert "scored as empty replies" in (out / "report.md").read_text(encoding="utf-8")


def test_failed_prediction_is_excluded_and_listed(tmp_path) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [gold_row("a", [("Answer", 1)]), gold_row("b", [("Answer", 1)])])
    pred = write_jsonl(
        tmp_path / "p.jsonl", [pred_row("a", [("Answer", 1)]), {"id": "b", "status": "failed", "error": "timeout"}]
    )
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["n"] == 1 and summary["excluded_ids"] == {"b": "timeout"} and summary["wed_mean"] == 0.0


def test_extra_prediction_is_an_error_unless_ignored(tmp_path, capsys) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [gold_row("a", [("Answer", 1)])])
    pred = write_jsonl(tmp_path / "p.jsonl", [pred_row("a", [("Answer", 1)]), pred_row("zzz", [("Answer", 1)])])
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 2
    assert "'zzz'" in capsys.readouterr().err and not out.exists()
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out), "--ignore-extra"]) == 0


@pytest.mark.parametrize(
    ("which", "rows", "expected"),
    [
        (
            "gold",
            [gold_row("a", [("Answer", 1)]), gold_row("b", [("Chitchat", 1)])],
            ":2, field output_dialogue_acts.steps[0].act",
        ),
        ("gold", [gold_row("a", [("Answer", 1)]), gold_row("a", [("Answer", 1)])], ":2, field id: duplicate id 'a'"),
        ("gold", [gold_row("a", [])], ":1, field output_dialogue_acts.steps: gold dialogue-act sequence is empty"),
        ("gold", [{"id": "a", "input": {}, "output": {}, "output_dialogue_acts": {}}], ":1, field scenario_context"),
        ("pred", [pred_row("a", [("Answer", -1)])], ":1, field steps[0].importance"),
        ("pred", [{"id": "a"}], ":1, field steps: missing"),
    ],
)
def test_errors_name_file_line_field(tmp_path, capsys, which, rows, expected) -> None:
    gold_rows = rows if which == "gold" else [gold_row("a", [("Answer", 1)])]
    pred_rows = rows if which == "pred" else [pred_row("a", [("Answer", 1)])]
    gold = write_jsonl(tmp_path / "gold.jsonl", gold_rows)
    pred = write_jsonl(tmp_path / "pred.jsonl", pred_rows)
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{which}.jsonl{expected}" in err
    assert not out.exists()


def test_bad_json_line_and_nan(tmp_path, capsys) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(gold_row("a", [("Answer", 1)])) + "\n\n{not json\n", encoding="utf-8")
    pred = write_jsonl(tmp_path / "pred.jsonl", [pred_row("a", [("Answer", 1)])])
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(tmp_path / "o")]) == 2
    assert "gold.jsonl:3: invalid JSON" in capsys.readouterr().err
    pred.write_text('{"id": "a", "steps": [{"act": "Answer", "importance": NaN}]}\n', encoding="utf-8")
    gold.write_text(json.dumps(gold_row("a", [("Answer", 1)])) + "\n", encoding="utf-8")
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(tmp_path / "o")]) == 2
    assert "pred.jsonl:1: invalid JSON: NaN is not valid JSON" in capsys.readouterr().err


def test_bom_and_blank_lines_are_repaired(tmp_path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(b"\xef\xbb\xbf" + (json.dumps(gold_row("a", [("Answer", 1)])) + "\n\n").encode())
    pred = write_jsonl(tmp_path / "pred.jsonl", [pred_row("a", [("answer", 1)])])
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(tmp_path / "o")]) == 0


def test_missing_file(tmp_path, capsys) -> None:
    assert main(["score", "--gold", str(tmp_path / "nope.jsonl"), "--pred", "x", "--out", str(tmp_path)]) == 2
    assert "nope.jsonl: file not found" in capsys.readouterr().err


def test_table2_leaves_out_cost_types_nobody_has(tmp_path) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [gold_row("a", [("Answer", 0.6), ("Inform", 0.4)])])
    pred = write_jsonl(tmp_path / "p.jsonl", [pred_row("a", [("Answer", 1)])])
    out = tmp_path / "out"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "largest insertion (=0.40)" in report and "smallest distance (=0.40)" in report
    assert "largest deletion" not in report and "largest substitution" not in report
