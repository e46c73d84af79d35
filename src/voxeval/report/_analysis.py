"""What a run's scores say beyond Table 1: per-domain means, missing / redundant / confused labels, order errors."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from voxeval.report._stats import Interval, bootstrap_ci


@dataclass(frozen=True)
class ErrorAnalysis:
    """Which dialogue acts go wrong, aggregated over one system's samples."""

    missing: Counter[str]
    """Gold labels inserted on the edit path: acts the system failed to perform."""
    redundant: Counter[str]
    """Predicted labels deleted on the edit path: acts the system performed needlessly."""
    confused: Counter[tuple[str, str]]
    """(gold, predicted) label pairs substituted on the edit path."""
    order_errors: int
    """Samples whose predicted labels are the gold labels as a multiset but in a different order."""
    samples: int
    """Samples analysed."""


def error_analysis(scored: Any) -> ErrorAnalysis:
    """Label-level error counts for a :class:`~voxeval.run.ScoredSet`."""
    gold = {g.id: g for g in scored.gold}
    missing: Counter[str] = Counter()
    redundant: Counter[str] = Counter()
    confused: Counter[tuple[str, str]] = Counter()
    order = 0
    for s in scored.scores:
        g_acts = gold[s.id].acts
        p_acts = scored.predictions[s.id].acts if s.id in scored.predictions else ()
        for op in s.edit.ops:
            if op.op == "insertion" and op.gold_index is not None:
                missing[g_acts[op.gold_index].act] += 1
            elif op.op == "deletion" and op.pred_index is not None:
                redundant[p_acts[op.pred_index].act] += 1
            elif op.op == "substitution" and op.gold_index is not None and op.pred_index is not None:
                confused[(g_acts[op.gold_index].act, p_acts[op.pred_index].act)] += 1
        g_labels, p_labels = [a.act for a in g_acts], [a.act for a in p_acts]
        if g_labels != p_labels and sorted(g_labels) == sorted(p_labels):
            order += 1
    return ErrorAnalysis(missing, redundant, confused, order, len(scored.scores))


@dataclass(frozen=True)
class DomainScores:
    """One domain's scores for one system."""

    n: int
    """Scored samples in the domain."""
    wed: Interval | None
    """Mean WED with its bootstrap CI."""
    wlcs: Interval | None
    """Mean WLCS with its bootstrap CI."""


def per_domain(scored: Any) -> dict[str, DomainScores]:
    """WED and WLCS mean with bootstrap CI per domain (samples without a domain go under ``-``)."""
    domain = {g.id: g.domain or "-" for g in scored.gold}
    wed: dict[str, list[float]] = defaultdict(list)
    wlcs: dict[str, list[float]] = defaultdict(list)
    for s in scored.scores:
        wed[domain[s.id]].append(s.edit.total)
        wlcs[domain[s.id]].append(s.wlcs)
    return {d: DomainScores(len(wed[d]), bootstrap_ci(wed[d]), bootstrap_ci(wlcs[d])) for d in sorted(wed)}
