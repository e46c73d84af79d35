"""``voxeval analyze``: the acoustic judge's measurements and levels for audio files, without any rubric."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, Location
from voxeval.speech.acoustics import (
    THRESHOLDS,
    Analysis,
    BatchReference,
    PitchReference,
    analyse,
    read_age,
    read_gender,
    read_naturalness,
    read_pitch,
    read_speed,
    read_volume,
)
from voxeval.speech.audio import SilentAudioError, read_audio_file


def register(commands: Any) -> None:
    """Add ``analyze`` to the command parser."""
    p = commands.add_parser(
        "analyze",
        description=(
            "Print the acoustic judge's measurements for each AUDIO file: F0 (median, 10th/90th percentile, "
            "variation), formants, loudness (LUFS), spectral balance, voiced fraction, speech time, speaking rate "
            "(morae/s for ja, syllables/s for zh and en, counted in the offline ASR transcript), and the pitch, "
            "speed, volume, gender and child/adult levels with their 0–100 intensities (thresholds: "
            "docs/acoustic-judge.md)."
        ),
    )
    p.add_argument("audio", nargs="+", type=Path, metavar="AUDIO", help="audio files (WAV, FLAC, MP3)")
    p.add_argument("--language", choices=("ja", "zh", "en"), help="expected language (forced in ASR when ID differs)")
    p.add_argument("--json", action="store_true", help="print one JSON document (a list, one object per file)")
    p.add_argument("--no-asr", action="store_true", help="skip ASR; speaking rate then counts syllable nuclei")
    p.add_argument(
        "--pitch-reference",
        choices=("absolute", "gender", "model"),
        default="absolute",
        help="pitch on absolute F0 (default), relative to the detected gender's norm, or (with --relative) to the "
        "median F0 of the files given",
    )
    p.add_argument(
        "--relative",
        action="store_true",
        help=f"treat the files as one system's replies: volume (and pitch with --pitch-reference model) relative "
        f"to their medians (needs at least {THRESHOLDS.relative_min_replies} files)",
    )
    p.set_defaults(handler=run)


def _report(
    path: Path, analysis: Analysis, language: str | None, reference: PitchReference, batch: BatchReference
) -> dict[str, Any]:
    m = analysis.measurements
    lang = language or (analysis.heard.detected_language if analysis.heard else None) or "en"
    gender = read_gender(m)
    readings = {
        "pitch": read_pitch(m, reference, model_median_hz=batch.f0_reference(gender.level)),
        "speed": read_speed(m, analysis.units, lang, word_speech_s=analysis.word_speech_s),
        "volume": read_volume(m, batch.median_lufs),
        "gender": gender,
        "age": read_age(m),
    }
    nat = read_naturalness(m)
    return {
        "path": str(path),
        "language": lang,
        **analysis.to_json(),
        "levels": {name: reading.to_json() for name, reading in readings.items()},
        "naturalness": {"natural": nat.natural, "probability": nat.probability, "threshold": nat.threshold},
    }


def _text(row: dict[str, Any]) -> str:
    if row.get("silent"):
        return f"{row['path']}: silent (no speech)"
    m = row["measurements"]
    lines = [f"{row['path']}: {m['duration_s']:.2f} s, speech {m['speech_s']:.2f} s, language {row['language']}"]
    if row["transcript"] is not None:
        lines.append(f"  heard: {row['transcript']}")
    for name, reading in row["levels"].items():
        intensity = "" if reading["intensity"] is None else f"intensity {reading['intensity']:5.1f}, "
        value = "—" if reading["value"] is None else f"{reading['value']:g}"
        lines.append(f"  {name:7s} {reading['level'] or '—':11s} ({intensity}{reading['basis']} = {value})")
    lines.append(
        f"  F0 median {m['f0_median_hz']} Hz, p10–p90 {m['f0_p10_hz']}–{m['f0_p90_hz']} Hz, sd {m['f0_sd_st']} st; "
        f"formants {m['formants_hz']}; {m['lufs']} LUFS; alpha ratio {m['alpha_ratio_db']} dB; "
        f"voiced {m['voiced_fraction']}; nuclei {m['nuclei']}, nPVI {m['npvi']}; "
        f"natural: {row['naturalness']['natural']}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval analyze``."""
    asr = None
    if not args.no_asr:
        from voxeval.languages import DEFAULT_ASR
        from voxeval.speech.asr import asr_from_spec

        asr = asr_from_spec(DEFAULT_ASR)
    analyses: list[tuple[Path, Analysis | None]] = []
    for path in args.audio:
        data = read_audio_file(path, Location(str(path)))  # a regular file of bounded size: no FIFO, no /dev/zero
        try:
            analyses.append((path, analyse(data, args.language, asr, where=Location(str(path)))))
        except SilentAudioError:
            analyses.append((path, None))
    batch = BatchReference()
    if args.relative:
        batch = BatchReference.of([a.measurements for _, a in analyses if a is not None])
        if batch.median_lufs is None:
            raise ConfigError(
                f"--relative needs {THRESHOLDS.relative_min_replies} measurable files, got {batch.replies}"
            )
    rows = [
        {"path": str(path), "silent": True}
        if analysis is None
        else _report(path, analysis, args.language, args.pitch_reference, batch)
        for path, analysis in analyses
    ]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print("\n".join(_text(row) for row in rows))
    return 0
