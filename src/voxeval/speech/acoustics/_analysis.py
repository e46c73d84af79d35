"""One reply analysed: transcript with language ID (offline ASR), speech units and acoustic measurements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.errors import Location
from voxeval.speech.acoustics._attributes import compression_ratio
from voxeval.speech.acoustics._measure import Measurements, measure
from voxeval.speech.acoustics._text import Units, count_units
from voxeval.speech.acoustics._thresholds import THRESHOLDS, Thresholds
from voxeval.speech.asr import ASREngine, Transcript, Word
from voxeval.speech.audio import decode_audio


@dataclass(frozen=True)
class Heard:
    """What the ASR heard."""

    text: str
    """The transcript used for content and rate (decoded in the expected language when that is known)."""
    detected_language: str | None
    """Language identified by the ASR without forcing."""
    language_probability: float | None
    """The ASR's confidence in ``detected_language``."""
    forced: bool
    """The transcript was decoded with the expected language forced (language ID disagreed)."""
    compression: float
    """zlib compression ratio of ``text`` (ASR loops are repetitive)."""
    words: tuple[Word, ...] = ()
    """Word time spans of ``text`` (empty when the ASR does not align words)."""
    looped: str | None = None
    """The loop symptom ``text`` still shows after the ASR's recovery (:attr:`Transcript.looped`); no units then."""


@dataclass(frozen=True)
class Analysis:
    """Everything measured about one reply."""

    measurements: Measurements
    """Acoustic measurements."""
    heard: Heard | None
    """The transcript, or None when no ASR was run."""
    units: Units | None
    """Speech units counted in the transcript; None without a usable one (rate then uses syllable nuclei)."""
    word_speech_s: float | None = None
    """Speaking time from the ASR's word times (pauses of ``min_pause_s`` or more left out); None without them."""

    def to_json(self) -> dict[str, Any]:
        """Plain values for attributes and reports."""
        heard = self.heard
        return {
            "measurements": self.measurements.to_json(),
            "transcript": None if heard is None else heard.text,
            "detected_language": None if heard is None else heard.detected_language,
            "language_probability": None
            if heard is None or heard.language_probability is None
            else round(heard.language_probability, 3),
            "asr_forced_language": None if heard is None else heard.forced,
            "asr_looped": None if heard is None else heard.looped,
            "units": None if self.units is None else {"count": self.units.count, "unit": self.units.unit},
            "word_speech_s": None if self.word_speech_s is None else round(self.word_speech_s, 3),
        }


def listen(asr: ASREngine, wav: bytes, language: str | None) -> Heard:
    """Transcribe with language ID; when it disagrees with ``language``, decode again with the language forced.

    Whisper decodes with the language it detects, so when detection agrees the first pass equals a forced one;
    forcing only on disagreement keeps the language ID at no extra cost for the usual case.
    """
    first = asr.transcribe(wav, None)
    forced = None if language is None or first.language == language else asr.transcribe(wav, language)
    return _heard(first, forced)


def listen_batch(asr: ASREngine, wavs: Sequence[bytes], languages: Sequence[str | None]) -> list[Heard]:
    """:func:`listen` for several clips: one batched language-ID pass over all of them, then one batched forced
    pass per expected language over the clips whose detected language disagreed."""
    first = asr.transcribe_batch(list(wavs), None)
    redo: dict[str, list[int]] = {}
    for i, (heard, language) in enumerate(zip(first, languages, strict=True)):
        if language is not None and heard.language != language:
            redo.setdefault(language, []).append(i)
    forced: dict[int, Transcript] = {}
    for language, members in redo.items():
        forced.update(zip(members, asr.transcribe_batch([wavs[i] for i in members], language), strict=True))
    return [_heard(t, forced.get(i)) for i, t in enumerate(first)]


def _heard(first: Transcript, forced: Transcript | None) -> Heard:
    """The language-ID pass, and the forced one when there was one."""
    used = first if forced is None else forced
    return Heard(
        used.text,
        first.language,
        first.language_probability,
        forced is not None,
        compression_ratio(used.text),
        used.words,
        used.looped,
    )


def word_speech_time(words: Sequence[Word], min_pause_s: float) -> float | None:
    """Time covered by the words, with gaps shorter than ``min_pause_s`` counted and longer pauses left out.

    >>> word_speech_time([Word("a", 0.0, 0.5), Word("b", 0.6, 1.0), Word("c", 2.0, 2.5)], 0.3)
    1.5
    """
    spans = sorted((w.start, w.end) for w in words if w.end > w.start)
    if not spans:
        return None
    total, (start, end) = 0.0, spans[0]
    for a, b in spans[1:]:
        if a - end < min_pause_s:
            end = max(end, b)
        else:
            total, start, end = total + end - start, a, b
    return round(total + end - start, 6)


def usable_units(heard: Heard | None, language: str, table: Thresholds = THRESHOLDS) -> Units | None:
    """Units of the transcript, or None when there is none or it is an ASR loop."""
    if heard is None or not heard.text.strip() or heard.looped or heard.compression > table.asr_max_compression:
        return None
    units = count_units(heard.text, language)
    return units if units.count > 0 else None


def analyse(wav: bytes, language: str | None, asr: ASREngine | None, *, where: Location | None = None) -> Analysis:
    """Measure a reply (WAV or any audio file's bytes) and, with ``asr``, transcribe it.

    Raises :class:`voxeval.speech.audio.SilentAudioError` for a silent reply and
    :class:`voxeval.errors.InputError` for an unreadable file.
    """
    measurements = measure_reply(wav, where)
    heard = None if asr is None else listen(asr, wav, language)
    return analysis_of(measurements, heard, reply_language(language, heard))


def measure_reply(wav: bytes, where: Location | None = None) -> Measurements:
    """The acoustic measurements of a reply (the part of :func:`analyse` without ASR); raises as it does."""
    return measure(decode_audio(wav, where or Location("<reply audio>")).audio)


def reply_language(expected: str | None, heard: Heard | None) -> str:
    """The language a reply's units are counted in: the expected one, else the detected one, else English."""
    return expected or (heard.detected_language if heard else None) or "en"


def analysis_of(
    measurements: Measurements, heard: Heard | None, language: str, table: Thresholds = THRESHOLDS
) -> Analysis:
    """An :class:`Analysis` from measurements and a transcript (units and word speaking time derived here)."""
    units = usable_units(heard, language, table)
    timed = None if heard is None or units is None else word_speech_time(heard.words, table.min_pause_s)
    return Analysis(measurements, heard, units, timed)
