"""Intensity and level mapping: monotone, on the seed prompt's cuts, and documented in one table."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.judge import LEVELS
from voxeval.speech.acoustics import ORDINAL_LEVELS, THRESHOLDS, Scale, intensity, level_of, thresholds_markdown

SCALES = [f.name for f in fields(THRESHOLDS) if isinstance(getattr(THRESHOLDS, f.name), Scale)]
DOCS = Path(__file__).resolve().parents[3] / "docs" / "acoustic-judge.md"


@pytest.mark.parametrize("name", SCALES)
@given(a=st.floats(min_value=-80, max_value=2000), b=st.floats(min_value=-80, max_value=2000))
def test_intensity_and_level_are_monotone(name: str, a: float, b: float) -> None:
    scale: Scale = getattr(THRESHOLDS, name)
    if scale.log:
        a, b = abs(a) + 1e-3, abs(b) + 1e-3
    lo, hi = sorted((a, b))
    i_lo, i_hi = intensity(scale, lo), intensity(scale, hi)
    assert 0.0 <= i_lo <= i_hi <= 100.0
    levels = ORDINAL_LEVELS["pitch"]
    assert levels.index(level_of("pitch", i_lo)) <= levels.index(level_of("pitch", i_hi))


@pytest.mark.parametrize("name", SCALES)
def test_cuts_map_to_the_seed_prompt_boundaries(name: str) -> None:
    scale: Scale = getattr(THRESHOLDS, name)
    for cut, expected in zip(scale.cuts, THRESHOLDS.intensity_cuts, strict=True):
        assert intensity(scale, cut) == pytest.approx(expected)


@given(st.floats(min_value=0, max_value=100))
def test_levels_follow_the_seed_prompt_bands(score: float) -> None:
    band = sum(score >= c for c in (10, 35, 65, 90))
    assert level_of("speed", score) == ("very_slow", "slow", "normal", "fast", "very_fast")[band]


def test_ordinal_levels_match_the_judge_contract() -> None:
    for attribute, levels in ORDINAL_LEVELS.items():
        assert levels == LEVELS[attribute]


def test_scale_rejects_unordered_cuts() -> None:
    with pytest.raises(ValueError, match="increase"):
        Scale("x", (1.0, 3.0, 2.0, 4.0))


def test_every_threshold_is_documented_and_the_docs_table_is_current() -> None:
    table = thresholds_markdown()
    for f in fields(THRESHOLDS):
        row = next(line for line in table.splitlines() if line.startswith(f"| `{f.name}` |"))
        assert row.rstrip(" |").split("|")[-1].strip(), f"{f.name} has no docstring"
    assert table in DOCS.read_text(encoding="utf-8"), "docs/acoustic-judge.md: paste thresholds_markdown() output"
