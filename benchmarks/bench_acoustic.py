"""Acoustic analysis time per second of audio, with and without ASR (the acoustic judge's cost).

Synthesises 12 Japanese clips with pyopenjtalk, then times ``voxeval.speech.acoustics.analyse`` on each.
Run: ``python benchmarks/bench_acoustic.py``.
"""

from __future__ import annotations

import statistics
import time

from voxeval.data import dumps, resolve_dataset
from voxeval.speech.acoustics import analyse
from voxeval.speech.asr import asr_from_spec
from voxeval.speech.audio import to_input_format, wav_duration_s
from voxeval.speech.tts import VoiceStyle, engine_from_spec


def main() -> None:
    engine = engine_from_spec("pyopenjtalk")
    clips = [
        to_input_format(engine.synthesize(s.output_text, VoiceStyle()))
        for s in resolve_dataset("ja-assistant").samples[:12]
    ]
    seconds = [wav_duration_s(c) for c in clips]
    asr = asr_from_spec("whisper-base")
    analyse(clips[0], "ja", asr)  # load the ASR model outside the timing
    for label, engine_asr in (("measurements_only", None), ("with_asr", asr)):
        per_second = []
        for clip, length in zip(clips, seconds, strict=True):
            started = time.perf_counter()
            analyse(clip, "ja", engine_asr)
            per_second.append((time.perf_counter() - started) / length)
        print(
            dumps(
                {
                    "benchmark": "acoustic",
                    "mode": label,
                    "clips": len(clips),
                    "audio_s": round(sum(seconds), 1),
                    "median_s_per_audio_s": round(statistics.median(per_second), 4),
                }
            )
        )


if __name__ == "__main__":
    main()
