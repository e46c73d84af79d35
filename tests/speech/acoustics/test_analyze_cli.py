"""``voxeval analyze``: measurements and levels per file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.speech.helpers import tone
from voxeval.cli import main
from voxeval.speech.audio import encode_wav, quantize_int16


def _write(path: Path, samples: np.ndarray, rate: int) -> Path:
    path.write_bytes(encode_wav(quantize_int16(samples), rate))
    return path


def test_analyze_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.wav", tone(1.5, 24_000, freq=220.0, amplitude=0.3, silence=0.2).samples, 24_000)
    b = _write(tmp_path / "b.wav", tone(1.5, 24_000, freq=220.0, amplitude=0.03, silence=0.2).samples, 24_000)
    silent = _write(tmp_path / "silent.wav", np.zeros(24_000, np.float32), 24_000)
    assert main(["analyze", "--no-asr", "--json", str(a), str(b), str(silent)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [Path(r["path"]).name for r in rows] == ["a.wav", "b.wav", "silent.wav"]
    first, second = rows[0], rows[1]
    assert first["measurements"]["f0_median_hz"] == pytest.approx(220.0, rel=0.01)
    assert first["measurements"]["lufs"] - second["measurements"]["lufs"] == pytest.approx(20.0, abs=0.2)
    assert set(first["levels"]) == {"pitch", "speed", "volume", "gender", "age"}
    assert first["levels"]["gender"]["level"] == "female"  # 220 Hz is above the 165 Hz cut
    assert first["transcript"] is None and first["units"] is None
    assert rows[2] == {"path": str(silent), "silent": True}


def test_analyze_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.wav", tone(1.0, 16_000, freq=120.0, amplitude=0.3).samples, 16_000)
    assert main(["analyze", "--no-asr", "--pitch-reference", "gender", str(a)]) == 0
    out = capsys.readouterr().out
    assert "pitch" in out and "male" in out and "LUFS" in out


def test_analyze_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--no-asr", str(tmp_path / "missing.wav")]) == 2
    a = _write(tmp_path / "a.wav", tone(1.0, 16_000, freq=120.0).samples, 16_000)
    assert main(["analyze", "--no-asr", "--relative", str(a)]) == 2
    assert "--relative" in capsys.readouterr().err
