"""The blind second-labeller files (issue 34) and the agreement arithmetic of tools/assistant_data/agreement.py."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from voxeval.data import load_gold

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "assistant_data"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"assistant_{name}", TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module's annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_blind_sample_is_the_recorded_seed_and_the_labels_build_from_their_source(language) -> None:
    labeller = _module("second_labeller")
    blind = [json.loads(x) for x in (labeller.OUT / f"blind-{language}.jsonl").read_text("utf-8").splitlines()]
    gold = load_gold(ROOT / "src" / "voxeval" / "data" / "builtin" / f"{language}-assistant.jsonl")
    assert [b["id"] for b in blind] == labeller.sample_ids([s.id for s in gold], 60, 34)
    assert all(set(b) == {"id", "background", "input", "locale", "output"} for b in blind)  # nothing of the labels
    labels = labeller.parse_labels((labeller.OUT / f"labels-{language}.txt").read_text("utf-8"))
    built = "".join(json.dumps(labeller.gold_row(b, labels[b["id"]]), ensure_ascii=False) + "\n" for b in blind)
    assert (labeller.OUT / f"labels-{language}.jsonl").read_text("utf-8") == built
    assert len(load_gold(labeller.OUT / f"labels-{language}.jsonl")) == 60


def test_a_span_not_in_the_reply_is_refused() -> None:
    labeller = _module("second_labeller")
    blind = {"id": "x", "background": "", "input": "q", "locale": "en-US", "output": "Done. Bye."}
    with pytest.raises(ValueError, match="not in the reply"):
        labeller.gold_row(blind, [{"act": "Commissive", "importance": 1.0, "span": "Done!"}])
    with pytest.raises(ValueError, match="not in the reply"):  # out of order
        labeller.gold_row(
            blind,
            [
                {"act": "Inform", "importance": 0.3, "span": "Bye."},
                {"act": "Commissive", "importance": 0.7, "span": "Done."},
            ],
        )


def test_align_pairs_identical_spans_and_counts_splits_apart() -> None:
    agreement = _module("agreement")
    other = agreement.OTHER
    gold = [(0, 10, "Check-Question")]
    second = [(0, 6, "Inform"), (7, 10, "Check-Question")]
    assert agreement.align(gold, second) == [("Check-Question", other), (other, "Inform"), (other, "Check-Question")]
    assert agreement.align(gold, [(0, 10, "Answer")]) == [("Check-Question", "Answer")]
    assert agreement.boundaries(second) == {0, 6, 7, 10}


def test_kappa() -> None:
    kappa = _module("agreement").kappa
    assert kappa([("Answer", "Answer"), ("Inform", "Inform")]) == 1.0
    # observed 0.5, expected 0.5 (both labellers half Answer, half Inform): no agreement beyond chance
    assert kappa([("Answer", "Answer"), ("Answer", "Inform"), ("Inform", "Answer"), ("Inform", "Inform")]) == 0.0
