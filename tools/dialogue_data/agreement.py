"""Agreement between the built-in dialogue sets' reference steps and the blind second labeller (issue 41 part 1).

The second labeller saw only the scenario, the dialogue so far, the user turn and the reply of every assistant turn
of 22% of the dialogues per language (``second-labeller/blind-<lang>.jsonl``), and wrote
``second-labeller/labels-<lang>.jsonl``: one row per turn, ``{"dialogue": id, "turn": k (from 1), "steps": [{"act",
"importance", "span"}, …]}``. This compares them with the reference steps of the same turns in the built-in
``<lang>-dialogues.jsonl`` and prints, per language: exact act-sequence agreement (also on context-needed and
context-free turns apart), agreement on the central act, mean WED and WLCS each way (voxeval.metrics), act
confusion counts and Cohen's kappa over spans both labellers drew with identical boundaries, span boundary
agreement, and the turns that disagree most. The per-turn arithmetic is tools/assistant_data/agreement.py's.

    PYTHONPATH=src python tools/dialogue_data/agreement.py [--top 10] [--json PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from voxeval.acts import parse_acts
from voxeval.data import GoldSample, load_dialogues, turn_samples
from voxeval.errors import InputError, Location
from voxeval.io import read_jsonl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from assistant_data.agreement import OTHER, RowAgreement, align, boundaries, compare_row, kappa  # noqa: E402

BUILTIN = ROOT / "src" / "voxeval" / "data" / "builtin"
LABELS_DIR = Path(__file__).resolve().parent / "second-labeller"
LANGUAGES = ("ja", "en", "zh")
TOP = 10
"""Disagreeing turns kept per language in the printed figures and in agreement.json."""


def load_labels(path: Path, reference: dict[str, GoldSample]) -> list[tuple[GoldSample, GoldSample]]:
    """Pairs ``(reference turn, second labeller's turn)`` in file order. Each row must name a turn of the
    reference set once, and its spans must lie in order in that turn's reply; otherwise an InputError names the
    file, line and field."""
    pairs: list[tuple[GoldSample, GoldSample]] = []
    seen: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        turn = row.get("turn")
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise InputError(where.child("turn"), f"must be the turn's number (an integer from 1), got {turn!r}")
        key = f"{row.get('dialogue')}/{turn}"
        if key not in reference:
            raise InputError(where.child("turn"), f"no assistant turn {key!r} in the reference set")
        if key in seen:
            raise InputError(where.child("turn"), f"turn {key!r} labelled twice (first on line {seen[key]})")
        seen[key] = line
        gold = reference[key]
        acts = parse_acts(row.get("steps"), where.child("steps"), allow_empty=False)
        start = 0
        for i, step in enumerate(acts):
            at = gold.output_text.find(step.span, start) if step.span else -1
            if at < 0:  # a labeller's step must name its span; a missing one is not "the whole reply" here
                raise InputError(
                    where.child(f"steps[{i}].span"),
                    f"{step.span!r} is not in the reply after the previous span: {gold.output_text!r}",
                )
            start = at + len(step.span or "")
        pairs.append((gold, dataclasses.replace(gold, acts=acts, line=line)))
    return pairs


def reference(language: str) -> tuple[dict[str, GoldSample], dict[str, str]]:
    """Every assistant turn of the built-in set and its ``context`` (``needed`` / ``free``), keyed ``DIALOGUE/K``."""
    dialogues = load_dialogues(BUILTIN / f"{language}-dialogues.jsonl")
    turns = {s.id: s for d in dialogues for s in turn_samples(d)}
    context = {f"{d.id}/{k}": reply.context for d in dialogues for k, (_, reply) in enumerate(d.exchanges, start=1)}
    return turns, context


def central(sample: GoldSample) -> str:
    """The act of the step with the largest importance (the guide makes it unique): WED and WLCS do not see two
    labellers who agree on the acts but not on which one is central."""
    return max(sample.acts, key=lambda step: step.importance).act


def figures(language: str, pairs: list[tuple[GoldSample, GoldSample]], context: dict[str, str]) -> dict[str, Any]:
    """All agreement figures of one language; ``worst`` lists every turn, most disagreeing first."""
    rows: list[RowAgreement] = []
    spans: list[tuple[str, str]] = []
    hit = g_total = s_total = 0
    for gold, second in pairs:
        row, g_spans, s_spans = compare_row(gold, second)
        rows.append(row)
        spans.extend(align(g_spans, s_spans))
        g_b, s_b = boundaries(g_spans), boundaries(s_spans)
        hit, g_total, s_total = hit + len(g_b & s_b), g_total + len(g_b), s_total + len(s_b)
    n = len(rows)
    precision, recall = hit / s_total, hit / g_total
    acted = [(a, b) for a, b in spans if OTHER not in (a, b)]
    return {
        "language": language,
        "turns": n,
        "dialogues": len({r.id.rsplit("/", 1)[0] for r in rows}),
        "exact_sequence": sum(r.exact for r in rows) / n,
        "exact_sequence_by_context": {
            c: sum(r.exact for r in rows if context[r.id] == c) / max(1, sum(context[r.id] == c for r in rows))
            for c in ("needed", "free")
        },
        "same_central_act": sum(central(g) == central(s) for g, s in pairs) / n,
        "same_length": sum(len(r.gold.split()) == len(r.second.split()) for r in rows) / n,
        "wed_reference_as_gold": sum(r.wed for r in rows) / n,
        "wed_second_as_gold": sum(r.wed_reverse for r in rows) / n,
        "wlcs_reference_as_gold": sum(r.wlcs for r in rows) / n,
        "wlcs_second_as_gold": sum(r.wlcs_reverse for r in rows) / n,
        "same_span_boundaries": sum(r.same_spans for r in rows) / n,
        "boundary_f1": 2 * precision * recall / (precision + recall),
        "span_act_agreement": sum(a == b for a, b in acted) / max(1, len(acted)),
        "spans_without_same_boundaries": len(spans) - len(acted),
        "span_kappa": kappa(spans),
        "confusion": {f"{a} -> {b}": c for (a, b), c in sorted(Counter(p for p in spans if p[0] != p[1]).items())},
        "worst": [r.__dict__ for r in sorted(rows, key=lambda r: (-max(r.wed, r.wed_reverse), r.id))],
    }


def compare(language: str, top: int | None = None) -> dict[str, Any]:
    """The figures of one language from the committed labels; ``top`` keeps that many disagreeing turns."""
    turns, context = reference(language)
    result = figures(language, load_labels(LABELS_DIR / f"labels-{language}.jsonl", turns), context)
    if top is not None:
        result["worst"] = [w for w in result["worst"] if max(w["wed"], w["wed_reverse"]) > 0][:top]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--top", type=int, default=TOP, help="turns that disagree most, per language")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    try:
        results = [compare(language, args.top) for language in LANGUAGES]
    except InputError as exc:
        sys.exit(f"error: {exc}")
    text = json.dumps(results, ensure_ascii=False, indent=1) + "\n"
    print(text, end="")
    if args.json:
        args.json.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
