"""Test doubles for systems under test (importable as python:tests.run.doubles:NAME)."""

from __future__ import annotations

import json
from pathlib import Path

from voxeval.data import builtin_path
from voxeval.systems import Reply, Turn

_GOLD = {
    json.loads(line)["id"]: json.loads(line) for line in builtin_path("ja-assistant").read_text("utf-8").splitlines()
}


def echo_gold(turn: Turn) -> str:
    """Answers with the gold reply: an oracle that must score WED 0 with the gold annotator."""
    return str(_GOLD[turn.id]["output"]["text"])


def echo_gold_language(turn: Turn) -> str:
    """Answers with the gold reply of the ``<language>-assistant`` sample of the turn's id (ja, en or zh)."""
    rows = builtin_path(f"{turn.language}-assistant").read_text("utf-8").splitlines()
    return next(str(row["output"]["text"]) for row in map(json.loads, rows) if row["id"] == turn.id)


def silent(turn: Turn) -> str:
    """Says nothing."""
    return ""


def flaky(turn: Turn) -> Reply:
    """Fails on ids ending in 2, answers gold otherwise."""
    if turn.id.endswith("2"):
        raise RuntimeError("model crashed")
    return Reply(echo_gold(turn), meta={"audio_bytes": len(turn.audio)})


def parrot(turn: Turn) -> str:
    """Repeats the user's input with 「はい、」 in front: an echo, which must get no acts."""
    return "はい、" + turn.reference_text


def speak_gold(turn: Turn) -> bytes:
    """Speaks the gold reply and gives no text (WAV bytes only): heard by the ``test-said`` reply ASR double."""
    from tests.run.asr_doubles import clip

    return clip(echo_gold(turn))


_TTS: list = []
"""The pyopenjtalk engine of :func:`speak_gold_tts`, built on first use."""


def speak_gold_tts(turn: Turn) -> Reply:
    """An oracle that speaks: the gold reply as text and spoken by pyopenjtalk (to measure what reply ASR costs an
    honest speaker: WED on the spoken channel against the text channel; see docs/runs.md, "Reply rows")."""
    from voxeval.speech.audio import to_input_format
    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    if not _TTS:
        _TTS.append(engine_from_spec("pyopenjtalk"))
    text = echo_gold(turn)
    return Reply(text, to_input_format(_TTS[0].synthesize(text, VoiceStyle())))


def slow_dataset(path: Path, n: int) -> Path:
    """The first ``n`` ja-assistant samples with inputs long enough that synthesising one takes a while (written to
    ``path``; the Ray tests kill workers and nodes while they are busy)."""
    rows = [json.loads(x) for x in builtin_path("ja-assistant").read_text("utf-8").splitlines()[:n]]
    for row in rows:
        row["input"]["text"] = "。".join([row["input"]["text"]] * 4)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path
