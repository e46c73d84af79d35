"""VStyle's weighted scores (pure): means per ability and per category, and the weighted overall score.

Weights: each of the four categories weighs 0.25 of the overall score. Inside ``acoustic_attributes``,
``composite_properties`` weighs 0.125 and each of the six single attributes 0.125 / 6 (VStyle's weights, see
``ABILITY_WEIGHTS_ACOUSTIC``). Inside the other categories VStyle's text gives no sub-weights, so voxeval assumes
equal weights over their sub-abilities (0.25 / 3 each in ``instruction``, 0.25 / 2 in ``role_play``, 0.25 / 4 in
``empathy``). Only abilities with at least one ``ok`` judgement enter a mean, and the weights are renormalised
over them; ``failed`` and ``not_measured`` judgements are excluded from means but counted (``coverage``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from voxeval.style._types import ABILITY_WEIGHTS_ACOUSTIC, Judgement

TAXONOMY: dict[str, tuple[str, ...]] = {
    "acoustic_attributes": ("age", "gender", "pitch", "speed", "volume", "emotion", "composite_properties"),
    "instruction": ("emotion", "variation", "style"),
    "role_play": ("character", "scenario"),
    "empathy": ("anger", "sadness_disappointment", "anxiety_fear", "joy_excitement"),
}
"""VStyle's categories and their sub-abilities (an item's ability is ``category/sub``)."""

CATEGORY_WEIGHT = 0.25
"""Weight of each category in the overall score."""


def _ability_weights() -> dict[str, float]:
    weights = {f"acoustic_attributes/{sub}": w for sub, w in ABILITY_WEIGHTS_ACOUSTIC.items()}
    for category, subs in TAXONOMY.items():
        if category != "acoustic_attributes":
            weights.update({f"{category}/{sub}": CATEGORY_WEIGHT / len(subs) for sub in subs})
    return weights


ABILITY_WEIGHTS: dict[str, float] = _ability_weights()
"""Overall weight of every ability (they sum to 1)."""

ABILITIES: tuple[str, ...] = tuple(ABILITY_WEIGHTS)
"""Every valid ``category/sub`` ability, in taxonomy order."""


@dataclass(frozen=True)
class Counts:
    """How many judgements of each status."""

    n: int = 0
    """All judgements."""
    ok: int = 0
    """Scored."""
    failed: int = 0
    """Judge failed (e.g. unparsable reply); excluded from means."""
    not_measured: int = 0
    """The judge could not measure the requirement; excluded from means."""

    @property
    def coverage(self) -> float | None:
        """Share of judgements that were scored (``None`` when there are none)."""
        return self.ok / self.n if self.n else None

    def to_json(self) -> dict[str, Any]:
        """Counts and coverage."""
        return {**asdict(self), "coverage": self.coverage}


@dataclass(frozen=True)
class GroupScore:
    """The score of one ability or one category."""

    mean: float | None
    """Ability: mean of its ``ok`` scores. Category: weighted mean of its abilities' means. ``None``: no score."""
    counts: Counts
    """Judgements behind it."""
    weight: float
    """Overall weight of the ability / category (before renormalisation)."""

    def to_json(self) -> dict[str, Any]:
        """Mean, weight and counts."""
        return {"mean": self.mean, "weight": self.weight, **self.counts.to_json()}


@dataclass(frozen=True)
class VStyleScores:
    """One model's scores."""

    overall: float | None
    """Weighted mean over the abilities that have a score, weights renormalised; ``None`` when none has."""
    weight_evaluated: float
    """Sum of the overall weights of the abilities that have a score (1.0 for the full benchmark)."""
    counts: Counts
    """All judgements of the model."""
    categories: dict[str, GroupScore] = field(default_factory=dict)
    """Category → score (only categories with judgements)."""
    abilities: dict[str, GroupScore] = field(default_factory=dict)
    """Ability → score (only abilities with judgements)."""

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` block of one model."""
        return {
            "overall": self.overall,
            "weight_evaluated": self.weight_evaluated,
            **self.counts.to_json(),
            "categories": {k: v.to_json() for k, v in self.categories.items()},
            "abilities": {k: v.to_json() for k, v in self.abilities.items()},
        }


def _count(judgements: list[Judgement]) -> Counts:
    statuses = [j.status for j in judgements]
    return Counts(len(statuses), statuses.count("ok"), statuses.count("failed"), statuses.count("not_measured"))


def _weighted(pairs: Iterable[tuple[float | None, float]]) -> tuple[float | None, float]:
    """Weighted mean of the non-``None`` values (weights renormalised over them) and the weight they carry."""
    present = [(v, w) for v, w in pairs if v is not None]
    total = math.fsum(w for _, w in present)
    if not present or total <= 0:
        return None, 0.0
    return math.fsum(v * w for v, w in present) / total, total


def vstyle_scores(judgements: Iterable[Judgement]) -> VStyleScores:
    """VStyle's scores of one model's judgements; an ability outside the taxonomy is a ``ValueError``."""
    by_ability: dict[str, list[Judgement]] = {}
    for judgement in judgements:
        if judgement.ability not in ABILITY_WEIGHTS:
            raise ValueError(f"judgement {judgement.id!r}: ability {judgement.ability!r} is not in VStyle's taxonomy")
        by_ability.setdefault(judgement.ability, []).append(judgement)
    abilities: dict[str, GroupScore] = {}
    for ability in ABILITIES:  # taxonomy order, so summaries read the same for every model
        if ability in by_ability:
            items = by_ability[ability]
            scores = [j.score for j in items if j.status == "ok" and j.score is not None]
            mean = math.fsum(scores) / len(scores) if scores else None
            abilities[ability] = GroupScore(mean, _count(items), ABILITY_WEIGHTS[ability])
    categories: dict[str, GroupScore] = {}
    for category in TAXONOMY:
        members = {a: s for a, s in abilities.items() if a.split("/", 1)[0] == category}
        if members:
            mean, _ = _weighted((s.mean, s.weight) for s in members.values())
            items = [j for a in members for j in by_ability[a]]
            categories[category] = GroupScore(mean, _count(items), CATEGORY_WEIGHT)
    overall, evaluated = _weighted((s.mean, s.weight) for s in abilities.values())
    everything = [j for items in by_ability.values() for j in items]
    return VStyleScores(overall, evaluated, _count(everything), categories, abilities)


def scores_by_model(judgements: Iterable[Judgement]) -> dict[str, VStyleScores]:
    """:func:`vstyle_scores` per ``model_name`` (``None`` is reported as ``"unknown"``), models sorted by name."""
    groups: dict[str, list[Judgement]] = {}
    for judgement in judgements:
        groups.setdefault(judgement.model_name or "unknown", []).append(judgement)
    return {name: vstyle_scores(groups[name]) for name in sorted(groups)}
