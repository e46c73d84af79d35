"""``voxeval export-results`` and ``voxeval leaderboard`` for the multi-turn benchmarks: dialogues (one result per
system under a history condition and metric, the gains between conditions) and duplex (the turn-taking figures)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from voxeval.cli import main
from voxeval.data import builtin_path

SCHEMAS = Path(__file__).with_name("schemas")
EEE = json.loads((SCHEMAS / "eee-eval-0.2.0.schema.json").read_text(encoding="utf-8"))
EVAL_RESULTS = json.loads((SCHEMAS / "eval-results.schema.json").read_text(encoding="utf-8"))
ORACLE = "python:tests.run.dialogue_doubles:context_oracle"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two dialogues of ja-dialogues (seven scored turns, five of them needing the context)."""
    rows = [json.loads(x) for x in builtin_path("ja-dialogues").read_text("utf-8").splitlines()]
    path = tmp_path_factory.mktemp("data") / "few.dialogues.jsonl"
    keep = ("ja-dlg-001", "ja-dlg-021")
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows if r["id"] in keep), "utf-8")
    return path


def _run(data: Path, out: Path, name: str, *history: str) -> Path:
    args = ["run", "--benchmark", "dialogues", "--dataset", str(data), "--system", f"{name}={ORACLE}"]
    args += ["--annotator", "gold:ja-dialogues", "--reply-text", "model", "--reply-asr", "none"]
    args += [a for h in history for a in ("--history", h)] + ["--out", str(out), "--quiet"]
    assert main(args) == 0
    return out


@pytest.fixture(scope="module")
def runs(data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two comparable dialogue runs (the context oracle under two names, all three history conditions)."""
    root = tmp_path_factory.mktemp("runs")
    return [_run(data, root / "a", "oracle"), _run(data, root / "b", "twin")]


def _export(run: Path, fmt: str, out: Path) -> list[Path]:
    assert main(["export-results", str(run), "--format", fmt, "--out", str(out)]) == 0
    return sorted(p for p in out.rglob("*") if p.is_file())


def test_a_dialogue_run_exports_every_condition_and_metric_in_every_format(runs: list[Path], tmp_path: Path) -> None:
    summary = json.loads((runs[0] / "summary.json").read_text("utf-8"))
    by = {c["history"]: c for c in summary["conditions"]}
    files = _export(runs[0], "eval-results", tmp_path / "er")
    tasks = {(p.parent.parent.name, p.stem) for p in files}
    for history in ("gold", "own", "none"):
        for metric in ("turn_wlcs", "turn_wed", "dialogue_success"):
            assert (f"oracle-history-{history}", f"few.dialogues_{metric}") in tasks
    assert {("oracle", "few.dialogues_context_gain"), ("oracle", "few.dialogues_drift")} <= tasks and len(tasks) == 11
    for path in files:
        jsonschema.validate(yaml.safe_load(path.read_text("utf-8")), EVAL_RESULTS)
    [none] = yaml.safe_load(
        (tmp_path / "er/oracle-history-none/.eval_results/few.dialogues_turn_wlcs.yaml").read_text()
    )
    assert none["value"] == pytest.approx(by["none"]["turn_wlcs"]["value"]) and 0 < none["value"] < 1
    assert f"95% CI [{by['none']['turn_wlcs']['low']:.4f}" in none["notes"] and "exact: the gold" in none["notes"]

    records = [json.loads(p.read_text("utf-8")) for p in _export(runs[0], "eee", tmp_path / "eee")]
    for record in records:
        jsonschema.Draft7Validator(EEE).validate(record)
    bare = next(r for r in records if r["model_info"]["name"] == "oracle")
    gain = {e["evaluation_name"]: e for e in bare["evaluation_results"]}["few.dialogues context_gain"]
    interval = gain["score_details"]["uncertainty"]["confidence_interval"]
    expected = summary["gains"][0]["context_gain"]
    assert (gain["score_details"]["score"], interval["lower"], interval["upper"]) == (
        expected["value"], expected["low"], expected["high"],
    )  # fmt: skip
    assert gain["score_details"]["score"] > 0

    [results] = _export(runs[0], "json", tmp_path / "json")
    scores = json.loads(results.read_text("utf-8"))["scores"]
    assert len(scores) == 3 * 3 + 2 and json.loads(results.read_text("utf-8"))["histories"] == ["gold", "own", "none"]


def test_a_leaderboard_of_two_dialogue_runs_ranks_conditions_by_turn_wlcs(
    runs: list[Path], data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "board"
    assert main(["leaderboard", *map(str, runs), "--out", str(out)]) == 0
    board = json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert board["metric"] == "turn_wlcs" and board["comparable"]
    assert board["metrics"] == ["turn_wlcs", "turn_wed", "dialogue_success"]
    ranked = [r["system"].rpartition(" ")[2] for r in board["rows"]]
    assert (
        len(ranked) == 6 and set(ranked[:4]) == {"history=gold", "history=own"} and ranked[4:] == ["history=none"] * 2
    )
    none = board["rows"][-1]["scores"]["turn_wlcs"]
    assert none["low"] <= none["value"] <= none["high"] < 1.0
    page = (out / "index.html").read_text("utf-8")
    assert page.count("<tr>") == 1 + 6 and "history conditions gold, own, none" in page
    # A run under other history conditions is refused, then ranked only when mixing is allowed.
    other = _run(data, tmp_path / "c", "half", "gold", "none")
    assert main(["leaderboard", str(runs[0]), str(other), "--out", str(tmp_path / "mixed")]) == 2
    assert "history conditions ['gold', 'none'] ≠ ['gold', 'own', 'none']" in capsys.readouterr().err
    assert main(["leaderboard", str(runs[0]), str(other), "--out", str(tmp_path / "mixed"), "--allow-mixed"]) == 0


def _duplex_run(root: Path) -> Path:
    """A hand-made duplex run folder: its config and a summary made by the summary's own writers."""
    from voxeval.benchmark._duplex_summary import _latency, _rate
    from voxeval.duplex import Latency, Rate
    from voxeval.report._stats import bootstrap_ci, bootstrap_quantile_ci

    onsets = [0.35, 0.4, 0.52]
    server = {
        "onset_latency": _latency(Latency("server", bootstrap_quantile_ci(onsets, 0.5), None, {"answered": 3})),
        "takeover_rate": _rate(Rate("server", bootstrap_ci([0.0, 1.0, 0.0, 0.0]), {"took_over": 1, "waited": 3})),
        "stop_rate": _rate(Rate("server", bootstrap_ci([1.0, 1.0]), {"stopped": 2})),
        "stop_latency": _latency(Latency("server", bootstrap_quantile_ci([0.2, 0.3], 0.5), None, {"stopped": 2})),
        "continuation_rate": _rate(Rate("server", None, {})),  # no backchannel sessions: nothing to export
    }
    run = root / "duplex"
    run.mkdir()
    summary = {"benchmark": "duplex", "systems": {"rt": {"figures": {"server": server}}}}
    (run / "summary.json").write_text(json.dumps(summary), "utf-8")
    config = {
        "settings": {"benchmark": "duplex", "annotator": "gold", "split": None},
        "fingerprint": "0123456789abcdef", "created": "2026-12-02T03:00:00+0000", "voxeval_version": "0.1.0",
        "datasets": {"ja-assistant": {"sha256": "ab" * 32}}, "command": ["voxeval", "run", "--benchmark", "duplex"],
    }  # fmt: skip
    (run / "config.json").write_text(json.dumps(config), "utf-8")
    return run


def test_a_duplex_run_exports_its_figures_and_an_unknown_benchmark_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _duplex_run(tmp_path)
    [path] = _export(run, "eee", tmp_path / "eee")
    record = json.loads(path.read_text("utf-8"))
    jsonschema.Draft7Validator(EEE).validate(record)
    got = {e["evaluation_name"]: e for e in record["evaluation_results"]}
    assert set(got) == {f"ja-assistant {m}" for m in ("onset_latency_p50", "takeover_rate", "stop_rate",
                                                      "stop_latency_p50")}  # fmt: skip
    onset = got["ja-assistant onset_latency_p50"]
    assert onset["score_details"]["score"] == pytest.approx(0.4) and onset["metric_config"]["lower_is_better"]
    assert onset["metric_config"]["max_score"] == 8.0  # seconds: the sessions' answer timeout
    interval = onset["score_details"]["uncertainty"]["confidence_interval"]
    assert interval["lower"] <= 0.4 <= interval["upper"]
    assert got["ja-assistant takeover_rate"]["score_details"]["score"] == pytest.approx(0.25)
    for path in _export(run, "eval-results", tmp_path / "er"):
        jsonschema.validate(yaml.safe_load(path.read_text("utf-8")), EVAL_RESULTS)
    assert main(["leaderboard", str(run), "--out", str(tmp_path / "board")]) == 2
    assert "no single ranking metric" in capsys.readouterr().err
    config = json.loads((run / "config.json").read_text("utf-8"))
    config["settings"]["benchmark"] = "karaoke"
    (run / "config.json").write_text(json.dumps(config), "utf-8")
    assert main(["export-results", str(run), "--format", "json", "--out", str(tmp_path / "no")]) == 2
    err = capsys.readouterr().err
    assert f"run {run} is of benchmark 'karaoke'" in err and "settings.benchmark" in err
    assert not (tmp_path / "no").exists()
