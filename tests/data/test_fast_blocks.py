"""The whole-block decoders give, in columns, exactly what the per-line fast path gives, or refuse the block."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.data._fast import _valid_utf8, fast_gold, fast_prediction, gold_block, prediction_block, python_valid_utf8
from voxeval.data._index import decode_range

MESSY = Path(__file__).parents[1] / "cli" / "data" / "score_identity" / "messy"


@pytest.mark.parametrize(
    ("name", "block", "line"), [("gold", gold_block, fast_gold), ("pred", prediction_block, fast_prediction)]
)
def test_block_equals_lines(name, block, line) -> None:
    lines = (MESSY / f"{name}.jsonl").read_bytes().splitlines()
    per_line = [line(raw) for raw in lines]
    assert None in per_line and block(lines) is None, "the messy file has rows only the full parser takes"
    clean = [raw for raw, acts in zip(lines, per_line, strict=True) if acts is not None]
    rows = [acts for acts in per_line if acts is not None]
    got = block(clean)
    assert got is not None
    assert got.ids == [r[0] for r in rows]
    assert got.lengths.tolist() == [len(r[1]) for r in rows]
    assert got.codes.tolist() == [c for r in rows for c in r[1]]
    assert got.weights.tolist() == [w for r in rows for w in r[2]]
    assert np.array_equal(got.totals, [r[3] for r in rows])
    assert got.failures == {k: r[4] for k, r in enumerate(rows) if r[4] is not None}


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "", "steps": []}',
        b'{"id": "a", "steps": [{"act": "inform", "importance": 1}]}',
        b'{"id": "a", "steps": [{"act": "Inform", "importance": -0.0}]}',
        b'{"id": "a"}',
        b'{"id": "a", "steps": []} {"id": "b", "steps": []}',
        b'{"id": "a", "steps": [], "text": "\xff"}',
        b"",
    ],
)
def test_one_odd_line_sends_the_block_line_by_line(raw) -> None:
    ok = b'{"id": "z", "steps": [{"act": "Inform", "importance": 1}]}'
    assert prediction_block([ok]) is not None
    assert prediction_block([ok, raw, ok]) is None


def test_a_worker_reads_the_same_lines_or_declines(tmp_path) -> None:
    lines = [
        b'{"id": "a", "steps": [{"act": "Inform", "importance": 1}]}',
        b'{"id": "b", "steps": []}',
        b'{"id": "c", "status": "failed", "error": "x"}',
    ]
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    size = path.stat().st_size
    whole, direct = decode_range(prediction_block, str(path), 0, size, 3), prediction_block(lines)
    assert whole is not None and direct is not None
    assert whole.ids == direct.ids and whole.failures == direct.failures
    assert whole.codes.tolist() == direct.codes.tolist() and whole.weights.tolist() == direct.weights.tolist()
    tail = decode_range(prediction_block, str(path), len(lines[0]) + 1, size - len(lines[0]) - 1, 2)
    assert tail is not None and tail.ids == ["b", "c"] and tail.failures == {1: "x"}
    assert decode_range(prediction_block, str(path), 0, size, 2) is None  # not the lines the reader saw
    assert decode_range(prediction_block, str(path), 0, size + 10, 3) is None  # the file is shorter now


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=12),
            st.text(max_size=8).map(lambda t: t.encode("utf-8")),
            st.sampled_from([b"\xe3\x81", b"\x81", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"a\xe3"]),
        ),
        max_size=6,
    )
)
def test_valid_utf8_checks_only_non_ascii_runs_but_decides_as_decode(lines) -> None:
    joined = b"\n".join(lines)
    try:
        joined.decode("utf-8")
        want = True
    except UnicodeDecodeError:
        want = False
    assert python_valid_utf8(lines) is want
    assert _valid_utf8(lines) is want  # the compiled check
