"""Human labels of a run directory exported as gold rows that `voxeval annotator-check` reads, end to end."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from voxeval.label import Study
from voxeval.label._items import load_run_items
from voxeval.label._submit import check_submission


@pytest.fixture(scope="module")
def da_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny dialogue-act run: the gold replies echoed, the input audio made by the instant tone engine."""
    return _run(tmp_path_factory.mktemp("export") / "run", "ja-assistant", 3)


def _run(out: Path, dataset: str, limit: int) -> Path:
    import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)
    from voxeval.cli import main

    args = ["run", "--dataset", dataset, "--limit", str(limit), "--annotator", "gold", "--tts", "tone-tts"]
    from voxeval.report import _plots as plots

    with pytest.MonkeyPatch.context() as patch:  # the report's figures are not what is tested here: skip drawing
        patch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
        assert main([*args, "--system", "python:tests.run.doubles:echo_gold", "--out", str(out), "--quiet"]) == 0
    return out


def test_exported_labels_are_gold_for_annotator_check(
    da_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from voxeval.cli import main
    from voxeval.data import builtin_path, load_gold

    gold = {s.id: s for s in load_gold(builtin_path("ja-assistant"))}
    study = Study(da_run, load_run_items(da_run, "da"), "da", "ann")
    labelled = study.items[:2]
    for item in labelled:  # the whole reply as one act: the gold reply's central act
        act = max(gold[item.id].acts, key=lambda s: s.importance).act
        step = {"act": act, "importance": 1.0, "start": 0, "end": len(item.text), "text": item.text}
        study.submit(check_submission({"action": "label", "key": item.key, "steps": [step]}, "da", study.by_key))
    study.submit(check_submission({"action": "skip", "key": study.items[2].key}, "da", study.by_key))

    out = tmp_path / "human-gold.jsonl"
    assert main(["agreement", str(da_run), "--task", "da", "--export", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2  # the skipped reply is not gold
    for row, item in zip(rows, sorted(labelled, key=lambda i: i.key), strict=True):
        sample = gold[item.id]
        assert row["input"]["text"] == sample.input_text  # from the dataset the run recorded, not a placeholder
        assert row["scenario_context"]["background"] == sample.background
        assert row["input"]["locale"] == sample.locale == "ja-JP"
        assert row["output"]["text"] == sample.output_text
        assert row["output_dialogue_acts"]["steps"][0]["span"] == sample.output_text
    capsys.readouterr()

    assert main(["dataset", "validate", str(out)]) == 0
    report = tmp_path / "check.json"
    assert main(["annotator-check", "--annotator", "offline", "--dataset", str(out), "--out", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "wed" in printed.lower() and "wlcs" in printed.lower(), printed
    figures = json.loads(report.read_text(encoding="utf-8"))
    assert (figures["samples"], figures["failed"]) == (2, 0)  # both labelled replies scored as gold
    assert {"wed_mean", "wlcs_mean", "exact_sequence_rate", "macro_f1"} <= figures.keys()
    assert sum(figures["per_label"][a]["support"] for a in figures["per_label"]) == 2


def test_exported_gold_keeps_the_recorded_locale(tmp_path: Path) -> None:
    """An English run's labels stay English gold (without input.locale a gold row would be read as Japanese)."""
    from voxeval.cli import main
    from voxeval.data import parse_gold, read_jsonl
    from voxeval.errors import Location

    run = _run(tmp_path / "run", "en-assistant", 1)
    study = Study(run, load_run_items(run, "da"), "da", "ann")
    (item,) = study.items
    step = {"act": "Commissive", "importance": 1.0, "start": 0, "end": len(item.text), "text": item.text}
    study.submit(check_submission({"action": "label", "key": item.key, "steps": [step]}, "da", study.by_key))
    assert main(["agreement", str(run), "--task", "da", "--export", str(tmp_path / "g.jsonl")]) == 0
    ((_, row),) = read_jsonl(tmp_path / "g.jsonl")
    assert row["input"]["locale"] == "en-US"
    assert parse_gold(row, Location("g")).language == "en"


@pytest.mark.parametrize("input_text", [None, ""])
def test_a_label_whose_input_is_unknown_is_not_exported_as_gold(
    tmp_path: Path, input_text: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    from voxeval.cli import main
    from voxeval.label import load_file_items

    row: dict[str, object] = {"id": "a", "text": "はい。"}
    if input_text is not None:
        row["input_text"] = input_text
    (tmp_path / "items.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    study = Study(tmp_path, load_file_items(tmp_path / "items.jsonl"), "da", "ann")
    step = {"act": "Answer", "importance": 1.0, "start": 0, "end": 3, "text": "はい。"}
    study.submit(check_submission({"action": "label", "key": "a", "steps": [step]}, "da", study.by_key))
    out = tmp_path / "gold.jsonl"
    out.write_text("kept\n", encoding="utf-8")
    assert main(["agreement", str(tmp_path), "--task", "da", "--export", str(out)]) == 2
    assert "field input_text: 'a': the user's input is not known" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "kept\n"  # nothing already written is lost


class ReferenceAnnotator:
    """Gives the reference reply's acts when it sees one, else a lone Suggestion: its figure shows which it saw."""

    name = "reference-double"

    async def annotate(self, item: Any) -> Any:
        from voxeval.acts import Step
        from voxeval.annotate import Annotation

        return Annotation(item.reference.acts if item.reference else (Step("Suggestion", 1.0),))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


def test_agreement_and_annotator_check_on_its_export_give_one_figure(
    da_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run annotated with the reference as context; the export carries it, so the re-check sees it too. A
    "no act" label is counted apart and not exported (gold needs an act); a flagged item is listed as left out."""
    from voxeval.annotate._check import check_annotator
    from voxeval.cli import main
    from voxeval.data import builtin_path, load_gold

    run = shutil.copytree(da_run, tmp_path / "run", ignore=shutil.ignore_patterns("human"))
    gold = {s.id: s for s in load_gold(builtin_path("ja-assistant"))}
    study = Study(run, load_run_items(run, "da"), "da", "ref")
    first, chatter, broken = study.items
    act = max(gold[first.id].acts, key=lambda s: s.importance).act
    step = {"act": act, "importance": 1.0, "start": 0, "end": len(first.text), "text": first.text}
    for body in [
        {"action": "label", "key": first.key, "steps": [step]},
        {"action": "label", "key": chatter.key, "steps": [], "no_act": True},
        {"action": "flag", "key": broken.key},
    ]:
        study.submit(check_submission(body, "da", study.by_key))
    out = tmp_path / "gold.jsonl"
    assert main(["agreement", str(run), "--task", "da", "--export", str(out)]) == 0
    printed = capsys.readouterr().out
    da = json.loads((run / "human" / "agreement.json").read_text(encoding="utf-8"))["da"]
    assert da["annotation"] == {"annotator": "gold", "reference_context": True}
    assert "annotator (gold as this run annotated, with the reference reply as context)" in printed
    assert f"left out for ref: 1 flagged ({broken.key})" in printed and "(lower is better)" in printed
    assert "1 'no act' labels not exported" in printed
    vs = da["annotator_vs_human"]["ref"]
    assert (vs["items"], vs["no_act"]["items"], vs["left_out"]) == (1, 1, {})
    (row,) = load_gold(out)
    assert row.raw["annotator_context"]["reference"]["text"] == gold[first.id].output_text
    check = check_annotator(ReferenceAnnotator(), [row])
    assert (check.report["wlcs_mean"], check.report["wed_mean"]) == pytest.approx(
        (vs["wlcs"]["mean"], vs["wed"]["mean"])
    )
    assert check.report["reference_context"].startswith("with the reference reply as context")
    blind = check_annotator(ReferenceAnnotator(), [dataclasses.replace(row, raw={})])
    assert blind.report["wlcs_mean"] != pytest.approx(vs["wlcs"]["mean"])  # the figure the issue saw differ


def test_the_labelling_room_reads_a_run_without_the_benchmark_or_the_report(da_run: Path) -> None:
    """label/ reads runs through run/ and io/ only: no label → benchmark → report → label circle."""
    code = (
        "import sys, pathlib\n"
        "from voxeval.label import load_run_items\n"
        "from voxeval.label._export import run_references\n"
        "from voxeval.label._agreement import agreement_report\n"
        f"run = pathlib.Path({str(da_run)!r})\n"
        "assert len(load_run_items(run, 'da')) == 3 and run_references(run)\n"
        "agreement_report(run, ['da', 'style'])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('voxeval.benchmark', 'voxeval.report'))))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
