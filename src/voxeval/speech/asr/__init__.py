"""Speech recognition engines."""

from voxeval.speech.asr import _whisper  # noqa: F401  (registers "whisper-base")
from voxeval.speech.asr._cer import character_error_rate
from voxeval.speech.asr._loop import LoopSymptom, loop_symptom
from voxeval.speech.asr._protocol import ASREngine, Transcript, Word, asr_engines, asr_from_spec
from voxeval.speech.asr._whisper import WhisperASR, whisper_base_dir

__all__ = [
    "ASREngine",
    "LoopSymptom",
    "Transcript",
    "WhisperASR",
    "Word",
    "asr_engines",
    "asr_from_spec",
    "character_error_rate",
    "loop_symptom",
    "whisper_base_dir",
]
