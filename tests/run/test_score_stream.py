"""The streaming scorer writes exactly what the in-memory scorer writes, long sequences and odd orders included."""

from __future__ import annotations

import random

from tests.conftest import gold_row, pred_row, write_jsonl
from voxeval.acts import LABELS
from voxeval.data import load_gold, load_predictions
from voxeval.run import score_predictions, write_score_outputs
from voxeval.run._score_stream import score_files


def _steps(rng: random.Random, lo: int, hi: int) -> list[tuple[str, float]]:
    return [(rng.choice(LABELS), rng.choice([0.0, 0.5, rng.random()])) for _ in range(rng.randint(lo, hi))]


def test_stream_equals_in_memory(tmp_path) -> None:
    rng = random.Random(5)
    golds = [gold_row(f"g{k}", _steps(rng, 1, 20 if k % 7 == 0 else 6)) for k in range(300)]
    preds = [pred_row(g["id"], _steps(rng, 0, 25 if k % 5 == 0 else 6)) for k, g in enumerate(golds) if k % 11]
    preds[3] = {"id": preds[3]["id"], "status": "failed", "error": "boom"}
    rng.shuffle(preds)
    gold, pred = write_jsonl(tmp_path / "g.jsonl", golds), write_jsonl(tmp_path / "p.jsonl", preds)
    memory, stream = tmp_path / "memory", tmp_path / "stream"
    scored = score_predictions(load_gold(gold), load_predictions(pred), dataset="d", system="s")
    write_score_outputs(memory, [scored])
    score_files(gold, pred, stream, dataset="d", system="s")
    for name in ("scores.jsonl", "summary.json", "report.md"):
        assert (stream / name).read_bytes() == (memory / name).read_bytes(), name
    assert not [p for p in stream.iterdir() if p.name.startswith(".")], "no spill file left behind"
