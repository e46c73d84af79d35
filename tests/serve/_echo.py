"""The ``python:`` system the served tests answer with: says what it heard, spoken as a tone."""

from __future__ import annotations

import time

from voxeval.systems import Reply, SystemFailure, Turn
from voxeval.testing.mockserver import sine_wav


def answer(turn: Turn) -> Reply:
    """A reply naming the turn's history, prompt, instructions, language and the ms of audio it heard, spoken as a
    tone of 0.5 s; instructions that say ``long`` (5 s) or ``medium`` (1.0 s) give a reply to talk over, ``slow`` one
    that takes 0.8 s to think (a blocking sleep: the server must stay live meanwhile); ``fail`` raises, ``garbled``
    returns audio that is not audio."""
    if "slow" in turn.system_prompt:
        time.sleep(0.8)
    if "fail" in turn.system_prompt:
        raise SystemFailure("asked to fail")
    if "garbled" in turn.system_prompt:
        return Reply("text", b"RIFF not a wav at all")
    heard = (len(turn.audio) - 44) // 48  # ms of 24 kHz 16-bit audio after the 44-byte header
    text = f"history={len(turn.history)} prompt={turn.user_prompt} system={turn.system_prompt} lang={turn.language}"
    text += f" heard={heard}"
    seconds = 5.0 if "long" in turn.system_prompt else 1.0 if "medium" in turn.system_prompt else 0.5
    return Reply(text, sine_wav(seconds))
