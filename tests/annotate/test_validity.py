"""System-level validity: the benchmark score per reply style with the annotator minus with gold labels."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from voxeval.acts import Step
from voxeval.annotate import Annotation, AnnotationInput
from voxeval.annotate._check import check_annotator
from voxeval.data import resolve_dataset
from voxeval.errors import InputError
from voxeval.report._build import _trust_section
from voxeval.report._load import RunData
from voxeval.report._validity import reference_acts, system_level, validity_rows


def _replies() -> list[Any]:
    """Four replies to ja-assistant inputs: two concise (the references), two flawed (an Inform instead)."""
    refs = resolve_dataset("ja-assistant").samples[:2]
    rows = []
    for k, ref in enumerate(refs):
        for style in ("concise", "flawed"):
            acts = ref.acts if style == "concise" else (Step("Inform", 1.0, span=ref.output_text),)
            raw = {"style": style, "source": f"ja-assistant:{ref.id}", **({"flaw": "wrong_act"} if k else {})}
            rows.append(dataclasses.replace(ref, id=f"{style}-{k}", acts=acts, raw=raw))
    return rows


class AlwaysAnswer:
    name = "always-answer"

    async def annotate(self, item: AnnotationInput) -> Annotation:
        return Annotation((Step("Answer", 1.0, span=item.reply),))

    def describe(self) -> dict[str, Any]:
        return {"annotator": self.name}


def test_gold_labels_give_zero_bias_and_references_resolve() -> None:
    samples = _replies()
    figures = system_level(samples, {s.id: s.acts for s in samples})
    assert set(figures) == {"all", "style=concise", "style=flawed", "flaw=wrong_act"}
    for f in figures.values():
        assert f["wlcs"]["delta"] == 0.0 and f["wlcs"]["ci"] == [0.0, 0.0] and f["wed"]["delta"] == 0.0
    assert figures["style=concise"]["wlcs"]["gold"] == pytest.approx(1.0)
    assert figures["style=flawed"]["wlcs"]["gold"] < 1.0


def test_an_annotator_that_calls_everything_an_answer_is_biased_per_style() -> None:
    samples = _replies()
    checked = check_annotator(AlwaysAnswer(), samples)  # type: ignore[arg-type]
    figures = system_level(samples, checked.predicted)
    refs = reference_acts(samples)
    flawed_refs = [refs[s.id] for s in samples if s.raw["style"] == "flawed"]
    flawed = figures["style=flawed"]["wlcs"]
    # One Answer step (weight 1) scores WLCS 1 where the reference has an Answer, else 0; gold (one Inform) likewise.
    has = [float(any(a.act == label for a in r)) for r in flawed_refs for label in ("Answer", "Inform")]
    assert flawed["annotator"] == pytest.approx((has[0] + has[2]) / 2)
    assert flawed["gold"] == pytest.approx((has[1] + has[3]) / 2)
    assert flawed["delta"] == pytest.approx(flawed["annotator"] - flawed["gold"])
    assert flawed["ci"][0] <= flawed["delta"] <= flawed["ci"][1] and figures["all"]["n"] == 4
    assert len(validity_rows(figures)) == 4


def test_an_unknown_source_is_an_input_error() -> None:
    sample = dataclasses.replace(_replies()[0], raw={"source": "ja-assistant:no-such-id"})
    with pytest.raises(InputError, match="no such sample"):
        reference_acts([sample])


def test_the_trust_section_shows_a_recorded_system_level_bias(tmp_path: Path) -> None:
    samples = _replies()
    figures = system_level(samples, {s.id: (Step("Answer", 1.0),) for s in samples})
    config = {"components": {"annotator": {"measured_error": {"system_level": figures}}}}
    html, md = _trust_section(RunData(tmp_path, config, [], {}))
    assert "System-level validity" in md and "| style=flawed | 2 |" in md and "WLCS Δ [95% CI]" in html
    assert _trust_section(RunData(tmp_path, {"components": {}}, [], {}))[1].count("System-level") == 0


def test_a_recorded_measurement_applies_to_its_exact_build_only(tmp_path: Path) -> None:
    from voxeval.report._trust import measured_system_level, recorded_system_level

    figures = system_level(_replies(), {s.id: s.acts for s in _replies()})
    record = [
        {
            "annotator": "offline",
            "sha256": "abc",
            "dataset": "v",
            "samples": 4,
            "measured": "d",
            "system_level": figures,
        }
    ]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert recorded_system_level({"annotator": "offline", "sha256": "abc"}, path) == (
        figures,
        "v (4 replies with a reference, d)",
    )
    assert recorded_system_level({"annotator": "offline", "sha256": "other"}, path) is None
    assert recorded_system_level({"annotator": "gold"}, path) is None
    # The shipped record is for the shipped offline build: a run with it shows the figures.

    shipped = json.loads((Path(__file__).parents[2] / "src/voxeval/report/measured/system-level.json").read_text())
    config = {"components": {"annotator": {"annotator": "offline", "sha256": shipped[0]["sha256"]}}}
    found = measured_system_level(config)
    assert found is not None and found[0]["style=chatty"]["n"] == shipped[0]["system_level"]["style=chatty"]["n"]


def test_a_styled_reply_to_an_invented_input_has_no_reference_and_is_counted_apart() -> None:
    samples = _replies()
    invented = dataclasses.replace(samples[0], id="invented", raw={"style": "concise", "source": None})
    figures = system_level([*samples, invented], {s.id: s.acts for s in [*samples, invented]})
    assert figures["without_reference"] == 1 and figures["all"]["n"] == 4 and figures["style=concise"]["n"] == 2
    assert len(validity_rows(figures)) == 4
