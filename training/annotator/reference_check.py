"""Reference-aware annotation on the authored replies that answer a ja-assistant input (issue 32, item 1).

    python -m training.annotator.reference_check            # validation split: with and without the reference
    python -m training.annotator.reference_check --fit      # train split: the threshold (never the validation)

Per reply: mean WED and exact label sequences against the gold acts, by style and flaw, annotated without and
with the reference reply (the ja-assistant reply to the same input). System level, what a user of the benchmark
reads: for each style (and flaw), the mean benchmark score WLCS(reference acts, reply acts) with the annotator's
acts minus with the gold acts, with a 95% bootstrap interval (2,000 resamples of the replies, seed 0). A
reference-aware annotator that copied the reference would raise the flawed replies' difference; the check is
that it does not. ``--fit`` prints, for gold Answer and off-topic Inform spans of the train split, how many fall
below each threshold of a 0.01 grid against the reference spans, and the largest keeping >= 99% of Answers.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from training.annotator.data import LabelledReply, all_replies
from voxeval.acts import Acts, normalise
from voxeval.annotate import AnnotationInput, Reference
from voxeval.annotate._encoder import shared_encoder
from voxeval.annotate._offline import OfflineAnnotator, load_version
from voxeval.annotate._reference import reference_texts
from voxeval.data import resolve_dataset
from voxeval.metrics import weighted_edit_distance, weighted_lcs


def references() -> dict[str, Reference]:
    """ja-assistant's replies by split group (``ja-assistant:ID``)."""
    dataset = resolve_dataset("ja-assistant")
    return {f"ja-assistant:{s.id}": Reference(s.output_text, s.acts) for s in dataset.samples}


def rows_with_reference(split: str) -> list[tuple[LabelledReply, Reference]]:
    """Authored replies of ``split`` that answer a ja-assistant input (the built-in rows are the references)."""
    refs = references()
    return [(r, refs[r.group]) for r in all_replies() if r.split == split and r.author != "builtin" and r.group in refs]


def _interval(values: Sequence[float], seed: int = 0, n: int = 2000) -> list[float]:
    rng = np.random.default_rng(seed)
    data = np.asarray(values)
    means = data[rng.integers(0, len(data), size=(n, len(data)))].mean(axis=1)
    return [round(float(np.quantile(means, 0.025)), 4), round(float(np.quantile(means, 0.975)), 4)]


def _groups(rows: Sequence[tuple[LabelledReply, Reference]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for k, (r, _) in enumerate(rows):
        out["all"].append(k)
        out[f"style={r.style}"].append(k)
        if r.flaw:
            out[f"flaw={r.flaw}"].append(k)
    return dict(sorted(out.items()))


def compare(rows: Sequence[tuple[LabelledReply, Reference]], without: Sequence[Acts], with_: Sequence[Acts]) -> Any:
    """Per-reply and system-level figures by group, without and with the reference."""
    report: dict[str, Any] = {}
    gold = [normalise(r.sample.acts) if r.sample.acts else () for r, _ in rows]
    system_gold = [weighted_lcs(gold=ref.acts, pred=g) for (_, ref), g in zip(rows, gold, strict=True)]
    for name, idx in _groups(rows).items():
        entry: dict[str, Any] = {"n": len(idx)}
        for label, pred in (("without", without), ("with", with_)):
            wed = [weighted_edit_distance(gold=gold[k], pred=pred[k]).total for k in idx]
            exact = [[s.act for s in gold[k]] == [s.act for s in pred[k]] for k in idx]
            diff = [weighted_lcs(gold=rows[k][1].acts, pred=pred[k]) - system_gold[k] for k in idx]
            entry[label] = {
                "wed": round(float(np.mean(wed)), 4),
                "exact": round(float(np.mean(exact)), 4),
                "system_wlcs_minus_gold": round(float(np.mean(diff)), 4),
                "interval": _interval(diff),
            }
        report[name] = entry
    return report


def annotate(rows: Sequence[tuple[LabelledReply, Reference]]) -> tuple[list[Acts], list[Acts], int]:
    """The shipped annotator's acts without and with each row's reference, and how many Answers it relabelled."""
    annotator = OfflineAnnotator(load_version(), shared_encoder())
    plain = [AnnotationInput(r.sample.output_text, r.sample.input_text, r.sample.background) for r, _ in rows]
    aware = [AnnotationInput(i.reply, i.user_input, i.background, ref) for i, (_, ref) in zip(plain, rows, strict=True)]
    without = [a.acts for a in annotator.annotate_batch(plain)]
    with_ = annotator.annotate_batch(aware)
    relabelled = sum(int(a.meta.get("reference_relabelled", 0)) for a in with_)
    return without, [a.acts for a in with_], relabelled


def fit(rows: Sequence[tuple[LabelledReply, Reference]]) -> dict[str, Any]:
    """Best cosine of gold Answer and off-topic Inform spans to the reference's spans; the 99%-keep threshold."""
    items = [
        (step.act, r.flaw, step.span, reference_texts(ref))
        for r, ref in rows
        for step in r.sample.acts
        if step.act in ("Answer", "Inform") and step.span
    ]
    texts = sorted({t for _, _, span, refs in items for t in [span, *refs]})
    vectors = dict(zip(texts, shared_encoder().encode(texts), strict=True))
    best = {"Answer": [], "off_topic Inform": [], "other Inform": []}  # type: dict[str, list[float]]
    for act, flaw, span, refs in items:
        key = act if act == "Answer" else ("off_topic Inform" if flaw == "off_topic" else "other Inform")
        best[key].append(max(float(vectors[span] @ vectors[t]) for t in refs) if refs else 1.0)
    grid = [round(t, 2) for t in np.arange(0.05, 0.80, 0.01)]
    below = {t: {k: int(sum(v < t for v in vs)) for k, vs in best.items()} for t in grid}
    keep = [t for t in grid if below[t]["Answer"] <= 0.01 * len(best["Answer"])]
    chosen = max(keep) if keep else None
    return {
        "n": {k: len(v) for k, v in best.items()},
        "threshold": chosen,
        "below": below.get(chosen) if chosen else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures as JSON."""
    parser = argparse.ArgumentParser(prog="python -m training.annotator.reference_check", description=__doc__)
    parser.add_argument("--fit", action="store_true", help="fit the threshold on the train split")
    args = parser.parse_args(argv)
    if args.fit:
        print(json.dumps(fit(rows_with_reference("train")), indent=1))
        return 0
    rows = rows_with_reference("validation")
    without, with_, relabelled = annotate(rows)
    print(json.dumps({"relabelled": relabelled, "groups": compare(rows, without, with_)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
