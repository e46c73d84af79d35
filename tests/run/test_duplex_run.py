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


def test_duplex_run_records_resumes_scores_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOXEVAL_DUPLEX_RUN_KEY", "k")
    out = tmp_path / "run"
    with DuplexMockServer(TurnBehaviour(silence_ms=300, reply_delay_ms=100, reply_s=2.5)) as srv:
        system = f"rt=realtime:openai:mock@{srv.openai_url}?key_env=VOXEVAL_DUPLEX_RUN_KEY"
        args = ["run", "--benchmark", "duplex", "--dataset", "ja-assistant", "--limit", "2", "--system", system]
        args += ["--scenarios", "end_of_turn,interruption", "--tts", "tone-tts", "--out", str(out), "--quiet"]
        args += ["--turn-detection", "silence_duration_ms=300"]
        assert main(args) == 0
        assert srv.count() == 4
        assert main(args) == 0  # resumed: nothing streamed again
        assert srv.count() == 4
    records = [r for _, r in read_records(out / "sessions.jsonl")]
    assert sorted(r.scenario.kind for r in records) == ["end_of_turn"] * 2 + ["interruption"] * 2
    assert all(r.events[-1].outcome == "answered" and (out / r.recording).stat().st_size > 44 for r in records)
    update = srv.sessions[0].messages[0]["session"]["audio"]["input"]["turn_detection"]
    assert update["type"] == "server_vad" and update["silence_duration_ms"] == 300
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["systems"]["rt"]
    onset = summary["figures"]["server"]["onset_latency"]["p50"]
    assert onset["n"] == 2 and onset["value"] == pytest.approx(0.4, abs=0.05)
    assert summary["figures"]["server"]["stop_rate"]["statuses"] == {"stopped": 2}
    assert summary["interruption_reply"]["ja-assistant"]["n"] == 2  # both final replies annotated and scored
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Timelines" in html and html.count("data:image/png") == 4
