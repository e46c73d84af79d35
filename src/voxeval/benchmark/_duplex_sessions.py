"""The duplex run's reply stage: every (system, scenario) streamed once into a live session and appended to
``sessions.jsonl`` (keyed by :func:`~voxeval.duplex.session_key`), its stereo recording in ``recordings/``.

Clips are rendered (input audio read, pause halves and backchannels synthesised) before any session streams, so
no CPU-bound work blocks the event loop while sessions run at real time. A session whose socket fails after the
model's retries is recorded with outcome ``error`` (never dropped); delete its line to stream it again.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.duplex import (
    Clip,
    InputAudio,
    ModelAudioReceived,
    Scenario,
    ServerEvent,
    SessionEnded,
    SessionRecord,
    check_record_row,
    encode_stereo_wav,
    read_records,
    record_row,
    render_clip,
    session_key,
    speech_spans,
    stereo_recording,
    user_speech,
)
from voxeval.errors import ConfigError
from voxeval.io import AppendLog, atomic_write_bytes
from voxeval.io._keys import reply_key, sample_key
from voxeval.llm._types import ProviderError
from voxeval.llm.stream import StreamSettings, Take, TurnDetection, drive
from voxeval.run._executor import Row
from voxeval.run._stage import StageRun
from voxeval.systems import SpokenDialogueSystem

SESSIONS_LOG = "sessions.jsonl"
"""The run's session records, one line per (system, scenario)."""
RECORDINGS = "recordings"
"""Folder of the stereo recordings, inside the run folder."""
FINAL_REPLY = "interruption/"
"""Prefix of the sample id under which an interruption's final reply is annotated and scored."""


def final_reply(record: SessionRecord) -> tuple[str, str | None]:
    """The transcript of the first response begun after the last segment's onset (the reply to an interruption),
    and its response id (``None``: no such response)."""
    last = len(record.scenario.segments) - 1
    onset = user_speech(record.events).get(last)
    if onset is None:
        return "", None
    before = {getattr(e, "response_id", None) for e in record.events if e.t < onset.start}
    answer = next(
        (
            e.response_id
            for e in record.events
            if isinstance(e, ModelAudioReceived | ServerEvent) and e.response_id and e.response_id not in before
        ),
        None,
    )
    text = "".join(
        e.text
        for e in record.events
        if isinstance(e, ServerEvent) and e.kind == "transcript_delta" and e.response_id == answer and answer
    )
    return text, answer


def reply_rows(records: Sequence[SessionRecord]) -> dict[str, Row]:
    """The final reply of every interruption session as a reply row (``status`` ok, or failed with why)."""
    rows: dict[str, Row] = {}
    for record in records:
        if record.scenario.kind != "interruption":
            continue
        sample = FINAL_REPLY + record.sample_id
        key = reply_key(record.scenario.dataset, record.system, sample)
        text, answer = final_reply(record)
        fields = {"key": key, "dataset": record.scenario.dataset, "system": record.system, "id": sample}
        if answer is None or not text.strip():
            why = "no reply after the interruption" if answer is None else "the reply has no transcript"
            rows[key] = {**fields, "status": "failed", "outcome": "empty", "error": why, "text": text}
        else:
            rows[key] = {**fields, "status": "ok", "outcome": "ok", "text": text}
    return rows


def _session_model(system: SpokenDialogueSystem) -> Any:
    model = getattr(system, "model", None)
    provider = getattr(getattr(model, "protocol", None), "provider", None)
    if provider not in ("openai-realtime", "gemini-live"):
        raise ConfigError(
            f"system {system.name!r}: a duplex run streams into realtime:openai: or live:gemini: sessions only"
        )
    return model


@dataclass
class DuplexSessionStage:
    """Streams every pending (system, scenario) and records it."""

    scenarios: list[Scenario]
    """The run's scenarios."""
    detection: TurnDetection
    """The sessions' turn detection."""
    stream: StreamSettings
    """Frames, timeout, bound."""
    tts: str
    """Engine spec for synthesised segments."""
    vad: bool = True
    """Run voxeval's VAD on the model channel of each recording."""

    async def __call__(
        self,
        run_dir: Path,
        systems: list[SpokenDialogueSystem],
        inputs: dict[str, dict[str, Any]],
        prompts: tuple[str, str],
        *,
        how: StageRun,
        concurrency: int | None,
    ) -> dict[str, Row]:
        """Stream what is missing; the final replies of every recorded interruption, as reply rows."""
        models = {s.name: _session_model(s) for s in systems}
        log = AppendLog(run_dir / SESSIONS_LOG, key="id", check=check_record_row)
        pending = [(s, c) for s in systems for c in self.scenarios if session_key(s.name, c) not in log.done]
        clips = await asyncio.to_thread(self._clips, run_dir, inputs, [c for _, c in pending])
        gate = asyncio.Semaphore(concurrency or 1_000)

        async def one(name: str, scenario: Scenario) -> None:
            async with gate:
                record = await self._session(run_dir, name, models[name], scenario, clips, prompts[0])
            log.append(record_row(record))

        await asyncio.gather(*(one(s.name, c) for s, c in pending))
        return reply_rows([r for _, r in read_records(run_dir / SESSIONS_LOG)]) if log.path.exists() else {}

    def _clips(self, run_dir: Path, inputs: dict[str, dict[str, Any]], scenarios: list[Scenario]) -> dict[Any, Clip]:
        from voxeval.run._inputs import InputWorker

        worker = InputWorker(run_dir, self.tts)

        def input_wav(audio: InputAudio) -> bytes:
            path = Path(inputs[sample_key(audio.dataset, audio.sample_id)]["audio"])
            return (path if path.is_absolute() else run_dir / path).read_bytes()

        made: dict[Any, Clip] = {}
        for scenario in scenarios:
            for segment in scenario.segments:
                if segment.audio not in made:
                    made[segment.audio] = render_clip(segment, input_wav, worker.engine_for)
        return made

    async def _session(
        self, run_dir: Path, system: str, model: Any, scenario: Scenario, clips: dict[Any, Clip], instructions: str
    ) -> SessionRecord:
        key = session_key(system, scenario)
        try:
            take = await drive(
                model, scenario, [clips[s.audio] for s in scenario.segments], self.detection, self.stream, instructions
            )
        except ProviderError as error:
            take = Take([SessionEnded(0.0, "error", f"{error.kind}: {error.message}"[:500])])
        frames = stereo_recording(take.events, take.user_pcm, take.model_pcm)
        name = f"{RECORDINGS}/{hashlib.sha256(key.encode()).hexdigest()[:24]}.wav"
        await asyncio.to_thread(atomic_write_bytes, run_dir / name, encode_stereo_wav(frames))
        speech = None
        if self.vad:
            spans = await asyncio.to_thread(speech_spans, np.ascontiguousarray(frames[:, 1]), 24_000)
            speech = tuple(spans)
        return SessionRecord(key, system, scenario, scenario.sample_id, tuple(take.events), name, speech)
