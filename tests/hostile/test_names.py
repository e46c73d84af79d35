"""Systems and datasets whose files share a stem get distinct, stable names; the grid finishes (docs/reliability.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.run._names import spec_hash
from voxeval.testing.mockserver import sine_wav

TEXTS = ("Timer set.", "It will rain.")


def _dataset(folder: Path, prefix: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.wav").write_bytes(sine_wav(0.3))
    rows = []
    for i, text in enumerate(TEXTS):
        row = gold_row(f"{prefix}{i}", [("Commissive" if i == 0 else "Inform", 1.0)], out=text)
        row["input"]["audio"] = "in.wav"
        rows.append(row)
    return write_jsonl(folder / "set.jsonl", rows)


def _replay(folder: Path, ids: list[str], text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write_jsonl(folder / "replies.jsonl", [{"id": i, "text": text} for i in ids])


def _run(tmp: Path, datasets: list[Path], systems: list[str], annotator: Path) -> tuple[int, Path]:
    out = tmp / "run"
    args = ["run", *[a for d in datasets for a in ("--dataset", str(d))]]
    args += [a for s in systems for a in ("--system", s)]
    return main([*args, "--annotator", f"gold:{annotator}", "--out", str(out), "--quiet"]), out


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def test_two_replay_files_named_replies_jsonl_get_distinct_stable_names(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "s")
    first = f"replay:{_replay(tmp_path / 'a', ['s0', 's1'], TEXTS[0])}"
    second = f"replay:{_replay(tmp_path / 'b', ['s0', 's1'], TEXTS[1])}"
    code, out = _run(tmp_path, [data], [first, second], data)
    assert code == 0
    names = {r["system"] for r in _rows(out / "replies.jsonl")}
    assert names == {f"replay:replies~{spec_hash(first)}", f"replay:replies~{spec_hash(second)}"}
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert sorted(r["system"] for r in summary["runs"]) == sorted(names)
    logs = [out / f"{stage}.jsonl" for stage in ("inputs", "replies", "annotations")]
    before = [p.read_bytes() for p in logs]
    assert _run(tmp_path, [data], [first, second], data)[0] == 0  # the same names again: nothing to redo
    assert [p.read_bytes() for p in logs] == before


def test_two_dataset_files_named_set_jsonl_get_distinct_names_and_the_grid_finishes(tmp_path: Path) -> None:
    first, second = _dataset(tmp_path / "a", "s"), _dataset(tmp_path / "b", "s")
    code, out = _run(tmp_path, [first, second], ["python:tests.run.doubles:silent"], first)
    assert code == 0
    datasets = {r["dataset"] for r in _rows(out / "replies.jsonl")}
    assert datasets == {f"set~{spec_hash(str(first))}", f"set~{spec_hash(str(second))}"}
    assert len(_rows(out / "annotations.jsonl")) == 4


def test_name_equals_spec_names_a_system(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "data", "s")
    spec = f"mine=replay:{_replay(tmp_path / 'a', ['s0', 's1'], TEXTS[0])}"
    code, out = _run(tmp_path, [data], [spec, "python:tests.run.doubles:silent"], data)
    assert code == 0
    assert {r["system"] for r in _rows(out / "replies.jsonl")} == {"mine", "python:tests.run.doubles:silent"}


@pytest.mark.parametrize(
    ("systems", "message"),
    [
        (["python:tests.run.doubles:silent"] * 2, "is given 2 times"),
        (["x=python:tests.run.doubles:silent", "x=python:tests.run.doubles:echo_gold"], "are both named 'x'"),
    ],
    ids=["same-spec-twice", "same-explicit-name"],
)
def test_ambiguous_names_stop_the_run_before_it_writes(tmp_path: Path, capsys, systems, message) -> None:
    data = _dataset(tmp_path / "data", "s")
    code, out = _run(tmp_path, [data], systems, data)
    assert code == 2 and message in capsys.readouterr().err
    assert not out.exists()
