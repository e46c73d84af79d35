"""The WED path walked in O(n log m) memory is the path of the full cost table, in Python and in C.

``_reference`` is the full-table code the metric used before (table, then walk back with the same tie-break),
kept here as the oracle. Weights come from a few values so that optimal paths tie often, some by float noise
(1/3, 0.1) that the tolerance has to absorb; lengths reach past several halvings of ``_BLOCK``.
"""

from __future__ import annotations

import json
import math
import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval import native
from voxeval.acts import LABELS, Step
from voxeval.metrics import weighted_edit_distance
from voxeval.metrics._wed import _TIE, _sub_cost


def _reference(gold: list[Step], pred: list[Step]) -> tuple[float, float, float, float, list[dict]]:
    m, n = len(pred), len(gold)
    dist = [[0.0] * (n + 1) for _ in range(m + 1)]
    for j in range(1, n + 1):
        dist[0][j] = dist[0][j - 1] + gold[j - 1].importance
    for i in range(1, m + 1):
        wp = pred[i - 1].importance
        row, up = dist[i], dist[i - 1]
        row[0] = up[0] + wp
        for j in range(1, n + 1):
            g = gold[j - 1]
            row[j] = min(up[j - 1] + _sub_cost(pred[i - 1], g), up[j] + wp, row[j - 1] + g.importance)
    ops: list[dict] = []
    i, j = m, n
    while i > 0 or j > 0:
        here = dist[i][j]
        if i > 0 and j > 0:
            cost = _sub_cost(pred[i - 1], gold[j - 1])
            if abs(dist[i - 1][j - 1] + cost - here) <= _TIE:
                kind = "match" if cost == 0.0 and pred[i - 1].act == gold[j - 1].act else "substitution"
                ops.append({"op": kind, "pred": i - 1, "gold": j - 1, "cost": cost})
                i, j = i - 1, j - 1
                continue
        if i > 0 and (j == 0 or abs(dist[i - 1][j] + pred[i - 1].importance - here) <= _TIE):
            ops.append({"op": "deletion", "pred": i - 1, "gold": None, "cost": pred[i - 1].importance})
            i -= 1
            continue
        ops.append({"op": "insertion", "pred": None, "gold": j - 1, "cost": gold[j - 1].importance})
        j -= 1
    ops.reverse()
    d, ins, sub = (math.fsum(o["cost"] for o in ops if o["op"] == k) for k in ("deletion", "insertion", "substitution"))
    return d + ins + sub, d, ins, sub, ops


_tied = st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 1.0, 1 / 3, 2 / 3])
_steps = st.lists(st.tuples(st.integers(0, 2), _tied), max_size=40)


def _acts(seq: list[tuple[int, float]]) -> list[Step]:
    return [Step(LABELS[c], w) for c, w in seq]


@settings(max_examples=150, deadline=None)
@given(_steps, _steps)
def test_python_path_is_the_full_table_path(gold, pred) -> None:
    r = weighted_edit_distance(gold=_acts(gold), pred=_acts(pred))
    found = (r.total, r.deletion, r.insertion, r.substitution, [o.to_json() for o in r.ops])
    assert found == _reference(_acts(gold), _acts(pred))


def _flat(seqs: list[list[tuple[int, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    codes = np.array([c for s in seqs for c, _ in s], dtype=np.int8)
    weights = np.array([w for s in seqs for _, w in s], dtype=np.float64)
    return codes, weights, np.array([len(s) for s in seqs], dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_steps.filter(bool), _steps), min_size=1, max_size=6))
def test_compiled_path_is_the_full_table_path(pairs) -> None:
    found = native.rows(
        [json.dumps(str(k)) for k in range(len(pairs))],
        _flat([g for g, _ in pairs]),
        _flat([p for _, p in pairs]),
        np.zeros(len(pairs), dtype=bool),
    )
    assert found is not None, "voxeval._native is not built"
    for line, (gold, pred) in zip(found[0].decode().splitlines(), pairs, strict=True):
        row = json.loads(line)
        got = (row["wed"], row["deletion"], row["insertion"], row["substitution"], row["ops"])
        assert got == _reference(_acts(gold), _acts(pred))


def test_a_long_pair_does_not_hold_the_table() -> None:
    # 200 x 200: the full table held 40,401 floats (over 1.4 MB as Python objects); the halving keeps a few rows.
    gold = [Step(LABELS[k % 3], 0.005) for k in range(200)]
    pred = [Step(LABELS[k % 4], 0.005) for k in range(200)]
    tracemalloc.start()
    try:
        weighted_edit_distance(gold=gold, pred=pred)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 300_000
