"""The compiled parts of ``voxeval score`` give exactly what the Python code gives, or ``None`` and let it decide."""

from __future__ import annotations

import json
import math
import sys
import types

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval import native
from voxeval.acts import LABELS, Step
from voxeval.data import dumps
from voxeval.data._fast import LABEL_CODES, _Step, python_columns
from voxeval.metrics import score_sample
from voxeval.run._score_rows import numpy_rows, score_rows

_encode = json.encoder.encode_basestring


def test_the_compiled_module_is_built() -> None:
    """`make test` installs voxeval with its C module; a build that silently failed must not pass CI."""
    assert native.module() is not None, "voxeval._native is not built: run `pip install -e .` with a C compiler"


# Weights that reach every way a float is written: 0, 1, plain decimals, msgspec's and repr's exponent styles.
_weights = st.one_of(
    st.sampled_from([0.0, 1.0, 0.5, 0.1, 1e-4, 9.99e-5, 1e-300, 5e-324, 1e15, 1e16, 123456789.125]),
    st.floats(min_value=0.0, max_value=1.0),
    st.floats(min_value=0.0, max_value=1e20, allow_infinity=False),
)
_seq = st.lists(st.tuples(st.integers(0, len(LABELS) - 1), _weights), min_size=0, max_size=14)
_ids = st.text(min_size=1, max_size=8).filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))


def _flat(seqs: list[list[tuple[int, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    codes = np.array([c for s in seqs for c, _ in s], dtype=np.int8)
    weights = np.array([w for s in seqs for _, w in s], dtype=np.float64)
    return codes, weights, np.array([len(s) for s in seqs], dtype=np.int64)


def _acts(seq: list[tuple[int, float]]) -> tuple[Step, ...]:
    return tuple(Step(LABELS[c], w) for c, w in seq)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_ids, _seq.filter(bool), _seq, st.booleans()), min_size=0, max_size=12))
def test_rows_equal_the_scalar_scorer(pairs) -> None:
    ids = [p[0] for p in pairs]
    gold, pred = _flat([p[1] for p in pairs]), _flat([p[2] for p in pairs])
    missing = np.array([p[3] for p in pairs], dtype=bool)
    found = native.rows([_encode(i) for i in ids], gold, pred, missing)
    assert found is not None
    data, lengths, values = found
    expected = [score_sample(i, _acts(g), _acts(p), missing=m) for i, g, p, m in pairs]
    text = [(dumps(s.to_json()) + "\n").encode("utf-8") for s in expected]
    assert data == b"".join(text)
    assert lengths.tolist() == [len(t) for t in text]
    for k, s in enumerate(expected):
        e = s.edit
        assert values[:, k].tolist() == [s.wlcs, s.gold_coverage, e.total, e.deletion, e.insertion, e.substitution]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_seq.filter(bool), _seq), min_size=1, max_size=20), st.randoms(use_true_random=False))
def test_score_rows_equal_the_numpy_kernel(pairs, rng) -> None:
    ids = [f"s{k}" for k in range(len(pairs))]
    gold, pred = _flat([p[0] for p in pairs]), _flat([p[1] for p in pairs])
    missing = np.array([rng.random() < 0.2 for _ in pairs])
    found = native.rows([_encode(i) for i in ids], gold, pred, missing)
    assert found is not None
    reference = numpy_rows(ids, gold, pred, missing)
    assert found[0] == reference[0]
    assert found[1].tolist() == reference[1].tolist()
    assert np.array_equal(found[2], reference[2])


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_a_non_finite_weight_is_left_to_python(bad) -> None:
    gold = (np.array([0], dtype=np.int8), np.array([bad]), np.array([1], dtype=np.int64))
    pred = (np.array([0], dtype=np.int8), np.array([1.0]), np.array([1], dtype=np.int64))
    assert native.rows(['"a"'], gold, pred, np.zeros(1, dtype=bool)) is None


def test_an_id_that_is_not_utf8_is_left_to_python() -> None:
    gold = (np.array([0], dtype=np.int8), np.array([1.0]), np.array([1], dtype=np.int64))
    assert native.rows(['"\ud800"'], gold, gold, np.zeros(1, dtype=bool)) is None


def test_inconsistent_arguments_are_errors() -> None:
    gold = (np.array([0, 1], dtype=np.int8), np.array([1.0]), np.array([2], dtype=np.int64))
    with pytest.raises(ValueError, match="do not add up"):
        native.rows(['"a"'], gold, gold, np.zeros(1, dtype=bool))


def test_score_rows_takes_the_python_path_when_the_module_says_none(monkeypatch) -> None:
    gold = (np.array([0], dtype=np.int8), np.array([1.0]), np.array([1], dtype=np.int64))
    block_args = dict(codes=np.array([0], dtype=np.int8), weights=np.array([2.0]), totals=np.array([2.0]))
    from voxeval.data._fast import ActsBlock

    block = ActsBlock(["a"], np.array([1], dtype=np.int64), failures={}, **block_args)
    compiled = score_rows(["a"], gold, block, np.zeros(1, dtype=bool))
    monkeypatch.setattr(native, "rows", lambda *a: None)
    assert score_rows(["a"], gold, block, np.zeros(1, dtype=bool))[0] == compiled[0]


_DECODE_STEPS = msgspec.json.Decoder(list[list[_Step]])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(_ids, st.just(""), st.integers(-5, 5)), min_size=0, max_size=10).flatmap(
        lambda ids: st.tuples(
            st.just(ids),
            st.lists(
                st.lists(
                    st.tuples(
                        st.one_of(st.sampled_from(LABELS), st.just("check question")),
                        st.one_of(_weights, st.just(-0.0), st.integers(0, 3)),
                    ),
                    max_size=6,
                ),
                min_size=len(ids),
                max_size=len(ids),
            ),
        )
    )
)
def test_columns_equal_the_python_columns(case) -> None:
    ids, rows = case
    raw = json.dumps([[{"act": a, "importance": w} for a, w in row] for row in rows]).encode()
    step_lists = _DECODE_STEPS.decode(raw)
    python = python_columns(list(ids), step_lists, {})
    found = native.columns(list(ids), step_lists, LABEL_CODES)
    if found is None:  # the compiled code leaves only rare shapes to Python; ordinary rows it must take
        ordinary = all(isinstance(i, str) and i for i in ids) and all(
            a in LABEL_CODES and math.copysign(1.0, float(w)) > 0 for row in rows for a, w in row
        )
        assert not ordinary
        return
    assert python is not None
    codes, weights, lengths, totals = found
    assert codes.tolist() == python.codes.tolist()
    assert weights.tolist() == python.weights.tolist()
    assert lengths.tolist() == python.lengths.tolist()
    assert totals.tolist() == python.totals.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u3000\u2028a本"), max_size=5)))
def test_all_nonblank_is_all_strip(strings) -> None:
    assert native.all_nonblank(strings) == all(s.strip() for s in strings)


def test_another_build_is_refused(monkeypatch) -> None:
    monkeypatch.setitem(
        sys.modules, "voxeval._native", types.SimpleNamespace(SOURCE_SHA256="0" * 64, __file__="old.so")
    )
    native.module.cache_clear()
    try:
        with pytest.raises(native.StaleBuildError, match="rebuild it"):
            native.module()
    finally:
        native.module.cache_clear()


def test_without_the_build_python_does_it_and_says_so(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "voxeval._native", None)  # import raises ImportError
    native.module.cache_clear()
    try:
        assert native.module() is None
        assert "not built" in capsys.readouterr().err
        assert native.columns(["a"], [[]], LABEL_CODES) is None
        assert native.all_nonblank([" x"]) is True
    finally:
        native.module.cache_clear()


def _decodes(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# Bytes around every boundary of UTF-8's table: leads, continuation ranges, surrogates, overlongs, > U+10FFFF.
_utf8_bytes = st.sampled_from(
    [0x00, 0x0A, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
     0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=12),
            st.lists(_utf8_bytes, max_size=12).map(bytes),
            st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")),
        ),
        max_size=4,
    )
)
def test_utf8_lines_is_decode(lines) -> None:
    assert native.utf8_lines(lines) == all(map(_decodes, lines))


@given(st.binary(max_size=64))
def test_newlines_are_numpy_s(data) -> None:
    expected = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    assert native.newlines(data).tolist() == expected.tolist()


def test_the_build_carries_its_source_hash() -> None:
    import hashlib

    assert hashlib.sha256(native.SOURCE.read_bytes()).hexdigest() == native.module().SOURCE_SHA256


def test_floats_are_written_by_repr_when_msgspec_would_differ(monkeypatch, capsys) -> None:
    gold = (np.array([0, 1], dtype=np.int8), np.array([0.3, 0.7]), np.array([2], dtype=np.int64))
    pred = (np.array([1], dtype=np.int8), np.array([1.0]), np.array([1], dtype=np.int64))
    expected = native.rows(['"a"'], gold, pred, np.zeros(1, dtype=bool))
    monkeypatch.setattr(native, "_float_texts_agree", lambda: False)
    native._float_encoder.cache_clear()
    try:
        assert native._float_encoder() is native._repr_encode
        assert "differently" in capsys.readouterr().err
        found = native.rows(['"a"'], gold, pred, np.zeros(1, dtype=bool))
        assert found is not None and expected is not None and found[0] == expected[0]
    finally:
        native._float_encoder.cache_clear()


def test_msgspec_writes_floats_as_repr_here() -> None:
    assert native._float_texts_agree()


class _Growing:
    """A step whose ``act`` lookup grows another row's list (only Python objects can run code there)."""

    def __init__(self, victim: list) -> None:
        self.victim, self.importance = victim, 1.0

    @property
    def act(self) -> str:
        self.victim.extend([_Growing([])] * 100)
        return "Answer"


def test_columns_notice_a_list_changed_under_them() -> None:
    second: list = []
    with pytest.raises(RuntimeError, match="changed"):
        native.columns(["a", "b"], [[_Growing(second)], second], LABEL_CODES)
