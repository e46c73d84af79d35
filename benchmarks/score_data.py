"""Random gold / prediction JSONL files for ``voxeval score`` (benchmarks and the output-identity fixtures).

``python benchmarks/score_data.py N OUT_DIR [--seed S] [--messy]`` writes ``OUT_DIR/gold.jsonl`` and
``OUT_DIR/pred.jsonl``. Plain sets have one prediction per gold id in gold order; ``--messy`` adds what real
files carry: shuffled order, missing and failed predictions, empty replies, all-zero and integer weights,
lenient label spellings, integer ids, reply texts and ties.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

LABELS = ("Question", "Check-Question", "Answer", "Inform", "Request", "Suggestion", "Commissive")
LENIENT = {"Check-Question": "check question", "Answer": "ANSWER", "Inform": "inform"}


def _steps(rng: random.Random, lo: int, messy: bool) -> list[dict[str, Any]]:
    n = rng.randint(lo, 8)
    steps = []
    for _ in range(n):
        act = rng.choice(LABELS)
        if messy and rng.random() < 0.05:
            act = LENIENT.get(act, act)
        weight: float | int = round(rng.random(), 3)
        if messy and rng.random() < 0.05:
            weight = rng.randint(0, 3)
        steps.append({"act": act, "importance": weight})
    if messy and steps and rng.random() < 0.03:
        for s in steps:
            s["importance"] = 0
    return steps


def gold_row(i: int, rng: random.Random, messy: bool) -> dict[str, Any]:
    """One gold row in the paper's schema with 1–8 random acts."""
    sample_id: str | int = i if messy and i % 97 == 0 else f"s{i:07d}"
    return {
        "id": sample_id,
        "scenario_context": {"background": "テスト"},
        "input": {"role": "USER", "text": f"入力 {i}", "locale": "ja-JP"},
        "output": {"role": "ASSISTANT", "text": f"出力 {i}"},
        "output_dialogue_acts": {"steps": _steps(rng, 1, messy)},
    }


def pred_row(gold: dict[str, Any], rng: random.Random, messy: bool) -> dict[str, Any] | None:
    """A prediction for one gold row (``None``: no prediction), 0–8 acts, sometimes a copy of the gold."""
    if messy and rng.random() < 0.04:
        return None
    if messy and rng.random() < 0.03:
        return {"id": gold["id"], "status": "failed", "error": f"timeout {rng.randint(1, 9)}"}
    steps = [dict(s) for s in gold["output_dialogue_acts"]["steps"]] if rng.random() < 0.1 else _steps(rng, 0, messy)
    row: dict[str, Any] = {"id": gold["id"], "steps": steps}
    if messy and rng.random() < 0.3:
        row["text"] = f"返答 {gold['id']} | 改行\nあり"
    return row


def write_set(n: int, out: Path, *, seed: int = 0, messy: bool = False) -> tuple[Path, Path]:
    """Write ``gold.jsonl`` and ``pred.jsonl`` with ``n`` gold rows into ``out``."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    gold_path, pred_path = out / "gold.jsonl", out / "pred.jsonl"
    preds: list[dict[str, Any]] = []
    with open(gold_path, "w", encoding="utf-8") as g:
        for i in range(n):
            row = gold_row(i, rng, messy)
            g.write(json.dumps(row, ensure_ascii=False) + "\n")
            pred = pred_row(row, rng, messy)
            if pred is not None:
                preds.append(pred)
    if messy:
        # Mostly in order, with some rows moved: real logs are written in completion order.
        for _ in range(len(preds) // 10):
            a, b = rng.randrange(len(preds)), rng.randrange(len(preds))
            preds[a], preds[b] = preds[b], preds[a]
    with open(pred_path, "w", encoding="utf-8") as p:
        for row in preds:
            p.write(json.dumps(row, ensure_ascii=False) + "\n")
    return gold_path, pred_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--messy", action="store_true")
    args = parser.parse_args()
    write_set(args.n, args.out, seed=args.seed, messy=args.messy)


if __name__ == "__main__":
    main()
