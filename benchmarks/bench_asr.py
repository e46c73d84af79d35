"""ASR on short clips: Whisper base on the short-clip path vs faster-whisper's fixed 30 s window (target ≤ 0.4 s/clip).

Run: ``python benchmarks/bench_asr.py [--clips N] [--repeats R] [--full-repeats F]``. Clips are the first N of
ja-assistant's user requests, in dataset order, that pyopenjtalk speaks in ≤ 3 s (24 kHz input format).
``full_window`` is what voxeval did before (faster-whisper's regular path: every clip padded to 30 s, plus an extra
encoder pass for language ID when the language is unknown); ``short_path`` is :class:`voxeval.speech.asr.WhisperASR`
(VAD-trimmed speech in a window of at least 10 s, language ID on the same encoder output), one clip at a time and
batched. Wall and CPU seconds per clip are medians of ``R`` passes (CPU time counts both threads: on a loaded
machine it is the steadier figure); CER is the character error rate against the text that was spoken (punctuation
and spaces ignored), and ``cer_minus_full`` the short path's CER minus the full window's on the same clips (target ≤
0.01).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from collections.abc import Callable

from voxeval.data import dumps, resolve_dataset
from voxeval.speech.asr import Transcript, WhisperASR
from voxeval.speech.asr import character_error_rate as cer
from voxeval.speech.asr._whisper import _decode_full
from voxeval.speech.audio import to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec


def short_clips(n: int) -> list[tuple[str, bytes]]:
    """``n`` spoken requests of at most 3 s."""
    tts = engine_from_spec("pyopenjtalk")
    clips = []
    for sample in resolve_dataset("ja-assistant").samples:
        audio = tts.synthesize(sample.input_text, VoiceStyle())
        if audio.duration_s <= 3.0:
            clips.append((sample.input_text, to_input_format(audio)))
        if len(clips) == n:
            break
    return clips


def timed(run: Callable[[], list[Transcript]], repeats: int) -> tuple[float, float, list[Transcript]]:
    """Median wall and CPU seconds of ``repeats`` calls, and the last call's transcripts."""
    walls, cpus, out = [], [], []
    for _ in range(repeats):
        started, cpu = time.perf_counter(), time.process_time()
        out = run()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clips", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full-repeats", type=int, help="passes of the (slow) full window; default --repeats")
    args = parser.parse_args()
    clips = short_clips(args.clips)
    asr = WhisperASR()
    model = asr._load()
    from faster_whisper.audio import decode_audio

    audio_s = sum(len(decode_audio(io.BytesIO(w), sampling_rate=16000)) for _, w in clips) / 16000

    def full(language: str | None) -> list[Transcript]:
        return [_decode_full(model, decode_audio(io.BytesIO(w), sampling_rate=16000), language) for _, w in clips]

    asr.transcribe_batch([clips[0][1]], "ja")  # load and warm up
    for language in ("ja", None):
        variants = {
            "full_window": lambda lang=language: full(lang),
            "short_path": lambda lang=language: [asr.transcribe(w, lang) for _, w in clips],
            "short_path_batched": lambda lang=language: asr.transcribe_batch([w for _, w in clips], lang),
        }
        full_repeats = args.full_repeats or args.repeats
        results = {name: timed(run, full_repeats if name == "full_window" else args.repeats)
                   for name, run in variants.items()}  # fmt: skip
        base = results["full_window"][0]
        errors = {name: statistics.mean(cer(t, r.text) for (t, _), r in zip(clips, out, strict=True))
                  for name, (_, _, out) in results.items()}  # fmt: skip
        for name, (seconds, cpu, _) in results.items():
            row = {"benchmark": "asr", "language": language or "detected", "path": name, "clips": len(clips)}
            row.update(s_per_clip=round(seconds / len(clips), 3), cpu_s_per_clip=round(cpu / len(clips), 3))
            row.update(speed_vs_full=round(base / seconds, 2), cer=round(errors[name], 3))
            row.update(cer_minus_full=round(errors[name] - errors["full_window"], 3))
            row.update(audio_s_per_clip=round(audio_s / len(clips), 2), load_average=round(os.getloadavg()[0], 1))
            print(dumps(row), flush=True)


if __name__ == "__main__":
    main()
