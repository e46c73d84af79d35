"""The offline annotator's reply gate: another exchange's reply gets no acts, this exchange's reply is annotated."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from voxeval.annotate import AnnotationInput
from voxeval.annotate._artefact import load_artefact
from voxeval.annotate._garbage import garbage_reply
from voxeval.annotate._gate import GATE_FEATURES, relevance_features, relevance_score, topic_features
from voxeval.annotate._offline import OfflineAnnotator, artefact_paths
from voxeval.data import GoldSample, resolve_dataset
from voxeval.errors import ConfigError

EXCHANGES = [
    # (domain, user's input, background, a reply written for this input: none is in ja-assistant or the training data)
    (
        "weather",
        "明日の札幌の天気は？",
        "ユーザーは週末に札幌へ出張する予定で、服装を考えている。",
        "明日の札幌は雪のち曇り、最高気温は2度の予報です。",
    ),
    ("timer", "8分はかって", "ユーザーは台所で卵をゆでている。", "8分のタイマーをスタートしました。"),
    (
        "music",
        "ジャズかけて",
        "日曜の午後、ユーザーはリビングでコーヒーを飲んでくつろいでいる。",
        "ジャズのプレイリストを再生します。",
    ),
    (
        "navigation",
        "一番近いガソリンスタンドに案内して",
        "ユーザーは車を運転中で、燃料の残りが少なくなっている。",
        "2キロ先のガソリンスタンドまで案内を開始します。",
    ),
    ("calculation", "17かける6は？", "ユーザーは子どもの算数の宿題を見ている。", "17かける6は102です。"),
    (
        "translation",
        "「おやすみ」って英語で何て言うの？",
        "ユーザーは英会話の練習をしている。",
        "英語では「Good night」と言います。",
    ),
    (
        "smart_home",
        "寝室のエアコンを26度にして",
        "夏の夜、ユーザーは寝る準備をしている。",
        "寝室のエアコンを26度に設定しました。",
    ),
    (
        "shopping",
        "買い物リストにトイレットペーパー追加して",
        "ユーザーは洗面所で在庫が少ないことに気づいた。",
        "買い物リストにトイレットペーパーを追加しました。",
    ),
]
"""Short exchanges of eight different domains, written for this test."""


def test_replies_to_their_own_input_are_annotated(annotator: OfflineAnnotator) -> None:
    items = [AnnotationInput(reply, user, background) for _, user, background, reply in EXCHANGES]
    for item, annotation in zip(items, annotator.annotate_batch(items), strict=True):
        assert annotation.acts, (item, annotation.meta)


def test_replies_to_another_domains_input_get_no_acts(annotator: OfflineAnnotator) -> None:
    pairs = list(itertools.permutations(EXCHANGES, 2))
    items = [AnnotationInput(theirs[3], mine[1], mine[2]) for mine, theirs in pairs]
    results = annotator.annotate_batch(items)
    passed = [(item.user_input, item.reply) for item, a in zip(items, results, strict=True) if a.acts]
    assert len(passed) <= len(pairs) // 10, passed


def test_topic_features_without_context_are_constant() -> None:
    anchors = np.eye(4, 512)
    reply = np.zeros(512)
    reply[0] = 1.0
    shared, margin, agreement = topic_features("東京タワー", reply, "\n", np.zeros(512), anchors)
    assert (shared, margin) == (0.0, 0.0) and agreement == pytest.approx(np.log(1 / 4))


def test_topic_features_rise_with_a_shared_topic() -> None:
    anchors = np.eye(4, 512)
    near, far = np.zeros(512), np.zeros(512)
    near[0], far[1] = 1.0, 1.0
    same = topic_features("東京駅まで10分です。", near, "東京駅まで何分？", near, anchors)
    other = topic_features("東京駅まで10分です。", near, "ジャズかけて", far, anchors)
    assert same[0] > other[0] == 0.0
    assert same[1] > other[1] and same[2] > other[2]


def test_an_artefact_with_other_gate_features_is_refused(tmp_path: Path) -> None:
    npz, meta = artefact_paths("offline-v3")
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["gate_features"] = list(GATE_FEATURES[:-1])
    (tmp_path / "m.npz").write_bytes(npz.read_bytes())
    (tmp_path / "m.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match="gate's features"):
        load_artefact(tmp_path / "m.npz", tmp_path / "m.json")


def test_same_domain_garbage_is_another_inputs_reply_of_the_same_domain() -> None:
    samples: list[GoldSample] = list(resolve_dataset("ja-assistant").split("test").samples)
    for sample in samples[:20]:
        text = garbage_reply("same_domain", sample, samples)
        source = next(s for s in samples if s.output_text == text)
        assert source.domain == sample.domain and source.input_text != sample.input_text
    with pytest.raises(ValueError, match="same_domain"):
        garbage_reply("nonsense", samples[0], samples)


def test_relevance_features_are_the_product_the_distance_and_the_cosine() -> None:
    u, v = np.zeros(512), np.zeros(512)
    u[0], v[0], v[1] = 1.0, 0.6, 0.8
    row = relevance_features(u, v)
    assert row.shape == (1025,)
    assert row[0] == pytest.approx(0.6) and row[512] == pytest.approx(0.4) and row[513] == pytest.approx(0.8)
    assert row[-1] == pytest.approx(0.6)
    weights = np.zeros(1026)
    weights[-2], weights[-1] = 2.0, -1.0  # the cosine's weight, the intercept
    assert relevance_score(weights, u, v) == pytest.approx(0.2)
