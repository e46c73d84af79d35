"""Judge–human agreement on hand-made ratings."""

from __future__ import annotations

import json

import pytest

from voxeval.errors import InputError
from voxeval.report._agreement import agreement, read_human_ratings


def test_perfect_and_inverted_agreement(tmp_path) -> None:
    path = tmp_path / "human.jsonl"
    rows = [{"id": f"i{k}", "rater": r, "mos": k + (0.5 if r == "b" else 0)} for k in range(1, 6) for r in "ab"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    human = read_human_ratings(path)
    same = agreement({f"i{k}": float(k) for k in range(1, 6)}, human)
    assert same["items"] == 5 and same["judge_vs_human_mean"]["spearman"] == pytest.approx(1.0)
    assert same["judge_vs_human_mean"]["kendall"] == pytest.approx(1.0) and same[
        "human_human_spearman_mean"
    ] == pytest.approx(1.0)
    inverted = agreement({f"i{k}": float(6 - k) for k in range(1, 6)}, human)
    assert inverted["judge_vs_human_mean"]["spearman"] == pytest.approx(-1.0)


def test_bad_rating_names_line(tmp_path) -> None:
    path = tmp_path / "human.jsonl"
    path.write_text('{"id": "a", "mos": 3}\n{"id": "b", "mos": "good"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"human.jsonl:2, field mos"):
        read_human_ratings(path)
