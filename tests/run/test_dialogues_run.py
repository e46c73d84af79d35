"""`voxeval run --benchmark dialogues`: three history conditions, per-turn rows, dialogue figures, resume, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxeval.cli import main
from voxeval.data import builtin_path

DIALOGUES = ("ja-dlg-001", "ja-dlg-021", "ja-dlg-041")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [json.loads(x) for x in builtin_path("ja-dialogues").read_text("utf-8").splitlines()]
    data = tmp_path_factory.mktemp("data") / "few.dialogues.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows if r["id"] in DIALOGUES), "utf-8")
    out = tmp_path_factory.mktemp("run") / "run"
    system = "python:tests.run.dialogue_doubles:context_oracle"
    args = [
        "run", "--benchmark", "dialogues", "--dataset", str(data), "--system", system,
        "--annotator", "gold:ja-dialogues",
        "--reply-text", "model", "--reply-asr", "none", "--out", str(out), "--quiet",
    ]  # fmt: skip
    assert main(args) == 0
    assert main(args) == 0  # a rerun resumes: nothing to do
    return out


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text("utf-8"))


def test_every_turn_is_a_row_per_condition_and_a_rerun_adds_none(run: Path) -> None:
    rows = [json.loads(x) for x in (run / "replies.jsonl").read_text("utf-8").splitlines()]
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys))
    systems = {r["system"] for r in rows}
    assert systems == {f"python:tests.run.dialogue_doubles:context_oracle history={h}" for h in ("gold", "own", "none")}
    turns = {r["id"] for r in rows}
    assert all(i.rpartition("/")[0] in DIALOGUES for i in turns)
    assert len(rows) == 3 * len(turns)


def test_gold_and_own_answer_context_needed_turns_right_and_none_does_not(run: Path) -> None:
    by = {c["history"]: c for c in _summary(run)["conditions"]}
    assert by["gold"]["turn_wlcs"]["value"] == 1.0 and by["own"]["turn_wlcs"]["value"] == 1.0
    assert by["none"]["context_needed_wlcs"]["value"] < 1.0
    assert by["none"]["context_free_wlcs"]["value"] == 1.0
    assert by["gold"]["dialogue_success"]["value"] == 1.0 and by["none"]["dialogue_success"]["value"] < 1.0
    gains = _summary(run)["gains"][0]
    assert gains["context_gain"]["value"] > 0 and gains["drift"]["value"] == 0.0
    assert gains["context_gain"]["low"] <= gains["context_gain"]["value"] <= gains["context_gain"]["high"]


def test_the_report_shows_conditions_gains_and_the_dialogues_as_chats(run: Path) -> None:
    assert main(["report", str(run)]) == 0
    html = (run / "report.html").read_text("utf-8")
    assert "What context is worth" in html and html.count("<details") == len(DIALOGUES)
    # Each user turn is followed by the reply under each of the three conditions.
    assert html.count('class="cond"') == 3 * html.count('class="user"') > 0
    assert "context gain" in (run / "report.md").read_text("utf-8")


class _ExactSpans:
    """A span similarity for tests: 1 for equal spans, else 0."""

    name = "exact"

    def similarities(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [float(a == b) for a, b in pairs]

    def describe(self) -> dict:
        return {"similarity": "exact"}


def test_the_report_adds_wlcs_c_per_condition_and_compare_pairs_turns(run: Path, monkeypatch) -> None:
    from voxeval.annotate._similarity import similarities

    monkeypatch.setitem(similarities._factories, "exact", _ExactSpans)
    assert main(["report", str(run), "--content", "exact"]) == 0
    md = (run / "report.md").read_text("utf-8")
    assert "turn WLCS-c [95% CI]" in md and md.count("| 1.000 [1.000, 1.000] | 0.000 |") >= 2
    assert main(["compare", str(run), str(run), "--content", "exact", "--json"]) == 0
