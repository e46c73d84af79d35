"""Stage 1: the input audio of every sample — the dataset's own file, or synthesised to the spec's format."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from voxeval.data import AppendLog, Dataset, GoldSample, resolve_inside
from voxeval.errors import InputError, Location
from voxeval.run._progress import StageProgress

INPUT_RATE = 24_000
"""Sample rate of benchmark input audio (spec 3.3)."""


def sample_key(dataset: str, sample_id: str) -> str:
    """Stable key of a sample within a run."""
    return f"{dataset}/{sample_id}"


def _is_spec_format(path: Path) -> bool:
    import soundfile

    info = soundfile.info(str(path))
    return info.format == "WAV" and info.subtype == "PCM_16" and info.channels == 1 and info.samplerate == INPUT_RATE


def _dataset_audio(dataset: Dataset, sample: GoldSample, run_dir: Path) -> dict[str, Any]:
    from voxeval.speech.audio import encode_wav, load_audio, quantize_int16, resample

    where = Location(str(dataset.path), field=f"{sample.id}: input.audio")
    source = resolve_inside(dataset.root, sample.audio, where)
    if _is_spec_format(source):
        return {"audio": str(source), "source": "dataset", "conversion": []}
    loaded = load_audio(source)
    # Converted to the input format's encoding only: the dataset's own timing and padding are kept.
    data = encode_wav(quantize_int16(resample(loaded.audio, INPUT_RATE).samples), INPUT_RATE)
    target = run_dir / "audio" / "inputs" / f"{hashlib.sha256(data).hexdigest()[:24]}.wav"
    _write_once(target, data)
    return {"audio": str(target.relative_to(run_dir)), "source": "dataset", "conversion": list(loaded.conversion)}


def _write_once(target: Path, data: bytes) -> None:
    from voxeval.data import atomic_write_bytes

    if not target.exists():
        atomic_write_bytes(target, data)


def _synthesised(sample: GoldSample, engine: Any, run_dir: Path) -> dict[str, Any]:
    from voxeval.speech.audio import to_input_format
    from voxeval.speech.tts import VoiceStyle

    settings = engine.describe()
    digest = hashlib.sha256(json.dumps([sample.input_text, settings], sort_keys=True).encode("utf-8")).hexdigest()
    target = run_dir / "audio" / "inputs" / f"{digest[:24]}.wav"
    if not target.exists():
        if not sample.input_text.strip():
            raise InputError(Location(field=f"{sample.id}: input.text"), "empty text cannot be synthesised")
        _write_once(target, to_input_format(engine.synthesize(sample.input_text, VoiceStyle())))
    return {
        "audio": str(target.relative_to(run_dir)),
        "source": f"synth:{settings.get('engine', '?')}",
        "tts": settings,
    }


def prepare_inputs(
    run_dir: Path, datasets: list[Dataset], tts_spec: str, *, progress: bool = True
) -> dict[str, dict[str, Any]]:
    """Make sure every sample has input audio; returns the ``inputs.jsonl`` rows by key."""
    engine: Any = None
    with AppendLog(run_dir / "inputs.jsonl", key="key") as log:
        pending = [(d, s) for d in datasets for s in d.samples if sample_key(d.name, s.id) not in log.done]
        with StageProgress("inputs", len(pending), enabled=progress) as bar:
            for dataset, sample in pending:
                if sample.audio is not None:
                    info = _dataset_audio(dataset, sample, run_dir)
                else:
                    if engine is None:
                        from voxeval.speech.tts import engine_from_spec

                        engine = engine_from_spec(tts_spec)
                    info = _synthesised(sample, engine, run_dir)
                log.append(
                    {"key": sample_key(dataset.name, sample.id), "dataset": dataset.name, "id": sample.id, **info}
                )
                bar.advance()
        return dict(log.rows)


def input_audio(run_dir: Path, row: dict[str, Any]) -> bytes:
    """The WAV bytes recorded for a sample."""
    path = Path(row["audio"])
    return (path if path.is_absolute() else run_dir / path).read_bytes()
