"""WLCS-c / WED-c of scored sets: pairs the spans of equal-label acts, asks a span similarity, scores.

Only pairs with equal labels are ever read by the metrics, so only those are sent to the similarity (all of a
set's pairs in one call: one encoder batch). A step without a span is compared by its whole reply text (the gold
reference's or the prediction row's ``text``) and counted (``whole_text_steps``); without either, the content
scores cannot be computed and an :class:`~voxeval.errors.InputError` says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.acts import Acts
from voxeval.annotate._similarity import SpanSimilarity
from voxeval.errors import InputError, Location
from voxeval.metrics import ContentScore, ContentSummary, score_content, summarise_content


@dataclass(frozen=True)
class ContentSet:
    """The content-aware scores of one scored set."""

    scores: tuple[ContentScore, ...]
    """One per scored sample, in the order of the set's scores."""
    summary: ContentSummary
    """Their means."""


def _spans(sample_id: str, acts: Acts, whole_text: str | None, side: str) -> tuple[list[str], int]:
    out, whole = [], 0
    for k, step in enumerate(acts):
        if step.span:
            out.append(step.span)
        elif whole_text:
            out.append(whole_text)
            whole += 1
        else:
            raise InputError(
                Location(field=f"{sample_id}.{side}.steps[{k}].span"),
                "content scores need each act's span (or the reply text): this step has neither",
            )
    return out, whole


def content_set(scored: Any, similarity: SpanSimilarity) -> ContentSet:
    """WLCS-c and WED-c for every sample of a :class:`~voxeval.run.ScoredSet` (same samples, same order)."""
    gold = {g.id: g for g in scored.gold}
    items, pairs, whole = [], [], 0
    for score in scored.scores:
        sample = gold[score.id]
        pred = scored.predictions.get(score.id)
        pred_acts: Acts = () if pred is None or score.missing else pred.acts
        g_spans, g_whole = _spans(score.id, sample.acts, sample.output_text, "gold")
        p_spans, p_whole = _spans(score.id, pred_acts, pred.text if pred else None, "pred")
        whole += g_whole + p_whole
        cells = [
            (i, j) for i, g in enumerate(sample.acts) for j, p in enumerate(pred_acts) if g.act == p.act
        ]  # the only cells the metrics read
        pairs += [(g_spans[i], p_spans[j]) for i, j in cells]
        items.append((score, sample.acts, pred_acts, cells))
    found = similarity.similarities(pairs)
    if len(found) != len(pairs) or not all(0.0 <= v <= 1.0 for v in found):
        raise ValueError(f"span similarity {similarity.name!r} must give one value in [0, 1] per pair")
    values = iter(found)
    scores = []
    for score, g_acts, p_acts, cells in items:
        sim = [[0.0] * len(p_acts) for _ in g_acts]
        for i, j in cells:
            sim[i][j] = next(values)
        scores.append(score_content(score.id, g_acts, p_acts, sim, missing=score.missing))
    return ContentSet(tuple(scores), summarise_content(scores, whole, similarity.describe()))


def with_content(sets: Sequence[Any], similarity: SpanSimilarity) -> list[Any]:
    """The scored sets with their ``content`` filled in."""
    return [dataclasses.replace(s, content=content_set(s, similarity)) for s in sets]
