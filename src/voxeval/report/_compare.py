"""``voxeval compare``: what changed between two runs of the same benchmark."""

from __future__ import annotations

from typing import Any

from voxeval.report._escape import md_cell
from voxeval.report._latency import compare_latency
from voxeval.report._load import RunData
from voxeval.report._ppi import compare_ppi, compare_ppi_lines
from voxeval.report._stats import paired_test


def _pairs(sets_a: list[Any], sets_b: list[Any]) -> list[tuple[Any, Any]]:
    if len(sets_a) == 1 and len(sets_b) == 1:
        return [(sets_a[0], sets_b[0])]
    by_b = {(s.dataset, s.system): s for s in sets_b}
    return [(a, by_b[(a.dataset, a.system)]) for a in sets_a if (a.dataset, a.system) in by_b]


def _rows_of(run: RunData, dataset: str, system: str) -> dict[str, dict[str, Any]]:
    """One system's reply rows on one dataset, by sample id."""
    return {str(r["id"]): r for r in run.replies.values() if r.get("dataset") == dataset and r.get("system") == system}


def _check_languages(pairs: list[tuple[Any, Any]], run_a: RunData, run_b: RunData) -> None:
    """Scores of datasets in different languages measure different things: refuse to pair them silently."""
    for a, b in pairs:
        lang_a, lang_b = run_a.languages.get(a.dataset), run_b.languages.get(b.dataset)
        if lang_a and lang_b and lang_a != lang_b:
            raise ValueError(
                f"run A's {a.dataset} is in {lang_a!r} but run B's {b.dataset} is in {lang_b!r}: scores in different "
                "languages are not comparable sample by sample; pass --cross-language to compare them anyway"
            )


def compare_runs(run_a: RunData, run_b: RunData, *, top: int = 10, cross_language: bool = False) -> dict[str, Any]:
    """Per-sample WED changes from A to B with a paired test, for each matching dataset × system.

    Runs whose paired datasets differ in language are refused unless ``cross_language``.
    """
    a_sets, b_sets = run_a.sets, run_b.sets
    if not a_sets or not b_sets:
        raise ValueError("a run has nothing scored")
    pairs = _pairs(a_sets, b_sets)
    if not cross_language:
        _check_languages(pairs, run_a, run_b)
    results = []
    for a, b in pairs:
        wa, wb = {x.id: x.edit.total for x in a.scores}, {x.id: x.edit.total for x in b.scores}
        common = [i for i in wa if i in wb]
        test = paired_test([wb[i] for i in common], [wa[i] for i in common])
        changes = sorted(common, key=lambda i: -abs(wb[i] - wa[i]))[:top]
        results.append(
            {
                "dataset": a.dataset,
                "language_a": run_a.languages.get(a.dataset),
                "language_b": run_b.languages.get(b.dataset),
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
                **_content(a, b),
                **compare_ppi(run_a, run_b, a, b),
                "latency": compare_latency(_rows_of(run_a, a.dataset, a.system), _rows_of(run_b, b.dataset, b.system)),
            }
        )
    return {"run_a": str(run_a.run_dir), "run_b": str(run_b.run_dir), "comparisons": results}


def _content(a: Any, b: Any) -> dict[str, Any]:
    """WLCS-c / WED-c means on the paired samples and the paired test of WED-c, when both sides have them."""
    if getattr(a, "content", None) is None or getattr(b, "content", None) is None:
        return {}
    ca, cb = {x.id: x for x in a.content.scores}, {x.id: x for x in b.content.scores}
    common = [i for i in ca if i in cb]
    if not common:
        return {}
    test = paired_test([cb[i].wed_c for i in common], [ca[i].wed_c for i in common])
    return {
        "content": {
            "similarity": a.content.summary.similarity,
            "wlcs_c_a": sum(ca[i].wlcs_c for i in common) / len(common),
            "wlcs_c_b": sum(cb[i].wlcs_c for i in common) / len(common),
            "wed_c_a": sum(ca[i].wed_c for i in common) / len(common),
            "wed_c_b": sum(cb[i].wed_c for i in common) / len(common),
            "wed_c_b_minus_a": None if test is None else test.mean_diff,
            "wed_c_ci": None if test is None else [test.ci.low, test.ci.high],
            "wed_c_p_value": None if test is None else test.p_value,
        }
    }


def _content_lines(comparisons: list[dict[str, Any]]) -> list[str]:
    rows = [c for c in comparisons if c.get("content")]
    if not rows:
        return []
    lines = [
        "\nContent-aware scores (voxeval's WLCS-c / WED-c, docs/metrics.md), on the paired samples:\n",
        "| dataset | A | B | WLCS-c A | WLCS-c B | WED-c A | WED-c B | WED-c B − A [95% CI] | p |",
        "|---|---|---|---:|---:|---:|---:|---|---:|",
    ]
    for c in rows:
        x = c["content"]
        diff = (
            "—"
            if x["wed_c_b_minus_a"] is None
            else (f"{x['wed_c_b_minus_a']:+.3f} [{x['wed_c_ci'][0]:+.3f}, {x['wed_c_ci'][1]:+.3f}]")
        )
        p = "—" if x["wed_c_p_value"] is None else f"{x['wed_c_p_value']:.4f}"
        lines.append(
            f"| {md_cell(c['dataset'])} | {md_cell(c['a'])} | {md_cell(c['b'])} | "
            f"{x['wlcs_c_a']:.3f} | {x['wlcs_c_b']:.3f} | "
            f"{x['wed_c_a']:.3f} | {x['wed_c_b']:.3f} | {diff} | {p} |"
        )
    return lines


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
    lines += _content_lines(result["comparisons"])
    lines += compare_ppi_lines(result["comparisons"])
    lines += _latency_lines(result["comparisons"])
    for c in result["comparisons"]:
        if c.get("language_a") != c.get("language_b"):
            lines.append(
                f"\nCross-language comparison ({c['dataset']}): A is in {c.get('language_a')}, "
                f"B in {c.get('language_b')}; the samples differ in language, so read the difference with care."
            )
    for c in result["comparisons"]:
        if c["largest_changes"]:
            lines.append(
                f"\nLargest per-sample changes ({md_cell(c['a'])} → {md_cell(c['b'])}, {md_cell(c['dataset'])}): "
                + ", ".join(f"{md_cell(x['id'])} {x['wed_a']:.2f}→{x['wed_b']:.2f}" for x in c["largest_changes"])
            )
    return "\n".join(lines) + "\n"


def _seconds(value: float | None, sign: str = "") -> str:
    return "—" if value is None else f"{value:{sign}.3f}"


def _latency_lines(comparisons: list[dict[str, Any]]) -> list[str]:
    """The latency table of a comparison: medians and the paired mean difference (seconds, B − A)."""
    rows = []
    for c in comparisons:
        for name, label in (("first_audio_s", "first audio"), ("total_s", "total")):
            x = (c.get("latency") or {}).get(name)
            if not x or (x["median_a"] is None and x["median_b"] is None):
                continue
            diff = "—"
            if x["b_minus_a"] is not None:
                diff = f"{x['b_minus_a']:+.3f} [{x['ci'][0]:+.3f}, {x['ci'][1]:+.3f}] (p {x['p_value']:.4f})"
            rows.append(
                f"| {md_cell(c['dataset'])} | {md_cell(c['a'])} | {md_cell(c['b'])} | {label} | "
                f"{_seconds(x['median_a'])} | "
                f"{_seconds(x['median_b'])} | {x['paired_n']} | {diff} |"
            )
    if not rows:
        return []
    return [
        "\n## Latency (seconds from the end of the input; client clock, network included)\n",
        "| dataset | A | B | latency | median A | median B | paired n | B − A mean [95% CI] |",
        "|---|---|---|---|---:|---:|---:|---|",
        *rows,
    ]
