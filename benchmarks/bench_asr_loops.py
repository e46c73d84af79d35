"""Whisper's repetition loop on speech followed by silence, noise or music, before and after the loop guard.

Run: ``python benchmarks/bench_asr_loops.py [--texts N] [--tails 0.5,2,5]``. Clips: the first ``N`` gold replies of
ja-, en- and zh-assistant spread over each dataset, spoken by the language's offline input voice (pyopenjtalk,
espeak-ng en-us, espeak-ng cmn-latn-pinyin), each followed by every tail of :mod:`voxeval.testing.tails` and length.
Both decode paths of :class:`~voxeval.speech.asr.WhisperASR` run on every clip, language forced:

- ``short``: the batched short-clip decode; ``looped_first`` counts clips whose short decode looped (a loop symptom
  or the token budget spent), which the engine then redoes on the full window;
- ``full``: the full-window decode; ``looped_first`` counts first decodes with a loop symptom, ``recovered`` those
  the guard's recovery (``RECOVERY`` in ``_whisper.py``) undid, ``marked`` those returned with ``looped`` set;
  ``examples`` the clips that looped, with the number of recovery decodes they took and what was finally heard.

Times are CPU seconds (both threads; steadier than wall time on a shared machine): ``first_cpu_s`` the first
decodes, ``extra_cpu_s`` the recovery decodes. Prints one JSON line per path and per language, then the totals.
"""

from __future__ import annotations

import argparse
import io
import time
from typing import Any

from voxeval.data import dumps, resolve_dataset
from voxeval.speech.asr import WhisperASR
from voxeval.speech.asr import _whisper as whisper
from voxeval.speech.asr._loop import loop_symptom
from voxeval.speech.asr._short import plan_clip
from voxeval.speech.audio import to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec
from voxeval.testing.tails import TAILS, with_tail

VOICES = {"ja": "pyopenjtalk", "en": "espeak-ng:en-us", "zh": "espeak-ng:cmn-latn-pinyin"}
"""Offline voices per language."""


def clips(n: int, tails: list[float]) -> list[dict[str, Any]]:
    """Every (language, text, tail kind, tail length) clip as 16 kHz audio."""
    from faster_whisper.audio import decode_audio

    out = []
    for language, voice in VOICES.items():
        data = resolve_dataset(f"{language}-assistant")
        tts = engine_from_spec(voice)
        for sample in data.samples[:: max(1, len(data.samples) // n)][:n]:
            wav = to_input_format(tts.synthesize(sample.output_text, VoiceStyle()))
            speech = decode_audio(io.BytesIO(wav), sampling_rate=16_000)
            for kind in TAILS:
                for seconds in tails:
                    audio = with_tail(speech, kind, seconds)
                    out.append({"language": language, "tail": f"{kind} {seconds}s", "audio": audio})
    return out


class Timed:
    """Wraps ``_decode_window``: CPU seconds of first and of recovery decodes."""

    def __init__(self) -> None:
        self.original = whisper._decode_window
        self.first = self.extra = 0.0

    def __call__(self, model: Any, audio: Any, language: Any, options: dict[str, Any], offset: float = 0.0) -> Any:
        started = time.process_time()
        try:
            return self.original(model, audio, language, options, offset)
        finally:
            spent = time.process_time() - started
            if options:
                self.extra += spent
            else:
                self.first += spent


def measure(items: list[dict[str, Any]], asr: WhisperASR) -> list[dict[str, Any]]:
    """Per language and path: clips, loops before and after the guard, CPU time."""
    model = asr._load()
    timed = Timed()
    whisper._decode_window = timed  # type: ignore[assignment]
    rows = []
    for language in VOICES:
        mine = [c for c in items if c["language"] == language]
        speech = [whisper._speech_ranges(c["audio"]) for c in mine]
        plans = [plan_clip(len(c["audio"]), r) for c, r in zip(mine, speech, strict=True)]
        seconds = [whisper.speech_seconds(r) for r in speech]
        started = time.process_time()
        short_looped, short_n = 0, 0
        for group in whisper.batches_by_window(plans, 8):
            got = whisper._decode_short(
                model, [mine[i]["audio"] for i in group], [plans[i] for i in group], language,
                [seconds[i] for i in group],
            )  # fmt: skip
            short_n += len(group)
            short_looped += sum(t is None for t in got)
        short_s = time.process_time() - started
        rows.append({"path": "short", "language": language, "clips": short_n, "looped_first": short_looped,
                     "cpu_s": round(short_s, 1)})  # fmt: skip
        timed.first = timed.extra = 0.0
        first = recovered = marked = 0
        examples = []
        for clip, ranges, secs in zip(mine, speech, seconds, strict=True):
            heard, attempts = whisper.decode_guarded(model, clip["audio"], language, ranges)
            first += attempts > 0
            recovered += attempts > 0 and heard.looped is None
            marked += heard.looped is not None
            if attempts:
                examples.append(
                    {"tail": clip["tail"], "attempts": attempts, "heard": heard.text[:60], "looped": heard.looped}
                )
            assert heard.looped or loop_symptom(heard.text, heard.language, secs) is None
        rows.append({"path": "full", "language": language, "clips": len(mine), "looped_first": first,
                     "recovered": recovered, "marked": marked, "first_cpu_s": round(timed.first, 1),
                     "extra_cpu_s": round(timed.extra, 1), "examples": examples})  # fmt: skip
    whisper._decode_window = timed.original  # type: ignore[assignment]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=2, help="texts per language")
    parser.add_argument("--tails", default="0.5,2,5", help="tail lengths in seconds, comma-separated")
    args = parser.parse_args()
    items = clips(args.texts, [float(s) for s in args.tails.split(",")])
    rows = measure(items, WhisperASR())
    for row in rows:
        print(dumps(row), flush=True)
    full = [r for r in rows if r["path"] == "full"]
    total = {k: sum(r[k] for r in full) for k in ("clips", "looped_first", "recovered", "marked")}
    total["short_looped_first"] = sum(r["looped_first"] for r in rows if r["path"] == "short")
    total["first_cpu_s"] = round(sum(r["first_cpu_s"] for r in full), 1)
    total["extra_cpu_s"] = round(sum(r["extra_cpu_s"] for r in full), 1)
    print(dumps({"total": total}))


if __name__ == "__main__":
    main()
