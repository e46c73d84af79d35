"""Latency summaries (median and p90 with bootstrap CIs), the channel comparison and their tables (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.report._channels import channel_rows, channel_summaries, example_rows
from voxeval.report._latency import compare_latency, latency_rows, system_latency
from voxeval.report._speech import channel_section, latency_section
from voxeval.report._stats import bootstrap_quantile_ci

SECONDS = st.lists(st.floats(0, 100, allow_nan=False, allow_subnormal=False), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None)
@given(SECONDS, st.sampled_from([0.5, 0.9]))
def test_quantile_interval_stays_within_the_data(values, q) -> None:
    iv = bootstrap_quantile_ci(values, q, resamples=200)
    assert iv is not None and iv.n == len(values)
    assert min(values) - 1e-9 <= iv.low <= iv.high <= max(values) + 1e-9
    assert min(values) - 1e-9 <= iv.value <= max(values) + 1e-9


@settings(max_examples=40, deadline=None)
@given(SECONDS, st.floats(0, 50, allow_nan=False), st.floats(0.5, 4, allow_nan=False))
def test_quantile_interval_moves_with_a_shift_and_a_scale(values, shift, scale) -> None:
    base = bootstrap_quantile_ci(values, 0.9, resamples=200)
    moved = bootstrap_quantile_ci([v * scale + shift for v in values], 0.9, resamples=200)
    assert base is not None and moved is not None
    for a, b in ((base.value, moved.value), (base.low, moved.low), (base.high, moved.high)):
        assert b == pytest.approx(a * scale + shift, abs=1e-6)


def test_quantile_interval_degenerate_inputs() -> None:
    assert bootstrap_quantile_ci([], 0.5) is None
    one = bootstrap_quantile_ci([0.7], 0.9)
    assert one is not None and (one.value, one.low, one.high, one.n) == (0.7, 0.7, 0.7, 1)
    same = bootstrap_quantile_ci([0.3] * 5, 0.5)
    assert same is not None and same.low == same.high == 0.3
    with pytest.raises(ValueError, match="quantile"):
        bootstrap_quantile_ci([1.0], 1.5)


def row(system: str, sample: str, total: float | None, audio: float | None = None, **extra) -> dict:
    latency = {"first_audio_s": audio, "first_text_s": total, "total_s": total, "audio_s": None, "rtf": None,
               "timed_by": "call"}  # fmt: skip
    return {"dataset": "d", "system": system, "id": sample, "status": "ok", "latency": latency, **extra}


def test_system_latency_per_system_and_unobserved_fields() -> None:
    replies = {
        "1": row("b", "1", 1.0),
        "2": row("b", "2", 3.0),
        "3": row("a", "1", 0.5, audio=0.5),
        "4": {"dataset": "d", "system": "a", "id": "2", "status": "failed"},  # the call raised: no latency
    }
    found = {s.system: s for s in system_latency(replies)}
    assert list(found) == ["a", "b"] and found["a"].replies == 1 and found["b"].replies == 2
    total = found["b"].fields["total_s"]
    assert total is not None and total.median.value == 2.0 and total.p90.value == pytest.approx(2.8)
    assert found["b"].fields["first_audio_s"] is None  # no audio: shown as a dash
    rows = {r[0]: r for r in latency_rows(list(found.values()))}
    assert rows["b"][3:5] == ["—", "—"] and rows["a"][3] == "0.500 [0.500, 0.500]"


def test_latency_section_is_empty_without_latency_records() -> None:
    assert latency_section({"k": {"system": "s", "status": "ok", "text": "x"}}) == ("", "")
    html, md = latency_section({"k": row("s", "1", 1.0)})
    assert "Table 1 (latency)" in html and "| s | 1 | call |" in md and "monotonic clock" in md


def test_compare_latency_pairs_samples() -> None:
    a = {"1": row("s", "1", 1.0), "2": row("s", "2", 2.0), "3": row("s", "3", 9.0)}
    b = {"1": row("s", "1", 1.5), "2": row("s", "2", 2.5)}
    got = compare_latency(a, b)["total_s"]
    assert got["paired_n"] == 2 and got["b_minus_a"] == pytest.approx(0.5)
    assert got["median_a"] == 2.0 and got["median_b"] == 2.0
    assert compare_latency(a, b)["first_audio_s"] == {
        "median_a": None, "median_b": None, "paired_n": 0, "b_minus_a": None, "ci": None, "p_value": None,
    }  # fmt: skip


def spoken(sample: str, model: str, heard: str | None) -> dict:
    out = {"dataset": "d", "system": "s", "id": sample, "status": "ok", "model_text": model}
    return out if heard is None else {**out, "asr_text": heard}


def test_channel_summary_counts_pairs_speech_only_and_differences() -> None:
    replies = {
        "1": spoken("1", "はい、そうです。", "はい そうです"),  # punctuation only: CER 0
        "2": spoken("2", "今日は晴れです。", "明日は晴れです"),  # one character of seven substituted
        "3": spoken("3", "", "話しただけ"),  # speech only
        "4": spoken("4", "文字だけ", None),  # no transcribed audio: not compared
    }
    (summary,) = channel_summaries(replies)
    assert (summary.pairs, summary.speech_only, summary.differing, summary.far) == (2, 1, 1, 0)
    assert summary.cer is not None and summary.cer.mean == pytest.approx((0 + 1 / 7) / 2)
    assert [p.id for p in summary.examples] == ["2"]  # a pair that does not differ is no example
    assert channel_rows([summary])[0][4:] == ["1 (50%)", "0 (0%)", 0]
    assert example_rows([summary])[0][:3] == ["s", "d/2", "0.14"]
    html, md = channel_section(replies, "model")
    assert "the model&#x27;s own text" in html and "--reply-text model" in md
    assert channel_section({"4": replies["4"]}, "speech") == ("", "")


def test_a_looped_transcript_is_counted_not_compared() -> None:
    replies = {
        "1": spoken("1", "はい、そうです。", "はい そうです"),
        "2": {**spoken("2", "タイマーを始めます。", "タイマーを始めます。" + "ぁ" * 40), "asr_looped": "compression"},
        "3": {**spoken("3", "", "はいはいはいはい"), "asr_looped": "repeat", "system": "t"},  # only loops
    }
    s, t = channel_summaries(replies)
    assert (s.system, s.pairs, s.looped, s.cer is not None and s.cer.mean) == ("s", 1, 1, 0.0)
    assert (t.system, t.pairs, t.speech_only, t.looped) == ("t", 0, 0, 1)
    assert [r[-1] for r in channel_rows([s, t])] == [1, 1]
    assert "ASR looped" in channel_section(replies, "speech")[1]
