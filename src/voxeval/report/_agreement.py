"""Judge–human agreement: Spearman and Kendall between judge scores and mean human ratings, human–human ceiling."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from voxeval.data import read_jsonl
from voxeval.errors import InputError, Location


def read_human_ratings(path: Path) -> dict[str, dict[str, float]]:
    """Rows ``{"id" or "instruct_id", "rater"?, "mos" or "score"}`` → item → rater → rating."""
    ratings: dict[str, dict[str, float]] = defaultdict(dict)
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        item = row.get("id", row.get("instruct_id"))
        if item is None:
            raise InputError(where.child("id"), "missing (need id or instruct_id)")
        value = row.get("mos", row.get("score"))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(where.child("mos"), f"must be a number, got {value!r}")
        rater = str(row.get("rater", row.get("rater_id", f"line{line}")))
        ratings[str(item)][rater] = float(value)
    return dict(ratings)


def _correlations(x: list[float], y: list[float]) -> dict[str, float | None]:
    from scipy.stats import kendalltau, spearmanr

    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return {"spearman": None, "kendall": None}
    return {"spearman": float(spearmanr(x, y).statistic), "kendall": float(kendalltau(x, y).statistic)}


def agreement(judge_scores: dict[str, float], human: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Correlations between judge scores and mean human ratings over common items, and human–human as a ceiling.

    The ceiling is the mean Spearman between every two raters over the items both rated.
    """
    common = sorted(i for i in judge_scores if i in human)
    judge = [judge_scores[i] for i in common]
    mean_human = [sum(human[i].values()) / len(human[i]) for i in common]
    raters = sorted({r for i in human.values() for r in i})
    pair_rho = []
    for a, b in itertools.combinations(raters, 2):
        shared = [i for i in human if a in human[i] and b in human[i]]
        rho = _correlations([human[i][a] for i in shared], [human[i][b] for i in shared])["spearman"]
        if rho is not None:
            pair_rho.append(rho)
    return {
        "items": len(common),
        "judge_vs_human_mean": _correlations(judge, mean_human),
        "human_human_spearman_mean": sum(pair_rho) / len(pair_rho) if pair_rho else None,
        "rater_pairs": len(pair_rho),
    }
