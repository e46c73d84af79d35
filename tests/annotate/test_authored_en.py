"""The authored English replies (issue 34 item 4) and their check, ``authoring_lang --language en``."""

from __future__ import annotations

import copy
import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from training.annotator import authoring_lang
from training.annotator.data import ROOT, read_rows

problems_in = functools.partial(authoring_lang.problems_in, language="en")
main = functools.partial(authoring_lang.main, language="en")

EN_DIR = ROOT / "training" / "data" / "da-replies-en"

GOOD: dict[str, Any] = {
    "id": "en-t-0001",
    "author": "en-t",
    "source": "en-assistant:timer-001",
    "domain": "timer",
    "background": "The user just poured boiling water into a cup of instant noodles in the kitchen.",
    "input_text": "Set a timer for three minutes.",
    "style": "chatty",
    "flaw": None,
    "segments": [
        {"text": "Noodle time!", "act": None},
        {"text": " I've started a three-minute timer.", "act": "Commissive", "importance": 0.7},
        {"text": " Keep the lid on.", "act": "Suggestion", "importance": 0.3},
    ],
}


def _problems(tmp_path: Path, *rows: dict[str, Any]) -> list[str]:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return problems_in(read_rows([path]))


def test_the_shipped_english_rows_pass_and_keep_the_style_mix() -> None:
    paths = sorted(EN_DIR.glob("*.jsonl"))
    rows = read_rows(paths)
    assert problems_in(rows) == []
    styles = Counter(row["style"] for _, _, row in rows)
    assert len(rows) >= 500
    assert all(0.25 <= styles[s] / len(rows) <= 0.4 for s in ("concise", "chatty", "flawed"))
    assert all(row["author"].startswith("en-") for _, _, row in rows)


def test_a_good_row_passes(tmp_path: Path) -> None:
    assert _problems(tmp_path, GOOD) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"source": "en-assistant:timer-002"}, "a test-split input"),  # a test-split id
        ({"source": "ja-assistant:timer-001"}, "not a en-assistant dev input"),
        ({"source": None}, "dev input: give its source"),
        ({"input_text": "Set a timer for 3 minutes."}, "input_text"),
        ({"domain": "alarm"}, "domain"),
        ({"style": "flawed"}, "does not fit style"),
        ({"flaw": "off_topic"}, "does not fit style"),
    ],
)
def test_the_check_refuses_rows_that_do_not_fit_their_source(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    row = {**copy.deepcopy(GOOD), **change}
    assert any(message in p for p in _problems(tmp_path, row))


def test_the_check_refuses_bad_importances_and_inputs_shared_with_the_test_split(tmp_path: Path) -> None:
    tied = copy.deepcopy(GOOD)
    tied["segments"][1]["importance"] = tied["segments"][2]["importance"] = 0.5
    assert any("not unique" in p for p in _problems(tmp_path, tied))
    shared = {
        **copy.deepcopy(GOOD),
        "source": "en-assistant:ambiguous_request-003",
        "domain": "ambiguous_request",
        "input_text": "Turn it up.",
    }
    shared["background"] = next(
        json.loads(line)["scenario_context"]["background"]
        for line in (ROOT / "src/voxeval/data/builtin/en-assistant.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line)["id"] == "ambiguous_request-003"
    )
    assert [p.split(": ", 1)[1] for p in _problems(tmp_path, shared)] == [
        "input_text is also an input of the test split (which must stay unseen)"
    ]


def test_duplicate_ids_and_repeated_replies_are_refused(tmp_path: Path) -> None:
    found = _problems(tmp_path, GOOD, GOOD)
    assert any("duplicate id" in p for p in found)
    assert any("same reply to the same input" in p for p in found)


def test_main_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    assert main([str(good)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert main([str(bad)]) == 2
    assert "bad.jsonl" in capsys.readouterr().err


def test_a_new_input_needs_a_known_domain_a_background_and_a_text_of_its_own(tmp_path: Path) -> None:
    new = {**copy.deepcopy(GOOD), "source": None, "input_text": "Start a twelve-minute timer for the eggs."}
    assert _problems(tmp_path, new) == []
    cases = {
        "is not a domain of en-assistant": {**new, "domain": "horoscopes"},
        "needs a background": {**new, "background": " "},
        "test split": {**new, "input_text": "turn it up"},  # a test input, case and punctuation aside
        "id 'x-0001' does not start with its author": {**new, "id": "x-0001"},
    }
    for expected, row in cases.items():
        assert any(expected in p for p in _problems(tmp_path, row)), expected
