"""Blind second-labeller pass over the built-in en/zh assistant data (issue 34).

``extract`` writes, for a seeded random sample of rows per language, only what a labeller may see (id, background,
user input, optimal output text) to ``second-labeller/blind-<lang>.jsonl``; no spans, acts or importances leave the
gold file. The second labeller's rows go to ``second-labeller/labels-<lang>.jsonl`` in the gold schema, so
``voxeval dataset validate`` checks them. ``compare`` is in ``tools/assistant_data/agreement.py``.

    python tools/assistant_data/second_labeller.py extract --seed 34 --n 60
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["extract"])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--n", type=int, default=60)
    args = parser.parse_args()
    for language in LANGUAGES:
        print(extract(language, args.n, args.seed))


if __name__ == "__main__":
    main()
