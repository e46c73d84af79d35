"""Stage 1: the input audio of every sample — the dataset's own file, or synthesised to the spec's format."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxeval.data import Dataset, resolve_inside
from voxeval.errors import InputError, Location
from voxeval.run._executor import Task
from voxeval.run._keys import check_run_row, sample_key
from voxeval.run._stage import Stage, StageRun, run_stage

INPUT_RATE = 24_000
"""Sample rate of benchmark input audio (spec 3.3)."""


def _is_spec_format(path: Path) -> bool:
    import soundfile

    info = soundfile.info(str(path))
    return info.format == "WAV" and info.subtype == "PCM_16" and info.channels == 1 and info.samplerate == INPUT_RATE


@dataclass(frozen=True)
class InputItem:
    """One sample that needs input audio."""

    dataset: str
    """Dataset name."""
    id: str
    """Sample id."""
    text: str
    """What to synthesise when the sample has no audio."""
    language: str = "ja"
    """Language of ``text`` (chooses the TTS engine when it is per language)."""
    audio: str | None = None
    """The sample's own audio path, relative to ``root``."""
    root: Path | None = None
    """Folder the audio path is resolved in (the dataset file's folder)."""
    source: str = ""
    """File the sample came from, for error messages."""
    line: int | None = None
    """Line of the sample in that file."""


def _audio_path(item: InputItem) -> Path:
    assert item.root is not None
    return resolve_inside(item.root, item.audio, Location(item.source, item.line, "input.audio"))


def check_dataset_audio(items: list[InputItem]) -> None:
    """Before a run writes anything: every referenced audio file must resolve inside its dataset and decode.

    Errors name the dataset file, line and field, so a bad file stops the run before any output exists.
    """
    from voxeval.speech.audio import load_audio

    for item in items:
        if item.audio is None:
            continue
        path = _audio_path(item)
        try:
            load_audio(path)
        except InputError as exc:
            raise InputError(Location(item.source, item.line, "input.audio"), f"{item.audio}: {exc.message}") from None


def _dataset_audio(item: InputItem, run_dir: Path) -> dict[str, Any]:
    from voxeval.speech.audio import encode_wav, load_audio, quantize_int16

    source = _audio_path(item)
    if _is_spec_format(source):
        return {"audio": str(source), "source": "dataset", "conversion": []}
    import soundfile

    info = soundfile.info(str(source))
    loaded = load_audio(source, sample_rate=INPUT_RATE)
    # Converted to the input format's encoding only: the dataset's own timing and padding are kept.
    data = encode_wav(quantize_int16(loaded.audio.samples), INPUT_RATE)
    encoding = [] if (info.format, info.subtype) == ("WAV", "PCM_16") else [f"{info.format} {info.subtype}→WAV PCM_16"]
    conversion = [*loaded.conversion, *encoding]
    target = run_dir / "audio" / "inputs" / f"{hashlib.sha256(data).hexdigest()[:24]}.wav"
    _write_once(target, data, run_dir)
    return {"audio": str(target.relative_to(run_dir)), "source": "dataset", "conversion": conversion}


def _write_once(target: Path, data: bytes, run_dir: Path) -> None:
    from voxeval.io import atomic_write_bytes

    if not target.exists():
        atomic_write_bytes(target, data, root=run_dir)  # inside the run folder, no planted link followed


def _synthesised(item: InputItem, engine: Any, run_dir: Path) -> dict[str, Any]:
    from voxeval.speech.audio import to_input_format
    from voxeval.speech.tts import VoiceStyle

    settings = engine.describe()
    digest = hashlib.sha256(json.dumps([item.text, settings], sort_keys=True).encode("utf-8")).hexdigest()
    target = run_dir / "audio" / "inputs" / f"{digest[:24]}.wav"
    if not target.exists():
        if not item.text.strip():
            raise InputError(Location(item.source, field=f"{item.id}: text"), "empty text cannot be synthesised")
        _write_once(target, to_input_format(engine.synthesize(item.text, VoiceStyle())), run_dir)
    return {
        "audio": str(target.relative_to(run_dir)),
        "source": f"synth:{settings.get('engine', '?')}",
        "tts": settings,
    }


def dataset_input_items(datasets: list[Dataset]) -> list[InputItem]:
    """The input items of dialogue-act datasets."""
    return [
        InputItem(d.name, s.id, s.input_text, s.locale.split("-")[0], s.audio, d.root, str(d.path), s.line)
        for d in datasets
        for s in d.samples
    ]


@dataclass
class InputWorker:
    """Makes one sample's input audio: converts the dataset's file, or synthesises the text (CPU-bound TTS).

    Picklable: each worker process builds its TTS engines itself, once per engine spec.
    """

    run_dir: Path
    """Run directory the audio is written into."""
    tts_spec: str
    """One engine spec, or ``auto`` for one engine per language."""
    auto_engines: dict[str, str] = field(default_factory=dict)
    """With ``auto``: engine spec per language (else the TTS package's default for the language)."""
    cpu_bound: bool = True
    _engines: dict[str, Any] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_engines": {}}

    def setup(self) -> None:
        """Engines are built on first use (a run may need none: every sample has audio)."""

    def engine_for(self, language: str) -> Any:
        """The engine that speaks ``language``."""
        from voxeval.speech.tts import default_engine_spec, engine_from_spec

        if self.tts_spec != "auto":
            spec = self.tts_spec
        else:
            spec = self.auto_engines.get(language) or default_engine_spec([language])
        if spec not in self._engines:
            self._engines[spec] = engine_from_spec(spec)
        return self._engines[spec]

    async def __call__(self, item: InputItem) -> list[dict[str, Any]]:
        """The ``inputs.jsonl`` row of one sample."""
        if item.audio:
            info = _dataset_audio(item, self.run_dir)
        else:
            info = _synthesised(item, self.engine_for(item.language), self.run_dir)
        return [{"key": sample_key(item.dataset, item.id), "dataset": item.dataset, "id": item.id, **info}]


async def make_inputs(
    run_dir: Path,
    items: list[InputItem],
    tts_spec: str,
    *,
    auto_engines: dict[str, str] | None = None,
    how: StageRun | None = None,
) -> dict[str, dict[str, Any]]:
    """Make sure every item has input audio; returns the ``inputs.jsonl`` rows by key.

    ``tts_spec`` names one engine, or ``auto`` for one engine per language: ``auto_engines[language]`` when
    given, else the TTS package's default for that language. An input that cannot be made stops the run.
    """
    how = how or StageRun()
    worker = InputWorker(run_dir, tts_spec, dict(auto_engines or {}))
    tasks = [Task((sample_key(i.dataset, i.id),), i) for i in items]
    # Sequential in-process (engines are not shared across threads); a process pool runs one per process.
    limit = getattr(how.cpu_executor, "processes", 1)
    stage = Stage("inputs", run_dir / "inputs.jsonl", record_failures=False, check=check_run_row)
    rows = await run_stage(stage, tasks, worker, limit=limit, how=how)
    roots = {i.dataset: i.root for i in items if i.root is not None}
    for row in rows.values():  # before any system hears them: a path read back from the log is checked first
        recorded_input_path(run_dir, row, roots)
    return rows


def recorded_input_path(run_dir: Path, row: dict[str, Any], roots: dict[str, Path]) -> Path:
    """The input audio file an ``inputs.jsonl`` row names, if it lies inside the run folder (or, for a dataset's
    own file, inside that dataset's folder), symlinks resolved; else an :class:`InputError` naming the row."""
    where = Location(str(run_dir / "inputs.jsonl"), field=f"{row.get('key')}.audio")
    value = row.get("audio")
    if not isinstance(value, str) or not value or "\0" in value:
        raise InputError(where, f"must be a file path, got {value!r}; the log was edited: use a new --out folder")
    path = Path(value)
    target = (path if path.is_absolute() else run_dir / path).resolve()
    allowed = [run_dir.resolve()]
    if row.get("source") == "dataset" and row.get("dataset") in roots:
        allowed.append(roots[row["dataset"]].resolve())
    if not any(target.is_relative_to(root) for root in allowed):
        inside = " or ".join(map(str, allowed))
        raise InputError(where, f"{value!r} is outside {inside}; the log was edited: use a new --out folder")
    if not target.is_file():
        raise InputError(where, f"{value!r}: file not found; use a new --out folder")
    return target


def input_audio(run_dir: Path, row: dict[str, Any]) -> bytes:
    """The WAV bytes recorded for a sample (its path was checked by :func:`make_inputs`), read bounded: a regular
    file of at most the audio size limit (docs/reliability.md, group 11)."""
    from voxeval.speech.audio import read_audio_file

    path = Path(row["audio"])
    return read_audio_file(path if path.is_absolute() else run_dir / path, Location(str(path), field="audio"))
