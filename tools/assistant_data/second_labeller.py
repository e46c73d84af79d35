"""Blind second-labeller pass over the built-in en/zh assistant data (issue 34).

``extract`` writes, for a seeded random sample of rows per language, only what a labeller may see (id, background,
user input, optimal output text) to ``second-labeller/blind-<lang>.jsonl``; no spans, acts or importances leave the
gold file. The second labeller's rows go to ``second-labeller/labels-<lang>.jsonl`` in the gold schema, so
``voxeval dataset validate`` checks them. ``compare`` is in ``tools/assistant_data/agreement.py``.

    python tools/assistant_data/second_labeller.py extract --seed 34 --n 60
    python tools/assistant_data/second_labeller.py build    # labels-<lang>.txt -> labels-<lang>.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from voxeval.data import load_gold

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "src" / "voxeval" / "data" / "builtin"
OUT = Path(__file__).resolve().parent / "second-labeller"
LANGUAGES = ("en", "zh")


def sample_ids(ids: list[str], n: int, seed: int) -> list[str]:
    """``n`` ids drawn without replacement by ``random.Random(seed)``, in file order."""
    chosen = set(random.Random(seed).sample(sorted(ids), n))
    return [i for i in ids if i in chosen]


def extract(language: str, n: int, seed: int) -> Path:
    """Write the blind file of one language and return its path."""
    gold = load_gold(BUILTIN / f"{language}-assistant.jsonl")
    by_id = {s.id: s for s in gold}
    rows = [
        {
            "id": s.id,
            "background": s.background,
            "input": s.input_text,
            "locale": s.locale,
            "output": s.output_text,
        }
        for s in (by_id[i] for i in sample_ids([s.id for s in gold], n, seed))
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"blind-{language}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def parse_labels(text: str) -> dict[str, list[dict[str, object]]]:
    """``labels-<lang>.txt``: an id line, then ``Act importance | span`` lines (``=`` is the whole reply)."""
    labels: dict[str, list[dict[str, object]]] = {}
    current: list[dict[str, object]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if "|" not in line:
            current = labels.setdefault(line.strip(), [])
            continue
        if current is None:
            raise ValueError(f"line {number}: a step before any id")
        head, span = (part.strip() for part in line.split("|", 1))
        act, importance = head.rsplit(" ", 1)
        current.append({"act": act, "importance": float(importance), "span": span})
    return labels


def gold_row(blind: dict[str, str], steps: list[dict[str, object]]) -> dict[str, object]:
    """A row in the gold schema; spans must be exact, ordered, non-overlapping substrings of the reply."""
    text = blind["output"]
    start = 0
    for step in steps:
        if step["span"] == "=":
            step["span"] = text
        at = text.find(str(step["span"]), start)
        if at < 0:
            raise ValueError(f"{blind['id']}: span {step['span']!r} is not in the reply after offset {start}")
        start = at + len(str(step["span"]))
    return {
        "id": blind["id"],
        "scenario_context": {"background": blind["background"]},
        "input": {"text": blind["input"], "locale": blind["locale"]},
        "output": {"text": text},
        "output_dialogue_acts": {"steps": steps},
    }


def build(language: str) -> Path:
    """Turn ``labels-<lang>.txt`` into ``labels-<lang>.jsonl`` (the gold schema) over the blind rows."""
    blind = [json.loads(line) for line in (OUT / f"blind-{language}.jsonl").read_text(encoding="utf-8").splitlines()]
    labels = parse_labels((OUT / f"labels-{language}.txt").read_text(encoding="utf-8"))
    missing = sorted({b["id"] for b in blind} ^ set(labels))
    if missing:
        raise ValueError(f"{language}: ids labelled but not blind, or blind but not labelled: {missing}")
    path = OUT / f"labels-{language}.jsonl"
    rows = [gold_row(b, labels[b["id"]]) for b in blind]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["extract", "build"])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--n", type=int, default=60)
    args = parser.parse_args()
    for language in LANGUAGES:
        print(extract(language, args.n, args.seed) if args.command == "extract" else build(language))


if __name__ == "__main__":
    main()
