"""The resumable runner end to end with offline test doubles (no network, no models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxeval.cli import main


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def run(out: Path, system: str, *extra: str) -> int:
    return main(
        [
            "run",
            "--dataset",
            "ja-assistant",
            "--limit",
            "4",
            "--system",
            system,
            "--annotator",
            "gold",
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def test_oracle_scores_zero_and_rerun_does_nothing(tmp_path, monkeypatch) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:echo_gold") == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["n"] == 4 and summary["wed_mean"] == 0.0 and summary["wlcs_mean"] == pytest.approx(1.0)
    before = {name: (out / name).read_bytes() for name in ("inputs.jsonl", "replies.jsonl", "annotations.jsonl")}
    assert run(out, "python:tests.run.doubles:echo_gold") == 0
    assert {name: (out / name).read_bytes() for name in before} == before
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["prompts"]["system"]["text"] == "あなたは親切な日本語音声対話アシスタントです。"
    assert config["datasets"]["ja-assistant"]["sha256"]
    # WLCS-c / WED-c of a run folder (the spans come from annotations.jsonl): the oracle's replies are the references.
    from tests.cli.test_content_scores import ExactSpans
    from voxeval.annotate._similarity import similarities
    from voxeval.benchmark._da import load_run

    monkeypatch.setitem(similarities._factories, "exact", ExactSpans)
    content = load_run(out, "exact").sets[0].content.summary
    assert (content.n, content.wlcs_c_mean, content.wed_c_mean, content.whole_text_steps) == (4, 1.0, 0.0, 0)


def test_inputs_are_spec_format(tmp_path) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:echo_gold") == 0
    import soundfile

    for row in lines(out / "inputs.jsonl"):
        info = soundfile.info(str(out / row["audio"]))
        assert (info.samplerate, info.channels, info.subtype) == (24000, 1, "PCM_16")


def test_empty_reply_scores_as_empty_and_failures_are_listed(tmp_path) -> None:
    out = tmp_path / "silent"
    assert run(out, "python:tests.run.doubles:silent") == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["wed_mean"] == 1.0 and summary["wlcs_mean"] == 0.0 and summary["excluded"] == 0
    assert {r["status"] for r in lines(out / "replies.jsonl")} == {"empty"}

    out = tmp_path / "flaky"
    assert run(out, "python:tests.run.doubles:flaky") == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    failed = [r for r in lines(out / "replies.jsonl") if r["status"] == "failed"]
    assert [r["id"] for r in failed] == ["timer-002"] and "model crashed" in failed[0]["error"]
    assert summary["n"] == 3 and list(summary["excluded_ids"]) == ["timer-002"]
    assert "timer-002: reply failed: RuntimeError: model crashed" in (out / "report.md").read_text(encoding="utf-8")


def test_retry_failed_supersedes_failed_rows(tmp_path, monkeypatch) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:flaky") == 0
    import tests.run.doubles as doubles

    monkeypatch.setattr(doubles, "flaky", doubles.echo_gold)
    assert run(out, "python:tests.run.doubles:flaky") == 0
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["excluded"] == 1  # not retried by default
    assert run(out, "python:tests.run.doubles:flaky", "--retry-failed") == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["excluded"] == 0 and summary["n"] == 4 and summary["wed_mean"] == 0.0
    statuses = [r["status"] for r in lines(out / "replies.jsonl") if r["id"] == "timer-002"]
    assert statuses == ["failed", "ok"]


def test_changed_settings_are_refused(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:echo_gold") == 0
    assert (
        main(
            [
                "run",
                "--dataset",
                "ja-assistant",
                "--limit",
                "4",
                "--system",
                "python:tests.run.doubles:silent",
                "--annotator",
                "gold",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 2
    )
    assert "different settings" in capsys.readouterr().err


def test_grid_of_systems(tmp_path) -> None:
    out = tmp_path / "grid"
    code = main(
        [
            "run",
            "--dataset",
            "ja-assistant",
            "--limit",
            "3",
            "--system",
            "python:tests.run.doubles:echo_gold",
            "--system",
            "python:tests.run.doubles:silent",
            "--annotator",
            "gold",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    runs = json.loads((out / "summary.json").read_text(encoding="utf-8"))["runs"]
    assert [(r["system"], r["wed_mean"]) for r in runs] == [
        ("python:tests.run.doubles:echo_gold", 0.0),
        ("python:tests.run.doubles:silent", 1.0),
    ]


def test_dry_run_calls_nothing(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:echo_gold", "--dry-run") == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["systems"]["python:tests.run.doubles:echo_gold"]["calls"] == 4
    assert not out.exists()


def test_echoes_get_no_acts_and_the_report_counts_them(tmp_path) -> None:
    out = tmp_path / "run"
    # The gold annotator fails on any text that is not a reference reply: the echo filter must answer first.
    assert run(out, "python:tests.run.doubles:parrot") == 0
    rows = lines(out / "annotations.jsonl")
    assert len(rows) == 4 and all(r["status"] == "ok" and r["steps"] == [] and r["echo"] is True for r in rows)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["wlcs_mean"] == 0.0 and summary["excluded"] == 0
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["components"]["annotator"]["echo_filter"]["threshold"] == 0.8
    report = (out / "report.md").read_text(encoding="utf-8")  # written by the run
    assert (
        "## Echoes of the input" in report
        and "| ja-assistant | python:tests.run.doubles:parrot | 4 | 4 | 100% |" in report
    )
