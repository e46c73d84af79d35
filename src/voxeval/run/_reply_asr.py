"""What was said: voxeval's own transcript of every reply's audio, and the text each benchmark scores.

A system that speaks can say something other than its text channel, and a system that only speaks has no text at
all. So after the reply stage, every reply with audio is transcribed by the run's reply ASR engine (``--reply-asr``,
a recorded setting) in a stage of its own: ``reply_asr.jsonl``, keyed like ``replies.jsonl``. ASR is CPU-bound, so
the stage runs on the CPU executor (``--executor process`` / ``ray``: one engine per worker, loaded once); a reply is
never asked for again because its transcription failed, and ``--retry-failed`` redoes only the transcription.

``--reply-text`` says which channel the dialogue-act benchmark annotates (:func:`scored_replies`):

- ``speech`` (default): the ASR transcript of the reply audio; a reply without audio is scored on its text.
- ``model``: the model's own text (``Reply.text``), as before there was reply ASR; a reply that only speaks is
  scored as empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from voxeval.data import resolve_inside
from voxeval.errors import Location
from voxeval.run._executor import Row, Task
from voxeval.run._keys import check_run_row, read_run_log
from voxeval.run._outcomes import classify_text, max_reply_bytes
from voxeval.run._stage import Stage, StageRun, describe_error, run_stage

if TYPE_CHECKING:
    from voxeval.speech.asr import Transcript

ReplyText = Literal["speech", "model"]
"""Which channel of a reply is annotated: the ASR transcript of its audio, or the model's own text."""
REPLY_TEXTS: tuple[ReplyText, ...] = ("speech", "model")
"""Values of ``--reply-text``."""
DEFAULT_REPLY_ASR = "whisper-base"
"""The reply ASR engine unless ``--reply-asr`` names another (offline faster-whisper, :mod:`voxeval.speech.asr`)."""
LOG = "reply_asr.jsonl"
"""The reply ASR stage's log in a run directory."""


ASR_BATCH = 8
"""Clips per task: the engine transcribes them in one call (Whisper encodes short clips of one window together)."""

Clip = tuple[dict[str, Any], Path]
"""A reply to transcribe: its row's identifying fields and its audio file."""


def clip_bytes(path: Path) -> bytes:
    """A reply's audio as the engine may take it: a regular file within the audio size limit whose header declares
    at most ``$VOXEVAL_MAX_AUDIO_SECONDS`` (10 minutes), checked before any sample is decoded. An ASR engine decodes
    and resamples the whole clip: a 26 MB WAV declaring 100 Hz (36.7 hours) once grew to 23.9 GB.
    """
    from voxeval.errors import InputError
    from voxeval.run._latency import audio_seconds
    from voxeval.speech.audio import audio_limits, read_audio_file
    from voxeval.speech.audio._audio import MAX_SECONDS_ENV

    where, limits = Location(str(path)), audio_limits()
    wav = read_audio_file(path, where, limits)
    seconds = audio_seconds(wav)
    if seconds is not None and seconds > limits.max_seconds:
        message = f"reply audio lasts {seconds:.1f} s, over the {limits.max_seconds:g} s the reply ASR takes"
        raise InputError(where, f"{message} (set {MAX_SECONDS_ENV} to change it)")
    return wav


@dataclass
class ReplyASRWorker:
    """Transcribes a batch of replies' audio in one language; payload ``(clips, language)``.

    Picklable for a process pool or Ray: the engine is rebuilt from ``spec`` once per worker process.
    """

    spec: str
    """ASR engine spec (:func:`voxeval.speech.asr.asr_from_spec`)."""
    engine: Any = None
    """The engine built by the driver (not pickled)."""
    cpu_bound: bool = field(default=True, init=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "engine": None, "cpu_bound": True}

    def setup(self) -> None:
        """Build the engine unless the driver handed it over (its model loads on first use)."""
        if self.engine is None:
            from voxeval.speech.asr import asr_from_spec

            self.engine = asr_from_spec(self.spec)

    async def __call__(self, payload: tuple[list[Clip], str | None]) -> list[Row]:
        """One transcript row per clip. When the batch call fails, each clip is transcribed alone, so the clip
        that broke it gets a ``failed`` row with its own error and the others their transcripts."""
        clips, language = payload
        assert self.engine is not None, "setup() was not called"
        try:
            heard = self.engine.transcribe_batch([clip_bytes(path) for _, path in clips], language)
            if len(heard) != len(clips):
                raise RuntimeError(f"{self.spec} returned {len(heard)} transcripts for {len(clips)} clips")
        except Exception:  # isolated below: every clip is recorded with its own outcome
            return [self._one(fields, path, language) for fields, path in clips]
        return [self._row(fields, t) for (fields, _), t in zip(clips, heard, strict=True)]

    def _one(self, fields: dict[str, Any], path: Path, language: str | None) -> Row:
        try:
            return self._row(fields, self.engine.transcribe(clip_bytes(path), language))
        except Exception as exc:  # recorded as this clip's failure, listed in the report, retried on request
            return {**fields, "status": "failed", "error": describe_error(exc), "asr": self.engine.name}

    def _row(self, fields: dict[str, Any], heard: Transcript) -> Row:
        """An ``ok`` row; a transcript that still loops keeps its symptom in ``looped`` (:func:`scored_reply`)."""
        row = {**fields, "status": "ok", "text": heard.text.strip(), "asr": self.engine.name}
        return {**row, "looped": heard.looped} if heard.looped else row


def _pending(log: Path, retry_failed: bool) -> Callable[[str], bool]:
    done = read_run_log(log)
    return lambda key: key not in done or (retry_failed and done[key].get("status") == "failed")


async def transcribe_replies(
    run_dir: Path,
    replies: dict[str, Row],
    languages: dict[tuple[str, str], str],
    worker: ReplyASRWorker,
    *,
    how: StageRun | None = None,
) -> dict[str, Row]:
    """Transcribe every reply with audio that has no transcript yet; returns the stage log's rows by key.

    ``languages`` maps ``(dataset, sample id)`` to the input's language, which the reply is expected to speak;
    it is given to the engine (no language ID), as the cascade does for the input. Pending replies go to the
    engine :data:`ASR_BATCH` at a time, per language.
    """
    how = how or StageRun()
    log = run_dir / LOG
    pending = _pending(log, how.retry_failed)
    by_language: dict[str | None, list[Clip]] = {}
    for key, reply in sorted(replies.items()):
        if reply.get("status") == "failed" or not reply.get("audio") or not pending(key):
            continue
        fields = {"key": key, "dataset": reply["dataset"], "system": reply["system"], "id": reply["id"]}
        language = languages.get((reply["dataset"], reply["id"]))
        # A path read back from the run's own log: it must stay inside the run folder (docs/reliability.md).
        where = Location(str(run_dir / "replies.jsonl"), field=f"{key}.audio")
        by_language.setdefault(language, []).append(
            (fields, resolve_inside(run_dir, reply["audio"], where, "run folder"))
        )
    tasks = [
        Task(tuple(f["key"] for f, _ in batch), (batch, language), {})
        for language, clips in by_language.items()
        for batch in (clips[i : i + ASR_BATCH] for i in range(0, len(clips), ASR_BATCH))
    ]
    if not tasks and not log.exists():
        return {}  # no reply has audio: a run of text systems gets no empty log
    stage = Stage(f"reply ASR {worker.spec}", log, trace=True, check=check_run_row)
    # One batch per worker: a process pool or Ray keeps every worker busy; in-process the engine serialises.
    limit = max(1, getattr(how.cpu_executor, "processes", 1))
    return await run_stage(stage, tasks, worker, limit=limit, how=how)


def scored_reply(reply: Row, heard: Row | None, mode: ReplyText) -> Row:
    """A reply row as the scoring stage sees it: ``text`` is the channel ``mode`` picks, the status its outcome.

    The row keeps ``model_text`` (the model's own text) and, when the audio was transcribed, ``asr_text``
    (and ``asr_looped``, the loop symptom of a transcript that still loops after the engine's recovery);
    ``text_source`` says which one ``text`` is. The reply log itself is never rewritten. A looped transcript is
    not what was said: with ``speech`` the reply is excluded (outcome ``looped``), never scored.

    >>> r = {"status": "empty", "outcome": "empty", "text": "", "audio": "a.wav"}
    >>> s = scored_reply(r, {"status": "ok", "text": "はい。"}, "speech")
    >>> s["status"], s["text"], s["model_text"], s["text_source"]
    ('ok', 'はい。', '', 'speech')
    >>> scored_reply(r, None, "speech")["error"]
    'reply audio not transcribed yet (resume the run to finish it)'
    >>> s = scored_reply(r, {"status": "ok", "text": "はいはいはいはい", "looped": "repeat"}, "speech")
    >>> s["status"], s["outcome"], s["asr_looped"]
    ('failed', 'looped', 'repeat')
    """
    row = {**reply, "model_text": reply.get("text", "")}
    if heard is not None and heard.get("status") == "ok":
        row["asr_text"] = heard.get("text", "")
        if heard.get("looped"):
            row["asr_looped"] = heard["looped"]
    if mode == "model" or reply.get("status") == "failed" or not reply.get("audio"):
        return {**row, "text_source": "model"}
    row["text_source"] = "speech"
    if heard is None:
        return {**row, "status": "failed", "outcome": "pending", "text": "",
                "error": "reply audio not transcribed yet (resume the run to finish it)"}  # fmt: skip
    if heard.get("status") != "ok":
        return {**row, "status": "failed", "outcome": "failed", "text": "",
                "error": f"reply ASR: {heard.get('error')}"}  # fmt: skip
    if heard.get("looped"):
        return {**row, "status": "failed", "outcome": "looped", "text": "", "error": looped_reason(heard)}
    found = classify_text(heard.get("text", ""), max_reply_bytes())
    row.update(status=found.status, outcome=found.outcome, text=found.text)
    if found.reason:
        row["error"] = found.reason
    else:
        row.pop("error", None)
    return row


def looped_reason(heard: Row) -> str:
    """Why a reply whose transcript loops is excluded (its symptom and the start of the text).

    >>> looped_reason({"looped": "repeat", "text": "はい。ぁぁぁぁぁぁ"})
    'reply ASR transcript still loops after recovery (repeat): 「はい。ぁぁぁぁぁぁ」'
    """
    text = str(heard.get("text", ""))
    shown = text if len(text) <= 60 else text[:60] + "…"
    return f"reply ASR transcript still loops after recovery ({heard.get('looped')}): 「{shown}」"


def scored_replies(replies: dict[str, Row], heard: dict[str, Row], mode: ReplyText) -> dict[str, Row]:
    """:func:`scored_reply` for every reply row, by key."""
    return {key: scored_reply(row, heard.get(key), mode) for key, row in replies.items()}
