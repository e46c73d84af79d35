"""``voxeval export-results`` (Hub eval-results YAML, Every Eval Ever, JSON) and ``voxeval leaderboard``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from voxeval.cli import main
from voxeval.data import builtin_path

SCHEMAS = Path(__file__).with_name("schemas")
EEE = json.loads((SCHEMAS / "eee-eval-0.2.0.schema.json").read_text(encoding="utf-8"))
EVAL_RESULTS = json.loads((SCHEMAS / "eval-results.schema.json").read_text(encoding="utf-8"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 8 rows of ja-assistant with input audio of their own (a tone): the runs synthesise nothing."""
    from voxeval.testing.mockserver import sine_wav

    root = tmp_path_factory.mktemp("data")
    (root / "tone.wav").write_bytes(sine_wav(0.3))
    rows = [json.loads(x) for x in builtin_path("ja-assistant").read_text(encoding="utf-8").splitlines()[:8]]
    for row in rows:
        row["input"]["audio"] = "tone.wav"
    path = root / "ja-assistant.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _replay(path: Path, shift: int, limit: int) -> Path:
    """Every other reply is the reference of the sample ``shift`` further on: a system of middling quality."""
    rows = [json.loads(x) for x in builtin_path("ja-assistant").read_text(encoding="utf-8").splitlines()[:limit]]
    lines = []
    for k, row in enumerate(rows):
        text = rows[(k + shift) % limit if k % 2 else k]["output"]["text"]
        latency = {"first_audio_s": 0.2 * (1 + shift) + k / 100, "first_text_s": None, "total_s": 1.0 + shift}
        lines.append(json.dumps({"id": row["id"], "text": text, "latency": latency}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(root: Path, dataset: Path, name: str, shift: int, limit: int = 8) -> Path:
    replay, out = _replay(root / f"{name}.jsonl", shift, limit), root / name
    args = ["run", "--dataset", str(dataset), "--limit", str(limit), "--system", f"{name}=replay:{replay}"]
    args += ["--annotator", "gold", "--reply-text", "model", "--reply-asr", "none", "--out", str(out), "--quiet"]
    assert main(args) == 0
    return out


@pytest.fixture(scope="module")
def runs(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three comparable runs (same data, limit, prompts and annotator) of systems of different quality."""
    root = tmp_path_factory.mktemp("runs")
    return [_run(root, dataset, "oracle", 0), _run(root, dataset, "shifted", 1), _run(root, dataset, "far", 3)]


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


def test_eval_results_yaml_validates_and_carries_the_fingerprint(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "er"
    ids = ["--dataset-id", "ja-assistant=someone/ja-assistant", "--source-url", "https://example.org/r"]
    assert main(["export-results", str(runs[1]), "--format", "eval-results", "--out", str(out), *ids]) == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml"))
    assert files == ["shifted/.eval_results/ja-assistant_wed.yaml", "shifted/.eval_results/ja-assistant_wlcs.yaml"]
    fingerprint = json.loads((runs[1] / "config.json").read_text(encoding="utf-8"))["fingerprint"]
    for name in files:
        entries = yaml.safe_load((out / name).read_text(encoding="utf-8"))
        jsonschema.validate(entries, EVAL_RESULTS, format_checker=jsonschema.FormatChecker())
        assert entries[0]["dataset"]["id"] == "someone/ja-assistant"
        assert entries[0]["source"] == {"url": "https://example.org/r", "name": f"voxeval run {fingerprint}"}
    wlcs = yaml.safe_load((out / files[1]).read_text(encoding="utf-8"))[0]
    assert wlcs["value"] == pytest.approx(_summary(runs[1])["wlcs_mean"]) and 0 < wlcs["value"] < 1
    # The schema check can fail: an entry without its value is refused.
    with pytest.raises(jsonschema.ValidationError, match="'value' is a required property"):
        jsonschema.validate([{k: v for k, v in wlcs.items() if k != "value"}], EVAL_RESULTS)


def test_every_eval_ever_record_validates(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "eee"
    args = ["export-results", str(runs[2]), "--format", "eee", "--out", str(out), "--model-id", "far=acme/far-1"]
    assert main(args) == 0
    assert main(args) == 0  # a second export replaces the record (its name is fixed by run and system)
    [path] = list(out.rglob("*.json"))
    record = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(EEE).validate(record)
    assert record["schema_version"] == "0.2.0" and record["model_info"]["id"] == "acme/far-1"
    by_name = {r["evaluation_name"]: r["score_details"] for r in record["evaluation_results"]}
    assert by_name["ja-assistant wlcs"]["score"] == pytest.approx(_summary(runs[2])["wlcs_mean"])
    interval = by_name["ja-assistant wlcs"]["uncertainty"]["confidence_interval"]
    assert interval["lower"] <= by_name["ja-assistant wlcs"]["score"] <= interval["upper"]
    record["source_metadata"]["source_type"] = "hearsay"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(EEE).validate(record)


def test_json_results(runs: list[Path], tmp_path: Path) -> None:
    assert main(["export-results", str(runs[0]), "--format", "json", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["validity"] == "exact: the gold reference acts" and results["limit"] == 8
    assert {(s["metric"], s["value"]) for s in results["scores"]} == {("wlcs", 1.0), ("wed", 0.0)}
    assert results["systems"]["oracle"]["latency"]["total_s"] == pytest.approx(1.0)


def _chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
           "--disable-background-networking", "--disable-component-update", f"--user-data-dir={tmp_path / 'p'}",
           "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", *args]  # fmt: skip
    env = {**os.environ, "HOME": str(tmp_path)}
    return subprocess.run(cmd, check=True, capture_output=True, timeout=120, env=env)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (make test installs it via apt)")
def test_leaderboard_of_three_runs_renders_in_chromium(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "board"
    assert main(["leaderboard", *map(str, runs), "--out", str(out)]) == 0
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert [r["system"] for r in board["rows"]] == ["oracle", "shifted", "far"] and board["comparable"]
    page = (out / "index.html").as_uri()
    dom = _chromium(["--dump-dom", page], tmp_path).stdout.decode("utf-8")
    for run, row in zip(runs, board["rows"], strict=True):
        assert row["reproduce"].endswith(f"--out {run} --quiet") and row["reproduce"] in dom.replace("&amp;", "&")
        assert row["fingerprint"] in dom
    assert dom.count("<tr>") == 1 + 3 and "1.000 [1.000, 1.000]" in dom
    shot = tmp_path / "board.png"
    _chromium(["--window-size=1500,800", f"--screenshot={shot}", page], tmp_path)
    from PIL import Image

    image = Image.open(shot).convert("L")
    assert len(image.getcolors(maxcolors=256) or range(257)) > 50  # text, rules, bars: not a blank or error page


def test_leaderboard_refuses_runs_that_differ_unless_allowed(
    runs: list[Path], dataset: Path, tmp_path: Path, capsys
) -> None:
    other = _run(tmp_path, dataset, "short", 1, limit=6)
    out = tmp_path / "board"
    assert main(["leaderboard", str(runs[0]), str(other), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot be ranked together" in err and "limit 6 ≠ 8" in err and not out.exists()
    assert main(["leaderboard", str(runs[0]), str(other), "--out", str(out), "--allow-mixed"]) == 0
    assert "Mixed runs" in (out / "index.html").read_text(encoding="utf-8")
