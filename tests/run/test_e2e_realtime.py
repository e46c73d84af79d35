"""``voxeval run`` on ``realtime:openai:`` and ``live:gemini:`` systems against the local WebSocket mock.

Inputs are spoken by an instant tone TTS (tests.run.realtime_doubles) and the mock streams instantly, so the runs
cost the pipeline and the report, not synthesis or pacing.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tests.run.realtime_doubles  # registers the tone-tts engine (also imported by name below)
import tests.run.style_doubles  # noqa: F401  (registers the tone judge)
from tests.run.realtime_doubles import gold_by_pcm, high_voice
from voxeval.cli import main
from voxeval.testing.realtime import Pacing, RealtimeMockServer, SessionFaultPlan

SECRET = "sk-test-realtime-DO-NOT-LEAK-77"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)


def da_args(out: Path, limit: int, *systems: str) -> list[str]:
    args = ["run", "--dataset", "ja-assistant", "--limit", str(limit), "--annotator", "gold", "--tts", "tone-tts"]
    args += ["--reply-asr", "pcm-said"]  # the spoken channel is scored (the default), heard by the PCM double
    for system in systems:
        args += ["--system", system]
    return [*args, "--out", str(out), "--quiet", "--no-cache"]


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def specs(srv: RealtimeMockServer, options: str = "concurrency=8") -> tuple[str, str]:
    return (
        f"rt=realtime:openai:gpt-realtime-2@{srv.openai_url}?{options}",
        f"live=live:gemini:gemini-3.8-live@{srv.gemini_url}?{options}",
    )


@pytest.mark.slow  # two runs of 40 samples on two systems, with reports: the "done when", kept whole
def test_da_on_both_apis_completes_and_faults_change_nothing(tmp_path: Path) -> None:
    with RealtimeMockServer(gold_by_pcm, require_key=SECRET) as srv:
        clean = tmp_path / "clean"
        assert main(da_args(clean, 40, *specs(srv))) == 0
        assert srv.count() == 80
    summary = {s["system"]: s for s in json.loads((clean / "summary.json").read_text(encoding="utf-8"))["runs"]}
    assert {name: (s["n"], s["excluded"]) for name, s in summary.items()} == {"rt": (40, 0), "live": (40, 0)}
    replies = rows(clean / "replies.jsonl")
    assert all(r["status"] == "ok" and (clean / r["audio"]).stat().st_size > 44 for r in replies)
    assert all(r["meta"]["input_tokens"] > 0 and r["meta"]["output_tokens"] > 0 for r in replies)
    assert all(r["latency"]["timed_by"] == "system" and r["latency"]["first_audio_s"] >= 0 for r in replies)
    heard = {r["key"]: r for r in rows(clean / "reply_asr.jsonl")}
    assert {k: h["text"] for k, h in heard.items()} == {r["key"]: r["text"] for r in replies}  # both transcripts
    # 10% of sessions closed mid-reply, 5% answered by an error event: retried, nothing lost, same scores.
    plan = SessionFaultPlan(rates={"close_1011": 0.10, "error_event": 0.05}, seed=3)
    with RealtimeMockServer(gold_by_pcm, faults=plan, require_key=SECRET) as srv:
        faulty = tmp_path / "faulty"
        assert main(da_args(faulty, 40, *specs(srv, "concurrency=8&max_retries=6"))) == 0
        faults = [s.fault for s in srv.sessions]
    assert faults.count("close_1011") >= 4 and faults.count("error_event") >= 1
    assert rows(faulty / "scores.jsonl") == rows(clean / "scores.jsonl")
    assert {r["key"]: r["text"] for r in rows(faulty / "replies.jsonl")} == {r["key"]: r["text"] for r in replies}
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), f"API key leaked into {path}"


@pytest.mark.slow  # three processes' start-up
def test_killed_run_resumes_to_identical_scores(tmp_path: Path) -> None:
    with RealtimeMockServer(gold_by_pcm) as srv:
        reference = tmp_path / "reference"
        assert main(da_args(reference, 8, f"rt=realtime:openai:gpt-realtime-2@{srv.openai_url}?concurrency=2")) == 0
    pacing = Pacing(first_delay=0.3, realtime=True)  # 0.6 s per session, four rounds: the kill lands mid-run
    with RealtimeMockServer(gold_by_pcm, pacing=pacing) as srv:
        spec = f"rt=realtime:openai:gpt-realtime-2@{srv.openai_url}?concurrency=2"
        out = tmp_path / "killed"
        code = "import sys, tests.run.realtime_doubles; from voxeval.cli import main; sys.exit(main(sys.argv[1:]))"
        cmd = [sys.executable, "-c", code, *da_args(out, 8, spec)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while srv.count() < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # wait until the reply stage is under way (start-up takes seconds on a loaded machine)
        time.sleep(random.Random(11).uniform(0.1, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        replies = out / "replies.jsonl"
        done_at_kill = len(rows(replies)) if replies.exists() else 0
        assert done_at_kill < 8, "the kill came after the reply stage"
        assert subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, timeout=180).returncode == 0
        sessions = srv.count()
    assert rows(out / "scores.jsonl") == rows(reference / "scores.jsonl")
    keys = [r["key"] for r in rows(out / "replies.jsonl")]
    assert len(keys) == len(set(keys)) == 8
    assert 8 <= sessions <= 8 + 2  # at most the sessions in flight at the kill are repeated


def test_style_benchmark_judges_the_spoken_reply_and_caches_sessions(tmp_path: Path) -> None:
    from voxeval.llm import _cache, set_request_cache

    saved = _cache._request_cache
    set_request_cache(tmp_path / "cache")
    args = ["run", "--benchmark", "style", "--dataset", "acoustic-ja", "--abilities", "pitch", "--limit", "3"]
    args += ["--judge", "tone", "--tts", "tone-tts", "--quiet"]
    try:
        with RealtimeMockServer(high_voice) as srv:
            system = ["--system", f"rt=realtime:openai:gpt-realtime-2@{srv.openai_url}"]
            assert main([*args, *system, "--out", str(tmp_path / "style")]) == 0
            assert srv.count() == 3
            assert main([*args, *system, "--out", str(tmp_path / "again")]) == 0
            assert srv.count() == 3  # a new run with the same sessions is answered from the request cache
    finally:
        _cache._request_cache = saved
    judged = rows(tmp_path / "style" / "judgements.jsonl")
    assert len(judged) == 3
    assert all(r["status"] == "ok" and r["attributes"]["peak_hz"] == pytest.approx(300, abs=3) for r in judged)
    again = {r["key"]: (r["score"], r["attributes"]) for r in rows(tmp_path / "again" / "judgements.jsonl")}
    assert again == {r["key"]: (r["score"], r["attributes"]) for r in judged}
    assert all(r["meta"]["cached"] for r in rows(tmp_path / "again" / "replies.jsonl"))
