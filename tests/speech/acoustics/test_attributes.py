"""Readings from measurements (pure): pitch references, rate units, volume cues, gender, child, batches."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from voxeval.speech.acoustics import (
    THRESHOLDS,
    BatchReference,
    Measurements,
    NaturalnessModel,
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


def test_gender_without_formants_uses_the_f0_cut() -> None:
    cut = THRESHOLDS.gender_f0_cut_hz  # fitted on real speech (186 Hz; 165 Hz on the synthetic clips)
    assert read_gender(m(f0_median_hz=cut - 5, formants_hz=None)).level == "male"
    assert read_gender(m(f0_median_hz=cut + 5, formants_hz=None)).level == "female"
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
    fast = read_speed(m(speech_s=2.0), Units(round(2.0 * norm * THRESHOLDS.speed.cuts[3] * 1.2), "mora"), "ja")
    assert fast.level == "very_fast" and "morae" in fast.basis and "signal" in fast.basis
    nuclei = read_speed(m(speech_s=2.0, nuclei=10), None, "en")
    assert "nuclei" in nuclei.basis and nuclei.value == pytest.approx(5.0 / THRESHOLDS.rate_norm["en"])


def test_speed_prefers_the_words_speaking_time() -> None:
    assert "ja" not in THRESHOLDS.nuclei_norm  # Japanese: the transcript's rate alone
    norm = THRESHOLDS.rate_norm["ja"]
    units = Units(round(4.0 * norm), "mora")  # normal over 4 s of words; the signal says 2 s (twice as fast)
    by_words = read_speed(m(speech_s=2.0), units, "ja", word_speech_s=4.0)
    assert by_words.value == pytest.approx(units.count / 4.0 / norm) and "word speaking time" in by_words.basis
    assert by_words.level == "normal"
    by_signal = read_speed(m(speech_s=2.0), units, "ja", word_speech_s=None)
    assert by_signal.value == pytest.approx(units.count / 2.0 / norm)


def test_speed_is_the_geometric_mean_with_the_nuclei_where_fitted() -> None:
    table = replace(THRESHOLDS, rate_norm={**THRESHOLDS.rate_norm, "zh": 4.0}, nuclei_norm={"zh": 3.0})
    units = Units(16, "syllable")  # 16 / 2 s of words = 8/s = 2 × the norm
    reading = read_speed(m(speech_s=2.0, nuclei=3), units, "zh", table, word_speech_s=2.0)  # 1.5/s = 0.5 × its norm
    assert reading.value == pytest.approx(1.0) and "geometric mean" in reading.basis
    assert read_speed(m(speech_s=2.0, nuclei=0), units, "zh", table, word_speech_s=2.0).value == pytest.approx(2.0)


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


def test_naturalness_is_the_classifier_probability_against_its_threshold() -> None:
    # One feature, weight 2 on the standardised F0 sd (mean 2, sd 1): p = sigmoid(2 (sd - 2)); threshold 0.5.
    model = NaturalnessModel(("f0_sd_st",), (2.0,), (1.0,), (2.0,), 0.0, 0.5, {})
    assert read_naturalness(m(f0_sd_st=3.0), model).natural is True
    assert read_naturalness(m(f0_sd_st=1.0), model).natural is False
    flat = read_naturalness(m(f0_sd_st=1.0), model)
    assert flat.probability is not None and abs(flat.probability - 1 / (1 + math.exp(2.0))) < 1e-9
    assert read_naturalness(m(f0_sd_st=None), model).natural is None  # nothing voiced to measure
    strict = NaturalnessModel(("f0_sd_st",), (2.0,), (1.0,), (2.0,), 0.0, 0.95, {})
    assert read_naturalness(m(f0_sd_st=3.0), strict).natural is False  # p 0.88 < 0.95


def test_naturalness_model_file_round_trips_and_checks_lengths() -> None:
    model = NaturalnessModel(("f0_sd_st", "npvi"), (2.0, 40.0), (1.0, 10.0), (1.0, 0.5), -0.2, 0.6, {"k": 1})
    assert NaturalnessModel.from_json(model.to_json()) == model
    broken = model.to_json() | {"weights": [1.0]}
    with pytest.raises(ValueError, match="one value per feature"):
        NaturalnessModel.from_json(broken)


def test_missing_feature_counts_as_the_training_mean() -> None:
    model = NaturalnessModel(("f0_sd_st", "hnr_db"), (2.0, 10.0), (1.0, 5.0), (1.0, 3.0), 0.0, 0.5, {})
    # No voice-quality measurements: hnr_db contributes nothing, only F0 sd moves the probability.
    assert model.probability(m(f0_sd_st=2.0, voice=None)) == 0.5


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
