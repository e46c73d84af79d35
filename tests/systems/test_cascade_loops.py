"""A cascade never answers (or speaks) an input whose ASR transcript still loops: the turn fails, with the reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voxeval.speech.asr import Transcript
from voxeval.systems import Said, SystemFailure, Turn, default_prompts
from voxeval.systems._cascade import CascadeSystem, parse_cascade_options
from voxeval.systems._style_cascade import StyleCascade
from voxeval.testing.mockserver import MockServer, sine_wav

LOOPING = sine_wav(0.2)
"""The clip the fake ASR hears as a loop (any other clip is heard cleanly)."""


class LoopingASR:
    """Hears :data:`LOOPING` as a loop its recovery could not undo."""

    name = "looping"

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        if wav != LOOPING:
            return Transcript("タイマー", language or "ja")
        return Transcript("タイマーを" + "ぁ" * 40, language or "ja", looped="compression")

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        return [self.transcribe(w, language) for w in wavs]

    def describe(self) -> dict[str, Any]:
        return {"asr": self.name}


@pytest.mark.parametrize("kind", ["cascade", "style"])
def test_a_looped_input_transcript_fails_the_turn(kind: str) -> None:
    system, user = default_prompts("ja")
    turn = Turn("t", LOOPING, system, user, reference_text="タイマー", language="ja")
    with MockServer(lambda endpoint, request: "答え") as server:
        llm = f"openai-compat:m@{server.openai_base_url}?max_retries=0"
        cascade: Any = (
            CascadeSystem(parse_cascade_options(f"asr=oracle,llm={llm},tts=none"))
            if kind == "cascade"
            else StyleCascade(aware=True, llm_spec=llm)
        )
        cascade._asr = LoopingASR()
        with pytest.raises(SystemFailure, match=r"still loops \(compression\)"):
            asyncio.run(cascade.respond(turn))
        assert server.requests == []  # the LLM never saw the loop


def test_a_looped_earlier_user_turn_fails_the_dialogue_turn() -> None:
    """The cascade hears a dialogue's earlier user turns too: a loop there is not fed to the LLM as history."""
    system, user = default_prompts("ja")
    history = (Said("user", "タイマー", LOOPING), Said("assistant", "はい。"))
    turn = Turn("t2", sine_wav(0.1), system, user, reference_text="止めて", language="ja", history=history)
    with MockServer(lambda endpoint, request: "答え") as server:
        cascade = CascadeSystem(
            parse_cascade_options(f"asr=oracle,llm=openai-compat:m@{server.openai_base_url}?max_retries=0,tts=none")
        )
        cascade._asr = LoopingASR()
        with pytest.raises(SystemFailure, match=r"an earlier user turn still loops \(compression\)"):
            asyncio.run(cascade.respond(turn))
        assert server.requests == []
