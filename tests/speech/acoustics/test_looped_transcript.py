"""A transcript the ASR marks as still looping gives the acoustic analysis no speech units, and says so."""

from __future__ import annotations

from typing import Any

from voxeval.speech.acoustics._analysis import listen_batch, usable_units
from voxeval.speech.asr import Transcript


class Heard:
    """An ASR double: the first clip loops (marked), the second is heard cleanly."""

    name = "double"

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        looped = Transcript("タイマー" + "を" * 3, "ja", 0.9, looped="rate")  # short: no compression to catch it
        return [looped, Transcript("タイマーを止めました。", "ja", 0.9)][: len(wavs)]

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        raise AssertionError("not used")

    def describe(self) -> dict[str, Any]:
        return {}


def test_a_looped_transcript_gives_no_units_and_is_reported() -> None:
    looped, clean = listen_batch(Heard(), [b"a", b"b"], ["ja", "ja"])
    assert looped.looped == "rate" and clean.looped is None
    assert usable_units(looped, "ja") is None  # speaking rate falls back to syllable nuclei
    assert usable_units(clean, "ja") is not None
