"""``cascade``: ASR → text LLM → optional TTS, each part pluggable. The offline baseline of ``make demo``."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import TYPE_CHECKING, Any

from voxeval.errors import ConfigError
from voxeval.languages import LANGUAGES
from voxeval.prompts import fill, for_language, load_prompt
from voxeval.systems._protocol import Reply, SystemFailure, Turn, systems

if TYPE_CHECKING:
    from voxeval.speech.asr import Transcript

DEFAULTS = {
    "asr": LANGUAGES["ja"].asr,
    "llm": "llamacpp:qwen2.5-1.5b",
    "tts": "auto",
    "language": "auto",
}
"""The offline default parts: faster-whisper base → local Qwen2.5 1.5B (llama.cpp) → the sample language's reply
voice (``LANGUAGES[...].style_tts``: pyopenjtalk-plus for Japanese). ``language=auto`` follows each turn's language
(the dataset's) for recognition, the prompt and the voice; ``language=ja|en|zh`` fixes it."""


HEARD_CACHE = 256
"""Transcripts of dialogue turns a cascade keeps (the earlier turns of the dialogues in flight)."""


def parse_cascade_options(rest: str) -> dict[str, str]:
    """``asr=…,llm=…,tts=…|none,language=…`` → options over :data:`DEFAULTS` (pure; errors name the key).

    A part after a comma that starts with ``http://`` or ``https://`` is another replica of the ``llm=`` model:

    >>> parse_cascade_options("llm=openai-compat:m@http://a/v1,http://b/v1,tts=none")["llm"]
    'openai-compat:m@http://a/v1,http://b/v1'
    """
    options = dict(DEFAULTS)
    items: list[str] = []
    for item in filter(None, rest.split(",")):
        if items and item.startswith(("http://", "https://")):
            items[-1] += "," + item
        else:
            items.append(item)
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in DEFAULTS:
            raise ConfigError(f"cascade option {item!r}: expected one of {', '.join(f'{k}=…' for k in DEFAULTS)}")
        options[key] = value
    return options


class CascadeSystem:
    """Transcribe the input, answer the transcript with a text LLM, optionally speak the answer.

    ``asr=oracle`` skips recognition and uses the reference text: an upper bound that isolates the LLM.
    """

    concurrency = 1  # the offline parts are CPU-bound and already use both cores

    def __init__(self, options: dict[str, str]) -> None:
        from voxeval.llm import chat_model_from_spec, request_cache

        self.options = options
        self._uses_cache = request_cache() is not None  # a worker's copy is built the same way (see __reduce__)
        self.name = "cascade" if options == DEFAULTS else "cascade:" + ",".join(f"{k}={v}" for k, v in options.items())
        self._asr: Any = None
        if options["asr"] != "oracle":
            from voxeval.speech.asr import asr_from_spec

            self._asr = asr_from_spec(options["asr"])
        self._llm = chat_model_from_spec(options["llm"])
        if options["language"] != "auto" and options["language"] not in LANGUAGES:
            raise ConfigError(f"cascade language={options['language']}: expected auto or one of {', '.join(LANGUAGES)}")
        self._tts: dict[str, Any] = {}  # by language, built on first use
        self._heard: dict[str, str] = {}  # transcripts of dialogue turns by audio hash (see _hear)
        self._templates = {lang: load_prompt(for_language("da/cascade_user.v1", lang)) for lang in LANGUAGES}
        if options["tts"] not in ("none", "auto"):
            self._voice("ja")  # a fixed engine is built (and its spec checked) at once

    def _language(self, turn: Turn) -> str:
        return turn.language if self.options["language"] == "auto" else self.options["language"]

    def _voice(self, language: str) -> Any:
        """The reply voice for ``language``: the fixed ``tts=`` engine, or the language's reply voice."""
        from voxeval.speech.tts import engine_from_spec

        spec = self.options["tts"]
        key = language if spec == "auto" else "*"
        if key not in self._tts:
            if spec == "auto" and language not in LANGUAGES:
                raise SystemFailure(f"no reply voice for language {language!r}; pass tts=ENGINE or tts=none")
            self._tts[key] = engine_from_spec(LANGUAGES[language].style_tts if spec == "auto" else spec)
        return self._tts[key]

    @property
    def cpu_bound(self) -> bool:
        """Whether a reply is local computation (ASR, a local LLM, TTS): the reply stage then runs it on the CPU
        executor (``--executor process`` / ``ray``) instead of the event loop. A cascade of only network calls
        (``asr=oracle,tts=none`` with a served LLM) stays on the event loop."""
        local_llm = self.options["llm"].split(":")[0] == "llamacpp"
        return local_llm or self._asr is not None or self.options["tts"] != "none"

    def __reduce__(self) -> tuple[Any, tuple[dict[str, str], bool]]:
        """Pickled as its options: a worker process builds its own engines (models load there, once).

        Whether the LLM answers through the request cache travels too, so ``--no-cache`` holds in process-pool
        and Ray workers (the worker's cache is its own ``$VOXEVAL_CACHE/requests``)."""
        return (_rebuild, (dict(self.options), self._uses_cache))

    async def respond(self, turn: Turn) -> Reply:
        """ASR → LLM → TTS for one turn."""
        from voxeval.llm import ChatMessage, ChatRequest

        started = time.perf_counter()
        language = self._language(turn)
        if language not in self._templates:
            raise SystemFailure(f"the cascade has no prompt for language {language!r} ({', '.join(LANGUAGES)})")
        transcript, *earlier = await self._hear(
            [turn.reference_text, *self._user_texts(turn)], [turn.audio, *self._user_audio(turn)], language
        )
        if not transcript.strip():
            raise SystemFailure("ASR heard nothing in the input audio")
        asr_done = time.perf_counter()
        template = self._templates[language].text
        history = iter(earlier)
        request = ChatRequest(
            messages=(
                ChatMessage("system", text=turn.system_prompt),
                *(
                    ChatMessage("user", text=fill(template, transcript=next(history)))
                    if said.role == "user"
                    else ChatMessage("assistant", text=said.text)
                    for said in turn.history
                ),
                ChatMessage("user", text=fill(template, transcript=transcript)),
            ),
            temperature=0.0,
            max_tokens=200,
        )
        response = await self._llm.complete(request)
        text = response.text.strip()
        audio = None
        if self.options["tts"] != "none" and text:
            audio = await asyncio.to_thread(self._speak, text, language)
        return Reply(
            text,
            audio,
            {
                "transcript": transcript,
                "language": language,
                "asr_s": round(asr_done - started, 3),
                "total_s": round(time.perf_counter() - started, 3),
                "output_tokens": response.usage.output_tokens,
                "input_tokens": response.usage.input_tokens,
                **({"usage_warnings": list(response.usage.warnings)} if response.usage.warnings else {}),
            },
        )

    @staticmethod
    def _user_texts(turn: Turn) -> list[str]:
        return [said.text for said in turn.history if said.role == "user"]

    @staticmethod
    def _user_audio(turn: Turn) -> list[bytes | None]:
        return [said.audio for said in turn.history if said.role == "user"]

    async def _hear(self, references: list[str], audio: list[bytes | None], language: str) -> list[str]:
        """What the cascade's LLM reads for each user turn: the ASR transcript of its audio (one batch for the turn
        and its dialogue's earlier user turns), or the reference text with ``asr=oracle``."""
        if self._asr is None:
            return references
        if any(a is None for a in audio):
            raise SystemFailure("an earlier user turn of the dialogue has no audio for the cascade's ASR to hear")
        clips = [a for a in audio if a is not None]
        if len(clips) == 1:
            return [_usable(await asyncio.to_thread(self._asr.transcribe, clips[0], language), "the input")]
        # A dialogue's earlier user turns were heard when they were answered: their transcripts are kept by the
        # audio's hash (bounded), so turn k costs one recognition, not k.
        keys = [hashlib.sha256(clip).hexdigest() + language for clip in clips]
        missing = [i for i, key in enumerate(keys) if key not in self._heard]
        if missing:
            heard = await asyncio.to_thread(self._asr.transcribe_batch, [clips[i] for i in missing], language)
            for i, transcript in zip(missing, heard, strict=True):
                self._heard[keys[i]] = _usable(transcript, "the input" if i == 0 else "an earlier user turn")
            while len(self._heard) > HEARD_CACHE:
                self._heard.pop(next(iter(self._heard)))
        return [self._heard[key] for key in keys]

    def _speak(self, text: str, language: str) -> bytes:
        from voxeval.speech.audio import to_input_format
        from voxeval.speech.tts import VoiceStyle

        result: bytes = to_input_format(self._voice(language).synthesize(text, VoiceStyle()))
        return result

    def describe(self) -> dict[str, Any]:
        """The parts and their settings."""
        return {
            "system": "cascade",
            "asr": self._asr.describe() if self._asr else "oracle (reference text)",
            "llm": self._llm.describe(),
            "tts": self._describe_tts(),
            "language": self.options["language"],
            "prompts": {t.name: t.sha256 for t in self._templates.values()},
        }

    def _describe_tts(self) -> Any:
        spec = self.options["tts"]
        if spec == "none":
            return None
        if spec != "auto":
            return self._voice("ja").describe()
        return {"per_language": {lang: d.style_tts for lang, d in LANGUAGES.items()}}


def _usable(heard: Transcript, what: str) -> str:
    """The text of a transcript the LLM may read: one that still loops is not what the user said, so the turn
    fails (listed with the reason) rather than answer a loop."""
    if heard.looped:
        raise SystemFailure(f"ASR transcript of {what} still loops ({heard.looped}): {heard.text[:80]!r}")
    return heard.text


@systems.register("cascade")
def make_cascade(rest: str) -> CascadeSystem:
    """``cascade[:asr=…,llm=…,tts=…|none,language=…]``."""
    return CascadeSystem(parse_cascade_options(rest))


def _rebuild(options: dict[str, str], uses_cache: bool) -> CascadeSystem:
    """A pickled cascade rebuilt in a worker, with the request cache on or off as where it was built."""
    from voxeval.llm import request_cache_off

    with request_cache_off(not uses_cache):
        return CascadeSystem(options)
