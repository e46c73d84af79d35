"""The dialogue sets' second-labeller agreement (tools/dialogue_data/agreement.py, issue 41 part 1)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from voxeval.data import GoldSample
from voxeval.errors import InputError

TOOL = Path(__file__).resolve().parents[2] / "tools" / "dialogue_data" / "agreement.py"


@pytest.fixture(scope="module")
def agreement() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dialogue_agreement", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module's annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_the_committed_figures_are_those_of_the_committed_labels_and_data(agreement: ModuleType) -> None:
    """A change to the labels or to the built-in dialogues without re-running the tool fails here."""
    recorded = json.loads((agreement.LABELS_DIR / "agreement.json").read_text("utf-8"))
    assert [r["language"] for r in recorded] == list(agreement.LANGUAGES)
    for figures in recorded:
        assert agreement.compare(figures["language"], top=agreement.TOP) == figures
    assert all(r["turns"] >= 150 and r["dialogues"] == 45 for r in recorded)
    for language in agreement.LANGUAGES:  # the labeller saw texts only, and labelled every turn shown
        blind = _rows(agreement.LABELS_DIR / f"blind-{language}.jsonl")
        labels = _rows(agreement.LABELS_DIR / f"labels-{language}.jsonl")
        assert all(set(b) == {"dialogue", "turn", "locale", "background", "before", "user", "reply"} for b in blind)
        assert [(b["dialogue"], b["turn"]) for b in blind] == [(x["dialogue"], x["turn"]) for x in labels]


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({"dialogue": "d", "turn": 3, "steps": []}, "turn", "no assistant turn 'd/3'"),
        ({"dialogue": "d", "turn": "1", "steps": []}, "turn", "must be the turn's number"),
        (
            {"dialogue": "d", "turn": 2, "steps": [{"act": "Answer", "importance": 1, "span": "Nope."}]},
            "span",
            "not in",
        ),
        (
            {
                "dialogue": "d",
                "turn": 2,
                "steps": [
                    {"act": "Inform", "importance": 0.3, "span": "Bye."},
                    {"act": "Commissive", "importance": 0.7, "span": "Done."},
                ],
            },
            "steps[1].span",
            "after the previous span",
        ),
    ],
)
def test_a_bad_label_row_names_file_line_and_field(
    agreement: ModuleType, tmp_path: Path, row: dict, field: str, message: str
) -> None:
    good = {"dialogue": "d", "turn": 1, "steps": [{"act": "Commissive", "importance": 1, "span": "Done."}]}
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    reference = {f"d/{k}": GoldSample(f"d/{k}", "Do it.", "Done. Bye.", ()) for k in (1, 2)}
    with pytest.raises(InputError, match=message) as caught:
        agreement.load_labels(path, reference)
    assert f"{path}:2" in str(caught.value) and field in str(caught.value)


def test_a_turn_labelled_twice_is_refused(agreement: ModuleType, tmp_path: Path) -> None:
    row = {"dialogue": "d", "turn": 1, "steps": [{"act": "Commissive", "importance": 1, "span": "Done."}]}
    path = tmp_path / "labels.jsonl"
    path.write_text((json.dumps(row) + "\n") * 2, encoding="utf-8")
    with pytest.raises(InputError, match="labelled twice"):
        agreement.load_labels(path, {"d/1": GoldSample("d/1", "Do it.", "Done.", ())})
