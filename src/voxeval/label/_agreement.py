"""Agreement of people with each other and of the annotator and the style judge with them (``voxeval agreement``).

Dialogue acts, per pair of labellers over the items both labelled: exact label sequence, WED and WLCS (each pair
scored both ways, A as gold then B as gold, and averaged, since WLCS weighs the prediction side), and span overlap
(characters given the same act by both / characters inside a span of either). Style: Krippendorff's alpha with the
*interval* metric (squared difference of 1-5 scores) over all raters, and per pair Spearman, exact and within-one
agreement. Every mean has a 95% bootstrap interval over items (alpha: over items too).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from voxeval.acts import Acts, Step
from voxeval.label._study import read_judgements

Rows = dict[str, dict[str, Any]]


BOOTSTRAP_RESAMPLES = 2000
"""Resamples of every bootstrap interval (percentile method, 95%, seed 0), as the run reports use."""


def _ci(values: Sequence[float]) -> dict[str, Any] | None:
    """Mean and 95% percentile bootstrap interval over items; ``None`` for no items, zero width for one."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    mean = float(data.mean())
    picks = np.random.default_rng(0).integers(0, data.size, (BOOTSTRAP_RESAMPLES, data.size))
    low, high = np.percentile(data[picks].mean(axis=1), [2.5, 97.5]) if data.size > 1 else (mean, mean)
    return {"mean": mean, "low": float(low), "high": float(high), "n": int(data.size)}


def acts_of(row: dict[str, Any]) -> Acts:
    """A judgement's (or annotation's) steps as a normalised sequence."""
    from voxeval.acts import normalise

    return normalise([Step(s["act"], float(s["importance"])) for s in row.get("steps") or []])


def char_acts(row: dict[str, Any]) -> dict[int, str]:
    """Character offset → act, for a human judgement's spans."""
    return {c: s["act"] for s in row.get("steps") or [] for c in range(s["start"], s["end"])}


def span_overlap(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Characters both labellers gave the same act, over characters either put in a span (1.0 when neither did)."""
    ca, cb = char_acts(a), char_acts(b)
    either = set(ca) | set(cb)
    if not either:
        return 1.0  # neither labeller marked any span: nothing to disagree on
    return sum(1 for c in either if ca.get(c) is not None and ca.get(c) == cb.get(c)) / len(either)


def da_pair(a: Acts, b: Acts) -> dict[str, float]:
    """Exact sequence, WED and WLCS of two labellings of one reply, each metric averaged over both directions.

    Two "no act" labellings agree fully (WLCS 1, WED 0), though WLCS against an empty gold is 0 by definition:
    here neither side is the benchmark's gold, and both said the same thing.
    """
    from voxeval.metrics import weighted_edit_distance, weighted_lcs

    if not a and not b:
        return {"exact": 1.0, "wed": 0.0, "wlcs": 1.0}
    wed = (weighted_edit_distance(gold=a, pred=b).total + weighted_edit_distance(gold=b, pred=a).total) / 2
    wlcs = (weighted_lcs(gold=a, pred=b) + weighted_lcs(gold=b, pred=a)) / 2
    return {"exact": float([s.act for s in a] == [s.act for s in b]), "wed": wed, "wlcs": wlcs}


def _labelled(rows: Rows) -> Rows:
    return {k: r for k, r in rows.items() if r.get("status") == "labelled"}


def _summary(per_item: list[dict[str, float]], names: Sequence[str]) -> dict[str, Any]:
    return {"items": len(per_item), **{n: _ci([x[n] for x in per_item]) for n in names}}


def da_agreement(humans: dict[str, Rows], annotations: Rows | None) -> dict[str, Any]:
    """Human–human agreement per pair and pooled, and annotator–human per labeller (human as gold)."""
    humans = {h: _labelled(r) for h, r in humans.items()}
    pairs, pooled = {}, []
    for x, y in itertools.combinations(sorted(humans), 2):
        shared = sorted(set(humans[x]) & set(humans[y]))
        per_item = []
        for key in shared:
            row = da_pair(acts_of(humans[x][key]), acts_of(humans[y][key]))
            per_item.append({**row, "span_overlap": span_overlap(humans[x][key], humans[y][key])})
        pairs[f"{x} vs {y}"] = _summary(per_item, ("exact", "wed", "wlcs", "span_overlap"))
        pooled += per_item
    out: dict[str, Any] = {"labellers": sorted(humans), "pairs": pairs}
    out["human_human"] = _summary(pooled, ("exact", "wed", "wlcs", "span_overlap")) if pairs else None
    if annotations:
        out["annotator_vs_human"] = {h: annotator_vs(rows, annotations) for h, rows in sorted(humans.items())}
    return out


def annotator_vs(labels: Rows, annotations: Rows) -> dict[str, Any]:
    """The annotator's acts as this run made them against one labeller's as gold, over the labelled items with at
    least one act (the items ``--export`` writes, so ``annotator-check`` on the export gives the same figure);
    a "no act" label is counted apart (does the annotator give no act too?), and what is left out says why."""
    from voxeval.metrics import weighted_edit_distance, weighted_lcs

    per_item, no_act, left_out = [], [], {}
    for key in sorted(labels):
        note = annotations.get(key)
        if note is None or note.get("status") != "ok":
            left_out[key] = "not annotated" if note is None else f"annotation {note.get('status')}"
            continue
        gold, pred = acts_of(labels[key]), acts_of(note)
        if not gold:
            no_act.append(float(not pred))
            continue
        exact = float([s.act for s in gold] == [s.act for s in pred])
        wed, wlcs = weighted_edit_distance(gold=gold, pred=pred).total, weighted_lcs(gold=gold, pred=pred)
        per_item.append({"exact": exact, "wed": wed, "wlcs": wlcs})
    out = _summary(per_item, ("exact", "wed", "wlcs"))
    out["no_act"] = {"items": len(no_act), "annotator_no_act": _ci(no_act)}
    out["left_out"] = left_out
    return out


def left_out(humans: dict[str, Rows]) -> dict[str, dict[str, str]]:
    """Per labeller, the items the figures leave out and why (skipped or flagged: no judgement to compare)."""
    return {
        h: {k: str(r["status"]) for k, r in sorted(rows.items()) if r.get("status") != "labelled"}
        for h, rows in sorted(humans.items())
    }


def annotation_setting(run_dir: Path) -> dict[str, Any] | None:
    """How this run's annotator ran (spec, and whether it saw each sample's reference reply), from its
    ``config.json``; ``None`` for a folder that is not a run."""
    from voxeval.run._config import read_config

    config = read_config(run_dir)
    settings = (config or {}).get("settings") or {}
    if not settings.get("annotator"):
        return None
    reference = (settings.get("extra") or {}).get("annotator_context") == "reference"
    return {"annotator": settings["annotator"], "reference_context": reference}


def _unit_sums(units: Sequence[Sequence[float]]) -> Any:
    """Per pairable unit: count, sum, sum of squares and observed disagreement (ordered pairs / (m - 1))."""
    import numpy as np

    rows = [(len(u), sum(u), sum(v * v for v in u)) for u in units if len(u) >= 2]
    m, s, q = (np.array(c, dtype=float) for c in zip(*rows, strict=True)) if rows else (np.zeros(0),) * 3
    return np.stack([m, s, q, (2 * m * q - 2 * s * s) / np.maximum(m - 1, 1)], axis=-1)


def _alpha_from_sums(sums: Any) -> Any:
    """Alpha from summed unit columns (last axis: n, Σv, Σv², Σ observed); NaN where undefined."""
    import numpy as np

    n, s, q, observed = (sums[..., i] for i in range(4))
    expected = (2 * n * q - 2 * s * s) / np.where(n > 1, n * (n - 1), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - (observed / n) / np.where(expected > 0, expected, np.nan)


def krippendorff_interval(units: Sequence[Sequence[float]]) -> float | None:
    """Krippendorff's alpha, interval metric, over units of ratings (units with fewer than two are not pairable).

    Σ over ordered value pairs of (a - b)² is 2nΣv² - 2(Σv)², so each unit is summarised by its count, sum and
    sum of squares. ``None`` when fewer than two pairable values or no variation at all (expected disagreement 0).
    """
    import math

    per_unit = _unit_sums(units)
    alpha = float(_alpha_from_sums(per_unit.sum(axis=0))) if len(per_unit) else math.nan
    return None if math.isnan(alpha) else alpha


def _interval(whole: float | None, draws: Any, n: int) -> dict[str, Any] | None:
    import numpy as np

    if whole is None:
        return None
    kept = draws[~np.isnan(draws)]
    low, high = np.percentile(kept, [2.5, 97.5]) if kept.size else (whole, whole)
    return {"mean": whole, "low": float(low), "high": float(high), "n": n}


def _alpha_ci(units: list[list[float]], resamples: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    import numpy as np

    per_unit = _unit_sums(units)
    if not len(per_unit):
        return None
    picks = np.random.default_rng(seed).integers(0, len(per_unit), (resamples, len(per_unit)))
    return _interval(krippendorff_interval(units), _alpha_from_sums(per_unit[picks].sum(axis=1)), len(units))


def _rho(x: Any, y: Any) -> Any:
    """Spearman's rho per row (average ranks for ties); NaN for a row without variation."""
    import numpy as np
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=-1), rankdata(y, axis=-1)
    rx, ry = rx - rx.mean(axis=-1, keepdims=True), ry - ry.mean(axis=-1, keepdims=True)
    denominator = np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (rx * ry).sum(axis=-1) / np.where(denominator > 0, denominator, np.nan)


def _spearman_ci(x: list[float], y: list[float], resamples: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    import numpy as np

    if len(x) < 3:
        return None
    whole = float(_rho(np.array(x), np.array(y)))
    picks = np.random.default_rng(seed).integers(0, len(x), (resamples, len(x)))
    return _interval(None if np.isnan(whole) else whole, _rho(np.array(x)[picks], np.array(y)[picks]), len(x))


def _rating_pair(x: list[float], y: list[float]) -> dict[str, Any]:
    return {
        "items": len(x),
        "spearman": _spearman_ci(x, y),
        "exact": _ci([float(a == b) for a, b in zip(x, y, strict=True)]),
        "within_one": _ci([float(abs(a - b) <= 1) for a, b in zip(x, y, strict=True)]),
    }


def style_agreement(humans: dict[str, Rows], judge: dict[str, float] | None) -> dict[str, Any]:
    """Krippendorff's alpha (interval) over all raters, pairwise figures, and judge vs mean human rating.

    Exact and within-one agreement of the judge compare it with the mean human rating rounded half up.
    """
    scores = {h: {k: float(r["score"]) for k, r in _labelled(rows).items()} for h, rows in humans.items()}
    keys = sorted({k for s in scores.values() for k in s})
    units = [[s[k] for s in scores.values() if k in s] for k in keys]
    pairs = {}
    for x, y in itertools.combinations(sorted(scores), 2):
        shared = sorted(set(scores[x]) & set(scores[y]))
        pairs[f"{x} vs {y}"] = _rating_pair([scores[x][k] for k in shared], [scores[y][k] for k in shared])
    out: dict[str, Any] = {
        "raters": sorted(scores),
        "alpha_metric": "interval",
        "alpha": _alpha_ci(units),
        "pairs": pairs,
    }
    if judge:
        rated = [k for k, u in zip(keys, units, strict=True) if k in judge and u]
        mean = {k: sum(u) / len(u) for k, u in zip(keys, units, strict=True)}
        out["judge_vs_human_mean"] = _rating_pair([judge[k] for k in rated], [math.floor(mean[k] + 0.5) for k in rated])
        out["judge_vs_human_mean"]["spearman"] = _spearman_ci([judge[k] for k in rated], [mean[k] for k in rated])
    return out


def _optional_log(path: Path, pick: Callable[[dict[str, Any]], bool]) -> Rows:
    from voxeval.data import read_log

    return {k: r for k, r in read_log(path, "key").items() if pick(r)} if path.exists() else {}


def agreement_report(run_dir: Path, tasks: Sequence[str]) -> dict[str, Any]:
    """Every figure of ``voxeval agreement`` for the tasks that have human judgements."""
    report: dict[str, Any] = {}
    if "da" in tasks and (humans := read_judgements(run_dir, "da")):
        report["da"] = da_agreement(humans, _optional_log(run_dir / "annotations.jsonl", lambda r: True))
        report["da"]["left_out"] = left_out(humans)
        if "annotator_vs_human" in report["da"]:
            report["da"]["annotation"] = annotation_setting(run_dir)
    if "style" in tasks and (humans := read_judgements(run_dir, "style")):
        judged = _optional_log(run_dir / "judgements.jsonl", lambda r: r.get("status") == "ok" and "key" in r)
        report["style"] = style_agreement(humans, {k: float(r["score"]) for k, r in judged.items()})
        report["style"]["left_out"] = left_out(humans)
    return report
