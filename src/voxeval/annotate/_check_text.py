"""What ``voxeval annotator-check`` prints for a person: the report as tables and a trust verdict (pure).

``--json`` prints the report itself instead (for scripts); ``--out`` writes it with the per-sample rows.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.report._terminal import WIDTH, text_table
from voxeval.report._validity import validity_rows

BIAS_TARGET = 0.03
"""System-level WLCS bias an annotator may have and still be trusted without a caution: the target of issue 32
(docs/annotators.md, "Not met"). A difference between two systems smaller than the bias may come from the annotator."""

Trust = Literal["yes", "caution", "no"]
"""The verdict: ``no`` when garbage scores like a real reply; ``caution`` when a measured bias exceeds the target,
annotations failed, or something was not measured; ``yes`` otherwise."""


@dataclass(frozen=True)
class Verdict:
    """How far to trust the annotator, and why."""

    trust: Trust
    """The verdict."""
    reasons: tuple[str, ...]
    """One line per finding, worst first."""


def _pct(x: object) -> str:
    return f"{x:.1%}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "—"


def _num(x: object) -> str:
    return f"{x:.3f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "—"


def _verdict_groups(system_level: Mapping[str, Any]) -> dict[str, Any]:
    # The verdict reads the whole set and the reply styles; the flaw groups are a few replies each (wide intervals).
    return {k: v for k, v in system_level.items() if isinstance(v, Mapping) and (k == "all" or k.startswith("style="))}


def _excludes_zero(figure: Mapping[str, Any]) -> bool:
    low, high = figure["ci"]
    return bool(low > 0 or high < 0)


def trust_verdict(report: Mapping[str, Any]) -> Verdict:
    """The verdict on an ``annotator-check`` report (see :data:`Trust`)."""
    no: list[str] = []  # findings that make the verdict "no"
    caution: list[str] = []  # findings that make it "caution"
    fine: list[str] = []
    garbage = report.get("garbage")
    if garbage is None:
        caution.append("garbage replies not checked (--no-garbage)")
    elif garbage["passes"]:
        fine.append(f"garbage replies score like an empty reply (every kind mean WLCS ≤ {garbage['limit_wlcs']})")
    else:
        kinds = [f"{k} {_num(v['wlcs_mean'])}" for k, v in garbage["kinds"].items() if not v["passes"]]
        no.append(f"garbage replies score like real ones (mean WLCS > {garbage['limit_wlcs']}: {', '.join(kinds)})")
    if report.get("failed"):
        caution.append(f"{report['failed']} of {report['samples']} annotations failed (listed in --out)")
    groups = _verdict_groups(report.get("system_level") or {})
    biased = {
        k: g["wlcs"] for k, g in groups.items() if abs(g["wlcs"]["delta"]) > BIAS_TARGET and _excludes_zero(g["wlcs"])
    }
    if not groups:
        caution.append("system level not measured: no reply has a reference")
    elif biased:
        largest = max(abs(w["delta"]) for w in biased.values())
        listed = ", ".join(f"{k} {w['delta']:+.3f}" for k, w in biased.items())
        caution.append(
            f"system-level WLCS bias beyond ±{BIAS_TARGET} ({listed}; 95% intervals exclude 0): a difference between "
            f"two systems smaller than {largest:.3f} WLCS may come from the annotator"
        )
    else:
        fine.append(f"system-level WLCS bias within ±{BIAS_TARGET} or not distinguishable from 0 (all, by style)")
    trust: Trust = "no" if no else "caution" if caution else "yes"
    return Verdict(trust, tuple(no + caution + fine))


def _per_reply(report: Mapping[str, Any]) -> str:
    head = ["replies", "n", "WED mean", "WLCS mean", "exact label sequence"]
    rows: list[list[object]] = [
        ["all", report["samples"] - report["failed"], *_figures(report)],
        *([k, g["n"], *_figures(g)] for k, g in (report.get("by_group") or {}).items()),
    ]
    return text_table(head, rows, numeric=(1, 2, 3, 4), indent="  ")


def _figures(g: Mapping[str, Any]) -> list[object]:
    return [_num(g.get("wed_mean")), _num(g.get("wlcs_mean")), _pct(g.get("exact_sequence_rate"))]


def _labels(report: Mapping[str, Any]) -> str:
    head = ["label", "precision", "recall", "F1", "gold steps"]
    rows = [
        [k, _num(v["precision"]), _num(v["recall"]), _num(v["f1"]), v["support"]]
        for k, v in report["per_label"].items()
    ]
    return text_table(head, rows, numeric=(1, 2, 3, 4), indent="  ")


def _system_level(report: Mapping[str, Any]) -> str:
    figures = report.get("system_level") or {}
    rows = validity_rows(figures)
    if not rows:
        return "  no reply has a reference: not measured"
    head = ["replies", "n", "WLCS gold", "WLCS annotator", "WLCS Δ [95% CI]", "WED Δ [95% CI]"]
    text = text_table(head, rows, numeric=(1, 2, 3, 4, 5), indent="  ")
    unreferenced = figures.get("without_reference")
    return text + (f"\n  ({unreferenced} replies have no reference and are left out)" if unreferenced else "")


def _garbage(garbage: Mapping[str, Any]) -> str:
    head = ["garbage kind", "WLCS mean", "given no acts", "failed", "passes"]
    kinds = {**garbage["kinds"], **{f"{k} (informational)": v for k, v in garbage["informational"].items()}}
    rows = [
        [
            k,
            _num(v["wlcs_mean"]),
            _pct(v["empty_rate"]),
            v["failed"],
            {True: "yes", False: "NO", None: "—"}[v["passes"]],
        ]
        for k, v in kinds.items()
    ]
    return text_table(head, rows, numeric=(1, 2, 3), indent="  ")


def check_text(report: Mapping[str, Any]) -> str:
    """The report for a terminal: per reply (overall and by style / flaw), per label, system level, garbage and
    self-consistency, then the verdict. Every line fits 120 columns."""
    ann = report["annotator"]
    name = " ".join(str(ann[k]) for k in ("annotator", "version", "language") if ann.get(k))
    parts = [
        f"annotator-check: {name} on {report['dataset']}: {report['samples']} samples, {report['failed']} failed",
        *([f"Annotated {report['reference_context']}."] if report.get("reference_context") else []),
        "",
        "Per reply, against the gold labels:",
        _per_reply(report),
        "",
        f"Labels over the {report['aligned_steps']} steps the WED path aligns: accuracy {_pct(report['accuracy'])}, "
        f"macro-F1 {_num(report['macro_f1'])}",
        _labels(report),
        "",
        "System level: the benchmark score of the replies with the annotator's acts minus with gold labels:",
        _system_level(report),
    ]
    if report.get("garbage"):
        parts += ["", f"Garbage replies (must score mean WLCS ≤ {report['garbage']['limit_wlcs']}):"]
        parts.append(_garbage(report["garbage"]))
    if report.get("self_consistency"):
        sc = report["self_consistency"]
        parts += [
            "",
            f"Self-consistency over {sc['repeats']} repeats: mean pairwise WED {_num(sc['mean_pairwise_wed'])}, "
            f"all labels identical {_pct(sc['all_labels_identical_rate'])}",
        ]
    verdict = trust_verdict(report)
    parts += ["", f"Trust: {verdict.trust}"]
    parts += [textwrap.fill(r, WIDTH, initial_indent="  - ", subsequent_indent="    ") for r in verdict.reasons]
    return "\n".join(line if "\n" in line else textwrap.fill(line, WIDTH) for line in parts)
