"""Rows with thousands of dialogue acts (issue 31, group 10): refused where they are read, fast, nothing written.

Scoring a pair takes time and memory quadratic in its lengths (2,000 + 2,000 acts took 27 s, 5,000 over 120 s and
1 GB, 28,000 exhausted 4 GB). ``voxeval.acts.MAX_STEPS`` (256) caps a reply's acts: the JSONL schema, the fast
reading path, the LLM annotator's answers and the annotations a run scores all keep to it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.acts import MAX_STEPS, Step, normalise
from voxeval.cli import main
from voxeval.metrics import weighted_edit_distance

LABELS = ["Answer", "Inform", "Question", "Request"]


def _steps(n: int, shift: int = 0) -> list[dict[str, object]]:
    return [{"act": LABELS[(i + shift) % 4], "importance": 1 + i % 3} for i in range(n)]


def _gold(sid: str, n: int) -> dict[str, object]:
    row = gold_row(sid, [("Answer", 1.0)])
    row["output_dialogue_acts"] = {"steps": _steps(n)}
    return row


def _score(tmp: Path, gold: list[dict[str, object]], pred: list[dict[str, object]]) -> tuple[int, Path]:
    write_jsonl(tmp / "gold.jsonl", gold)
    write_jsonl(tmp / "pred.jsonl", pred)
    out = tmp / "out"
    args = ["score", "--gold", str(tmp / "gold.jsonl"), "--pred", str(tmp / "pred.jsonl"), "--out", str(out)]
    return main(args), out


ORDINARY = [_gold(f"s{k}", 3) for k in range(20)]
ORDINARY_PRED = [{"id": f"s{k}", "steps": _steps(2, 1)} for k in range(20)]
# (case, gold rows, prediction rows, fragment)
CASES = [
    ("gold-5000", [_gold("a", 5000)], [{"id": "a", "steps": _steps(3)}], "gold.jsonl:1, field output_dialogue_acts"),
    ("pred-5000", [_gold("a", 3)], [{"id": "a", "steps": _steps(5000)}], "pred.jsonl:1, field steps: 5000 dialogue"),
    ("both-2000", [_gold("a", 2000)], [{"id": "a", "steps": _steps(2000, 1)}], "2000 dialogue acts"),
    (
        "one-over-late-in-the-file",
        [*ORDINARY, _gold("z", MAX_STEPS + 1)],
        [*ORDINARY_PRED, {"id": "z", "steps": _steps(3)}],
        f"gold.jsonl:21, field output_dialogue_acts.steps: {MAX_STEPS + 1} dialogue acts",
    ),
    (
        "pred-over-among-ordinary",
        ORDINARY,
        [*ORDINARY_PRED[:7], {"id": "s7", "steps": _steps(MAX_STEPS + 1)}, *ORDINARY_PRED[8:]],
        "pred.jsonl:8, field steps",
    ),
]


@pytest.mark.parametrize(("case", "gold", "pred", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_score_refuses_a_row_with_too_many_acts_fast_and_writes_nothing(
    tmp_path, capsys, case, gold, pred, fragment
) -> None:
    started = time.process_time()
    code, out = _score(tmp_path, gold, pred)
    cpu = time.process_time() - started
    err = capsys.readouterr().err
    assert code == 2, err
    assert fragment in err and f"at most {MAX_STEPS}" in err, err
    assert not out.exists()
    assert cpu < 1.0, f"refusing took {cpu:.2f} CPU-s"


def test_the_longest_accepted_row_scores_as_the_metric_says(tmp_path) -> None:
    gold, pred = _steps(MAX_STEPS), _steps(MAX_STEPS - 5, 1)
    code, out = _score(tmp_path, [_gold("a", MAX_STEPS)], [{"id": "a", "steps": pred}])
    assert code == 0
    row = json.loads((out / "scores.jsonl").read_text())
    acts = [normalise([Step(s["act"], float(s["importance"])) for s in side]) for side in (gold, pred)]  # type: ignore[arg-type]
    assert row["wed"] == weighted_edit_distance(gold=acts[0], pred=acts[1]).total


def test_dataset_validate_lists_the_row(tmp_path, capsys) -> None:
    write_jsonl(tmp_path / "set.jsonl", [_gold("a", 3), _gold("b", 3000)])
    assert main(["dataset", "validate", str(tmp_path / "set.jsonl")]) == 1
    assert "set.jsonl:2, field output_dialogue_acts.steps: 3000 dialogue acts" in capsys.readouterr().out


def test_an_annotation_with_too_many_acts_excludes_its_sample_instead_of_stopping_the_report(tmp_path, capsys) -> None:
    root = tmp_path / "data"
    root.mkdir()
    rows = [gold_row("a", [("Answer", 1.0)]), gold_row("b", [("Inform", 1.0)])]
    rows[1]["output"] = {"text": "another reply"}
    write_jsonl(root / "set.jsonl", rows)
    write_jsonl(tmp_path / "replies.jsonl", [{"id": r["id"], "text": r["output"]["text"]} for r in rows])  # type: ignore[index]
    out = tmp_path / "run"
    args = ["run", "--dataset", str(root / "set.jsonl"), "--system", f"replay:{tmp_path / 'replies.jsonl'}"]
    assert main([*args, "--annotator", f"gold:{root / 'set.jsonl'}", "--out", str(out), "--quiet"]) == 0
    assert "| 2 |" in (out / "report.md").read_text(encoding="utf-8")  # both scored before the tampering
    notes = [json.loads(x) for x in (out / "annotations.jsonl").read_text().splitlines()]
    notes[0]["steps"] = _steps(4000)
    (out / "annotations.jsonl").write_text("".join(json.dumps(n) + "\n" for n in notes))
    started = time.process_time()
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    assert time.process_time() - started < 5.0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "annotation unusable: 4000 dialogue acts" in md
    assert "| 1 |" in md  # the other sample is still scored
