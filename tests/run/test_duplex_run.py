"""``voxeval run --benchmark duplex`` against the duplex mock: sessions recorded once per (system, scenario) and
resumed, the figures in ``summary.json``, the interruption replies annotated and scored, timelines in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)
from voxeval.cli import main
from voxeval.duplex import read_records
from voxeval.testing.realtime import DuplexMockServer, TurnBehaviour


def test_duplex_run_records_resumes_scores_and_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOXEVAL_DUPLEX_RUN_KEY", "k")
    out = tmp_path / "run"
    with DuplexMockServer(TurnBehaviour(silence_ms=300, reply_delay_ms=100, reply_s=2.5)) as srv:
        key = "key_env=VOXEVAL_DUPLEX_RUN_KEY"
        systems = [f"rt=realtime:openai:mock@{srv.openai_url}?{key}", f"live=live:gemini:mock@{srv.gemini_url}?{key}"]
        args = ["run", "--benchmark", "duplex", "--dataset", "ja-assistant", "--limit", "2", "--tts", "tone-tts"]
        args += ["--system", systems[0], "--system", systems[1], "--scenarios", "end_of_turn,interruption"]
        args += ["--turn-detection", "silence_duration_ms=300", "--out", str(out), "--quiet"]
        assert main(args) == 0
        assert srv.count() == 8
        assert main(args) == 0  # resumed: nothing streamed again
        assert srv.count() == 8
    records = [r for _, r in read_records(out / "sessions.jsonl")]
    assert sorted(r.scenario.kind for r in records) == ["end_of_turn"] * 4 + ["interruption"] * 4
    assert all(r.events[-1].outcome == "answered" and (out / r.recording).stat().st_size > 44 for r in records)
    first = {s.protocol: s.messages[0] for s in srv.sessions}
    assert first["openai"]["session"]["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 300
    assert first["gemini"]["setup"]["realtimeInputConfig"]["automaticActivityDetection"]["silenceDurationMs"] == 300
    summaries = json.loads((out / "summary.json").read_text(encoding="utf-8"))["systems"]
    for name in ("rt", "live"):
        onset = summaries[name]["figures"]["server"]["onset_latency"]["p50"]
        assert onset["n"] == 2 and onset["value"] == pytest.approx(0.4, abs=0.05)
        assert summaries[name]["figures"]["server"]["stop_rate"]["statuses"] == {"stopped": 2}
        assert summaries[name]["interruption_reply"]["ja-assistant"]["n"] == 2  # both annotated and scored
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Timelines" in html and html.count("data:image/png") == 8
    capsys.readouterr()
    assert main(["compare", str(out), str(out), "--json"]) == 0  # a run against itself: every difference 0
    compared = json.loads(capsys.readouterr().out)
    assert {c["system_a"] for c in compared["comparisons"]} == {"rt", "live"}
    assert all(f is None or f["mean_diff"] == 0 for c in compared["comparisons"] for f in c["figures"].values())


RT = ["--system", "realtime:openai:m"]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (["--benchmark", "duplex", "--system", "replay:x.jsonl"], "realtime:openai: or live:gemini: sessions only"),
        (["--benchmark", "duplex", *RT, "--scenarios", "pause,chat"], "unknown chat"),
        (["--benchmark", "duplex", *RT, "--turn-detection", "eagerness=soon"], "eagerness='soon'"),
        (["--benchmark", "da", *RT, "--scenarios", "pause"], "--scenarios apply to --benchmark duplex only"),
    ],
)
def test_bad_duplex_options_stop_the_run_before_it_writes(
    tmp_path: Path, given: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *given, "--out", str(tmp_path / "run"), "--quiet"]) != 0
    assert says in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
