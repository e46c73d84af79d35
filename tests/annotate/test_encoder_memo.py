"""The sentence encoder remembers embeddings across calls, bounded, and gives the same vectors either way."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from voxeval.annotate import _encoder
from voxeval.annotate._encoder import EMBED_DIM, Encoder


class FakeModel:
    """Deterministic vectors from the text's length; records what it was asked to encode."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([np.full(EMBED_DIM, float(len(t))) for t in texts], dtype=np.float32)


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> tuple[Encoder, FakeModel]:
    fake = FakeModel()
    made = Encoder()
    monkeypatch.setattr(made, "_load", lambda: fake)
    return made, fake


def test_each_text_is_encoded_once_per_process(encoder: Any) -> None:
    made, fake = encoder
    first = made.encode(["あ", "いい", "あ", " "])
    second = made.encode(["いい", "ううう"])
    assert fake.calls == [["あ", "いい"], ["ううう"]]
    assert first[0, 0] == 1.0 and first[1, 0] == 2.0 and first[2, 0] == 1.0 and not first[3].any()
    assert np.array_equal(second[0], first[1]) and second[1, 0] == 3.0
    made.forget()
    assert np.array_equal(made.encode(["いい"]), first[1:2])
    assert fake.calls[-1] == ["いい"]


def test_the_memo_is_bounded(encoder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    made, fake = encoder
    monkeypatch.setattr(_encoder, "MEMO_SIZE", 3)
    made.encode(["a", "bb", "ccc"])
    made.encode(["dddd"])  # would exceed the bound: the memo starts over
    made.encode(["a"])
    assert fake.calls == [["a", "bb", "ccc"], ["dddd"], ["a"]]
