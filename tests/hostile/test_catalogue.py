"""The hostile-input catalogue: every broken input gets a clear error (file, line, field) and a non-zero exit with
no output written, or a documented repair. docs/reliability.md lists each case with this test's id."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.conftest import gold_row, pred_row, write_jsonl
from voxeval.cli import main

GOLD_OK = gold_row("a", [("Answer", 1.0)])


def _score(tmp: Path, gold_bytes: bytes | None = None, pred_bytes: bytes | None = None) -> tuple[list[str], Path]:
    gold, pred = tmp / "gold.jsonl", tmp / "pred.jsonl"
    gold.write_bytes(gold_bytes if gold_bytes is not None else (json.dumps(GOLD_OK) + "\n").encode())
    pred.write_bytes(
        pred_bytes if pred_bytes is not None else (json.dumps(pred_row("a", [("Answer", 1)])) + "\n").encode()
    )
    return ["score", "--gold", str(gold), "--pred", str(pred), "--out", str(tmp / "out")], tmp / "out"


def line(obj: object) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode()


# (case id, gold bytes, pred bytes, expected exit, fragment expected in stderr)
JSONL_CASES = [
    ("non-utf8", line(GOLD_OK)[:-3] + b"\xff}\n", None, 2, "gold.jsonl:1: not valid UTF-8"),
    ("bom-repaired", b"\xef\xbb\xbf" + line(GOLD_OK), None, 0, ""),
    ("blank-lines-repaired", b"\n" + line(GOLD_OK) + b"\n\n", None, 0, ""),
    ("duplicate-ids", line(GOLD_OK) + line(GOLD_OK), None, 2, "gold.jsonl:2, field id: duplicate id 'a'"),
    ("missing-field", line({k: v for k, v in GOLD_OK.items() if k != "output"}), None, 2, "gold.jsonl:1, field output"),
    ("extra-fields-kept", line({**GOLD_OK, "my_note": "x"}), None, 0, ""),
    ("unknown-label", line(gold_row("a", [("Greeting", 1)])), None, 2, "field output_dialogue_acts.steps[0].act"),
    (
        "nan-importance",
        None,
        b'{"id": "a", "steps": [{"act": "Answer", "importance": NaN}]}\n',
        2,
        "pred.jsonl:1: invalid JSON",
    ),
    ("negative-importance", None, line(pred_row("a", [("Answer", -0.5)])), 2, "field steps[0].importance: importance"),
    (
        "string-importance",
        None,
        line({"id": "a", "steps": [{"act": "Answer", "importance": "0.5"}]}),
        2,
        "field steps[0].importance: importance must be a number",
    ),
    ("ten-mb-line", line({**GOLD_OK, "pad": "x" * 10_000_000}), None, 2, "gold.jsonl:1: line longer than"),
    ("empty-file", b"", None, 2, "gold.jsonl: no rows"),
    ("truncated-last-line", line(GOLD_OK) + b'{"id": "b", "scen', None, 2, "gold.jsonl:2: invalid JSON"),
    ("not-an-object", b"[1, 2, 3]\n", None, 2, "gold.jsonl:1: each line must be a JSON object"),
    ("empty-gold-acts", line(gold_row("a", [])), None, 2, "gold dialogue-act sequence is empty"),
    (
        "bool-importance",
        None,
        line({"id": "a", "steps": [{"act": "Answer", "importance": True}]}),
        2,
        "importance must be a number",
    ),
]


@pytest.mark.parametrize(("case", "gold", "pred", "code", "fragment"), JSONL_CASES, ids=[c[0] for c in JSONL_CASES])
def test_jsonl_inputs(tmp_path, capsys, case, gold, pred, code, fragment) -> None:
    args, out = _score(tmp_path, gold, pred)
    assert main(args) == code
    err = capsys.readouterr().err
    assert fragment in err
    assert out.exists() == (code == 0), "an error must leave no output behind"


# ---------- audio referenced by a dataset ----------


def tone(rate: int = 24000, seconds: float = 0.6) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def wav(path: Path, **kw: object) -> None:
    rate = int(kw.pop("rate", 24000))  # type: ignore[call-overload]
    data = tone(rate)
    if kw.pop("stereo", False):
        data = np.stack([data, data], axis=1)
    soundfile.write(str(path), data, rate, **kw)  # type: ignore[arg-type]


AudioMaker = Callable[[Path], str]


def _bytes(data: bytes) -> AudioMaker:
    def make(root: Path) -> str:
        (root / "in.wav").write_bytes(data)
        return "in.wav"

    return make


def _file(name: str, **kw: object) -> AudioMaker:
    def make(root: Path) -> str:
        wav(root / name, **kw)
        return name

    return make


def _truncated(root: Path) -> str:
    wav(root / "full.wav")
    data = (root / "full.wav").read_bytes()
    (root / "in.wav").write_bytes(data[: len(data) // 2])
    return "in.wav"


def _zero_length(root: Path) -> str:
    soundfile.write(str(root / "in.wav"), np.zeros(0, dtype=np.float32), 24000, subtype="PCM_16")
    return "in.wav"


def _outside(root: Path) -> str:
    wav(root.parent / "secret.wav")
    return "../secret.wav"


def _absolute(root: Path) -> str:
    wav(root.parent / "abs.wav")
    return str(root.parent / "abs.wav")


def _symlink(root: Path) -> str:
    wav(root.parent / "target.wav")
    os.symlink(root.parent / "target.wav", root / "link.wav")
    return "link.wav"


def _eight_hz(root: Path) -> str:
    # 40 KB of samples declared at 8 Hz: resampled to 24 kHz this became 1.3 GB before the rate check.
    soundfile.write(str(root / "in.wav"), np.zeros(20_000, dtype=np.float32), 8, subtype="PCM_16")
    return "in.wav"


def _eleven_minutes(root: Path) -> str:
    # Silent 8 kHz 8-bit: 5 MB on disk, over the 10-minute default limit (a 2-hour file took 1.9 GB in a run).
    soundfile.write(str(root / "in.wav"), np.zeros(8000 * 660, dtype=np.float32), 8000, subtype="PCM_U8")
    return "in.wav"


def _streamed_long(root: Path) -> str:
    # A streaming encoder's placeholder sizes hide the length from the header: the capped read must catch it.
    soundfile.write(str(root / "full.wav"), np.zeros(8000 * 660, dtype=np.float32), 8000, subtype="PCM_U8")
    data = bytearray((root / "full.wav").read_bytes())
    data[4:8] = (0xFFFFFFFF).to_bytes(4, "little")
    data[40:44] = (0xFFFFFFFF).to_bytes(4, "little")
    (root / "in.wav").write_bytes(bytes(data))
    return "in.wav"


# (case id, maker, expected exit, fragment in stderr or in the recorded conversion)
AUDIO_CASES = [
    ("corrupt-audio", _bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 10), 2, "field input.audio"),
    ("empty-audio", _bytes(b""), 2, "field input.audio"),
    ("truncated-audio", _truncated, 2, "field input.audio"),
    ("zero-length-audio", _zero_length, 2, "field input.audio"),
    ("wrong-rate-converted", _file("in.wav", rate=16000), 0, "16000→24000 Hz"),
    ("stereo-converted", _file("in.wav", stereo=True), 0, "stereo→mono"),
    ("8-bit-converted", _file("in.wav", subtype="PCM_U8"), 0, "U8"),
    ("float-converted", _file("in.wav", subtype="FLOAT"), 0, "FLOAT"),
    ("flac-converted", _file("in.flac", format="FLAC"), 0, "FLAC"),
    ("mp3-converted", _file("in.mp3", format="MP3"), 0, "MP3"),
    ("dotdot-refused", _outside, 2, "leaves the dataset folder"),
    ("absolute-refused", _absolute, 2, "absolute paths are not allowed"),
    ("symlink-refused", _symlink, 2, "leaves the dataset folder"),
    ("8-hz-refused", _eight_hz, 2, "sample rate 8 Hz is outside 8000–384000 Hz"),
    ("eleven-minutes-refused", _eleven_minutes, 2, "above the limit of 600 s"),
    ("streamed-header-too-long-refused", _streamed_long, 2, "above the limit of 600 s"),
]


@pytest.mark.parametrize(("case", "maker", "code", "fragment"), AUDIO_CASES, ids=[c[0] for c in AUDIO_CASES])
def test_dataset_audio(tmp_path, capsys, case, maker, code, fragment) -> None:
    root = tmp_path / "data"
    root.mkdir()
    row = json.loads(json.dumps(GOLD_OK))
    row["input"]["audio"] = maker(root)
    write_jsonl(root / "set.jsonl", [row])
    out = tmp_path / "run"
    result = main(
        [
            "run",
            "--dataset",
            str(root / "set.jsonl"),
            "--system",
            "python:tests.run.doubles:silent",
            "--annotator",
            "gold:paper-examples",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert result == code, err
    if code:
        assert "set.jsonl:1, field input.audio" in err and fragment in err
        assert not out.exists(), "a refused input must leave no run directory behind"
        return
    inputs = [json.loads(x) for x in (out / "inputs.jsonl").read_text(encoding="utf-8").splitlines()]
    recorded = json.dumps(inputs[0]["conversion"], ensure_ascii=False)
    info = soundfile.info(str(out / inputs[0]["audio"]))
    assert (info.samplerate, info.channels, info.subtype) == (24000, 1, "PCM_16")
    assert fragment in recorded, inputs[0]
