"""The block line reader of ``voxeval score`` gives the lines, numbers, offsets and errors of ``iter_lines``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxeval.data._index import SUB_BLOCK, line_blocks
from voxeval.errors import InputError
from voxeval.io import _jsonl

pieces = st.sampled_from([b"\n", b"\r\n", b" ", b"\t\n", b'{"a":1}', b"x" * 5, b"\xef\xbb\xbf", b"y" * 9])


def _reference(path: Path) -> tuple[list[tuple[int, int, bytes]], str | None]:
    out = []
    try:
        for number, offset, raw in _jsonl.iter_lines(path):
            out.append((number, offset, raw.rstrip(b"\n")))
    except InputError as exc:
        return out, str(exc)
    return out, None


def _blocks(path: Path) -> tuple[list[tuple[int, int, bytes]], str | None]:
    out = []
    try:
        for first, offset, lines, _ in _jsonl.iter_line_blocks(path):
            for k, raw in enumerate(lines):
                if raw and not (raw[0] in _jsonl.BLANK_START and not raw.strip()):
                    out.append((first + k, offset, raw))
                offset += len(raw) + 1
    except InputError as exc:
        return out, str(exc)
    return out, None


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(pieces, max_size=40), st.integers(1, 12), st.integers(3, 16))
def test_blocks_match_readline(tmp_path, monkeypatch, parts, block, limit) -> None:
    monkeypatch.setattr(_jsonl, "READ_BLOCK", block)
    monkeypatch.setattr(_jsonl, "MAX_LINE_BYTES", limit)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"".join(parts))
    assert _blocks(path) == _reference(path)


def test_missing_file(tmp_path) -> None:
    with pytest.raises(InputError, match="file not found"):
        list(_jsonl.iter_line_blocks(tmp_path / "nope.jsonl"))


def _spans(path: Path) -> tuple[list[tuple[int, int, bytes]], str | None]:
    """What the scorer's position-only blocks give, in the shape of :func:`_blocks`."""
    out = []
    try:
        for block in line_blocks(path):
            lines = block.lines(path)
            assert len(lines) == len(block.starts) <= SUB_BLOCK
            for k, raw in enumerate(lines):
                if raw and not (raw[0] in _jsonl.BLANK_START and not raw.strip()):
                    out.append((block.first + k, int(block.starts[k]), raw))
    except InputError as exc:
        return out, str(exc)
    return out, None


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(pieces, max_size=40), st.integers(1, 12), st.integers(3, 16), st.sampled_from([1, 2, 4096]))
def test_position_blocks_match_line_blocks(tmp_path, monkeypatch, parts, block, limit, sub) -> None:
    """Numbers, offsets, lines and errors of ``line_blocks`` (no object per line) equal the line reader's."""
    monkeypatch.setattr(_jsonl, "READ_BLOCK", block)
    monkeypatch.setattr(_jsonl, "MAX_LINE_BYTES", limit)
    monkeypatch.setattr("voxeval.data._index.SUB_BLOCK", sub)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"".join(parts))
    assert _spans(path) == _blocks(path)


def test_position_blocks_missing_file(tmp_path) -> None:
    with pytest.raises(InputError, match="file not found"):
        list(line_blocks(tmp_path / "nope.jsonl"))
    with pytest.raises(InputError, match="is a directory"):
        list(line_blocks(tmp_path))


def test_lines_of_a_changed_file_raise(tmp_path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    block = next(iter(line_blocks(path)))
    path.write_bytes(b'{"a":1}\n')
    with pytest.raises(InputError, match="changed while it was being read"):
        block.lines(path)
