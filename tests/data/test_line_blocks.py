"""The block line reader of ``voxeval score`` gives the lines, numbers, offsets and errors of ``iter_lines``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
