"""``voxeval synth`` end to end with the default offline engine."""

from __future__ import annotations

import json

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main

STEPS = [("Inform", 1.0)]


def _input(tmp_path, texts):
    return write_jsonl(tmp_path / "in.jsonl", [gold_row(f"s{i}", STEPS, inp=t) for i, t in enumerate(texts, 1)])


def test_synth_renders_then_reuses_the_cache(tmp_path, capsys) -> None:
    data, out = _input(tmp_path, ["はい。", "いいえ。"]), tmp_path / "out"
    assert main(["synth", str(data), "--out", str(out), "--workers", "1"]) == 0
    first = capsys.readouterr().out
    assert "rendered 2, cached 0" in first and "RTF" in first and "(2 rows, engine pyopenjtalk)" in first
    assert main(["synth", str(data), "--engine", "pyopenjtalk", "--out", str(out), "--workers", "1"]) == 0
    assert "rendered 0, cached 2" in capsys.readouterr().out
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(out / r["input"]["audio"]).is_file() for r in rows] == [True, True]


def test_limit_and_style_options(tmp_path, capsys) -> None:
    data, out = _input(tmp_path, ["はい。", "いいえ。", "こんにちは。"]), tmp_path / "out"
    argv = ["synth", str(data), "--out", str(out), "--limit", "1", "--rate", "1.2", "--pitch", "2", "--gain", "-3"]
    assert main(argv) == 0
    assert "rendered 1, cached 0" in capsys.readouterr().out
    (row,) = [json.loads(line) for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    settings = row["input"]["synthesis"]["settings"]
    assert (settings["rate"], settings["pitch_semitones"], settings["gain_db"]) == (1.2, 2.0, -3.0)


def test_built_in_dataset_by_name(tmp_path, capsys) -> None:
    assert main(["synth", "paper-examples", "--out", str(tmp_path / "o"), "--limit", "1", "--workers", "1"]) == 0
    assert "rendered 1, cached 0" in capsys.readouterr().out


def test_errors_exit_2_naming_the_row(tmp_path, capsys) -> None:
    data = _input(tmp_path, ["はい。", "。"])
    assert main(["synth", str(data), "--out", str(tmp_path / "o"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"voxeval: error: {data}:2, field input.text: row 's2': engine produced no speech" in err
    assert main(["synth", str(data), "--out", str(tmp_path / "o"), "--engine", "nope"]) == 2
    assert "unknown TTS engine 'nope'" in capsys.readouterr().err
    assert main(["synth", str(data), "--out", str(tmp_path / "o"), "--rate", "0"]) == 2
    assert "rate must be a positive number" in capsys.readouterr().err
    assert main(["synth", str(data), "--out", str(tmp_path / "o"), "--engine", "pyopenjtalk", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
