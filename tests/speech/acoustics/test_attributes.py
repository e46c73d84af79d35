"""Readings from measurements (pure): pitch references, rate units, volume cues, gender, child, batches."""

from __future__ import annotations

from dataclasses import replace

import pytest

from voxeval.speech.acoustics import (
    THRESHOLDS,
    BatchReference,
    Measurements,
    Units,
    read_age,
    read_gender,
    read_naturalness,
    read_pitch,
    read_speed,
    read_volume,
)

BASE = Measurements(
    duration_s=3.0,
    speech_s=2.0,
    voiced_fraction=0.7,
    f0_median_hz=120.0,
    f0_p10_hz=100.0,
    f0_p90_hz=150.0,
    f0_sd_st=3.0,
    f0_range_st=8.0,
    formants_hz=(500.0, 1500.0, 2500.0, 3500.0),
    lufs=-20.0,
    alpha_ratio_db=-8.0,
    nuclei=9,
    npvi=50.0,
)


def m(**changes: object) -> Measurements:
    return replace(BASE, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("f0", "formants", "level"),
    [
        (120.0, (500.0, 1500.0, 2500.0, 3500.0), "male"),
        (220.0, (550.0, 1800.0, 3200.0, 4200.0), "female"),
        (175.0, (500.0, 1500.0, 2500.0, 3400.0), "male"),  # above the F0 cut, but a long vocal tract
        (150.0, (550.0, 1900.0, 3300.0, 4400.0), "female"),  # below the F0 cut, but a short vocal tract
    ],
)
def test_gender_from_f0_and_formants(f0: float, formants: tuple[float, ...], level: str) -> None:
    assert read_gender(m(f0_median_hz=f0, formants_hz=formants)).level == level


def test_gender_without_formants_uses_the_165_hz_cut() -> None:
    assert read_gender(m(f0_median_hz=160.0, formants_hz=None)).level == "male"
    assert read_gender(m(f0_median_hz=170.0, formants_hz=None)).level == "female"
    assert read_gender(m(f0_median_hz=None)).level is None


def test_pitch_references() -> None:
    deep = m(f0_median_hz=100.0, f0_p90_hz=110.0)
    assert read_pitch(deep, "absolute").basis.startswith("F0 p90")
    assert read_pitch(deep, "gender").level == "normal"  # a normal male voice
    assert read_pitch(deep, "model", model_median_hz=80.0).level in ("high", "very_high")
    fallback = read_pitch(deep, "model")
    assert "no batch reference" in fallback.basis and fallback.level == "normal"
    assert read_pitch(m(f0_median_hz=None, f0_p90_hz=None), "absolute").level is None


def test_speed_uses_transcript_units_else_syllable_nuclei() -> None:
    norm = THRESHOLDS.rate_norm["ja"]
    fast = read_speed(m(speech_s=2.0), Units(round(2.0 * norm * 1.6), "mora"), "ja")
    assert fast.level == "very_fast" and "morae" in fast.basis
    nuclei = read_speed(m(speech_s=2.0, nuclei=10), None, "en")
    assert "nuclei" in nuclei.basis and nuclei.value == pytest.approx(5.0 / THRESHOLDS.rate_norm["en"])


def test_volume_absolute_relative_and_whisper() -> None:
    assert read_volume(m(lufs=-20.0)).level == "normal"
    assert read_volume(m(lufs=-40.0)).level == "very_quiet"
    assert read_volume(m(lufs=-20.0), model_median_lufs=-30.0).level == "very_loud"  # normalised systems
    whisper = read_volume(m(lufs=-20.0, voiced_fraction=0.1))
    assert whisper.level == "very_quiet" and "whisper" in whisper.basis
    assert read_volume(m(lufs=None)).level is None


def test_child_needs_high_f0_and_short_vocal_tract() -> None:
    assert read_age(m(f0_median_hz=300.0, formants_hz=(800.0, 2000.0, 3600.0, 4400.0))).level == "child"
    assert read_age(m(f0_median_hz=300.0)).level == "adult"  # high voice, adult formants
    assert read_age(m(f0_median_hz=120.0)).level == "adult"


def test_naturalness_needs_both_pitch_and_rhythm_variation() -> None:
    assert read_naturalness(m(f0_sd_st=3.0, npvi=50.0)).natural is True
    assert read_naturalness(m(f0_sd_st=1.0, npvi=50.0)).natural is False
    assert read_naturalness(m(f0_sd_st=3.0, npvi=20.0)).natural is False
    assert read_naturalness(m(npvi=None)).natural is None


def test_batch_reference_needs_enough_replies() -> None:
    n = THRESHOLDS.relative_min_replies
    replies = [m(lufs=-20.0 - i, f0_median_hz=100.0 + i) for i in range(n)]
    ref = BatchReference.of(replies)
    assert ref.median_lufs == pytest.approx(-20.0 - (n - 1) / 2)
    assert ref.f0_reference("male") == pytest.approx(100.0 + (n - 1) / 2)
    assert ref.f0_reference("female") == ref.f0_reference("male")  # one voice: its own median
    few = BatchReference.of(replies[: n - 1])
    assert few.median_lufs is None and few.f0_reference("male") is None
    assert "absolute" in few.describe()
