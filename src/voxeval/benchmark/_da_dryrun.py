"""``voxeval run --dry-run``: what would be called, and a rough estimate, without calling anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.data import Dataset
from voxeval.run import RunSettings
from voxeval.run._keys import read_run_log, reply_key, sample_key
from voxeval.run._names import split_named

SPEECH_CHARS_PER_SECOND = 7.0
"""Rough Japanese speaking rate used to estimate input audio length from text (documented estimate)."""
AUDIO_TOKENS_PER_SECOND = 10.0
"""Rough audio-input token rate of current audio chat models (about one token per 100 ms)."""


def _done(path: Any) -> set[str]:
    return {k for k, r in read_run_log(path).items() if r.get("status") != "failed"}


def dry_run(settings: RunSettings, datasets: list[Dataset], run_dir: Path) -> dict[str, Any]:
    """The plan of a run: pending work per stage and system, with estimated audio seconds and tokens."""
    inputs_done = _done(run_dir / "inputs.jsonl")
    replies_done = _done(run_dir / "replies.jsonl")
    annotations_done = _done(run_dir / "annotations.jsonl")
    samples = [(d, s) for d in datasets for s in d.samples]
    to_synth = [s for d, s in samples if sample_key(d.name, s.id) not in inputs_done and s.audio is None]
    audio_s = sum(len(s.input_text) for _, s in samples) / SPEECH_CHARS_PER_SECOND + 0.24 * len(samples)
    plan: dict[str, Any] = {
        "run_dir": str(run_dir),
        "datasets": {d.name: len(d.samples) for d in datasets},
        "synthesise": {"engine": settings.tts, "pending": len(to_synth)},
        "systems": {},
        "annotator": settings.annotator,
        # Reply audio is transcribed after the replies come back (how many speak is known only then).
        "reply_text": settings.reply_text,
        "reply_asr": settings.reply_asr or None,
    }
    for spec in settings.systems:
        # Names of systems are their spec strings except for the cascade defaults; good enough for a plan.
        explicit, bare = split_named(spec)
        name = explicit or ("cascade" if bare == "cascade" else bare)
        pending = [s for d, s in samples if reply_key(d.name, name, s.id) not in replies_done]
        plan["systems"][spec] = {
            "calls": len(pending),
            "est_input_audio_s": round(audio_s * len(pending) / max(len(samples), 1), 1),
            "est_input_audio_tokens": round(AUDIO_TOKENS_PER_SECOND * audio_s * len(pending) / max(len(samples), 1)),
            "annotations_pending": sum(1 for d, s in samples if reply_key(d.name, name, s.id) not in annotations_done),
        }
    plan["note"] = "estimates assume ~7 characters/s of Japanese speech and ~10 audio tokens/s; nothing was called"
    return plan
