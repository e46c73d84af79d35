"""Checks for authored Mandarin reply files (issue 34 item 4; data only, no zh annotator is trained on them yet).

    python -m training.annotator.authoring_zh FILE ...

The language-neutral checks of ``authoring.py``, pointed at ``zh-assistant``: every row passes ``data.validate_row``
(styles, flaw names, labels, positive two-decimal importances summing to 1 with a unique maximum, no repeated act
without ``split_ok``) and the span check; its ``source`` is a ``zh-assistant`` DEV input whose input text and domain
the row repeats (the test split stays unseen); ids are new; no reply repeats another word for word or nearly (character
similarity >= NEAR_DUPLICATE to another reply of the same input). The Japanese
settled-cases conformance checker is not run (its rules match Japanese forms). Exits 0 only when all is clean.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator.authoring import check_files
from training.annotator.data import reply_of, span_problems, split_of, to_gold, validate_row
from voxeval.data import resolve_dataset

DATASET = "zh-assistant"
"""The built-in dataset whose dev inputs the Mandarin replies answer."""

NEAR_DUPLICATE = 0.9
"""``difflib`` ratio from which two replies to the same input count as near-duplicates."""


def problems_in(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> list[str]:
    """``FILE:LINE (ID): problem`` for every problem of the rows."""
    dataset = resolve_dataset(DATASET)
    dev = {s.id: s for s in dataset.split("dev").samples}
    test = {s.id for s in dataset.split("test").samples}
    seen_ids: set[str] = set()
    seen_replies: set[str] = set()
    by_source: dict[str, list[str]] = {}
    out: list[str] = []
    for path, line, row in rows:
        source = row.get("source")
        # validate_row knows only ja-assistant sources: check the rest with the source left out, then check it here
        found = validate_row({**row, "source": None})
        if not found:
            found += span_problems(to_gold(row).sample)
        sample_id = str(source).split(":", 1)[1] if str(source).startswith(DATASET + ":") else None
        if sample_id in test:
            found.append(f"source {source!r} is a test-split input")
        elif sample_id not in dev:
            found.append(f"source {source!r} is not a {DATASET} dev input")
        else:
            sample = dev[sample_id]
            if row.get("input_text") != sample.input_text or row.get("domain") != sample.domain:
                found.append("input_text or domain differs from the source sample")
        if row.get("author") != "zh-a1":
            found.append(f"author {row.get('author')!r} is not zh-a1")
        if row.get("id") in seen_ids:
            found.append("duplicate id")
        seen_ids.add(str(row.get("id")))
        if isinstance(row.get("segments"), list) and all(isinstance(s, dict) for s in row["segments"]):
            reply = reply_of(row)
            if reply in seen_replies:
                found.append("the reply repeats another row word for word")
            elif any(
                difflib.SequenceMatcher(None, reply, o).ratio() >= NEAR_DUPLICATE
                for o in by_source.get(str(source), [])
            ):
                found.append("the reply nearly repeats another reply to the same input")
            seen_replies.add(reply)
            by_source.setdefault(str(source), []).append(reply)
        out += [f"{path}:{line} ({row.get('id')}): {p}" for p in found]
    return out


def summary(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> str:
    """Counts per style, per flaw and per split group (``data.split_of``, as a future zh annotator would split)."""
    styles = Counter(str(r.get("style")) for _, _, r in rows)
    flaws = Counter(str(r.get("flaw")) for _, _, r in rows if r.get("flaw"))
    splits = Counter(split_of(str(r.get("source") or r.get("id"))) for _, _, r in rows)
    return f"styles {dict(styles)}\nflaws {dict(flaws)}\nsplit groups {dict(splits)}"


def main(argv: Sequence[str] | None = None) -> int:
    """Print every problem and the counts; 1 if anything is found, 2 if a file cannot be read."""
    checked = check_files(argv, "python -m training.annotator.authoring_zh", __doc__.split("\n")[0], problems_in)
    if checked is None:
        return 2
    rows, found, _ = checked
    print(summary(rows))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
