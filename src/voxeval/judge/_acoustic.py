"""The offline acoustic judge (``judge=acoustic``): the seed prompt's rubric executed from measurements.

ASR (Whisper base) gives language ID and the transcript for the content step and for speech units;
parselmouth and pyloudnorm give F0, formants, loudness and timing; every threshold is in
``voxeval.speech.acoustics.THRESHOLDS``. Emotion and adult age groups cannot be measured offline: items
requiring them are ``not_measured`` unless the rest of the rubric fixes the score anyway (see ``_rubric``).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast, get_args

from voxeval.errors import ConfigError, InputError, Location
from voxeval.judge._acoustic_decide import decide
from voxeval.judge._protocol import judges
from voxeval.judge._rubric import RubricInput, apply_rubric
from voxeval.languages import DEFAULT_ASR
from voxeval.speech.acoustics import (
    THRESHOLDS,
    Analysis,
    BatchReference,
    Measurements,
    PitchReference,
    Thresholds,
    analyse,
    analysis_of,
    listen_batch,
    measure_reply,
    naturalness_model,
    reply_language,
)
from voxeval.speech.acoustics._thresholds import real_speech_calibration
from voxeval.speech.asr import ASREngine, asr_from_spec
from voxeval.speech.audio import SilentAudioError
from voxeval.style._types import Judgement, StyleItem

JUDGE_NAME = "acoustic"
"""Registered name and the ``judge`` field of every judgement."""
ANALYSIS_ERRORS = (SilentAudioError, InputError, RuntimeError, ValueError, OSError)
"""What makes one reply unanalysable (ASR or Praat failures among them): a failed judgement, listed."""
ASR_BATCH = 16
"""Replies transcribed per ASR call in :meth:`AcousticJudge.judge_batch` (short ones share encoder batches)."""


@dataclass(frozen=True)
class _Outcome:
    """An analysed reply, or why it could not be analysed."""

    analysis: Analysis | None
    """The analysis, when the audio could be read and had speech."""
    silent: bool = False
    """The reply has no speech at all."""
    error: str = ""
    """Why the audio could not be analysed (a failed judgement)."""
    seconds: float = 0.0
    """Wall time of the analysis."""


def model_references(
    items: Sequence[StyleItem], outcomes: Sequence[_Outcome], table: Thresholds = THRESHOLDS
) -> dict[str, BatchReference]:
    """Each model's reference (median LUFS, median F0 per gender) over its measured replies in the batch."""
    by_model: dict[str, list[Measurements]] = defaultdict(list)
    for item, outcome in zip(items, outcomes, strict=True):
        if item.model_name is not None and outcome.analysis is not None:
            by_model[item.model_name].append(outcome.analysis.measurements)
    return {model: BatchReference.of(replies, table) for model, replies in by_model.items()}


class AcousticJudge:
    """Judges replies from measurements; ``judge_batch`` lets volume be relative to each model's other replies."""

    name = JUDGE_NAME
    concurrency = 1
    relative = True

    def __init__(
        self,
        asr: ASREngine | None = None,
        *,
        pitch_reference: PitchReference = "absolute",
        table: Thresholds = THRESHOLDS,
    ) -> None:
        if pitch_reference not in get_args(PitchReference):
            raise ConfigError(f"pitch_reference must be one of {get_args(PitchReference)}, got {pitch_reference!r}")
        self._asr = asr
        self.pitch_reference: PitchReference = pitch_reference
        self.table = table

    @property
    def asr(self) -> ASREngine:
        """The ASR engine (Whisper base unless one was given), created on first use."""
        if self._asr is None:
            self._asr = asr_from_spec(DEFAULT_ASR)
        return self._asr

    def _analyse(self, item: StyleItem, audio: bytes) -> _Outcome:
        start = time.perf_counter()
        try:
            analysis = analyse(audio, item.language, self.asr, where=_where(item))
        except ANALYSIS_ERRORS as exc:
            return _failure(exc, time.perf_counter() - start)
        return _Outcome(analysis, seconds=time.perf_counter() - start)

    def _analyse_batch(self, replies: Sequence[tuple[StyleItem, bytes]]) -> list[_Outcome]:
        """Measure every reply, then transcribe the measurable ones ``ASR_BATCH`` at a time (one batched language-ID
        pass per chunk). A chunk whose ASR call fails is redone reply by reply, so only the failing reply fails."""
        outcomes: list[_Outcome | None] = [None] * len(replies)
        measured: dict[int, tuple[Measurements, float]] = {}
        for i, (item, audio) in enumerate(replies):
            start = time.perf_counter()
            try:
                measured[i] = (measure_reply(audio, _where(item)), time.perf_counter() - start)
            except ANALYSIS_ERRORS as exc:
                outcomes[i] = _failure(exc, time.perf_counter() - start)
        todo = list(measured)
        for chunk in (todo[k : k + ASR_BATCH] for k in range(0, len(todo), ASR_BATCH)):
            start = time.perf_counter()
            languages = [replies[i][0].language for i in chunk]
            try:
                heard = listen_batch(self.asr, [replies[i][1] for i in chunk], languages)
            except (RuntimeError, ValueError, OSError):
                for i in chunk:
                    outcomes[i] = self._analyse(*replies[i])
                continue
            share = (time.perf_counter() - start) / len(chunk)
            for i, language, h in zip(chunk, languages, heard, strict=True):
                measurements, seconds = measured[i]
                analysis = analysis_of(measurements, h, reply_language(language, h), self.table)
                outcomes[i] = _Outcome(analysis, seconds=seconds + share)
        return [o for o in outcomes if o is not None]

    def _judgement(self, item: StyleItem, outcome: _Outcome, model: BatchReference | None) -> Judgement:
        common: dict[str, Any] = {
            "id": item.id,
            "ability": item.ability,
            "judge": self.name,
            "model_name": item.model_name,
        }
        meta = {"analysis_s": round(outcome.seconds, 3)}
        if outcome.analysis is None and not outcome.silent:
            return Judgement(
                score=None, status="failed", reason=f"audio not analysable: {outcome.error}", meta=meta, **common
            )
        if outcome.analysis is None:
            result = apply_rubric(RubricInput(True, "non_compliant", content_note="the reply is silent"))
            return Judgement(score=result.score, status=result.status, reason=result.reason, meta=meta, **common)
        result, attributes = decide(
            item, outcome.analysis, pitch_reference=self.pitch_reference, model=model, table=self.table
        )
        meta["audio_s"] = round(outcome.analysis.measurements.duration_s, 3)
        return Judgement(
            score=result.score, status=result.status, attributes=attributes, reason=result.reason, meta=meta, **common
        )

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        """Judge one reply on its own (volume on absolute LUFS)."""
        outcome = await asyncio.to_thread(self._analyse, item, audio)
        return self._judgement(item, outcome, None)

    async def judge_batch(self, replies: Sequence[tuple[StyleItem, bytes]]) -> list[Judgement]:
        """Judge many replies, each against its model's other replies where there are enough.

        A model with ``relative_min_replies`` measured replies or more is its own reference for volume (and for
        pitch when ``pitch_reference="model"``); the others are judged as by :meth:`judge`.
        """
        outcomes = await asyncio.to_thread(self._analyse_batch, replies)
        items = [item for item, _ in replies]
        references = model_references(items, outcomes, self.table)
        return [
            self._judgement(item, outcome, references.get(item.model_name or ""))
            for item, outcome in zip(items, outcomes, strict=True)
        ]

    def describe(self) -> dict[str, Any]:
        """Settings, thresholds and versions for ``config.json``."""
        return {
            "judge": self.name,
            "pitch_reference": self.pitch_reference,
            "asr": self.asr.describe(),
            "thresholds": asdict(self.table),
            "calibration": {
                "real_speech_data_sha256": real_speech_calibration()["meta"].get("data_sha256"),
                "naturalness_data_sha256": naturalness_model().meta.get("natural_sha256"),
                "naturalness_threshold": naturalness_model().threshold,
            },
            "versions": {p: _version(p) for p in ("praat-parselmouth", "pyloudnorm", "pypinyin", "pyopenjtalk-plus")},
        }


def _where(item: StyleItem) -> Location:
    return Location(item.response_audio or f"<response {item.id}>")


def _failure(exc: Exception, seconds: float) -> _Outcome:
    """A reply that could not be analysed: silent, unreadable, or an ASR / Praat failure."""
    if isinstance(exc, SilentAudioError):
        return _Outcome(None, silent=True, seconds=seconds)
    if isinstance(exc, InputError):
        return _Outcome(None, error=str(exc), seconds=seconds)
    return _Outcome(None, error=f"{type(exc).__name__}: {exc}", seconds=seconds)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@judges.register(JUDGE_NAME)
def make_acoustic(arg: str = "", **options: Any) -> AcousticJudge:
    """``acoustic``, ``acoustic:gender`` or ``acoustic:model`` (the pitch reference).

    Options: ``asr`` (an ASR spec or engine) and ``pitch_reference``. ``model`` compares pitch with the same
    model's other replies, so it needs :meth:`AcousticJudge.judge_batch`.
    """
    unknown = set(options) - {"asr", "pitch_reference"}
    if unknown:
        raise ConfigError(f"unknown option(s) for the acoustic judge: {', '.join(sorted(unknown))}")
    reference = options.get("pitch_reference") or arg or "absolute"
    if reference not in get_args(PitchReference):
        raise ConfigError(
            f"acoustic judge: pitch reference must be one of {get_args(PitchReference)}, got {reference!r}"
        )
    asr = options.get("asr")
    engine = asr_from_spec(asr) if isinstance(asr, str) else asr
    return AcousticJudge(engine, pitch_reference=cast(PitchReference, reference))
