"""The calibration clip set of the acoustic judge: voices, texts and five controlled levels per attribute.

Every clip is rendered with ``voxeval.speech.tts`` at a known ``VoiceStyle`` and stored in the benchmark's
input format; clips and transcripts are cached by content hash, so reruns only measure (all engines used here
are deterministic).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from voxeval.paths import cache_dir
from voxeval.speech.acoustics import Heard, listen
from voxeval.speech.asr import ASREngine
from voxeval.speech.audio import to_input_format
from voxeval.speech.tts import TTSEngine, VoiceStyle, engine_from_spec

RATE_LEVELS = (0.625, 0.8, 1.0, 1.25, 1.6)
"""Speaking-rate multipliers for very slow … very fast (a factor 1.25 per level)."""
PITCH_LEVELS = (-8.0, -4.0, 0.0, 4.0, 8.0)
"""Pitch shifts in semitones for very low … very high."""
ATTRIBUTES = ("speed", "volume", "pitch")
"""The controlled attributes; engines without a pitch control get a PSOLA shift (``voxeval.speech.audio``)."""
GAIN_LEVELS = (-20.0, -10.0, 0.0, 6.0, 12.0)
"""Gains in dB for very quiet … very loud (the loud ones clip at full scale, as loud files do)."""


@dataclass(frozen=True)
class Voice:
    """A TTS voice of known gender."""

    name: str
    """Short name used in reports."""
    spec: str
    """``voxeval.speech.tts`` engine spec."""
    language: str
    """``ja``, ``en`` or ``zh``."""
    gender: str
    """``male`` or ``female`` (the pitch-lowered Open JTalk voice is a male proxy)."""
    base_semitones: float = 0.0
    """Pitch shift applied to every clip of this voice."""


VOICES = (
    Voice("ojt-f", "pyopenjtalk", "ja", "female"),
    Voice("ojt-m", "pyopenjtalk", "ja", "male", base_semitones=-16.0),
    Voice("kokoro-f", "kokoro:jf_alpha", "ja", "female"),
    Voice("kokoro-m", "kokoro:jm_kumo", "ja", "male"),
    Voice("espeak-en-m", "espeak-ng:en-us", "en", "male"),
    Voice("espeak-en-f", "espeak-ng:en-us+f3", "en", "female"),
    Voice("piper-m", "piper", "en", "male"),
    Voice("espeak-zh-m", "espeak-ng:cmn-latn-pinyin+m2", "zh", "male"),
    Voice("espeak-zh-f", "espeak-ng:cmn-latn-pinyin+f3", "zh", "female"),
)
"""Calibration voices: both genders in each language."""

HELD_OUT_VOICES = (
    Voice("kokoro-f2", "kokoro:jf_nezumi", "ja", "female"),
    Voice("espeak-rp-f", "espeak-ng:en-gb-x-rp+f4", "en", "female"),
    Voice("espeak-rp-m", "espeak-ng:en-gb-x-rp", "en", "male"),
    Voice("espeak-zh-f4", "espeak-ng:cmn-latn-pinyin+f4", "zh", "female"),
)
"""Voices never used for fitting, rendered with the held-out texts only (espeak-ng ignores variants on ``en-gb``,
so the English ones use the RP voice)."""

TEXTS: dict[str, dict[str, tuple[str, ...]]] = {
    "train": {
        "ja": ("今日は天気が良いので、公園を散歩しましょう。", "明日の会議は午後三時から第二会議室で始まります。"),
        "en": (
            "The weather is nice today, so let's take a walk in the park.",
            "Tomorrow's meeting starts at three in the afternoon in the second conference room.",
        ),
        "zh": ("今天天气很好，我们去公园散步吧。", "明天的会议下午三点在第二会议室开始。"),
    },
    "held_out": {
        "ja": ("駅前の新しいパン屋さんは、朝七時から開いています。", "週末は家族と一緒に海へ出かける予定です。"),
        "en": (
            "The new bakery near the station opens at seven every morning.",
            "This weekend I plan to drive to the coast with my family.",
        ),
        "zh": ("车站旁边的新面包店每天早上七点开门。", "这个周末我打算和家人一起去海边。"),
    },
}
"""Texts per split and language; thresholds are fitted on ``train`` and reported on ``held_out``."""


@dataclass(frozen=True)
class Clip:
    """One rendered clip and its known settings."""

    split: str
    """``train`` or ``held_out``."""
    voice: Voice
    """Who speaks."""
    text: str
    """What is said (the Chinese text; espeak-ng reads its pinyin)."""
    attribute: str
    """Controlled attribute (``speed``, ``pitch``, ``volume``) or ``none`` for the normal clip."""
    level: int
    """Level index 0–4 of the controlled attribute (2 = normal)."""

    @property
    def style(self) -> VoiceStyle:
        """The VoiceStyle that renders this clip."""
        rate = RATE_LEVELS[self.level] if self.attribute == "speed" else 1.0
        pitch = PITCH_LEVELS[self.level] if self.attribute == "pitch" else 0.0
        gain = GAIN_LEVELS[self.level] if self.attribute == "volume" else 0.0
        return VoiceStyle(rate=rate, pitch_semitones=self.voice.base_semitones + pitch, gain_db=gain)

    def levels(self) -> dict[str, int]:
        """The known level of every attribute this clip controls (the normal clip counts for all)."""
        return {a: self.level for a in ATTRIBUTES} if self.attribute == "none" else {self.attribute: self.level}

    def key(self) -> str:
        """Stable hash of the settings (cache key)."""
        payload = {"voice": asdict(self.voice), "text": self.text, "style": asdict(self.style)}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


def clips() -> Iterator[Clip]:
    """Every calibration clip, in a fixed order."""
    for split, by_language in TEXTS.items():
        voices = VOICES + (HELD_OUT_VOICES if split == "held_out" else ())
        for voice in voices:
            for text in by_language[voice.language]:
                yield Clip(split, voice, text, "none", 2)
                for attribute in ATTRIBUTES:
                    for level in (0, 1, 3, 4):
                        yield Clip(split, voice, text, attribute, level)


def speakable(text: str, voice: Voice) -> str:
    """What the engine reads: Chinese goes to espeak-ng as numbered pinyin (its hanzi readings are wrong)."""
    if voice.spec.startswith("espeak-ng:cmn"):
        from pypinyin import Style, lazy_pinyin

        return " ".join(lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True))
    return text


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


class ClipStore:
    """Renders clips and transcribes them once; both cached under the voxeval cache."""

    def __init__(self, asr: ASREngine, root: Path | None = None) -> None:
        self.root = root or cache_dir("acoustic-calibration")
        self.asr = asr
        self._engines: dict[str, TTSEngine] = {}

    def wav(self, clip: Clip) -> bytes:
        """The clip in the input format (24 kHz, 16-bit, mono, 120 ms of zeros at both ends)."""
        path = self.root / f"{clip.key()}.wav"
        if not path.exists():
            engine = self._engines.get(clip.voice.spec) or engine_from_spec(clip.voice.spec)
            self._engines[clip.voice.spec] = engine
            audio = engine.synthesize(speakable(clip.text, clip.voice), clip.style)
            _write_atomic(path, to_input_format(audio))
        return path.read_bytes()

    def heard(self, clip: Clip, wav: bytes) -> Heard:
        """What the ASR heard (language ID, then the expected language forced if they disagree)."""
        digest = hashlib.sha256(wav + self.asr.name.encode() + clip.voice.language.encode()).hexdigest()[:20]
        path = self.root / f"{digest}.heard.json"
        if path.exists():
            return Heard(**json.loads(path.read_text(encoding="utf-8")))
        heard = listen(self.asr, wav, clip.voice.language)
        _write_atomic(path, json.dumps(asdict(heard), ensure_ascii=False).encode("utf-8"))
        return heard
