"""``voxeval compare``: what changed between two runs of the same benchmark."""

from __future__ import annotations

from typing import Any

from voxeval.report._escape import md_cell
from voxeval.report._load import RunData
from voxeval.report._stats import paired_test


def _pairs(sets_a: list[Any], sets_b: list[Any]) -> list[tuple[Any, Any]]:
    if len(sets_a) == 1 and len(sets_b) == 1:
        return [(sets_a[0], sets_b[0])]
    by_b = {(s.dataset, s.system): s for s in sets_b}
    return [(a, by_b[(a.dataset, a.system)]) for a in sets_a if (a.dataset, a.system) in by_b]


def compare_runs(run_a: RunData, run_b: RunData, *, top: int = 10) -> dict[str, Any]:
    """Per-sample WED changes from A to B with a paired test, for each matching dataset × system."""
    a_sets, b_sets = run_a.sets, run_b.sets
    if not a_sets or not b_sets:
        raise ValueError("a run has nothing scored")
    results = []
    for a, b in _pairs(a_sets, b_sets):
        wa, wb = {x.id: x.edit.total for x in a.scores}, {x.id: x.edit.total for x in b.scores}
        common = [i for i in wa if i in wb]
        test = paired_test([wb[i] for i in common], [wa[i] for i in common])
        changes = sorted(common, key=lambda i: -abs(wb[i] - wa[i]))[:top]
        results.append(
            {
                "dataset": a.dataset,
                "a": a.system,
                "b": b.system,
                "paired_n": len(common),
                "only_in_a": len(set(wa) - set(wb)),
                "only_in_b": len(set(wb) - set(wa)),
                "wed_a": sum(wa[i] for i in common) / len(common) if common else None,
                "wed_b": sum(wb[i] for i in common) / len(common) if common else None,
                "b_minus_a": None if test is None else test.mean_diff,
                "ci": None if test is None else [test.ci.low, test.ci.high],
                "p_value": None if test is None else test.p_value,
                "effect_size": None if test is None else test.effect_size,
                # WED is lower-better: B "wins" a sample when its WED is lower than A's.
                "b_better": None if test is None else test.losses,
                "b_worse": None if test is None else test.wins,
                "ties": None if test is None else test.ties,
                "largest_changes": [{"id": i, "wed_a": wa[i], "wed_b": wb[i]} for i in changes if wa[i] != wb[i]],
            }
        )
    return {"run_a": str(run_a.run_dir), "run_b": str(run_b.run_dir), "comparisons": results}


def _effect(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.2f}"


def compare_markdown(result: dict[str, Any]) -> str:
    """The comparison as Markdown."""
    lines = [
        f"# voxeval compare\n\nA = `{result['run_a']}`, B = `{result['run_b']}`\n",
        "| dataset | A | B | paired n | WED A | WED B | B − A [95% CI] | p | d_z | B better / worse / tie |",
        "|---|---|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for c in result["comparisons"]:
        if c["b_minus_a"] is None:
            lines.append(
                f"| {md_cell(c['dataset'])} | {md_cell(c['a'])} | {md_cell(c['b'])} | 0 | — | — | — | — | — | — |"
            )
            continue
        lines.append(
            f"| {md_cell(c['dataset'])} | {md_cell(c['a'])} | {md_cell(c['b'])} | {c['paired_n']} | "
            f"{c['wed_a']:.3f} | {c['wed_b']:.3f} | "
            f"{c['b_minus_a']:+.3f} [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}] | {c['p_value']:.4f} | "
            f"{_effect(c['effect_size'])} | {c['b_better']}/{c['b_worse']}/{c['ties']} |"
        )
    for c in result["comparisons"]:
        if c["largest_changes"]:
            lines.append(
                f"\nLargest per-sample changes ({md_cell(c['a'])} → {md_cell(c['b'])}, {md_cell(c['dataset'])}): "
                + ", ".join(f"{md_cell(x['id'])} {x['wed_a']:.2f}→{x['wed_b']:.2f}" for x in c["largest_changes"])
            )
    return "\n".join(lines) + "\n"
