"""The run lock leaves nothing beside the output when its holder exits, and never removes another holder's lock."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest

from tests.conftest import write_jsonl
from voxeval.cli import main
from voxeval.data import builtin_path, load_gold
from voxeval.errors import ConfigError
from voxeval.run._lock import RunLock


def _replies(tmp_path: Path) -> Path:
    sample = load_gold(builtin_path("ja-assistant"))[0]
    row = {"id": sample.id, "text": sample.output_text, "input": {"text": sample.input_text}}
    return write_jsonl(tmp_path / "in.jsonl", [row])


def test_annotate_leaves_no_lock_after_a_clean_exit_or_a_rerun(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    src, out = _replies(tmp_path), tmp_path / "out" / "acts.jsonl"
    for _ in range(2):  # the run, then a rerun that resumes and has nothing to do
        assert main(["annotate", "--annotator", "gold", "--in", str(src), "--out", str(out)]) == 0
        assert sorted(p.name for p in out.parent.iterdir()) == ["acts.jsonl"]
    assert json.loads(out.read_text(encoding="utf-8"))["steps"]
    assert "already in" in capsys.readouterr().out


def test_annotate_leaves_no_lock_after_an_error_exit(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    src, out = _replies(tmp_path), tmp_path / "acts.jsonl"
    out.write_text('{"id": "x", "steps": []}\nnot json\n', encoding="utf-8")  # a broken log: refused inside the lock
    assert main(["annotate", "--annotator", "gold", "--in", str(src), "--out", str(out)]) == 2
    assert "acts.jsonl" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acts.jsonl", "in.jsonl"]


@pytest.mark.parametrize("error", [False, True])
def test_the_holder_removes_its_lock_on_exit(tmp_path: Path, error: bool) -> None:
    lock = RunLock(tmp_path, ".out.lock")
    with pytest.raises(RuntimeError) if error else contextlib.nullcontext(), lock:
        assert lock.path.read_text(encoding="utf-8").startswith(f"pid {os.getpid()} ")
        if error:
            raise RuntimeError("the command failed")
    assert not lock.path.exists()


def test_a_refused_writer_leaves_the_holders_lock_in_place(tmp_path: Path) -> None:
    with RunLock(tmp_path) as held:
        with pytest.raises(ConfigError, match="in use by pid"), RunLock(tmp_path):
            pass
        assert held.path.read_text(encoding="utf-8").startswith(f"pid {os.getpid()} ")
    assert not held.path.exists()


def test_a_lock_file_removed_between_open_and_flock_is_not_held(tmp_path: Path) -> None:
    """B opens the lock file; its holder A exits (removing it); C locks the path's new file; B's flock on the old,
    removed file succeeds — B must see that the path names another file now, and be refused by C's lock."""
    first = RunLock(tmp_path)
    with first:
        stale = os.open(first.path, os.O_RDWR)  # B's open, before A exits
    late = RunLock(tmp_path)
    opened = iter([stale])
    real_open = late._open
    late._open = lambda: next(opened, None) or real_open()  # type: ignore[method-assign]
    with RunLock(tmp_path), pytest.raises(ConfigError, match="in use by pid"), late:
        pass
    with pytest.raises(OSError):
        os.fstat(stale)  # B closed the stale file
