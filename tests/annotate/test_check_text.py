"""``voxeval annotator-check``'s trust verdict, from the report's figures (table-driven)."""

from __future__ import annotations

from typing import Any

import pytest

from voxeval.annotate._check_text import check_text, trust_verdict


def _group(delta: float, low: float, high: float) -> dict[str, Any]:
    figure = {"gold": 0.8, "annotator": 0.8 + delta, "delta": delta, "ci": [low, high]}
    return {"n": 40, "wlcs": figure, "wed": {**figure, "delta": -delta}}


def _garbage(passes: bool) -> dict[str, Any]:
    kind = {"wlcs_mean": 0.0 if passes else 0.2, "empty_rate": 1.0, "failed": 0, "passes": passes}
    return {"limit_wlcs": 0.05, "kinds": {"random": kind}, "informational": {}, "passes": passes}


def _report(**over: Any) -> dict[str, Any]:
    figures = {"wed_mean": 0.1, "wlcs_mean": 0.9, "exact_sequence_rate": 0.8}
    return {
        "dataset": "d",
        "annotator": {"annotator": "offline", "version": "v"},
        "samples": 40,
        "failed": 0,
        "by_group": {"style=chatty": {"n": 20, **figures}},
        **figures,
        "aligned_steps": 50,
        "accuracy": 0.9,
        "macro_f1": 0.9,
        "per_label": {"Answer": {"precision": 1.0, "recall": 1.0, "f1": 1.0, "support": 50}},
        "system_level": {"all": _group(-0.01, -0.02, 0.0), "style=chatty": _group(-0.02, -0.05, 0.01)},
        "garbage": _garbage(True),
        **over,
    }


BIASED = {"all": _group(-0.05, -0.07, -0.02), "style=chatty": _group(-0.08, -0.11, -0.06)}
WIDE = {"all": _group(-0.2, -0.4, 0.1)}  # large, but its interval includes 0
FLAW_ONLY = {"all": _group(0.0, -0.01, 0.01), "flaw=off_topic": _group(0.3, 0.1, 0.5)}  # flaw groups: a few replies


@pytest.mark.parametrize(
    ("over", "trust", "says"),
    [
        ({}, "yes", "within ±0.03"),
        ({"system_level": WIDE}, "yes", "not distinguishable from 0"),
        ({"system_level": FLAW_ONLY}, "yes", "within ±0.03"),
        ({"system_level": BIASED}, "caution", "smaller than 0.080 WLCS may come from the annotator"),
        ({"system_level": {"without_reference": 40}}, "caution", "system level not measured"),
        ({"failed": 3}, "caution", "3 of 40 annotations failed"),
        ({"garbage": None}, "caution", "not checked (--no-garbage)"),
        ({"garbage": _garbage(False)}, "no", "garbage replies score like real ones"),
        ({"garbage": _garbage(False), "system_level": BIASED}, "no", "random 0.200"),
    ],
)
def test_the_verdict(over: dict[str, Any], trust: str, says: str) -> None:
    verdict = trust_verdict(_report(**over))
    assert verdict.trust == trust
    assert says in verdict.reasons[0] if trust != "yes" else any(says in r for r in verdict.reasons)


def test_every_printed_line_fits_120_columns() -> None:
    long = {f"style={'長い名前の応答スタイル' * 3}{i}": _group(-0.08, -0.11, -0.06) for i in range(3)}
    text = check_text(_report(system_level=long, by_group={k: {"n": 1} for k in long}, garbage=_garbage(False)))
    assert max(map(len, text.splitlines())) <= 120 and "Trust: no" in text
