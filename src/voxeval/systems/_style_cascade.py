"""Offline baselines for the style benchmark: ASR → content → TTS, with and without following the style.

``style-plain`` speaks the requested content in the engine's default voice; ``style-aware`` also maps the
requirements it reads from the instruction (``voxeval.judge.parse_requirements``) to TTS controls — rate, pitch,
gain and a male / female voice. Both share everything else, so a style judge should separate them.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from voxeval.errors import ConfigError
from voxeval.languages import LANGUAGES
from voxeval.prompts import fill, load_prompt
from voxeval.systems._protocol import Reply, SystemFailure, Turn, systems

# Calibrated on pyopenjtalk against the acoustic judge's bands (docs/style.md): its default voice reads 1.08 × the
# Japanese mora-rate norm, peaks at full scale (so every reply is first lowered by 4 dB to leave headroom), and
# pitch is judged relative to the same system's other replies (``acoustic:model``).
RATE = {"very_slow": 0.5, "slow": 0.7, "normal": 0.95, "fast": 1.15, "very_fast": 1.6}
"""Speaking-rate level → TTS rate factor."""
PITCH = {"very_low": -7.0, "low": -3.0, "normal": 0.0, "high": 3.0, "very_high": 7.0}
"""Pitch level → semitones."""
GAIN = {"very_quiet": -24.0, "quiet": -14.0, "normal": -4.0, "loud": 1.0, "very_loud": 6.0}
"""Volume level → gain in dB (normal is −4 dB: the engine's own level leaves no headroom for loud)."""


VOICES = LANGUAGES
"""TTS engine and voices per language (the one table of per-language defaults)."""

_QUOTED = re.compile(r"[「『“\"]([^」』”\"]{2,})[」』”\"]")


def quoted_content(transcript: str) -> str | None:
    """The longest quoted span of a transcript, if the ASR kept the quotation marks."""
    spans = _QUOTED.findall(transcript)
    return max(spans, key=len).strip() if spans else None


# Greedy prefix: the *last* quoting verb of the instruction ends the content.
_JA_VERB = re.compile(
    r"^(.*)(?:と|って|っと)\s*(?:言|いっ|いい|いう|読|よん|よみ|伝え|つたえ|繰り返|くりかえ|叫|さけ|ささや|囁|話し|はなし|"
    r"しゃべ|喋|お願い|頼)[^、。]*$",
    re.DOTALL,
)
_JA_STYLE = re.compile(
    r"声|ゆっくり|早口|速|はや|大き|小さ|低|高|トーン|調子|気持ち|感じ|口調|ように|みたい|風に|音量|ボリューム|テンポ"
)
_JA_STYLE_LEAD = re.compile(r"^.{0,24}?(?:声|口調|トーン|感じ|調子|テンポ|音量|ボリューム|早口|スピード|速さ)で、?")
_ZH_VERB = re.compile(r"(?:说|读|念|讲|复述|喊|告诉我)(?:一下|一遍|出来)?(?:这句话)?[:：,，]?\s*")


def rule_content(transcript: str, language: str) -> str | None:
    """The content to speak, cut out of a Japanese or Chinese instruction by its quoting verb; None if unsure.

    ja: 「とても低い声で、明日は雨です、と言ってください」 → 「明日は雨です」 (drops the trailing と言って… and a
    leading clause that talks about the voice); zh: 「请用很快的语速说：今天天气很好」 → 「今天天气很好」.
    """
    text = transcript.strip().rstrip("。.!！?？ ")
    if language == "ja":
        verb = _JA_VERB.match(text)
        if not verb:
            return None
        content = verb.group(1).strip("、。 ")
        head, sep, rest = content.partition("、")
        lead = _JA_STYLE_LEAD.match(content)
        if lead:
            content = content[lead.end() :]
        elif sep and _JA_STYLE.search(head):
            content = rest
        return content.strip("、。 ") or None
    if language == "zh":
        matches = list(_ZH_VERB.finditer(text))
        if not matches:
            return None
        content = text[matches[-1].end() :].strip('“”"：:，, ')
        return content.removesuffix("吗").strip() or None
    return None


OVERRIDE_MALE_SHIFT = -12.0
"""Semitones for a male voice when ``tts=ENGINE`` replaces the language's engine (its default voice, an octave down)."""


def voice_style(requirements: dict[str, str], language: str, engine: str | None = None) -> Any:
    """TTS controls for the requirements (pure apart from the record type); ``engine``: a ``tts=`` override, whose
    default voice is used for both genders (male: :data:`OVERRIDE_MALE_SHIFT`)."""
    from voxeval.languages import LanguageDefaults
    from voxeval.speech.tts import VoiceStyle

    table = VOICES[language] if engine is None else LanguageDefaults(engine, engine, male_shift=OVERRIDE_MALE_SHIFT)
    pitch = PITCH.get(requirements.get("pitch", "normal"), 0.0)
    voice = None
    gender = requirements.get("gender")
    if gender == "female":
        voice = table.female_voice
    elif gender == "male":
        voice = table.male_voice
        pitch += table.male_shift
    if requirements.get("age") == "child":
        pitch += 4.0
    elif requirements.get("age") == "elderly":
        pitch -= 1.0
    rate = RATE.get(requirements.get("speed", "normal"), RATE["normal"])
    if requirements.get("age") == "elderly" and "speed" not in requirements:
        rate = RATE["slow"]
    gain = GAIN.get(requirements.get("volume", "normal"), GAIN["normal"])
    return VoiceStyle(voice=voice, rate=rate, pitch_semitones=pitch, gain_db=gain)


class StyleCascade:
    """Transcribe the instruction, find the content to say, speak it (styled or not)."""

    concurrency = 1

    def __init__(self, aware: bool, llm_spec: str, tts: str | None = None) -> None:
        from voxeval.llm import chat_model_from_spec
        from voxeval.speech.asr import asr_from_spec

        self.aware = aware
        self.name = "style-aware" if aware else "style-plain"
        self._asr = asr_from_spec(LANGUAGES["ja"].asr)
        self._llm_spec = llm_spec
        self._tts = tts
        self._llm = chat_model_from_spec(llm_spec)
        self._prompt = load_prompt("style/extract_content.v1")
        self._engines: dict[str, Any] = {}

    def _engine(self, language: str) -> Any:
        from voxeval.speech.tts import engine_from_spec

        if language not in self._engines:
            self._engines[language] = engine_from_spec(self._tts or VOICES[language].style_tts)
        return self._engines[language]

    async def _content(self, transcript: str, language: str) -> str:
        from voxeval.llm import ChatMessage, ChatRequest

        quoted = quoted_content(transcript) or rule_content(transcript, language)
        if quoted:
            return quoted
        request = ChatRequest(
            messages=(ChatMessage("user", text=fill(self._prompt.text, transcript=transcript)),),
            temperature=0.0,
            max_tokens=80,
        )
        return (await self._llm.complete(request)).text.strip().strip('「」『』"“”')

    async def respond(self, turn: Turn) -> Reply:
        """ASR → content → (style) → TTS."""
        from voxeval.speech.audio import to_input_format
        from voxeval.style import parse_requirements

        heard = await asyncio.to_thread(self._asr.transcribe, turn.audio, None)
        language = heard.language if heard.language in VOICES else "en"
        if not heard.text.strip():
            raise SystemFailure("ASR heard nothing in the instruction")
        if heard.looped:  # not what the instruction said: the turn fails (listed), nothing is spoken from a loop
            raise SystemFailure(f"ASR transcript of the instruction still loops ({heard.looped}): {heard.text[:80]!r}")
        content = await self._content(heard.text, language)
        if not content:
            raise SystemFailure("could not find anything to say in the instruction")
        requirements = parse_requirements(heard.text, language) if self.aware else {}
        style = voice_style(requirements, language, self._tts)
        audio = await asyncio.to_thread(lambda: to_input_format(self._engine(language).synthesize(content, style)))
        return Reply(
            content,
            audio,
            {
                "transcript": heard.text,
                "language": language,
                "requirements": requirements,
                "tts": {
                    "voice": style.voice,
                    "rate": style.rate,
                    "pitch_semitones": style.pitch_semitones,
                    "gain_db": style.gain_db,
                },
            },
        )

    def describe(self) -> dict[str, Any]:
        """Parts and the level → control tables."""
        return {
            "system": self.name,
            "asr": self._asr.describe(),
            "llm": self._llm.describe(),
            "prompt": {"name": self._prompt.name, "sha256": self._prompt.sha256},
            "tts": self._tts or {k: v.style_tts for k, v in VOICES.items()},
            "controls": {"rate": RATE, "pitch": PITCH, "gain_db": GAIN} if self.aware else "none (plain)",
        }


def _options(rest: str) -> tuple[str, str | None]:
    options: dict[str, str] = {"llm": "llamacpp:qwen2.5-1.5b"}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if key not in ("llm", "tts") or not sep or not value:
            raise ConfigError(f"style cascade option {item!r}: only llm=MODEL_SPEC and tts=ENGINE[:VOICE] are accepted")
        options[key] = value
    return options["llm"], options.get("tts")


@systems.register("style-aware")
def make_style_aware(rest: str) -> StyleCascade:
    """``style-aware[:llm=MODEL_SPEC][,tts=ENGINE]``: follows the parsed style requirements."""
    return StyleCascade(True, *_options(rest))


@systems.register("style-plain")
def make_style_plain(rest: str) -> StyleCascade:
    """``style-plain[:llm=MODEL_SPEC][,tts=ENGINE]``: the same cascade, ignoring style."""
    return StyleCascade(False, *_options(rest))
