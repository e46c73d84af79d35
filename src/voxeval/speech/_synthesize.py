"""Rendering a dataset's input texts to input-format WAV files: content-addressed cache, process pool, checkpoints."""

from __future__ import annotations

import copy
import hashlib
import json
import multiprocessing
import os
import signal
import struct
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from voxeval import __version__
from voxeval.data import Dataset, GoldSample, atomic_write_jsonl, read_jsonl
from voxeval.errors import ConfigError, InputError, Location
from voxeval.speech.audio import FORMAT_VERSION, SilentAudioError, to_input_format, wav_duration_s, write_wav_atomic
from voxeval.speech.tts import TTSEngine, VoiceStyle, engine_from_spec
from voxeval.workers import die_with_parent

DATASET_FILE = "dataset.jsonl"
"""Name of the output dataset inside the output folder."""
AUDIO_DIR = "audio"
"""Folder of the rendered WAV files inside the output folder."""


@dataclass(frozen=True)
class Rendered:
    """One audio file in the output folder."""

    key: str
    """Content hash naming the file (``audio/<key>.wav``)."""
    sha256: str
    """sha256 of the WAV bytes."""
    duration_s: float
    """Duration including the padding."""


@dataclass(frozen=True)
class SynthesisReport:
    """What a synthesis run did."""

    rows: int
    """Rows written to the output dataset."""
    rendered: int
    """Audio files rendered by this run."""
    cached: int
    """Rows whose audio was already in the output folder."""
    rendered_audio_s: float
    """Seconds of audio rendered by this run (padding included)."""
    wall_s: float
    """Wall-clock seconds of the whole run."""
    dataset_path: Path
    """The output dataset file."""
    engine: dict[str, Any] = field(default_factory=dict)
    """The engine's ``describe()``."""

    @property
    def real_time_factor(self) -> float | None:
        """Wall time per second of rendered audio (None when nothing was rendered)."""
        return self.wall_s / self.rendered_audio_s if self.rendered_audio_s else None


def audio_key(text: str, engine: Mapping[str, Any], style: VoiceStyle) -> str:
    """Content hash of everything that determines a rendered file: text, engine, style, voxeval and format version."""
    material = {
        "text": text,
        "engine": engine,
        "style": asdict(style),
        "voxeval": __version__,
        "format": FORMAT_VERSION,
    }
    blob = json.dumps(material, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def synthesis_record(engine: Mapping[str, Any], style: VoiceStyle, rendered: Rendered) -> dict[str, Any]:
    """The ``input.synthesis`` object of an output row."""
    settings = {
        "rate": style.rate,
        "pitch_semitones": style.pitch_semitones,
        "gain_db": style.gain_db,
        "engine_version": engine.get("version"),
        "engine_settings": dict(engine.get("settings") or {}),
    }
    return {
        "engine": engine.get("engine"),
        "voice": style.voice or engine.get("voice"),
        "settings": settings,
        "sha256": rendered.sha256,
        "duration_s": round(rendered.duration_s, 6),
    }


def output_row(raw: Mapping[str, Any], audio_path: str, synthesis: dict[str, Any]) -> dict[str, Any]:
    """The row as read, with ``input.audio`` and ``input.synthesis`` set."""
    row = copy.deepcopy(dict(raw))
    row["input"] = {**row["input"], "audio": audio_path, "synthesis": synthesis}
    return row


def render_text(engine: TTSEngine, text: str, style: VoiceStyle) -> bytes:
    """``text`` spoken by ``engine`` in the benchmark's input format (WAV bytes)."""
    return to_input_format(engine.synthesize(text, style))


def _describe(data: bytes, key: str) -> Rendered:
    return Rendered(key, hashlib.sha256(data).hexdigest(), wav_duration_s(data))


def cached_audio(path: Path, key: str) -> Rendered | None:
    """The file at ``path`` if it is a complete input-format WAV (else None: it is rendered again)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    expected = struct.pack("<I", len(data) - 44) if len(data) >= 44 else b""
    if not data.startswith(b"RIFF") or data[36:40] != b"data" or data[40:44] != expected:
        return None
    return _describe(data, key)


# --- rendering, in this process or in pool workers -------------------------------------------------------------

_WORKER_ENGINE: TTSEngine | None = None


def _init_worker(spec: str, options: dict[str, Any]) -> None:
    global _WORKER_ENGINE
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is handled once, by the parent, which keeps finished rows
    _WORKER_ENGINE = engine_from_spec(spec, **options)


def _render_one(engine: TTSEngine, key: str, text: str, style: VoiceStyle, path: str) -> tuple[str, Any]:
    """Render and write one file; failures come back as ``("config" | "row", message)`` (picklable)."""
    try:
        data = render_text(engine, text, style)
    except SilentAudioError as exc:
        return "row", str(exc)
    except ConfigError as exc:
        return "config", str(exc)
    except Exception as exc:  # an engine failure of any kind is reported against the row
        return "row", f"TTS engine {engine.name!r} failed: {type(exc).__name__}: {exc}"
    write_wav_atomic(path, data)
    return "ok", _describe(data, key)


def _render_in_worker(key: str, text: str, style: VoiceStyle, path: str) -> tuple[str, Any]:
    assert _WORKER_ENGINE is not None, "worker engine not initialised"
    return _render_one(_WORKER_ENGINE, key, text, style, path)


@dataclass
class _Run:
    """Mutable state of one run: what is done, progress and checkpoints, and how to name a failing row."""

    dataset: Dataset
    samples: Sequence[GoldSample]
    keys: list[str]
    description: dict[str, Any]
    style: VoiceStyle
    out_dir: Path
    checkpoint_every: int
    done: dict[str, Rendered] = field(default_factory=dict)
    rendered: list[Rendered] = field(default_factory=list)
    bar: Any = None
    _since_checkpoint: int = 0

    def path(self, key: str) -> str:
        return str(self.out_dir / AUDIO_DIR / f"{key}.wav")

    def plan(self) -> dict[str, str]:
        """Reuse complete files already in the folder; return the texts still to render, by key."""
        pending: dict[str, str] = {}
        for sample, key in zip(self.samples, self.keys, strict=True):
            if key in self.done or key in pending:
                continue
            if not sample.input_text.strip():
                self.fail(key, "row", "input.text is empty: nothing to synthesise")
            found = cached_audio(Path(self.path(key)), key)
            if found is not None:
                self.done[key] = found
            else:
                pending[key] = sample.input_text
        return pending

    def record(self, key: str, kind: str, value: Any) -> None:
        """Take one worker result: a failure raises, a file is recorded (and checkpointed every so often)."""
        if kind != "ok":
            self.fail(key, kind, value)
        self.done[key] = value
        self.rendered.append(value)
        if self.bar is not None:
            self.bar.update(1)
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.checkpoint_every:
            self.write_dataset()
            self._since_checkpoint = 0

    def fail(self, key: str, kind: str, message: str) -> None:
        if kind == "config":
            raise ConfigError(message)
        sample = self.samples[self.keys.index(key)]
        line = _line_numbers(self.dataset.path).get(sample.id)
        raise InputError(Location(str(self.dataset.path), line, "input.text"), f"row {sample.id!r}: {message}")

    def write_dataset(self) -> int:
        rows = [
            output_row(s.raw, f"{AUDIO_DIR}/{k}.wav", synthesis_record(self.description, self.style, self.done[k]))
            for s, k in zip(self.samples, self.keys, strict=True)
            if k in self.done
        ]
        atomic_write_jsonl(self.out_dir / DATASET_FILE, rows)
        return len(rows)


def _line_numbers(path: Path) -> dict[str, int]:
    return {str(row.get("id")): line for line, row in read_jsonl(path)}


def _render_serial(run: _Run, engine: TTSEngine, pending: dict[str, str]) -> None:
    for key, text in pending.items():
        run.record(key, *_render_one(engine, key, text, run.style, run.path(key)))


def _render_pool(run: _Run, spec: str, options: dict[str, Any], pending: dict[str, str], workers: int) -> None:
    context = multiprocessing.get_context("spawn")  # no fork: engines may hold threads (onnxruntime)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(spec, options)) as pool:
        futures: dict[Future[tuple[str, Any]], str] = {
            pool.submit(_render_in_worker, key, text, run.style, run.path(key)): key for key, text in pending.items()
        }
        try:
            remaining = set(futures)
            while remaining:
                finished, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for future in finished:
                    run.record(futures[future], *future.result())
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _check_counts(limit: int | None, workers: int | None) -> int:
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}")
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    return workers


def synthesize_dataset(
    dataset: Dataset,
    engine_spec: str,
    out_dir: str | Path,
    *,
    style: VoiceStyle | None = None,
    limit: int | None = None,
    workers: int | None = None,
    engine_options: Mapping[str, Any] | None = None,
    progress: bool = False,
    checkpoint_every: int = 16,
) -> SynthesisReport:
    """Render every row's ``input.text`` into ``out_dir/audio/<hash>.wav`` and write ``out_dir/dataset.jsonl``.

    Files already present are reused (the hash covers text, engine, style and format), so a rerun renders only
    what is new; rows with the same text share one file. ``dataset.jsonl`` is rewritten atomically every
    ``checkpoint_every`` rendered files and at the end, also when the run fails or is interrupted, so it always
    lists exactly the rows whose audio exists. ``workers`` > 1 renders in a process pool, one engine per worker.
    """
    started = time.perf_counter()
    workers = _check_counts(limit, workers)
    options = dict(engine_options or {})
    engine = engine_from_spec(engine_spec, **options)
    description = engine.describe()
    style = style or VoiceStyle()
    style = replace(style, voice=style.voice or description.get("voice"))
    samples = dataset.samples[:limit] if limit else dataset.samples
    keys = [audio_key(s.input_text, description, style) for s in samples]
    run = _Run(dataset, samples, keys, description, style, Path(out_dir), checkpoint_every)
    pending = run.plan()
    cached_rows = sum(k in run.done for k in keys)
    run.bar = _progress(len(pending) + len(run.done), len(run.done), progress)
    try:
        if workers == 1 or len(pending) <= 1:
            _render_serial(run, engine, pending)
        else:
            _render_pool(run, engine_spec, options, pending, min(workers, len(pending)))
    finally:
        run.bar.close()
        rows = run.write_dataset()
    return SynthesisReport(
        rows=rows,
        rendered=len(run.rendered),
        cached=cached_rows,
        rendered_audio_s=sum(r.duration_s for r in run.rendered),
        wall_s=time.perf_counter() - started,
        dataset_path=run.out_dir / DATASET_FILE,
        engine=description,
    )


def _progress(total: int, initial: int, enabled: bool) -> Any:
    """A tqdm bar over audio files (shown only when ``enabled`` and stderr is a terminal)."""
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="file", desc="synth", disable=None if enabled else True)
