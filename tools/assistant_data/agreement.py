"""Agreement between the built-in en/zh gold labels and the blind second labeller (issue 34).

Reads ``second-labeller/labels-<lang>.jsonl`` and the matching rows of the built-in ``<lang>-assistant.jsonl`` and
prints, per language: exact act-sequence agreement, mean WED and WLCS each way (voxeval.metrics), act confusion
counts and Cohen's kappa over spans both labellers drew with identical boundaries, span boundary agreement, and
the rows that disagree most.

    PYTHONPATH=src python tools/assistant_data/agreement.py [--top 8] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.acts import LABELS, Acts
from voxeval.data import GoldSample, load_gold
from voxeval.metrics import weighted_edit_distance, weighted_lcs

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "src" / "voxeval" / "data" / "builtin"
LABELS_DIR = Path(__file__).resolve().parent / "second-labeller"
OTHER = "(other boundaries)"
"""Confusion row/column for a span the other labeller did not draw with the same boundaries."""

Span = tuple[int, int, str]
"""``(start, end, act)`` of one step's span in the reply text."""


@dataclass(frozen=True)
class RowAgreement:
    """How one row's two labellings compare."""

    id: str
    """Sample id."""
    exact: bool
    """Same act sequence (importances ignored)."""
    wed: float
    """WED with the gold labels as gold and the second labeller as prediction."""
    wed_reverse: float
    """WED the other way round (the second labeller as gold)."""
    wlcs: float
    """WLCS with the gold labels as gold."""
    wlcs_reverse: float
    """WLCS the other way round."""
    same_spans: bool
    """Identical span boundaries."""
    gold: str
    """The gold sequence, ``Act:importance`` joined by spaces."""
    second: str
    """The second labeller's sequence, likewise."""


def spans(text: str, acts: Acts) -> list[Span]:
    """Character offsets of each step's span, found in order (a step without a span covers the whole reply)."""
    found: list[Span] = []
    start = 0
    for step in acts:
        span = step.span if step.span is not None else text
        at = text.find(span, start)
        if at < 0:
            at = text.find(span)
        if at < 0:
            raise ValueError(f"span {span!r} is not in the reply {text!r}")
        found.append((at, at + len(span), step.act))
        start = at + len(span)
    return found


def align(gold: list[Span], second: list[Span]) -> list[tuple[str, str]]:
    """Pairs ``(gold act, second act)`` of spans with identical boundaries; a span whose boundaries the other
    labeller did not draw pairs with OTHER (a split or merge, counted apart from act confusions)."""
    by_offsets = {(start, end): act for start, end, act in second}
    matched = {(start, end) for start, end, _ in gold} & set(by_offsets)
    pairs = [(act, by_offsets[(start, end)] if (start, end) in matched else OTHER) for start, end, act in gold]
    pairs.extend((OTHER, act) for start, end, act in second if (start, end) not in matched)
    return pairs


def boundaries(found: list[Span]) -> set[int]:
    """Start and end offsets of every span."""
    return {offset for start, end, _ in found for offset in (start, end)}


def kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa over aligned span pairs where both labellers gave an act."""
    both = [(a, b) for a, b in pairs if OTHER not in (a, b)]
    if not both:
        return float("nan")
    observed = sum(a == b for a, b in both) / len(both)
    left, right = Counter(a for a, _ in both), Counter(b for _, b in both)
    expected = sum(left[label] * right[label] for label in LABELS) / len(both) ** 2
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def show(acts: Acts) -> str:
    return " ".join(f"{s.act}:{s.importance:.2f}" for s in acts)


def compare_row(gold: GoldSample, second: GoldSample) -> tuple[RowAgreement, list[Span], list[Span]]:
    g, s = gold.acts, second.acts
    row = RowAgreement(
        gold.id,
        [x.act for x in g] == [x.act for x in s],
        weighted_edit_distance(gold=g, pred=s).total,
        weighted_edit_distance(gold=s, pred=g).total,
        weighted_lcs(gold=g, pred=s),
        weighted_lcs(gold=s, pred=g),
        _same_offsets(gold, second),
        show(g),
        show(s),
    )
    return row, spans(gold.output_text, g), spans(second.output_text, s)


def _same_offsets(gold: GoldSample, second: GoldSample) -> bool:
    return [x[:2] for x in spans(gold.output_text, gold.acts)] == [
        x[:2] for x in spans(second.output_text, second.acts)
    ]


def compare(language: str) -> dict[str, Any]:
    """All agreement figures of one language."""
    second = load_gold(LABELS_DIR / f"labels-{language}.jsonl")
    gold = {s.id: s for s in load_gold(BUILTIN / f"{language}-assistant.jsonl")}
    rows: list[RowAgreement] = []
    pairs: list[tuple[str, str]] = []
    hit = g_total = s_total = 0
    for sample in second:
        if gold[sample.id].output_text != sample.output_text:
            raise ValueError(f"{sample.id}: the reply text differs from the gold row's; re-run extract")
        row, g_spans, s_spans = compare_row(gold[sample.id], sample)
        rows.append(row)
        pairs.extend(align(g_spans, s_spans))
        g_b, s_b = boundaries(g_spans), boundaries(s_spans)
        hit, g_total, s_total = hit + len(g_b & s_b), g_total + len(g_b), s_total + len(s_b)
    n = len(rows)
    precision, recall = hit / s_total, hit / g_total
    return {
        "language": language,
        "rows": n,
        "exact_sequence": sum(r.exact for r in rows) / n,
        "same_length": sum(len(r.gold.split()) == len(r.second.split()) for r in rows) / n,
        "wed_gold_as_reference": sum(r.wed for r in rows) / n,
        "wed_second_as_reference": sum(r.wed_reverse for r in rows) / n,
        "wlcs_gold_as_reference": sum(r.wlcs for r in rows) / n,
        "wlcs_second_as_reference": sum(r.wlcs_reverse for r in rows) / n,
        "same_span_boundaries": sum(r.same_spans for r in rows) / n,
        "boundary_f1": 2 * precision * recall / (precision + recall),
        "span_act_agreement": sum(a == b for a, b in pairs if OTHER not in (a, b))
        / max(1, sum(OTHER not in (a, b) for a, b in pairs)),
        "spans_without_same_boundaries": sum(OTHER in (a, b) for a, b in pairs),
        "span_kappa": kappa(pairs),
        "confusion": {f"{a} -> {b}": c for (a, b), c in sorted(Counter(p for p in pairs if p[0] != p[1]).items())},
        "worst": [r.__dict__ for r in sorted(rows, key=lambda r: (-max(r.wed, r.wed_reverse), r.id))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--top", type=int, default=8, help="rows that disagree most, per language")
    parser.add_argument("--json", type=Path, help="also write the full figures here")
    args = parser.parse_args()
    results = [compare(language) for language in ("en", "zh")]
    for result in results:
        result["worst"] = [w for w in result["worst"] if max(w["wed"], w["wed_reverse"]) > 0][: args.top]
        print(json.dumps(result, ensure_ascii=False, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
