"""The streaming scorer writes exactly what the in-memory scorer writes, long sequences and odd orders included."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import gold_row, pred_row, write_jsonl
from voxeval.acts import LABELS
from voxeval.data import load_gold, load_predictions
from voxeval.errors import InputError
from voxeval.run import score_predictions, write_score_outputs
from voxeval.run._score_stream import score_files


def _assert_stream_equals_memory(gold: Path, pred: Path, tmp_path: Path) -> Path:
    """Score with both scorers; their three outputs must be byte-identical. Returns the streaming output folder."""
    memory, stream = tmp_path / "memory", tmp_path / "stream"
    scored = score_predictions(load_gold(gold), load_predictions(pred), dataset="d", system="s")
    write_score_outputs(memory, [scored])
    score_files(gold, pred, stream, dataset="d", system="s")
    for name in ("scores.jsonl", "summary.json", "report.md"):
        assert (stream / name).read_bytes() == (memory / name).read_bytes(), name
    return stream


def _steps(rng: random.Random, lo: int, hi: int) -> list[tuple[str, float]]:
    return [(rng.choice(LABELS), rng.choice([0.0, 0.5, rng.random()])) for _ in range(rng.randint(lo, hi))]


def test_stream_equals_in_memory(tmp_path) -> None:
    rng = random.Random(5)
    golds = [gold_row(f"g{k}", _steps(rng, 1, 20 if k % 7 == 0 else 6)) for k in range(300)]
    preds = [pred_row(g["id"], _steps(rng, 0, 25 if k % 5 == 0 else 6)) for k, g in enumerate(golds) if k % 11]
    preds[3] = {"id": preds[3]["id"], "status": "failed", "error": "boom"}
    rng.shuffle(preds)
    gold, pred = write_jsonl(tmp_path / "g.jsonl", golds), write_jsonl(tmp_path / "p.jsonl", preds)
    stream = _assert_stream_equals_memory(gold, pred, tmp_path)
    assert not [p for p in stream.iterdir() if p.name.startswith(".")], "no spill file left behind"


@pytest.mark.parametrize("workers", [False, True], ids=["inline", "worker processes"])
def test_small_blocks_mix_whole_block_and_line_by_line_paths(tmp_path, monkeypatch, workers) -> None:
    """Blocks of a few lines: clean ones go through the columnar path, odd ones line by line; same outputs."""
    monkeypatch.setattr("voxeval.io._jsonl.READ_BLOCK", 700)
    monkeypatch.setattr("voxeval.run._score_rows.WORKERS_FROM_BYTES", 0 if workers else 1 << 62)
    messy = Path(__file__).parents[1] / "cli" / "data" / "score_identity" / "messy"
    gold, pred = messy / "gold.jsonl", messy / "pred.jsonl"
    _assert_stream_equals_memory(gold, pred, tmp_path)


def _same_error_both_ways(tmp_path: Path, golds: list, preds: list, side: str) -> str:
    """The streaming scorer's error, which must be the loader's, with nothing left behind."""
    gold, pred = write_jsonl(tmp_path / "g.jsonl", golds), write_jsonl(tmp_path / "p.jsonl", preds)
    with pytest.raises(InputError) as streamed:
        score_files(gold, pred, tmp_path / "out", dataset="d", system="s")
    with pytest.raises(InputError) as loaded:
        load_gold(gold) if side == "gold" else load_predictions(pred)
    assert str(streamed.value) == str(loaded.value)
    assert not (tmp_path / "out").exists()
    return str(streamed.value)


@pytest.mark.parametrize("block", [400, 1 << 22], ids=["later block", "same block"])
@pytest.mark.parametrize("side", ["gold", "pred"])
def test_duplicate_id_in_a_clean_block_names_both_lines(tmp_path, monkeypatch, side, block) -> None:
    monkeypatch.setattr("voxeval.io._jsonl.READ_BLOCK", block)
    monkeypatch.setattr("voxeval.run._score_rows.WORKERS_FROM_BYTES", 0)  # errors found in file order all the same
    golds = [gold_row(f"g{k}", [("Answer", 1.0)]) for k in range(40)]
    preds = [pred_row(g["id"], [("Inform", 0.5)]) for g in golds]
    rows = golds if side == "gold" else preds
    rows.append(dict(rows[2]))  # line 41 repeats line 3, several blocks later
    message = _same_error_both_ways(tmp_path, golds, preds, side)
    assert ".jsonl:41, field id:" in message and "first on line 3" in message


@pytest.mark.parametrize("side", ["gold", "pred"])
def test_importances_whose_sum_overflows_are_an_input_error(tmp_path, side) -> None:
    golds = [gold_row(f"g{k}", [("Answer", 1.0)]) for k in range(30)]
    preds = [pred_row(g["id"], [("Inform", 0.5)]) for g in golds]
    rows = golds if side == "gold" else preds
    huge = [("Answer", 1e308), ("Inform", 1e308)]
    rows[7] = gold_row("g7", huge) if side == "gold" else pred_row("g7", huge)
    message = _same_error_both_ways(tmp_path, golds, preds, side)
    assert ".jsonl:8, field " in message and "overflows" in message


def _plain_files(tmp_path: Path, n: int = 400) -> tuple[Path, Path]:
    rng = random.Random(11)
    golds = [gold_row(f"g{k}", _steps(rng, 1, 6)) for k in range(n)]
    preds = [pred_row(g["id"], _steps(rng, 0, 6)) for g in golds]
    return write_jsonl(tmp_path / "g.jsonl", golds), write_jsonl(tmp_path / "p.jsonl", preds)


def test_files_are_hashed_as_they_are_read(tmp_path) -> None:
    import hashlib

    gold, pred = _plain_files(tmp_path)
    scored = score_files(gold, pred, tmp_path / "out", dataset="d", system="s")
    assert scored.gold_sha256 == hashlib.sha256(gold.read_bytes()).hexdigest()
    assert scored.pred_sha256 == hashlib.sha256(pred.read_bytes()).hexdigest()


def test_spill_synced_in_the_background_writes_the_same_rows(tmp_path, monkeypatch) -> None:
    import os

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr("voxeval.run._score_stream.SYNC_EVERY", 2_000)  # a background sync every few batches
    monkeypatch.setattr("voxeval.run._score_stream.BATCH", 16)
    monkeypatch.setattr("voxeval.io._jsonl.READ_BLOCK", 1_500)
    monkeypatch.setattr("os.fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    gold, pred = _plain_files(tmp_path)
    _assert_stream_equals_memory(gold, pred, tmp_path)
    assert len(synced) > 3, "the spill was synced while rows were still coming"


def test_a_failed_background_sync_fails_the_run_and_leaves_nothing(tmp_path, monkeypatch) -> None:
    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("voxeval.run._score_stream.SYNC_EVERY", 2_000)
    monkeypatch.setattr("voxeval.io._jsonl.READ_BLOCK", 1_500)
    monkeypatch.setattr("os.fsync", broken)
    gold, pred = _plain_files(tmp_path)
    with pytest.raises(OSError, match="Input/output error"):
        score_files(gold, pred, tmp_path / "out", dataset="d", system="s")
    assert not (tmp_path / "out").exists()
