"""``--content`` on ``voxeval score``, ``report`` and ``compare``: WLCS-c / WED-c beside the paper's metrics.

A test double stands in for the encoder (exact span equality), so these tests load no model; the real encoder's
separation is tested in tests/metrics/test_content_encoder.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from voxeval.annotate._similarity import similarities
from voxeval.benchmark._da import load_run
from voxeval.cli import main
from voxeval.data import builtin_path, resolve_dataset
from voxeval.report._build import table1_head, table1_rows
from voxeval.testing.swapped import swapped_answer_predictions


class ExactSpans:
    """1 when the spans are equal, else 0."""

    name = "exact"

    def similarities(self, pairs):
        return [float(a == b) for a, b in pairs]

    def describe(self) -> dict[str, Any]:
        return {"similarity": self.name}


@pytest.fixture(autouse=True)
def exact(monkeypatch) -> None:
    monkeypatch.setitem(similarities._factories, "exact", ExactSpans)


def _pred_file(path: Path, *, swap: bool, spans: bool = True) -> Path:
    samples = resolve_dataset("ja-assistant").samples[:12]
    rows = []
    for pid, pred in swapped_answer_predictions(samples, swap=swap).items():
        steps = [{"act": a.act, "importance": a.importance, **({"span": a.span} if spans else {})} for a in pred.acts]
        rows.append({"id": pid, "steps": steps, **({"text": pred.text} if spans else {})})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _score(tmp_path: Path, name: str, *extra: str, swap: bool = True, spans: bool = True) -> tuple[int, Path]:
    out = tmp_path / name
    pred = _pred_file(tmp_path / f"{name}.jsonl", swap=swap, spans=spans)
    gold = str(builtin_path("ja-assistant"))
    code = main(["score", "--gold", gold, "--pred", str(pred), "--out", str(out), "--ignore-extra", *extra])
    return code, out


def test_score_with_content_adds_columns_and_files(tmp_path, capsys) -> None:
    code, out = _score(tmp_path, "swapped", "--content", "exact")
    assert code == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    content = summary["content"]
    assert content["similarity"] == {"similarity": "exact"} and content["whole_text_steps"] == 0
    # Only the first 12 samples have predictions; the rest are scored as empty replies by both metrics.
    rows = [json.loads(x) for x in (out / "content.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == summary["n"]
    assert content["wlcs_c_mean"] < summary["wlcs_mean"] and content["wed_c_mean"] > summary["wed_mean"]
    assert "WLCS-c mean (↑)" in (out / "report.md").read_text(encoding="utf-8")
    assert "WLCS-c mean (↑)" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text(encoding="utf-8"))["settings"]["content"] == "exact"
    assert load_run(out).sets[0].content.summary.wlcs_c_mean == content["wlcs_c_mean"]  # the folder remembers it


def test_score_without_content_is_unchanged(tmp_path) -> None:
    code, out = _score(tmp_path, "plain")
    assert code == 0 and not (out / "content.jsonl").exists()
    assert "content" not in json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "WLCS-c" not in (out / "report.md").read_text(encoding="utf-8")


def test_steps_without_spans_or_text_are_an_input_error(tmp_path, capsys) -> None:
    code, out = _score(tmp_path, "bare", "--content", "exact", spans=False)
    assert code == 2 and "content scores need each act's span" in capsys.readouterr().err
    assert (out / "scores.jsonl").exists() and not (out / "content.jsonl").exists()  # the plain scores are kept


def test_unknown_similarity_fails_before_writing(tmp_path, capsys) -> None:
    code, out = _score(tmp_path, "unknown", "--content", "nope")
    assert code == 2 and "unknown span similarity 'nope'" in capsys.readouterr().err and not out.exists()


def test_report_and_compare_with_content(tmp_path, capsys) -> None:
    _, reference = _score(tmp_path, "reference", swap=False)
    _, swapped = _score(tmp_path, "swapped")
    # The report's Table 1 (HTML, CSV) gets the columns; built here without the figures (matplotlib is slow).
    sets = load_run(swapped, "exact").sets
    head, row = table1_head(sets), table1_rows(sets)[0]
    assert head[-2:] == ["WLCS-c mean [95% CI] (↑)", "WED-c mean [95% CI] (↓)"] and len(row) == len(head)
    assert table1_head(load_run(swapped).sets)[-1] == "substitution"
    capsys.readouterr()
    assert main(["compare", str(reference), str(swapped), "--content", "exact", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert result["content"]["wlcs_c_a"] > result["content"]["wlcs_c_b"]
    assert result["content"]["wed_c_b_minus_a"] > 0 and result["b_minus_a"] == 0.0
    assert main(["compare", str(reference), str(swapped), "--content", "exact"]) == 0
    assert "Content-aware scores" in capsys.readouterr().out


def test_a_similarity_out_of_range_is_refused() -> None:
    from voxeval.run._content import content_set
    from voxeval.run._scoring import score_predictions

    class Broken(ExactSpans):
        def similarities(self, pairs):
            return [1.5 for _ in pairs]

    samples = resolve_dataset("ja-assistant").samples[:2]
    scored = score_predictions(samples, swapped_answer_predictions(samples, swap=False), dataset="d", system="s")
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        content_set(scored, Broken())
