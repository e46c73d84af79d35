"""Reports built from run directories: numbers, self-containment, comparisons, and a real browser render."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from voxeval.cli import main
from voxeval.data import load_gold, load_predictions
from voxeval.report._analysis import error_analysis
from voxeval.run import score_predictions


def test_error_analysis_on_paper_examples(paper_files) -> None:
    gold, pred = paper_files
    scored = score_predictions(load_gold(gold), load_predictions(pred), dataset="d", system="s")
    e = error_analysis(scored)
    # t2-1: Commissive and Question missing; t2-2: Request redundant, Inform + Commissive missing;
    # t2-3: three substitutions; wlcs example: Answer vs Inform substituted.
    assert e.missing == {"Commissive": 2, "Question": 1, "Inform": 1}
    assert e.redundant == {"Request": 1}
    assert e.confused[("Commissive", "Check-Question")] == 1 and e.confused[("Question", "Inform")] == 2
    assert e.order_errors == 0


@pytest.fixture(scope="module")
def grid_run(tmp_path_factory):
    """One run of two systems (one fails a sample) for the module; tests get a copy (see :func:`grid`)."""
    out = tmp_path_factory.mktemp("grid") / "grid"
    code = main(
        [
            "run",
            "--dataset",
            "ja-assistant",
            "--limit",
            "6",
            "--system",
            "python:tests.run.doubles:echo_gold",
            "--system",
            "python:tests.run.doubles:flaky",
            "--annotator",
            "gold",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    return out


@pytest.fixture
def grid(grid_run, tmp_path):
    """A copy of the module's run directory, the test's to change."""
    return shutil.copytree(grid_run, tmp_path / "grid")


def test_report_files_and_numbers(grid) -> None:
    out = grid
    html = (out / "report.html").read_text(encoding="utf-8")
    # Self-contained: no external references of any kind.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert html.count("data:image/png;base64,") >= 4
    assert "Paired comparisons" in html and "reply failed: RuntimeError: model crashed" in html
    import csv

    rows = list(csv.reader((out / "tables.csv").read_text(encoding="utf-8").splitlines()))
    table1 = {r[2]: r for r in rows if r[0] == "table1"}
    assert table1["python:tests.run.doubles:echo_gold"][3:7] == ["6", "0", "0", "1.000 [1.000, 1.000]"]
    # flaky failed on timer-002 → excluded: 5 scored, 1 excluded.
    assert table1["python:tests.run.doubles:flaky"][3:6] == ["5", "1", "0"]


def test_report_rebuilds_from_directory_alone(grid, tmp_path, capsys) -> None:
    out = grid
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "report.html").exists()
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_compare_two_runs(tmp_path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out, system in ((a, "echo_gold"), (b, "silent")):
        assert (
            main(
                [
                    "run",
                    "--dataset",
                    "ja-assistant",
                    "--limit",
                    "5",
                    "--system",
                    f"python:tests.run.doubles:{system}",
                    "--annotator",
                    "gold",
                    "--out",
                    str(out),
                    "--quiet",
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert c["paired_n"] == 5 and c["wed_a"] == 0.0 and c["wed_b"] == 1.0 and c["b_minus_a"] == pytest.approx(1.0)
    assert c["b_worse"] == 5 and c["b_better"] == 0


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (make test installs it via apt)")
def test_html_renders_in_headless_chromium_offline(grid, tmp_path) -> None:
    out = grid
    shot = tmp_path / "shot.png"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,2400",
        # Any network fetch would fail: the page must render from the file alone.
        "--proxy-server=127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        f"--screenshot={shot}",
        (out / "report.html").as_uri(),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a blank page compresses to a few KB
    from PIL import Image

    image = Image.open(shot).convert("L")
    # Tables and plots put many distinct grey levels on the page; an empty or error page has a handful.
    assert len(set(image.getdata())) > 50


def test_usage_and_cost() -> None:
    from voxeval.report._usage import usage_rows

    replies = {
        "k1": {"system": "openai:x", "meta": {"input_tokens": 1000, "output_tokens": 200}},
        "k2": {"system": "openai:x", "meta": {"input_tokens": 3000, "output_tokens": 800}},
        "k3": {"system": "replay:y", "meta": {}},
    }
    rows = usage_rows(replies, {"openai:x": {"input_per_million": 2.5, "output_per_million": 10.0}})
    assert rows == [["openai:x", 2, 2, 4000, 1000, "$0.0200"], ["replay:y", 1, 0, 0, 0, "—"]]


def test_prices_file_adds_the_cost_column(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--system", "python:tests.run.doubles:flaky"]
    assert main([*args, "--annotator", "gold", "--out", str(out), "--quiet"]) == 0
    # The doubles report no usage: give the replies some, as a provider would record them.
    log = out / "replies.jsonl"
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    for row in lines:
        row["meta"] = {"input_tokens": 1000, "output_tokens": 500}
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    prices = tmp_path / "prices.json"
    system = "python:tests.run.doubles:flaky"
    prices.write_text(json.dumps({system: {"input_per_million": 2.0, "output_per_million": 10.0}}))
    assert main(["report", str(out), "--prices", str(prices)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    cost = f"${(2000 * 2.0 + 1000 * 10.0) / 1e6:.4f}"
    assert "Usage and cost" in html and cost in html and cost in md
    assert main(["report", str(out)]) == 0
    assert cost not in (out / "report.html").read_text(encoding="utf-8")  # no prices, no cost


def test_report_rebuilds_a_score_folder(paper_files, tmp_path) -> None:
    gold, pred = paper_files
    out = tmp_path / "score"
    assert main(["score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Table 1" in html and "10分のタイマーをセットして" in html
    assert "| gold | pred | 5 |" in (out / "report.md").read_text(encoding="utf-8")


def test_the_report_of_a_run_on_one_split_scores_what_the_run_scored(tmp_path) -> None:
    """`voxeval report` rebuilds a `--split` run from its recorded dataset under the run's own dataset name (the
    name already carries the split: it was once split twice, and every sample came out excluded)."""
    import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)

    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--split", "test", "--limit", "3", "--annotator", "gold"]
    args += ["--tts", "tone-tts", "--system", "python:tests.run.doubles:echo_gold", "--out", str(out), "--quiet"]
    assert main(args) == 0
    ran = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert main(["report", str(out)]) == 0
    rebuilt = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert rebuilt == ran
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| ja-assistant:test | python:tests.run.doubles:echo_gold | 3 | 1.000 |" in report
    assert ":test:test" not in report
