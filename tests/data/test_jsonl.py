"""JSONL reading limits and the append-only log's crash tolerance."""

from __future__ import annotations

import pytest

from voxeval.data import AppendLog, read_jsonl
from voxeval.errors import InputError
from voxeval.io._jsonl import MAX_LINE_BYTES


def test_non_utf8_names_line(tmp_path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(b'{"id": 1}\n{"id": "\xff"}\n')
    with pytest.raises(InputError, match=r"x.jsonl:2: not valid UTF-8"):
        list(read_jsonl(f))


def test_overlong_line_refused(tmp_path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(b'{"id": "' + b"a" * (MAX_LINE_BYTES + 10) + b'"}\n')
    with pytest.raises(InputError, match=r"x.jsonl:1: line longer than"):
        list(read_jsonl(f))


def test_non_object_line(tmp_path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputError, match="must be a JSON object"):
        list(read_jsonl(f))


def test_append_log_resumes_and_cuts_torn_line(tmp_path) -> None:
    path = tmp_path / "log.jsonl"
    with AppendLog(path) as log:
        log.append({"id": "a", "v": 1})
        log.append({"id": "b", "v": 2})
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"id": "c", "v"')  # a crash mid-write
    log = AppendLog(path)
    assert log.done == {"a", "b"}
    log.append({"id": "c", "v": 3})
    with pytest.raises(ValueError, match="already recorded"):
        log.append({"id": "a", "v": 9})
    log.close()
    assert [r["id"] for _, r in read_jsonl(path)] == ["a", "b", "c"]


def test_read_log_skips_an_incomplete_last_line_without_touching_the_file(tmp_path) -> None:
    from voxeval.data import read_log

    path = tmp_path / "log.jsonl"
    path.write_text('{"id": "a", "status": "failed"}\n{"id": "a", "status": "ok"}\n{"id": "b", "v', encoding="utf-8")
    before = path.read_bytes()
    assert read_log(path) == {"a": {"id": "a", "status": "ok"}}  # still being written: "b" is not there yet
    assert path.read_bytes() == before
    assert read_log(tmp_path / "missing.jsonl") == {} and not (tmp_path / "missing.jsonl").exists()
