"""Input that JSON accepts but no field can hold (issue 31, group 8): integers beyond any float, lines nested
deeper than the decoder recurses, lone surrogates (text no file can hold), NUL bytes in paths.

Each is refused where it enters (the JSONL reader, ``voxeval.io._jsonl``, for all three JSON cases; the path
check for NUL), with FILE:LINE, the field where one can be named, exit 2, and nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import gold_row, pred_row
from voxeval.cli import main

BIG = "9" * 400


def _gold_line(**changes: object) -> str:
    row = gold_row("a", [("Answer", 1.0)])
    for path, value in changes.items():
        obj = row
        *parents, last = path.split("__")
        for key in parents:
            obj = obj[key]
        obj[last] = value
    return json.dumps(row)


def _pred_line() -> str:
    return json.dumps({**pred_row("a", [("Answer", 1.0)]), "text": "hi"})


def _score(tmp: Path, gold: str, pred: str) -> tuple[int, Path]:
    (tmp / "gold.jsonl").write_text(gold + "\n", encoding="utf-8")
    (tmp / "pred.jsonl").write_text(pred + "\n", encoding="utf-8")
    out = tmp / "out"
    args = ["score", "--gold", str(tmp / "gold.jsonl"), "--pred", str(tmp / "pred.jsonl"), "--out", str(out)]
    return main(args), out


def _deep(n: int, open_: str, close: str) -> str:
    return open_ * n + close * n


GOLD, PRED = _gold_line(), _pred_line()
IMPORTANCE = '"importance": 1.0'
# (case, gold line, pred line, fragment of the error)
CASES = [
    ("bigint-pred-importance", GOLD, PRED.replace(IMPORTANCE, f'"importance": {BIG}'), "steps[0].importance"),
    (
        "bigint-gold-importance",
        GOLD.replace(IMPORTANCE, f'"importance": {BIG}'),
        PRED,
        "gold.jsonl:1, field output_dialogue_acts.steps[0].importance: importance is too large",
    ),
    ("negative-bigint", GOLD, PRED.replace(IMPORTANCE, f'"importance": -{BIG}'), "importance is too large"),
    (
        "bigint-second-step",
        GOLD,
        PRED.replace(IMPORTANCE, f'"importance": 1}}, {{"act": "Inform", "importance": {BIG}0'),
        "pred.jsonl:1, field steps[1].importance",
    ),
    ("deep-array-pred", GOLD, PRED[:-1] + ', "x": ' + _deep(100_000, "[", "]") + "}", "pred.jsonl:1: invalid JSON"),
    ("deep-object-gold", GOLD[:-1] + ', "x": ' + _deep(50_000, '{"a":', "}")[:-1] + "1}" + "}", PRED, "nested"),
    ("surrogate-pred-text", GOLD, PRED.replace('"text": "hi"', '"text": "x\\udc80y"'), "pred.jsonl:1, field text"),
    ("surrogate-gold-id", GOLD.replace('"id": "a"', '"id": "a\\ud800"'), PRED, "gold.jsonl:1, field id"),
    ("surrogate-pred-id", GOLD, PRED.replace('"id": "a"', '"id": "\\uDFFFa"'), "pred.jsonl:1, field id"),
    ("surrogate-input-text", _gold_line(input__text="q\udc80"), PRED, "field input.text"),
    ("surrogate-in-a-key", GOLD[:-1] + ', "\\udc80": 1}', PRED, "gold.jsonl:1"),
    ("surrogate-in-a-step", GOLD, PRED.replace('"act": "Answer"', '"act": "Answer", "span": "\\udc81"'), "span"),
]


@pytest.mark.parametrize(("case", "gold", "pred", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_score_refuses_with_file_line_field_and_writes_nothing(tmp_path, capsys, case, gold, pred, fragment) -> None:
    code, out = _score(tmp_path, gold, pred)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("voxeval: error: ") and "Traceback" not in err
    assert fragment in err
    assert not out.exists(), "an error must leave no output behind"


@pytest.mark.parametrize(
    "gold", [GOLD.replace('"id": "a"', f'"id": {BIG}'), GOLD[:-1] + f', "n": {BIG}}}'], ids=["id", "unused-field"]
)
def test_a_huge_integer_that_is_never_a_float_is_kept(tmp_path, gold) -> None:
    """A 400-digit integer id is an id (its digits), one in an unused field is ignored: neither is refused."""
    pred = PRED.replace('"id": "a"', f'"id": "{BIG}"') if f'"id": {BIG}' in gold else PRED
    code, out = _score(tmp_path, gold, pred)
    assert code == 0
    assert json.loads((out / "scores.jsonl").read_text().splitlines()[0])["wed"] == 0.0


def test_a_surrogate_pair_is_text_and_scores(tmp_path) -> None:
    """A *paired* escape (U+1F600) is ordinary text: the check refuses only lone halves."""
    code, out = _score(tmp_path, GOLD, PRED.replace('"text": "hi"', '"text": "ok \\ud83d\\ude00"'))
    assert code == 0
    assert "\U0001f600" in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "line", [GOLD.replace(IMPORTANCE, f'"importance": {BIG}'), GOLD[:-1] + ', "x": ' + _deep(100_000, "[", "]") + "}"]
)
def test_dataset_validate_lists_the_problem_instead_of_crashing(tmp_path, capsys, line) -> None:
    (tmp_path / "set.jsonl").write_text(line + "\n", encoding="utf-8")
    assert main(["dataset", "validate", str(tmp_path / "set.jsonl")]) == 1
    out = capsys.readouterr().out
    assert "set.jsonl:1" in out and ("invalid JSON" in out or "importance is too large" in out), out


def _run(tmp: Path, dataset: Path, system: str) -> tuple[int, Path]:
    out = tmp / "run"
    args = ["run", "--dataset", str(dataset), "--system", system, "--annotator", "gold:paper-examples"]
    return main([*args, "--out", str(out), "--quiet"]), out


def test_run_refuses_a_surrogate_in_input_text_before_tts(tmp_path, capsys) -> None:
    (tmp_path / "set.jsonl").write_text(_gold_line(input__text="q\udc80") + "\n", encoding="utf-8")
    code, out = _run(tmp_path, tmp_path / "set.jsonl", "python:tests.run.doubles:silent")
    err = capsys.readouterr().err
    assert code == 2 and "set.jsonl:1, field input.text: holds a lone surrogate" in err, err
    assert not out.exists()


def test_run_refuses_a_nul_byte_in_a_dataset_audio_path(tmp_path, capsys) -> None:
    (tmp_path / "set.jsonl").write_text(_gold_line(input__audio="in\u0000.wav") + "\n", encoding="utf-8")
    code, out = _run(tmp_path, tmp_path / "set.jsonl", "python:tests.run.doubles:silent")
    err = capsys.readouterr().err
    assert code == 2 and "set.jsonl:1, field input.audio" in err and "NUL" in err, err
    assert not out.exists()


def test_run_refuses_a_nul_byte_in_a_replay_audio_path(tmp_path, capsys) -> None:
    (tmp_path / "set.jsonl").write_text(GOLD + "\n", encoding="utf-8")
    (tmp_path / "replies.jsonl").write_text(json.dumps({"id": "a", "text": "hi", "audio": "r\u0000.wav"}) + "\n")
    code, out = _run(tmp_path, tmp_path / "set.jsonl", f"replay:{tmp_path / 'replies.jsonl'}")
    err = capsys.readouterr().err
    assert code == 2 and "replies.jsonl:1, field audio" in err and "Traceback" not in err, err
    assert not out.exists()
