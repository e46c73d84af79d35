"""Calibrate and check the acoustic judge's level thresholds on synthesised clips with known settings.

Run: ``.venv/bin/python benchmarks/acoustic_calibration.py [--speed N] [--json FILE]`` (first run ~40 min on 2
busy cores: TTS + Whisper for ~500 clips; later runs reuse the cached clips and transcripts, under a minute).

Clips (``acoustic_clips.py``): 9 voices (pyopenjtalk female and a pitch-lowered male proxy, kokoro female and
male, espeak-ng en and zh male and female, piper male) × 4 texts per language × rate / pitch / volume at five
levels each. Thresholds are fitted on the two ``train`` texts per language; accuracy is reported on the two
``held_out`` texts (same voices) and on four voices never used for fitting. The report prints the fitted
cuts next to the shipped table (``voxeval.speech.acoustics.THRESHOLDS``) and the accuracy of the shipped one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acoustic_clips import HELD_OUT_VOICES, TEXTS, Clip, ClipStore, clips

from voxeval.errors import Location
from voxeval.judge._content import check_content
from voxeval.speech.acoustics import (
    ORDINAL_LEVELS,
    THRESHOLDS,
    BatchReference,
    Measurements,
    Scale,
    Thresholds,
    Units,
    analyse,
    measure,
    read_gender,
    read_naturalness,
    read_pitch,
    read_speed,
    read_volume,
    usable_units,
)
from voxeval.speech.asr import WhisperASR
from voxeval.speech.audio import decode_audio

LEVEL_INDEX = ORDINAL_LEVELS


@dataclass(frozen=True)
class Row:
    """A clip with what was measured on it."""

    clip: Clip
    """The clip and its known settings."""
    m: Measurements
    """Acoustic measurements."""
    units: Units | None
    """Speech units in the transcript (None: ASR loop or empty)."""
    language: str | None
    """Language the ASR identified."""
    heard: str
    """The transcript (in the voice's language)."""


def collect(store: ClipStore) -> list[Row]:
    """Render, transcribe (cached) and measure every clip."""
    rows = []
    for n, clip in enumerate(clips(), 1):
        wav = store.wav(clip)
        heard = store.heard(clip, wav)
        m = measure(decode_audio(wav, Location(clip.key())).audio)
        rows.append(Row(clip, m, usable_units(heard, clip.voice.language), heard.detected_language, heard.text))
        if n % 50 == 0:
            print(f"  measured {n} clips", file=sys.stderr)
    return rows


def _geo(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def fit_cuts(pairs: list[tuple[float, int]], log: bool) -> tuple[float, float, float, float]:
    """Cut k separates levels ≤ k from ≥ k+1 with the fewest errors; ties take the middle of the best interval."""
    tr = (lambda v: math.log(v)) if log else (lambda v: v)
    back = (lambda v: math.exp(v)) if log else (lambda v: v)
    values = sorted({tr(v) for v, _ in pairs})
    candidates = [values[0] - 1] + [(a + b) / 2 for a, b in itertools.pairwise(values)] + [values[-1] + 1]
    cuts = []
    for k in range(4):
        errors = [sum((lvl <= k) == (tr(v) >= c) for v, lvl in pairs) for c in candidates]
        best = min(errors)
        tied = [c for c, e in zip(candidates, errors, strict=True) if e == best]
        cuts.append(back((tied[0] + tied[-1]) / 2))
    for k in range(1, 4):  # keep them increasing
        cuts[k] = max(cuts[k], cuts[k - 1] * 1.01 if log else cuts[k - 1] + 0.01)
    return (cuts[0], cuts[1], cuts[2], cuts[3])


def _references(rows: list[Row], table: Thresholds) -> dict[tuple[str, str], BatchReference]:
    """Each voice (a "system") per split: its batch reference, as the judge computes it per model."""
    by_voice: dict[tuple[str, str], list[Measurements]] = defaultdict(list)
    for r in rows:
        by_voice[(r.clip.split, r.clip.voice.name)].append(r.m)
    return {k: BatchReference.of(v, table) for k, v in by_voice.items()}


def fit(rows: list[Row]) -> Thresholds:
    """A table fitted on ``rows`` (the train split); values not fitted here are kept from THRESHOLDS."""
    normal = [r for r in rows if r.clip.attribute == "none"]
    rate_norm = {
        lang: round(
            _geo([r.units.count / r.m.speech_s for r in normal if r.clip.voice.language == lang and r.units]), 2
        )
        for lang in ("ja", "zh", "en")
    }
    gender_norm = {
        g: round(_geo([r.m.f0_median_hz for r in normal if r.clip.voice.gender == g and r.m.f0_median_hz]), 0)
        for g in ("male", "female")
    }
    best = (-1, 0.0, 0.0)
    for weight in [w / 2 for w in range(0, 11)]:
        for ref in range(3000, 4201, 50):
            table = replace(THRESHOLDS, gender_formant_weight=weight, gender_formant_ref_hz=float(ref))
            hits = sum(read_gender(r.m, table).level == r.clip.voice.gender for r in rows)
            best = max(best, (hits, -weight, float(ref)))
    table = replace(
        THRESHOLDS,
        rate_norm=rate_norm,
        gender_norm_hz=gender_norm,
        gender_formant_weight=-best[1],
        gender_formant_ref_hz=best[2],
    )
    pairs = _pairs(rows, table)
    scales = {
        "pitch_absolute": (THRESHOLDS.pitch_absolute, pairs["pitch_absolute"]),
        "pitch_gender": (THRESHOLDS.pitch_gender, pairs["pitch_gender"]),
        "pitch_model": (THRESHOLDS.pitch_model, pairs["pitch_model"]),
        "speed": (THRESHOLDS.speed, pairs["speed"]),
        "volume_absolute": (THRESHOLDS.volume_absolute, pairs["volume_absolute"]),
        "volume_relative": (THRESHOLDS.volume_relative, pairs["volume_relative"]),
    }
    fitted = {name: Scale(s.measure, fit_cuts(p, s.log), s.log) for name, (s, p) in scales.items()}
    return replace(table, **fitted)


def _pairs(rows: list[Row], table: Thresholds) -> dict[str, list[tuple[float, int]]]:
    """(measurement, known level) per scale, on the scale's own measurement."""
    references = _references(rows, table)
    out: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for r in rows:
        ref = references[(r.clip.split, r.clip.voice.name)]
        for attribute, level in r.clip.levels().items():
            if attribute == "pitch" and r.m.f0_p90_hz and r.m.f0_median_hz:
                out["pitch_absolute"].append((r.m.f0_p90_hz, level))
                gender = read_gender(r.m, table).level or "female"
                out["pitch_gender"].append((r.m.f0_median_hz / table.gender_norm_hz[gender], level))
                f0_ref = ref.f0_reference(gender)
                if f0_ref is not None:
                    out["pitch_model"].append((r.m.f0_median_hz / f0_ref, level))
            if attribute == "speed" and r.units and r.m.speech_s > 0:
                norm = table.rate_norm[r.clip.voice.language]
                out["speed"].append((r.units.count / r.m.speech_s / norm, level))
            if attribute == "volume" and r.m.lufs is not None:
                out["volume_absolute"].append((r.m.lufs, level))
                out["volume_relative"].append((r.m.lufs - (ref.median_lufs or r.m.lufs), level))
    return out


def judged_levels(r: Row, table: Thresholds, ref: BatchReference) -> dict[str, str | None]:
    """The judge's level per attribute and mode for one clip (the shipped code path)."""
    language = r.clip.voice.language
    f0_ref = ref.f0_reference(read_gender(r.m, table).level)
    return {
        "pitch (absolute, default)": read_pitch(r.m, "absolute", table).level,
        "pitch (gender-relative)": read_pitch(r.m, "gender", table).level,
        "pitch (model-relative)": read_pitch(r.m, "model", table, f0_ref).level,
        "speed": read_speed(r.m, r.units, language, table).level,
        "volume (absolute LUFS)": read_volume(r.m, None, table).level,
        "volume (relative to model)": read_volume(r.m, ref.median_lufs, table).level,
    }


def evaluate(rows: list[Row], table: Thresholds) -> dict[str, Any]:
    """Exact / within-one accuracy per attribute and mode, gender accuracy, per-voice breakdown."""
    references = _references(rows, table)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    per_voice: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    gender = [0, 0]
    for r in rows:
        levels = judged_levels(r, table, references[(r.clip.split, r.clip.voice.name)])
        for mode, got in levels.items():
            attribute = mode.split(" ")[0]
            if attribute not in r.clip.levels():
                continue
            want = r.clip.levels()[attribute]
            diff = 9 if got is None else abs(LEVEL_INDEX[attribute].index(got) - want)
            for t in (tally[mode], per_voice[r.clip.voice.name][mode]):
                t[0] += diff == 0
                t[1] += diff <= 1
                t[2] += 1
        gender[0] += read_gender(r.m, table).level == r.clip.voice.gender
        gender[1] += 1
        voice_gender = per_voice[r.clip.voice.name]["gender"]
        voice_gender[0] += read_gender(r.m, table).level == r.clip.voice.gender
        voice_gender[2] += 1
    return {"attributes": dict(tally), "gender": gender, "per_voice": {v: dict(t) for v, t in per_voice.items()}}


def _pct(a: int, n: int) -> str:
    return f"{100 * a / n:.0f}% ({a}/{n})" if n else "—"


def report(results: dict[str, dict[str, Any]]) -> str:
    """Markdown tables of the accuracies."""
    lines = ["| split | attribute (mode) | exact | within one level |", "|---|---|---|---|"]
    for split, res in results.items():
        for mode, (exact, within, n) in sorted(res["attributes"].items()):
            lines.append(f"| {split} | {mode} | {_pct(exact, n)} | {_pct(within, n)} |")
        lines.append(f"| {split} | gender | {_pct(res['gender'][0], res['gender'][1])} | — |")
    lines += [
        "",
        "| split | voice | " + " | ".join(_voice_columns()) + " |",
        "|---|---|" + "---|" * len(_voice_columns()),
    ]
    for split, res in results.items():
        for voice, tallies in sorted(res["per_voice"].items()):
            cells = []
            for col in _voice_columns():
                t = tallies.get(col)
                cells.append("—" if not t else f"{100 * t[0] / t[2]:.0f}/{100 * t[1] / t[2]:.0f}" if col != "gender"
                             else f"{100 * t[0] / t[2]:.0f}")  # fmt: skip
            lines.append(f"| {split} | {voice} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _voice_columns() -> list[str]:
    return [
        "pitch (absolute, default)",
        "pitch (gender-relative)",
        "pitch (model-relative)",
        "speed",
        "volume (relative to model)",
        "gender",
    ]


def naturalness_report(rows: list[Row]) -> str:
    """How often the naturalness classifier calls each voice natural (all should be: not natural)."""
    by_voice: dict[str, list[Measurements]] = defaultdict(list)
    for r in rows:
        by_voice[r.clip.voice.name].append(r.m)
    lines = ["| voice | natural | median F0 sd (st) | median nPVI |", "|---|---|---|---|"]
    for voice, ms in sorted(by_voice.items()):
        natural = [read_naturalness(m).natural for m in ms]
        sd = statistics.median(m.f0_sd_st for m in ms if m.f0_sd_st is not None)
        npvi = statistics.median(m.npvi for m in ms if m.npvi is not None)
        lines.append(f"| {voice} | {_pct(sum(n is True for n in natural), len(ms))} | {sd:.2f} | {npvi:.0f} |")
    return "\n".join(lines)


def content_report(rows: list[Row]) -> str:
    """The content step on the transcripts: the clip's own text should pass, the other texts should fail."""
    lines = ["| voice | own text compliant | other texts non-compliant |", "|---|---|---|"]
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in rows:
        language = r.clip.voice.language
        others = [t for split in TEXTS.values() for t in split[language] if t != r.clip.text]
        t = tally[r.clip.voice.name]
        t[0] += check_content(r.clip.text, r.heard, language, "exact").verdict == "compliant"
        t[1] += 1
        t[2] += sum(check_content(o, r.heard, language, "exact").verdict == "non_compliant" for o in others)
        t[3] += len(others)
    for voice, (own, n, other, m) in sorted(tally.items()):
        lines.append(f"| {voice} | {_pct(own, n)} | {_pct(other, m)} |")
    return "\n".join(lines)


def speed_check(store: ClipStore, n: int) -> str:
    """Wall time of a full analysis (ASR included, not cached) per second of audio on ``n`` clips."""
    normal = [c for c in clips() if c.attribute == "none"]
    chosen = normal[:: max(1, len(normal) // max(n, 1))][:n]
    store.asr.transcribe(store.wav(chosen[0]), None)  # load the model outside the timing
    audio_s = wall = 0.0
    for clip in chosen:
        wav = store.wav(clip)
        start = time.perf_counter()
        analysis = analyse(wav, clip.voice.language, store.asr)
        wall += time.perf_counter() - start
        audio_s += analysis.measurements.duration_s
    t0 = time.perf_counter()
    for clip in chosen:
        measure(decode_audio(store.wav(clip), Location("x")).audio)
    measure_s = time.perf_counter() - t0
    return (
        f"{len(chosen)} clips, {audio_s:.1f} s of audio: full analysis {wall / audio_s:.3f} s per second of audio "
        f"(measurements alone {measure_s / audio_s:.4f} s/s)"
    )


def main(argv: list[str] | None = None) -> int:
    """Fit on train, report shipped and fitted tables on every split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON here")
    parser.add_argument("--speed", type=int, default=0, metavar="N", help="time a full analysis on N clips")
    args = parser.parse_args(argv)
    store = ClipStore(WhisperASR())
    rows = collect(store)
    held_out_voices = {v.name for v in HELD_OUT_VOICES}
    splits = {
        "train": [r for r in rows if r.clip.split == "train"],
        "held-out texts": [r for r in rows if r.clip.split == "held_out" and r.clip.voice.name not in held_out_voices],
        "held-out voices": [r for r in rows if r.clip.voice.name in held_out_voices],
    }
    fitted = fit(splits["train"])
    print("## Fitted on train (copy into THRESHOLDS after rounding)\n")
    for name in ("pitch_absolute", "pitch_gender", "pitch_model", "speed", "volume_absolute", "volume_relative"):
        cuts = ", ".join(f"{c:.3g}" for c in getattr(fitted, name).cuts)
        print(f"- {name}: ({cuts})  shipped {getattr(THRESHOLDS, name).cuts}")
    for name in ("rate_norm", "gender_norm_hz", "gender_formant_weight", "gender_formant_ref_hz"):
        print(f"- {name}: {getattr(fitted, name)}  shipped {getattr(THRESHOLDS, name)}")
    results = {split: evaluate(rs, THRESHOLDS) for split, rs in splits.items()}
    print("\n## Shipped THRESHOLDS\n")
    print(report(results))
    print("\n## Naturalness proxy per voice (all clips)\n")
    print(naturalness_report(rows))
    languages = defaultdict(lambda: [0, 0])
    for r in rows:
        languages[r.clip.voice.name][0] += r.language == r.clip.voice.language
        languages[r.clip.voice.name][1] += 1
    print("\n## Content step on the transcripts\n")
    print(content_report(rows))
    print("\n## Language ID right per voice\n")
    print(", ".join(f"{v} {_pct(a, n)}" for v, (a, n) in sorted(languages.items())))
    if args.speed:
        print("\n## Speed\n")
        print(speed_check(store, args.speed))
    if args.json:
        payload = {"shipped": results, "fitted": {s: evaluate(rs, fitted) for s, rs in splits.items()}}
        args.json.write_text(json.dumps(payload, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
