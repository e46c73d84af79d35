"""A full disk or a read-only output folder: a `voxeval: error` naming the file, a non-zero exit, nothing written
before lost or torn, and a resume that finishes; a rerun of a finished run rewrites nothing (docs/reliability.md)."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.testing.mockserver import sine_wav

TEXTS = ("Timer set.", "It will rain.", "Done.", "Three minutes left.", "Stopped.", "Noted.")


@pytest.fixture
def run_args(tmp_path: Path) -> list[str]:
    (tmp_path / "in.wav").write_bytes(sine_wav(0.3))
    rows = []
    for i, text in enumerate(TEXTS):
        row = gold_row(f"s{i}", [(("Commissive", "Inform", "Answer")[i % 3], 1.0)], out=text)
        row["input"]["audio"] = "in.wav"
        rows.append(row)
    data = write_jsonl(tmp_path / "set.jsonl", rows)
    replay = write_jsonl(tmp_path / "replies.jsonl", [{"id": f"s{i}", "text": t} for i, t in enumerate(TEXTS)])
    return ["run", "--dataset", str(data), "--system", f"replay:{replay}", "--annotator", f"gold:{data}", "--quiet"]


def _files(out: Path) -> dict[Path, tuple[int, bytes]]:
    """Every file of a run directory but its lock (which names the holder while a command runs)."""
    return {
        p: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.rglob("*") if p.is_file() and p.name != ".voxeval.lock"
    }


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


def _failing_writes(monkeypatch: pytest.MonkeyPatch, wanted: Callable[[str], bool], after: int) -> None:
    """``os.write`` to files ``wanted`` accepts succeeds ``after`` times, then writes half and runs out of space."""
    real = os.write
    seen = {"n": 0}

    def write(fd: int, data: bytes) -> int:  # type: ignore[override]
        if not wanted(_fd_path(fd)):
            return real(fd, data)
        seen["n"] += 1
        if seen["n"] <= after:
            return real(fd, data)
        if seen["n"] == after + 1 and len(data) > 1:
            return real(fd, bytes(data)[: len(data) // 2])  # a partial write, as a filling disk does
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


def _read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Opening anything under ``folder`` for writing, or making a folder there, fails as on a read-only mount."""
    real_open, real_mkdir = os.open, os.mkdir
    inside = str(folder.resolve())
    refuse = OSError(errno.EROFS, os.strerror(errno.EROFS))

    def where(path, dir_fd):  # type: ignore[no-untyped-def]
        """The absolute path (writers open relative to a folder descriptor: voxeval.io._safe)."""
        base = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else ""
        return os.path.abspath(os.path.join(base, path))

    def open_(path, flags, mode=0o777, *, dir_fd=None):  # type: ignore[no-untyped-def]
        writing = flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        if writing and where(path, dir_fd).startswith(inside):
            raise OSError(refuse.errno, refuse.strerror, str(path))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def mkdir(path, mode=0o777, *, dir_fd=None):  # type: ignore[no-untyped-def]
        if where(path, dir_fd).startswith(inside) and not os.path.exists(where(path, dir_fd)):
            raise OSError(refuse.errno, refuse.strerror, str(path))
        return real_mkdir(path, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "mkdir", mkdir)


def test_a_noop_rerun_of_a_finished_run_rewrites_no_file(tmp_path: Path, run_args: list[str]) -> None:
    out = tmp_path / "run"
    assert main([*run_args, "--out", str(out)]) == 0
    before = _files(out)
    assert {p.name for p in before} >= {"config.json", "summary.json", "scores.jsonl", "report.html", "report.md"}
    assert main([*run_args, "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    assert _files(out) == before


def test_a_finished_run_reruns_on_a_read_only_folder(tmp_path: Path, run_args: list[str], monkeypatch) -> None:
    out = tmp_path / "run"
    assert main([*run_args, "--out", str(out)]) == 0
    before = _files(out)
    _read_only(monkeypatch, out)
    assert main([*run_args, "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    assert _files(out) == before


def test_a_read_only_output_folder_is_a_clear_error(tmp_path: Path, run_args: list[str], monkeypatch, capsys) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    _read_only(monkeypatch, out)
    assert main([*run_args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voxeval: error: cannot write ") and "Read-only file system" in err, err
    assert str(out) in err and "Traceback" not in err


def test_a_full_disk_while_logging_replies_keeps_every_whole_row_and_resume_finishes(
    tmp_path: Path, run_args: list[str], monkeypatch, capsys
) -> None:
    clean = tmp_path / "clean"
    assert main([*run_args, "--out", str(clean)]) == 0
    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        _failing_writes(patch, lambda path: path.endswith("/run/replies.jsonl"), after=3)
        assert main([*run_args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"voxeval: error: cannot write {out / 'replies.jsonl'}: No space left on device" in err, err
    data = (out / "replies.jsonl").read_bytes()
    assert data.endswith(b"\n") and len(data.splitlines()) == 3  # the half-written fourth line was cut back
    assert all(json.loads(line)["status"] == "ok" for line in data.splitlines())
    assert main([*run_args, "--out", str(out)]) == 0
    assert (out / "scores.jsonl").read_bytes() == (clean / "scores.jsonl").read_bytes()


def test_a_full_disk_while_writing_the_report_keeps_the_old_report(
    tmp_path: Path, run_args: list[str], monkeypatch, capsys
) -> None:
    out = tmp_path / "run"
    assert main([*run_args, "--out", str(out), "--limit", "3"]) == 0
    old = (out / "report.html").read_bytes()
    with monkeypatch.context() as patch:
        _failing_writes(patch, lambda path: "/.report.html." in path, after=0)
        assert main([*run_args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out / 'report.html'}: No space left on device" in err, err
    assert (out / "report.html").read_bytes() == old
    assert not list(out.glob(".*.tmp")), "temporary files are removed"
    assert main([*run_args, "--out", str(out)]) == 0
    assert len((out / "scores.jsonl").read_text().splitlines()) == len(TEXTS)
