"""Checks for authored English and Mandarin reply files (issue 34 item 4: ``training/data/da-replies-<lang>/``).

    python -m training.annotator.authoring_lang --language en|zh FILE ...

The language-neutral checks of ``authoring.py`` (the row validator and the span check of ``data.py``), pointed at
``<lang>-assistant``. A row either answers a DEV input of that dataset (``source`` = ``<lang>-assistant:ID``; it
copies the sample's ``domain``, ``background`` and ``input_text`` exactly) or a new input its author wrote
(``source`` = null; a domain of the dataset, a one-sentence ``background``, an input text that is no input of the
dataset). No row's input text is a test-split input's text (the test split stays unseen). The id starts with the
author (``en-a2-0001`` by ``en-a2``) and is unique across the files; no input gets the same reply twice, or
nearly the same (``difflib`` ratio >= NEAR_DUPLICATE). The Japanese conformance checker
is not run (its rules match Japanese forms). Exits 0 only when clean, 1 on problems, 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import difflib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator.authoring import check_files
from training.annotator.data import (
    normal_input,
    reply_of,
    span_problems,
    split_group,
    split_of,
    to_gold,
    validate_row,
)
from voxeval.data import GoldSample, resolve_dataset

LANGUAGES = ("en", "zh")
"""Languages with authored reply folders checked here (Japanese has ``authoring.py``)."""

NEAR_DUPLICATE = 0.9
"""``difflib`` ratio from which two replies to the same input count as near-duplicates."""


def _source_problems(row: dict[str, Any], dataset: str, dev: dict[str, GoldSample], test: set[str]) -> list[str]:
    source = row.get("source")
    if source is None:
        found = []
        if row.get("domain") not in {s.domain for s in dev.values()}:
            found.append(f"domain {row.get('domain')!r} is not a domain of {dataset}")
        if not str(row.get("background") or "").strip():
            found.append("a new input (source null) needs a background")
        known = {normal_input(s.input_text) for s in dev.values()}
        if normal_input(row.get("input_text", "")) in known:
            found.append(f"input_text is a {dataset} dev input: give its source instead of null")
        return found
    prefix, _, sid = str(source).partition(":")
    if prefix == dataset and sid in test:
        return [f"source {source!r} is a test-split input"]
    sample = dev.get(sid) if prefix == dataset else None
    if sample is None:
        return [f"source {source!r} is not a {dataset} dev input"]
    wanted = (("input_text", sample.input_text), ("domain", sample.domain), ("background", sample.background))
    return [f"{k} {row.get(k)!r} differs from {source}'s {want!r}" for k, want in wanted if row.get(k) != want]


def problems_in(rows: Sequence[tuple[Path, int, dict[str, Any]]], language: str) -> list[str]:
    """``FILE:LINE (ID): problem`` for every problem of the rows, read against ``<language>-assistant``."""
    dataset = f"{language}-assistant"
    data = resolve_dataset(dataset)
    dev = {s.id: s for s in data.split("dev").samples}
    test_ids = {s.id for s in data.split("test").samples}
    test_inputs = {normal_input(s.input_text) for s in data.split("test").samples}
    seen_ids: set[str] = set()
    by_input: dict[str, list[str]] = {}
    out: list[str] = []
    for path, line, row in rows:
        found = validate_row({**row, "source": None})
        if not found:
            found += span_problems(to_gold(row).sample)
        found += _source_problems(row, dataset, dev, test_ids)
        if normal_input(row.get("input_text", "")) in test_inputs:
            found.append("input_text is also an input of the test split (which must stay unseen)")
        if not str(row.get("id", "")).startswith(f"{row.get('author')}-"):
            found.append(f"id {row.get('id')!r} does not start with its author {row.get('author')!r}")
        if not str(row.get("author", "")).startswith(f"{language}-"):
            found.append(f"author {row.get('author')!r} does not start with {language}-")
        if not found:
            reply, key = reply_of(row), normal_input(row.get("input_text", ""))
            others = by_input.setdefault(key, [])
            if reply in others:
                found.append("the same reply to the same input appears twice")
            elif any(difflib.SequenceMatcher(None, reply, o).ratio() >= NEAR_DUPLICATE for o in others):
                found.append("the reply nearly repeats another reply to the same input")
            others.append(reply)
        if row.get("id") in seen_ids:
            found.append("duplicate id")
        seen_ids.add(str(row.get("id")))
        out += [f"{path}:{line} ({row.get('id')}): {p}" for p in found]
    return out


def summary(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> str:
    """Counts per style, flaw, author and split (``data.split_group``, as training splits)."""
    styles = Counter(str(r.get("style")) for _, _, r in rows)
    flaws = Counter(str(r.get("flaw")) for _, _, r in rows if r.get("flaw"))
    authors = Counter(str(r.get("author")) for _, _, r in rows)
    splits = Counter(split_of(split_group(r)) for _, _, r in rows)
    new = sum(1 for _, _, r in rows if r.get("source") is None)
    return (
        f"styles {dict(styles)}\nflaws {dict(flaws)}\nauthors {dict(authors)}\nsplits {dict(splits)}\nnew inputs {new}"
    )


def main(argv: Sequence[str] | None = None, language: str | None = None) -> int:
    """Print every problem and the counts; 1 if anything is found, 2 if a file cannot be read."""
    args = list(argv) if argv is not None else None
    if language is None:
        parser = argparse.ArgumentParser(add_help=False)
        parser.add_argument("--language", choices=LANGUAGES, required=True)
        known, rest = parser.parse_known_args(args)
        language, args = known.language, rest
    lang = language
    prog = f"python -m training.annotator.authoring_lang --language {lang}"
    checked = check_files(args, prog, __doc__.split("\n")[0], lambda rows: problems_in(rows, lang))
    if checked is None:
        return 2
    rows, found, _ = checked
    print(summary(rows))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
