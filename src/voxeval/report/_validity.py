"""System-level validity of an annotator: the benchmark score a system of each reply style gets with it vs gold.

Per-reply errors (mean WED to gold labels) are not what a user reads: a user reads a system's benchmark score, the
mean WLCS / WED of its replies' acts against the *reference* reply's acts. For each group of the validation data
(``style=…``, ``flaw=…``, and ``all``), every reply is scored against its reference twice, once with the acts the
annotator gave it and once with its gold labels; the group's *bias* is the mean of the per-reply differences
(annotator − gold), with a 95% percentile-bootstrap interval over the replies (paired: the same replies on both
sides). A reply's reference is the sample its row's ``source`` names (``ja-assistant:timer-001``); a row with
neither ``source`` nor ``style`` is itself a reference reply (the built-in data) and is scored against its own gold
acts; a styled reply without a ``source`` (an input its author invented) has no reference and is left out (counted
as ``without_reference``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from voxeval.acts import Acts
from voxeval.data import GoldSample
from voxeval.errors import InputError, Location
from voxeval.metrics import weighted_edit_distance, weighted_lcs
from voxeval.report._escape import markdown_table
from voxeval.report._stats import bootstrap_ci

GROUPS = ("style", "flaw")
"""Row fields the system-level figures are grouped by (besides ``all``)."""


def reference_acts(samples: Sequence[GoldSample]) -> dict[str, Acts]:
    """The reference acts each sample's reply is scored against, for the samples that have one (see the module
    docstring)."""
    from voxeval.data import resolve_dataset

    datasets: dict[str, dict[str, Acts]] = {}
    out: dict[str, Acts] = {}
    for sample in samples:
        source = sample.raw.get("source")
        if not source:
            if not sample.raw.get("style"):
                out[sample.id] = sample.acts  # a reference reply itself
            continue
        name, _, ref_id = str(source).rpartition(":")
        if name not in datasets:
            datasets[name] = {s.id: s.acts for s in resolve_dataset(name).samples}
        if ref_id not in datasets[name]:
            raise InputError(Location(field=f"{sample.id}.source"), f"{source!r}: no such sample in {name}")
        out[sample.id] = datasets[name][ref_id]
    return out


def _delta(annotator: list[float], gold: list[float]) -> dict[str, Any]:

    diffs = [a - g for a, g in zip(annotator, gold, strict=True)]
    interval = bootstrap_ci(diffs)
    assert interval is not None  # groups are never empty
    return {
        "gold": sum(gold) / len(gold),
        "annotator": sum(annotator) / len(annotator),
        "delta": interval.mean,
        "ci": [interval.low, interval.high],
    }


def system_level(samples: Sequence[GoldSample], predicted: Mapping[str, Acts]) -> dict[str, Any]:
    """Per group: n, and for WLCS and WED the score with gold labels, with the annotator, their difference and its
    bootstrap interval. ``predicted`` holds the annotator's acts by sample id (failed annotations left out). Replies
    without a reference are counted under ``without_reference``."""
    references = reference_acts(samples)
    members: dict[str, list[GoldSample]] = {}
    unreferenced = 0
    for sample in samples:
        if sample.id not in references:
            unreferenced += 1
            continue
        if sample.id not in predicted:
            continue
        members.setdefault("all", []).append(sample)
        for name in GROUPS:
            value = sample.raw.get(name)
            if isinstance(value, str) and value:
                members.setdefault(f"{name}={value}", []).append(sample)
    out: dict[str, Any] = {}
    for key, group in sorted(members.items()):
        ref = [references[s.id] for s in group]
        ann = [predicted[s.id] for s in group]
        gold = [s.acts for s in group]
        out[key] = {
            "n": len(group),
            "wlcs": _delta(
                [weighted_lcs(r, a) for r, a in zip(ref, ann, strict=True)],
                [weighted_lcs(r, g) for r, g in zip(ref, gold, strict=True)],
            ),
            "wed": _delta(
                [weighted_edit_distance(gold=r, pred=a).total for r, a in zip(ref, ann, strict=True)],
                [weighted_edit_distance(gold=r, pred=g).total for r, g in zip(ref, gold, strict=True)],
            ),
        }
    if unreferenced:
        out["without_reference"] = unreferenced  # a count, not a group
    return out


def validity_rows(figures: Mapping[str, Any]) -> list[list[object]]:
    """The figures as table rows: group, n, WLCS gold / annotator / Δ [CI], WED Δ [CI] (counts are skipped)."""
    rows: list[list[object]] = []
    for key, f in figures.items():
        if not isinstance(f, Mapping):
            continue
        w, e = f["wlcs"], f["wed"]
        rows.append(
            [
                key,
                f["n"],
                f"{w['gold']:.3f}",
                f"{w['annotator']:.3f}",
                f"{w['delta']:+.3f} [{w['ci'][0]:+.3f}, {w['ci'][1]:+.3f}]",
                f"{e['delta']:+.3f} [{e['ci'][0]:+.3f}, {e['ci'][1]:+.3f}]",
            ]
        )
    return rows


VALIDITY_HEAD = [
    "replies",
    "n",
    "WLCS with gold labels",
    "WLCS with the annotator",
    "WLCS Δ [95% CI]",
    "WED Δ [95% CI]",
]


def system_level_section(config: Mapping[str, Any]) -> tuple[str, str]:
    """The annotator's system-level bias per reply style and flaw for a run report (HTML, Markdown), when it is
    recorded (:func:`~voxeval.report._trust.measured_system_level`); empty strings otherwise."""
    from voxeval.report._html import esc, table
    from voxeval.report._trust import measured_system_level

    measured = measured_system_level(dict(config))
    if measured is None:
        return "", ""
    figures, where = measured
    rows = validity_rows(figures)
    note = (
        f"System-level validity, measured on {where}: the benchmark score a system of each "
        "reply style (or flaw) gets with this annotator minus with gold labels (Δ, 95% bootstrap interval over the "
        "replies). A difference between systems smaller than these Δ may come from the annotator."
    )
    html = table(VALIDITY_HEAD, rows, numeric=(1, 2, 3)) + f'<p class="meta">{esc(note)}</p>'
    return html, "\n" + markdown_table(VALIDITY_HEAD, rows) + "\n\n" + note + "\n"
