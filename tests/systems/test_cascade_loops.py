"""A cascade never answers (or speaks) an input whose ASR transcript still loops: the turn fails, with the reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voxeval.speech.asr import Transcript
from voxeval.systems import SystemFailure, Turn, default_prompts
from voxeval.systems._cascade import CascadeSystem, parse_cascade_options
from voxeval.systems._style_cascade import StyleCascade
from voxeval.testing.mockserver import MockServer, sine_wav


class LoopingASR:
    """Hears a loop its recovery could not undo."""

    name = "looping"

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        return Transcript("タイマーを" + "ぁ" * 40, language or "ja", looped="compression")

    def describe(self) -> dict[str, Any]:
        return {"asr": self.name}


@pytest.mark.parametrize("kind", ["cascade", "style"])
def test_a_looped_input_transcript_fails_the_turn(kind: str) -> None:
    system, user = default_prompts("ja")
    turn = Turn("t", sine_wav(0.1), system, user, reference_text="タイマー", language="ja")
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
