"""Checks for authored English reply files (issue 34 item 4: ``training/data/da-replies-en/``).

    python -m training.annotator.authoring_en FILE ...

The language-neutral checks of ``authoring.py`` (the row validator and the span check of ``data.py``), with the
source read against ``en-assistant``: every row answers an en-assistant DEV input (never a test one), copies its
``domain``, ``background`` and ``input_text`` exactly, and its input text is no test-split input's text (the test
split stays unseen); ids are unique across the files and no input gets the same reply twice. The Japanese
conformance checker is not run (its rules match Japanese forms). Exits 0 only when clean, 1 on problems, 2 when a
file cannot be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator.authoring import check_files
from training.annotator.data import reply_of, span_problems, to_gold, validate_row
from voxeval.data import resolve_dataset

DATASET = "en-assistant"
"""The built-in dataset whose dev inputs the English replies answer."""


def _dev_inputs() -> dict[str, Any]:
    return {s.id: s for s in resolve_dataset(DATASET).split("dev").samples}


def _test_inputs() -> set[str]:
    return {s.input_text.strip() for s in resolve_dataset(DATASET).split("test").samples}


def problems_in(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> list[str]:
    """``FILE:LINE (ID): problem`` for every problem of the rows."""
    dev = _dev_inputs()
    test_inputs = _test_inputs()
    seen_ids: set[str] = set()
    seen_replies: set[tuple[str, str]] = set()
    out: list[str] = []
    for path, line, row in rows:
        source = row.get("source")
        found = validate_row({**row, "source": None})
        if not found:
            found += span_problems(to_gold(row).sample)
        prefix, _, sid = str(source).partition(":")
        sample = dev.get(sid) if prefix == DATASET else None
        if sample is None:
            found.append(f"source {source!r} is not an {DATASET} dev input")
        else:
            for key, want in (
                ("input_text", sample.input_text),
                ("domain", sample.domain),
                ("background", sample.background),
            ):
                if row.get(key) != want:
                    found.append(f"{key} {row.get(key)!r} differs from {source}'s {want!r}")
        if str(row.get("input_text", "")).strip() in test_inputs:
            found.append("input_text is also an input of the test split (which must stay unseen)")
        if not found and (str(source), reply_of(row)) in seen_replies:
            found.append("the same reply to the same input appears twice")
        if row.get("id") in seen_ids:
            found.append("duplicate id")
        seen_ids.add(str(row.get("id")))
        if not found:
            seen_replies.add((str(source), reply_of(row)))
        out += [f"{path}:{line} ({row.get('id')}): {p}" for p in found]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print every problem; 1 if any, 2 if a file cannot be read."""
    checked = check_files(argv, "python -m training.annotator.authoring_en", __doc__.split("\n")[0], problems_in)
    if checked is None:
        return 2
    _, found, _ = checked
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
