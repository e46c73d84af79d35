"""Scenarios: where a request pauses, and plans that depend only on the seed and the sample."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.duplex import (
    KINDS,
    PAUSE_S,
    InputAudio,
    ScenarioSource,
    SpokenText,
    generate,
    pause,
    split_request,
)

SPLITS = [
    ("ja", "明日の天気を調べて、傘がいるか教えて", ("明日の天気を調べて、", "傘がいるか教えて", "clause")),
    ("zh", "帮我计个时，我要蒸馒头。", ("帮我计个时，", "我要蒸馒头。", "clause")),
    (
        "en",
        "If it rains tomorrow, remind me to take an umbrella.",
        ("If it rains tomorrow,", "remind me to take an umbrella.", "clause"),
    ),
    ("en", "Set a timer for three minutes.", ("Set a timer", "for three minutes.", "phrase")),
    ("ja", "明日6時に起こして", ("明日6時に", "起こして", "phrase")),
    (
        "en",
        "It costs 3.50 dollars in total",
        ("It costs 3.50 dollars", "in total", "phrase"),
    ),  # no cut at the decimal point
    ("ja", "3分測って", None),  # nothing to cut at
    ("ja", "パスタ茹でるからタイマーお願い", None),  # で inside a verb is no particle
    ("zh", "明早六点半叫我起床。", ("明早六点半", "叫我起床。", "phrase")),
    ("zh", "这周末峨眉山天气怎么样？", ("这周末峨眉山天气", "怎么样？", "phrase")),
    ("zh", "定个三分钟的计时器", None),
    ("en", "Hi, there", None),  # a cut must leave 3 letters on both sides
    ("ja", "はい。", None),
]


@pytest.mark.parametrize(("language", "text", "expected"), SPLITS, ids=[s[1] for s in SPLITS])
def test_split_request(language: str, text: str, expected: tuple[str, str, str] | None) -> None:
    split = split_request(text, language)
    assert (None if split is None else (split.head, split.tail, split.boundary)) == expected


SOURCES = [
    ScenarioSource("ja-assistant", "a", "ja", "明日の天気を調べて、傘がいるか教えて"),
    ScenarioSource("ja-assistant", "b", "ja", "3分測って"),
    ScenarioSource("zh-assistant", "c", "zh", "帮我计个时，我要蒸馒头。"),
    ScenarioSource("xx-data", "d", "fr", "Mets un minuteur, s'il te plaît"),
]


def test_generate_plans_every_kind_and_lists_what_it_skipped() -> None:
    scenarios, skipped = generate(SOURCES, KINDS, seed=3)
    made = {(s.kind, s.sample_id) for s in scenarios}
    assert {(k.kind, k.sample_id) for k in skipped} == {
        ("pause", "b"),
        ("interruption", "c"),  # the only zh sample: nothing to interrupt it with
        ("interruption", "d"),
        ("backchannel", "d"),  # no French backchannel clips
    }
    assert len(made) + len(skipped) == len(KINDS) * len(SOURCES) and len({s.id for s in scenarios}) == len(scenarios)
    cut_in = next(s for s in scenarios if (s.kind, s.sample_id) == ("interruption", "a"))
    assert cut_in.reference_id == "b" and cut_in.segments[1].audio == InputAudio("ja-assistant", "b")
    assert cut_in.segments[1].send.anchor == "reply_onset"
    nod = next(s for s in scenarios if (s.kind, s.sample_id) == ("backchannel", "c"))
    assert nod.segments[1].audio in (SpokenText("嗯", "zh"), SpokenText("对", "zh"))


def test_a_sample_draws_the_same_plan_whatever_else_is_in_the_run() -> None:
    alone, _ = generate(SOURCES[:1], ["pause", "backchannel"], seed=3)
    together, _ = generate(SOURCES, ["pause", "backchannel"], seed=3)
    assert alone == [s for s in together if s.sample_id == "a"]
    many = [ScenarioSource("d", f"s{k}", "en", f"request {k}") for k in range(30)]
    picks = {s.sample_id: s.reference_id for s in generate(many, ["interruption"], seed=3)[0]}
    fewer = [s for s in many if s.sample_id != "s29"]
    kept = {s.sample_id: s.reference_id for s in generate(fewer, ["interruption"], seed=3)[0]}
    assert all(kept[k] == v for k, v in picks.items() if v != "s29" and k != "s29")
    assert len(set(picks.values())) > 10  # spread over the dataset, not one favourite
    other, _ = generate(SOURCES[:1], ["pause", "backchannel"], seed=4)
    assert {s.id for s in other}.isdisjoint({s.id for s in alone})
    pauses = {made.segments[1].send.offset_s for seed in range(20) if (made := pause(SOURCES[0], seed))}
    assert len(pauses) > 10  # the seed, not the sample, decides the length


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_a_pause_is_within_its_range_and_on_a_10_ms_step(seed: int) -> None:
    made = pause(SOURCES[0], seed)
    assert made is not None
    silence = made.segments[1].send
    assert silence.anchor == "previous_offset"
    assert PAUSE_S[0] <= silence.offset_s <= PAUSE_S[1]
    assert round(silence.offset_s * 100) == pytest.approx(silence.offset_s * 100)
    assert pause(SOURCES[0], seed) == made


def test_the_built_in_japanese_data_gives_the_documented_counts() -> None:
    from voxeval.data import resolve_dataset
    from voxeval.duplex import scenario_sources

    sources = scenario_sources([resolve_dataset("ja-assistant")])
    scenarios, skipped = generate(sources, KINDS, seed=0)
    assert generate(sources, KINDS, seed=0) == (scenarios, skipped)
    by_kind = {k: sum(s.kind == k for s in scenarios) for k in KINDS}
    assert by_kind == {"end_of_turn": 336, "pause": 123, "interruption": 336, "backchannel": 336}  # docs/duplex.md
    assert {s.kind for s in skipped} == {"pause"}
