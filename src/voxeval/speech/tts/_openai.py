"""``openai``: OpenAI's speech endpoint (``POST {base}/audio/speech``) or any server that implements it."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from voxeval.errors import ConfigError, Location
from voxeval.speech.audio import Audio, apply_gain, decode_audio
from voxeval.speech.tts._protocol import VoiceStyle, refuse_pitch, tts_engines

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Default base URL."""
OPENAI_KEY_ENV = "OPENAI_API_KEY"
"""The only place the key is read from."""
DEFAULT_MODEL = "gpt-4o-mini-tts"
"""Default speech model."""
DEFAULT_VOICE = "alloy"
"""Default voice."""


def openai_speech_payload(text: str, *, model: str, voice: str, speed: float) -> dict[str, Any]:
    """The JSON body of ``POST /audio/speech`` (pure): WAV output at ``speed`` (OpenAI allows 0.25–4)."""
    if not 0.25 <= speed <= 4.0:
        raise ConfigError(f"OpenAI speech speed must be between 0.25 and 4, got {speed:g}")
    return {"model": model, "input": text, "voice": voice, "response_format": "wav", "speed": speed}


async def _post_audio(url: str, payload: dict[str, Any], key: str, timeout: float, max_retries: int) -> bytes:
    """POST with retries over one pooled client; errors leave redacted of the key."""
    from voxeval.llm import HttpClient, ProviderError, RetryPolicy, redact_error, with_retries

    headers = {"Authorization": f"Bearer {key}", "Accept": "audio/wav"}
    http = HttpClient(timeout=timeout, connections=1)  # one pooled client for every attempt of this text

    async def attempt() -> bytes:
        reply = await http.request("POST", url, headers=headers, json=payload)
        if not reply.body:
            raise ProviderError("bad_response", f"empty audio from {url.split('?', 1)[0]}")
        return reply.body

    try:
        return await with_retries(attempt, RetryPolicy(max_retries=max_retries))
    except ProviderError as error:
        raise redact_error(error, [key]) from None
    finally:
        await http.aclose()


class OpenAITTSEngine:
    """Remote speech synthesis: rate → ``speed``, gain by scaling, no pitch; retries per voxeval.llm's policy."""

    name = "openai"
    language = "mul"

    def __init__(
        self,
        voice: str | None = None,
        model: str = DEFAULT_MODEL,
        base_url: str = OPENAI_BASE_URL,
        timeout: float = 60.0,
        max_retries: int = 4,
    ) -> None:
        self.voice = voice or DEFAULT_VOICE
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)

    def _key(self) -> str:
        key = os.environ.get(OPENAI_KEY_ENV, "").strip()
        if not key:
            raise ConfigError(f"the openai TTS engine needs an API key: set the environment variable {OPENAI_KEY_ENV}")
        return key

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """One request per text; the WAV answer is decoded in memory."""
        refuse_pitch(self.name, style)
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        payload = openai_speech_payload(text, model=self.model, voice=style.voice or self.voice, speed=style.rate)
        key = self._key()
        url = f"{self.base_url}/audio/speech"
        data = asyncio.run(_post_audio(url, payload, key, self.timeout, self.max_retries))
        audio = decode_audio(data, Location(url)).audio
        return apply_gain(audio, style.gain_db)

    def describe(self) -> dict[str, Any]:
        """Engine, model, voice and endpoint (never the key)."""
        return {
            "engine": self.name,
            "version": self.model,
            "voice": self.voice,
            "settings": {
                "base_url": self.base_url,
                "response_format": "wav",
                "controls": {"rate": "speed", "gain": "scaling"},
            },
        }


@tts_engines.register("openai")
def make_openai(
    voice: str | None = None,
    model: str = DEFAULT_MODEL,
    base_url: str = OPENAI_BASE_URL,
    timeout: float = 60.0,
    max_retries: int = 4,
) -> OpenAITTSEngine:
    """OpenAI speech (key from ``OPENAI_API_KEY`` only)."""
    return OpenAITTSEngine(voice, model, base_url, timeout, max_retries)
