"""Files read whole are regular and bounded (issue 31, group 11): no FIFO waited on, no /dev/zero read until
memory runs out, no sparse file of gigabytes allocated. ``voxeval.io.read_bounded`` opens without blocking, checks
the type and size on the descriptor, and reads at most the limit; audio files are also checked by header first.
"""

from __future__ import annotations

import json
import os
import resource
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.speech.audio import audio_limits
from voxeval.testing.mockserver import sine_wav

LIMIT = audio_limits().max_bytes


def _sparse(path: Path, size: int, header: bytes = b"") -> Path:
    with open(path, "wb") as handle:
        handle.write(header)
        handle.truncate(size)
    return path


def _streamed_wav_header() -> bytes:
    """A 24 kHz mono 16-bit WAV header whose sizes are a streaming encoder's placeholders (length unknown)."""
    fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, 24000, 48000, 2, 16)
    return b"RIFF" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + fmt + b"data" + struct.pack("<I", 0xFFFFFFFF)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# (case, maker of the path under tmp, fragment of the error)
HOSTILE: list[tuple[str, Callable[[Path], Path], str]] = [
    ("dev-zero", lambda tmp: Path("/dev/zero"), "is a character device"),
    ("fifo", lambda tmp: _fifo(tmp / "pipe.wav"), "is a FIFO"),
    ("sparse-2.3-GB", lambda tmp: _sparse(tmp / "big.wav", 2300 * 2**20), "above the limit of 256.0 MiB"),
    (
        "sparse-streamed-wav-just-over",
        lambda tmp: _sparse(tmp / "streamed.wav", LIMIT + 1, _streamed_wav_header()),
        "above the limit",
    ),
    ("directory", lambda tmp: tmp, "is a directory"),
]


def _in_thread(call: Callable[[], int], seconds: float = 30.0) -> int:
    """``call()`` in a daemon thread: a read that blocks (a FIFO without a writer) fails the test, not the suite."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"still blocked after {seconds} s"
    return result[0]


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize(("case", "maker", "fragment"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_analyze_refuses_without_reading(tmp_path, capsys, case, maker, fragment) -> None:
    path = maker(tmp_path)
    before = _peak_rss_mb()
    assert _in_thread(lambda: main(["analyze", "--no-asr", str(path)])) == 2
    err = capsys.readouterr().err
    assert f"voxeval: error: {path}" in err and fragment in err, err
    assert _peak_rss_mb() - before < 100, "nothing of the file may be read into memory"


@pytest.mark.parametrize("option", ["--system-prompt-file", "--user-prompt-file"])
@pytest.mark.parametrize(("case", "maker", "fragment"), HOSTILE[:3], ids=[c[0] for c in HOSTILE[:3]])
def test_prompt_files_are_refused_before_the_run_writes(tmp_path, capsys, option, case, maker, fragment) -> None:
    path = maker(tmp_path)
    write_jsonl(tmp_path / "set.jsonl", [gold_row("a", [("Answer", 1.0)])])
    out = tmp_path / "run"
    args = ["run", "--dataset", str(tmp_path / "set.jsonl"), "--system", "python:tests.run.doubles:silent"]
    args += ["--annotator", "gold:paper-examples", option, str(path), "--out", str(out), "--quiet"]
    assert _in_thread(lambda: main(args)) == 2
    err = capsys.readouterr().err
    assert fragment.replace("256.0 MiB", "1.0 MiB") in err, err
    assert not out.exists()


@pytest.mark.parametrize(
    ("case", "maker", "fragment"),
    [HOSTILE[2], ("sparse-1.5-GB-wav", lambda tmp: _sparse(tmp / "r.wav", 1536 * 2**20, sine_wav(0.05)), "above")],
    ids=["sparse-2.3-GB", "sparse-1.5-GB-wav"],
)
def test_replay_audio_is_size_checked_when_the_file_is_read(tmp_path, capsys, case, maker, fragment) -> None:
    """Referenced twice, a 1.5 GB sparse file wrote 3.0 GB into audio/replies/ at 1.66 GB RSS."""
    audio = maker(tmp_path)
    write_jsonl(tmp_path / "set.jsonl", [gold_row("a", [("Answer", 1.0)]), gold_row("b", [("Answer", 1.0)])])
    rows = [{"id": i, "text": "hi", "audio": audio.name} for i in ("a", "b")]
    (tmp_path / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    args = ["run", "--dataset", str(tmp_path / "set.jsonl"), "--system", f"replay:{tmp_path / 'replies.jsonl'}"]
    before = _peak_rss_mb()
    assert main([*args, "--annotator", "gold:paper-examples", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "replies.jsonl:1, field audio" in err and fragment in err, err
    assert not out.exists()
    assert _peak_rss_mb() - before < 100


def test_a_dataset_wav_with_a_streamed_header_over_the_size_limit_is_refused_unread(tmp_path, capsys) -> None:
    """The header cannot say how long it is, so the size decides: before, the whole file was read, then decoded."""
    root = tmp_path / "data"
    root.mkdir()
    _sparse(root / "in.wav", LIMIT + 4096, _streamed_wav_header())
    row = gold_row("a", [("Answer", 1.0)])
    row["input"]["audio"] = "in.wav"
    write_jsonl(root / "set.jsonl", [row])
    out = tmp_path / "run"
    before = _peak_rss_mb()
    args = ["run", "--dataset", str(root / "set.jsonl"), "--system", "python:tests.run.doubles:silent"]
    assert main([*args, "--annotator", "gold:paper-examples", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "set.jsonl:1, field input.audio" in err and "above the limit" in err, err
    assert not out.exists()
    assert _peak_rss_mb() - before < 100
