"""Checks for new authored reply files before they are imported (issue 17, session 8: authors a4–a15).

    python -m training.annotator.authoring FILE ...

Every row must pass the validator and the span check (``data.py``), belong to the TRAIN split (a row with
``source`` = a ja-assistant dev input of the train split, or a new input whose own ``id`` hashes to train), answer
no input text of the validation split, not repeat a validation reply word for word, and have an id that is new;
then the settled-cases conformance checker (``conformance.py``) runs on the files. Adding rows this way leaves the
validation split exactly as it was, so figures on it stay comparable across data additions. Exits 0 only when
everything is clean. The brief the authors followed is ``training/data/AUTHORING.md``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from training.annotator import conformance
from training.annotator.data import (
    all_replies,
    held_out_ids,
    read_rows,
    reply_of,
    span_problems,
    split_of,
    to_gold,
    validate_row,
)
from voxeval.errors import VoxevalError


def problems_of(paths: Sequence[Path]) -> list[str]:
    """``FILE:LINE (ID): problem`` for every problem of the rows in ``paths`` (conformance excluded)."""
    return problems_in(read_rows(paths))


def problems_in(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> list[str]:
    """:func:`problems_of` for rows already read (``data.read_rows``)."""
    shipped = all_replies()
    known_ids = {r.sample.id for r in shipped}
    validation_inputs = {r.sample.input_text.strip() for r in shipped if r.split == "validation"}
    validation_replies = {r.sample.output_text for r in shipped if r.split == "validation"}
    tests = held_out_ids()
    seen: set[str] = set()
    out: list[str] = []
    for path, line, row in rows:
        found = validate_row(row, tests) or span_problems(to_gold(row).sample)
        group = row.get("source") or row.get("id") or ""
        if split_of(group) != "train":
            found.append(f"split group {group!r} is in the validation split: use another source, or another id")
        if str(row.get("input_text", "")).strip() in validation_inputs:
            found.append("input_text is an input of the validation split")
        if isinstance(row.get("segments"), list) and reply_of(row) in validation_replies:
            found.append("the reply is word for word a reply of the validation split")
        if row.get("id") in known_ids or row.get("id") in seen:
            found.append("duplicate id")
        seen.add(str(row.get("id")))
        out += [f"{path}:{line} ({row.get('id')}): {p}" for p in found]
    return out


def check_files(
    argv: Sequence[str] | None, prog: str, description: str, problems: Callable[[list[Any]], list[str]]
) -> tuple[list[Any], list[str], list[Path]] | None:
    """The authoring commands' shared part: read the files named on the command line, print every problem and the
    count; ``(rows, problems, paths)``, or ``None`` (said on stderr) when a file cannot be read."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("paths", nargs="+", type=Path, help="authored JSONL files")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.paths)
    except (OSError, VoxevalError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    found = problems(rows)
    for line in found:
        print(line)
    print(f"{len(rows)} rows, {len(found)} problems")
    return rows, found, args.paths


def main(argv: Sequence[str] | None = None) -> int:
    """Print every problem, then run the conformance checker; 1 if anything is found, 2 if a file cannot be read."""
    checked = check_files(argv, "python -m training.annotator.authoring", __doc__.split("\n")[0], problems_in)
    if checked is None:
        return 2
    _, found, paths = checked
    findings = conformance.main([str(p) for p in paths])
    return 1 if found or findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
