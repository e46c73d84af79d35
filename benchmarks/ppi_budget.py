"""How many replies to label: prediction-powered scores on the annotator's validation data, by labelling budget.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/ppi_budget.py [--reps 2000] [--out ppi_budget.json]``
(~1 min: the offline annotator labels the three validation splits once, then the simulation is numpy-free
arithmetic). Data: ``training/data/da-replies-validation{,-en,-zh}.jsonl``, authored replies of three styles
(concise, chatty, flawed) with gold dialogue acts, each naming the reference reply it answers (``source``).

Every style of every language is a "system": its benchmark score is the mean WLCS (or WED) of its replies' acts
against their references. The *gold figure* uses the replies' gold acts; the *annotator figure* uses the acts the
offline annotator gives them (as ``voxeval annotator-check`` does: :func:`voxeval.annotate._check.check_annotator`,
scored by :func:`voxeval.report._validity.reference_acts`). For each budget n (10, 20, 40, 80 replies per system;
a budget at or above the system's size labels it all), ``reps`` times: draw n replies uniformly without
replacement, take their gold scores as the human labels, and compute the PPI++ estimate (``voxeval.metrics.ppi_mean``)
with the annotator's scores on all replies. Reported per system and budget: bias (mean estimate − gold figure),
mean absolute error, mean interval half-width, coverage of the gold figure, and the same for the plain annotator
figure and for the human-only mean. Seeded (``--seed``, default 0): the same command prints the same numbers.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from voxeval.metrics import ppi_mean, weighted_edit_distance, weighted_lcs  # noqa: E402

SPLITS = {
    "ja": "training/data/da-replies-validation.jsonl",
    "en": "training/data/da-replies-validation-en.jsonl",
    "zh": "training/data/da-replies-validation-zh.jsonl",
}
BUDGETS = (10, 20, 40, 80)
METRICS = {
    "WLCS": lambda ref, acts: weighted_lcs(gold=ref, pred=acts),
    "WED": lambda ref, acts: weighted_edit_distance(gold=ref, pred=acts).total,
}


def systems(language: str) -> dict[str, dict[str, tuple[list[float], list[float]]]]:
    """Per style of one validation split: metric → (annotator scores, gold scores), one pair per reply."""
    from voxeval.annotate import annotator_from_spec
    from voxeval.annotate._check import check_annotator
    from voxeval.data import resolve_dataset
    from voxeval.report._validity import reference_acts

    dataset = resolve_dataset(str(ROOT / SPLITS[language]))
    annotator = annotator_from_spec("offline", language=dataset.language)
    predicted = check_annotator(annotator, dataset.samples).predicted
    references = reference_acts(dataset.samples)
    out: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for sample in dataset.samples:
        style = sample.raw.get("style")
        if not style or sample.id not in references or sample.id not in predicted:
            continue  # reference replies themselves, replies without a reference, failed annotations
        ref = references[sample.id]
        for metric, score in METRICS.items():
            f, y = out.setdefault(f"{language} {style}", {}).setdefault(metric, ([], []))
            f.append(score(ref, predicted[sample.id]))
            y.append(score(ref, sample.acts))
    return out


def simulate(f: Sequence[float], y: Sequence[float], n: int, reps: int, rng: random.Random) -> dict[str, Any]:
    """Bias, MAE, mean half-width and coverage of the gold figure for PPI++, the human-only mean and the plain
    annotator figure, over ``reps`` uniform draws of ``n`` labelled replies."""
    truth, size = sum(y) / len(y), len(y)
    n = min(n, size)
    errors: dict[str, list[float]] = {"ppi": [], "human": []}
    halves: dict[str, list[float]] = {"ppi": [], "human": []}
    covered = {"ppi": 0, "human": 0}
    gains = []
    for _ in range(reps):
        picked = set(rng.sample(range(size), n))
        rest = [f[i] for i in range(size) if i not in picked]
        e = ppi_mean(rest, [f[i] for i in sorted(picked)], [y[i] for i in sorted(picked)])
        for name, (mid, low, high) in {
            "ppi": (e.estimate, e.low, e.high),
            "human": (e.human_mean, e.human_low, e.human_high),
        }.items():
            errors[name].append(mid - truth)
            halves[name].append((high - low) / 2)
            covered[name] += low - 1e-12 <= truth <= high + 1e-12
        gains.append(e.gain)
    out: dict[str, Any] = {"n": n, "N": size, "gold": truth, "annotator_bias": sum(f) / size - truth}
    for name in ("ppi", "human"):
        out[name] = {
            "bias": sum(errors[name]) / reps,
            "mae": sum(abs(x) for x in errors[name]) / reps,
            "half_width": sum(halves[name]) / reps,
            "coverage": covered[name] / reps,
        }
    out["gain_median"] = sorted(gains)[reps // 2]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--languages", default="ja,en,zh")
    parser.add_argument("--out", type=Path, default=None, help="also write every figure as JSON")
    args = parser.parse_args()
    rows = []
    for language in args.languages.split(","):
        for system, metrics in systems(language).items():
            for metric, (f, y) in metrics.items():
                for n in BUDGETS:
                    rng = random.Random(f"{args.seed}:{system}:{metric}:{n}")
                    rows.append({"system": system, "metric": metric, **simulate(f, y, n, args.reps, rng)})
    print("| system | metric | n / N | gold | plain annotator bias | PPI++ bias | PPI++ MAE | PPI++ ± | PPI++ coverage "
          "| human-only ± | human-only coverage | gain (median) |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        p, h = r["ppi"], r["human"]
        print(
            f"| {r['system']} | {r['metric']} | {r['n']} / {r['N']} | {r['gold']:.3f} | {r['annotator_bias']:+.3f} | "
            f"{p['bias']:+.3f} | {p['mae']:.3f} | {p['half_width']:.3f} | {p['coverage']:.1%} | "
            f"{h['half_width']:.3f} | {h['coverage']:.1%} | {r['gain_median']:.2f} |"
        )
    summary = _by_budget(rows)
    print("\n| metric | n per system | mean abs. plain bias | mean abs. PPI++ bias | mean PPI++ MAE | mean PPI++ ± | "
          "min / mean PPI++ coverage | mean human-only ± |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for s in summary:
        print(
            f"| {s['metric']} | {s['n']} | {s['plain_abs_bias']:.3f} | {s['ppi_abs_bias']:.3f} | {s['ppi_mae']:.3f} | "
            f"{s['ppi_half_width']:.3f} | {s['ppi_coverage_min']:.1%} / {s['ppi_coverage_mean']:.1%} | "
            f"{s['human_half_width']:.3f} |"
        )
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1), encoding="utf-8")


def _by_budget(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means over systems per metric and budget (systems smaller than the budget count with all replies labelled)."""
    out = []
    for metric in METRICS:
        for n in BUDGETS:
            group = [r for r in rows if r["metric"] == metric and r["n"] == min(n, r["N"])]
            k = len(group)
            out.append(
                {
                    "metric": metric,
                    "n": n,
                    "systems": k,
                    "plain_abs_bias": sum(abs(r["annotator_bias"]) for r in group) / k,
                    "ppi_abs_bias": sum(abs(r["ppi"]["bias"]) for r in group) / k,
                    "ppi_mae": sum(r["ppi"]["mae"] for r in group) / k,
                    "ppi_half_width": sum(r["ppi"]["half_width"] for r in group) / k,
                    "ppi_coverage_min": min(r["ppi"]["coverage"] for r in group),
                    "ppi_coverage_mean": sum(r["ppi"]["coverage"] for r in group) / k,
                    "human_half_width": sum(r["human"]["half_width"] for r in group) / k,
                }
            )
    return out


if __name__ == "__main__":
    main()
