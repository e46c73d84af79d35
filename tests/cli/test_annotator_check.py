"""``voxeval annotator-check`` as a command: the report, ``--sample`` / ``--seed`` and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.data import resolve_dataset


def _dataset(tmp_path: Path, n: int = 12) -> Path:
    rows = [gold_row(f"s{i:02d}", [("Answer", 1.0)], inp=f"質問{i}", out=f"答え{i}です。") for i in range(n)]
    return write_jsonl(tmp_path / "gold.jsonl", rows)


def _check(capsys: pytest.CaptureFixture[str], data: Path, out: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    argv = ["annotator-check", "--annotator", f"gold:{data}", "--dataset", str(data), "--no-garbage"]
    assert main([*argv, "--out", str(out), *extra]) == 0
    capsys.readouterr()
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_oracle_scores_perfectly_on_every_sample(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = _dataset(tmp_path)
    report = _check(capsys, data, tmp_path / "all.json")
    assert (report["samples"], report["wed_mean"], report["wlcs_mean"], report["exact_sequence_rate"]) == (12, 0, 1, 1)
    assert "sample" not in report and len(report["rows"]) == 12
    level = report["system_level"]["all"]  # rows without a source are references: scored against their own acts
    assert level["n"] == 12 and level["wlcs"]["gold"] == 1.0 and level["wlcs"]["delta"] == 0.0


def test_sample_is_seeded_in_file_order_and_recorded(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = _dataset(tmp_path)
    first = _check(capsys, data, tmp_path / "a.json", "--sample", "5", "--seed", "3")
    again = _check(capsys, data, tmp_path / "b.json", "--sample", "5", "--seed", "3")
    other = _check(capsys, data, tmp_path / "c.json", "--sample", "5", "--seed", "4")
    ids = [r["id"] for r in first["rows"]]
    assert len(ids) == 5 == first["samples"] and ids == sorted(ids)
    assert ids == [r["id"] for r in again["rows"]]
    assert ids != [r["id"] for r in other["rows"]]
    assert first["sample"] == {"n": 5, "of": 12, "seed": 3}
    assert first["dataset"] == "gold:sample-5-seed-3"


def test_a_sample_of_all_rows_is_the_whole_dataset() -> None:
    data = resolve_dataset("paper-examples")
    assert data.sampled(len(data.samples), seed=9).samples == data.samples


@pytest.mark.parametrize("n", ["0", "13", "-1"])
def test_a_sample_size_out_of_range_is_refused(tmp_path, capsys, n) -> None:  # type: ignore[no-untyped-def]
    data = _dataset(tmp_path)
    argv = ["annotator-check", "--annotator", f"gold:{data}", "--dataset", str(data), "--sample", n]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "gold.jsonl" in err and "sample" in err and "between 1 and 12" in err


def test_the_terminal_gets_tables_and_a_verdict_and_json_only_with_json(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    rows = [gold_row(f"s{i:02d}", [("Answer", 1.0)], inp=f"質問{i}", out=f"答え{i}です。") for i in range(4)]
    rows[0]["style"], rows[1]["style"] = "concise", "chatty"  # styled rows without a source have no reference
    data, out = write_jsonl(tmp_path / "gold.jsonl", rows), tmp_path / "check.json"
    argv = ["annotator-check", "--annotator", f"gold:{data}", "--dataset", str(data), "--no-garbage", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert (
        "{" not in text
        and "Trust: caution\n  - garbage replies not checked (--no-garbage)" in text
        and f"report and per-sample rows: {out}" in text
    )
    assert all(len(line) <= 120 for line in text.splitlines())
    by_style = [line.split() for line in text.splitlines() if line.strip().startswith("style=")]
    assert by_style == [
        ["style=chatty", "1", "0.000", "1.000", "100.0%"],
        ["style=concise", "1", "0.000", "1.000", "100.0%"],
    ]
    assert "(2 replies have no reference and are left out)" in text

    assert main([*argv, "--json"]) == 0
    printed = capsys.readouterr().out
    written = json.loads(out.read_text(encoding="utf-8"))
    shown = {k: v for k, v in written.items() if k not in ("rows", "failures")}  # what scripts have always parsed
    assert printed == json.dumps(shown, ensure_ascii=False, indent=2) + "\n"
