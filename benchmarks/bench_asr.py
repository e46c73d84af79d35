"""ASR on short clips: Whisper base on the short-clip path vs faster-whisper's fixed 30 s window (target ≤ 0.4 s/clip).

Run: ``python benchmarks/bench_asr.py [--clips N] [--repeats R]``. Clips are ja-assistant's user requests spoken by
pyopenjtalk (≤ 3 s of audio each, 24 kHz input format). ``full_window`` is what voxeval did before (faster-whisper's
regular path: every clip padded to 30 s, plus an extra encoder pass for language ID when the language is unknown);
``short_path`` is :class:`voxeval.speech.asr.WhisperASR` (speech-sized window, language ID on the same encoder
output), one clip at a time and batched. Seconds per clip are medians of ``R`` passes; CER is the character error
rate against the text that was spoken (punctuation and spaces ignored), equal for both paths when nothing is lost.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

from voxeval.data import dumps, resolve_dataset
from voxeval.speech.asr import Transcript, WhisperASR
from voxeval.speech.asr._whisper import _decode_full
from voxeval.speech.audio import to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec

PUNCTUATION = set("。、？！?!「」 ,.")


def cer(ref: str, hyp: str) -> float:
    """Character error rate (Levenshtein distance / reference length), punctuation ignored."""
    a = [c for c in ref if c not in PUNCTUATION]
    b = [c for c in hyp if c not in PUNCTUATION]
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[:], i
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
    return row[-1] / max(1, len(a))


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


def timed(run: Callable[[], list[Transcript]], repeats: int) -> tuple[float, list[Transcript]]:
    times, out = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clips", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    clips = short_clips(args.clips)
    asr = WhisperASR()
    model = asr._load()
    from faster_whisper.audio import decode_audio

    def full(language: str | None) -> list[Transcript]:
        return [_decode_full(model, decode_audio(io.BytesIO(w), sampling_rate=16000), language) for _, w in clips]

    asr.transcribe_batch([clips[0][1]], "ja")  # load and warm up
    for language in ("ja", None):
        variants = {
            "full_window": lambda lang=language: full(lang),
            "short_path": lambda lang=language: [asr.transcribe(w, lang) for _, w in clips],
            "short_path_batched": lambda lang=language: asr.transcribe_batch([w for _, w in clips], lang),
        }
        results = {name: timed(run, args.repeats) for name, run in variants.items()}
        base = results["full_window"][0]
        for name, (seconds, out) in results.items():
            print(
                dumps(
                    {
                        "benchmark": "asr",
                        "language": language or "detected",
                        "path": name,
                        "clips": len(clips),
                        "s_per_clip": round(seconds / len(clips), 3),
                        "speed_vs_full": round(base / seconds, 2),
                        "cer": round(statistics.mean(cer(t, r.text) for (t, _), r in zip(clips, out, strict=True)), 3),
                    }
                )
            )


if __name__ == "__main__":
    main()
