"""``voxeval compare`` of duplex runs: paired differences per figure over the scenarios both runs have."""

from __future__ import annotations

import dataclasses

import pytest

from tests.duplex.records import audio, flush, record, speech
from voxeval.report._duplex_compare import compare_duplex, duplex_compare_markdown


def renamed(rec, system: str):
    return dataclasses.replace(rec, system=system)


def test_paired_differences_of_onset_and_stop() -> None:
    fast = record("end_of_turn", speech(0, 0.5, 1.5), audio(2.0, 1.0))  # 0.5 s
    slow = record("end_of_turn", speech(0, 0.5, 1.5), audio(2.3, 1.0))  # 0.8 s
    stops = record("interruption", speech(0, 0.5, 1.5), audio(2.0, 3.0), speech(1, 3.0, 4.0), flush(3.2))
    talks = record("interruption", speech(0, 0.5, 1.5), audio(2.0, 6.0), speech(1, 3.0, 4.0))
    result = compare_duplex([renamed(fast, "a"), renamed(stops, "a")], [renamed(slow, "b"), renamed(talks, "b")])
    [pair] = result["comparisons"]
    assert (pair["system_a"], pair["system_b"], pair["scenarios"]) == ("a", "b", 2)
    figures = pair["figures"]
    assert figures["onset_latency"]["n"] == 1 and figures["onset_latency"]["mean_diff"] == pytest.approx(-0.3)
    assert figures["stop_rate"]["mean_diff"] == 1.0 and figures["stop_rate"]["wins"] == 1
    assert figures["takeover_rate"] is None and figures["stop_latency"] is None  # B never stopped: no pair
    text = duplex_compare_markdown(result)
    assert "| onset_latency | 1 | -0.300 |" in text and "| takeover_rate | 0 | – |" in text


def test_runs_without_a_common_system_say_so() -> None:
    fast = record("end_of_turn", speech(0, 0.5, 1.5), audio(2.0, 1.0))
    both = [renamed(fast, "x"), renamed(fast, "y")]
    result = compare_duplex(both, [renamed(fast, "z"), renamed(fast, "w")])
    assert result["comparisons"] == [] and "No system is in both runs" in duplex_compare_markdown(result)
