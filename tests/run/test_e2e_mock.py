"""``voxeval run`` against local mock providers: faults, garbage, kill-and-resume, cache, secrets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.run.mock_replies import gold_by_audio
from voxeval.cli import main
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer

SECRET = "sk-test-DO-NOT-LEAK-4f1c9a"
LIMIT = 8


def run_args(spec: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--dataset",
        "ja-assistant",
        "--limit",
        str(LIMIT),
        "--system",
        spec,
        "--annotator",
        "gold",
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]


def final_rows(out: Path) -> dict[str, dict]:
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r for r in rows}


def assert_no_secret(out: Path) -> None:
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"API key leaked into {path}"


@pytest.fixture(scope="module")
def clean_scores(tmp_path_factory) -> dict[str, dict]:
    """The scores of a clean run (no faults, no kills). The mock's reply depends only on the input audio and the
    scores are keyed by sample id, so every test of the module compares its run with this one run."""
    with MockServer(gold_by_audio) as srv:
        out = tmp_path_factory.mktemp("clean") / "run"
        assert main(run_args(f"openai-compat:qwen-omni@{srv.openai_base_url}", out)) == 0
    return final_rows(out)


@pytest.fixture
def env_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)


def test_openai_and_gemini_success_then_cache_hits(tmp_path, env_key, clean_scores) -> None:
    with MockServer(gold_by_audio, require_key=SECRET) as srv:
        for spec in (
            f"openai:gpt-4o-audio-preview@{srv.openai_base_url}",
            f"gemini:gemini-2.5-flash@{srv.gemini_base_url}",
        ):
            out = tmp_path / spec.split(":")[0]
            before = srv.count()
            assert main(run_args(spec, out)) == 0
            assert srv.count() - before == LIMIT
            summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
            assert summary["n"] == LIMIT and summary["excluded"] == 0
            assert final_rows(out) == clean_scores
            assert_no_secret(out)
            # A new run directory with identical calls is served from the request cache: no new requests.
            again = tmp_path / (out.name + "-again")
            assert main(run_args(spec, again)) == 0
            assert srv.count() - before == LIMIT
            assert final_rows(again) == final_rows(out)
            # --no-cache calls the provider again.
            assert main(run_args(spec, tmp_path / (out.name + "-nocache"), "--no-cache")) == 0
            assert srv.count() - before == 2 * LIMIT
        # The request really carried the audio and the Appendix B prompts.
        first = srv.requests[0].json
        assert first["messages"][0] == {"role": "system", "content": "あなたは親切な日本語音声対話アシスタントです。"}
        assert first["messages"][1]["content"][1]["type"] == "input_audio"


def test_faults_are_retried_and_unrecoverable_samples_listed(tmp_path, env_key, clean_scores) -> None:
    plan = FaultPlan.sequence(
        Fault("rate_limit", retry_after=0.1),
        Fault("server_error"),
        Fault("truncated"),
        Fault("invalid_json"),
        Fault("hang", seconds=2.0),
        Fault("drop"),
        Fault("unavailable"),
    )
    with MockServer(gold_by_audio, faults=plan) as srv:
        spec = f"openai-compat:qwen-omni@{srv.openai_base_url}?timeout=1&max_retries=8&concurrency=2"
        out = tmp_path / "faulty"
        assert main(run_args(spec, out)) == 0
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        # Every fault was transient: all samples scored, none excluded.
        assert summary["n"] == LIMIT and summary["excluded"] == 0
        assert srv.count() == LIMIT + 7  # empty content is an empty reply, not a fault (tests/hostile)
    assert final_rows(out) == clean_scores  # the faults changed nothing in the results


def test_permanent_failure_is_recorded_not_scored(tmp_path, env_key) -> None:
    always_500 = FaultPlan(rate=1.0, random_faults=(Fault("server_error"),))
    with MockServer(gold_by_audio, faults=always_500):
        pass
    with MockServer(gold_by_audio, faults=always_500) as srv:
        out = tmp_path / "down"
        assert main(run_args(f"openai-compat:m@{srv.openai_base_url}?max_retries=1", out)) == 0
    replies = [json.loads(x) for x in (out / "replies.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["status"] for r in replies} == {"failed"} and all("server" in r["error"] for r in replies)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["n"] == 0 and summary["excluded"] == LIMIT and summary["wed_mean"] is None


def test_kill_and_resume_matches_uninterrupted_run(tmp_path, env_key, clean_scores) -> None:
    # One kill, mid reply stage (after two replies are recorded): tests/hostile/test_chaos.py kills ten times at
    # random moments against an OpenAI-compatible server; this is the same contract for the OpenAI provider.
    slow = FaultPlan(rate=1.0, random_faults=(Fault("latency", seconds=0.25),))
    with MockServer(gold_by_audio, faults=slow) as srv:
        spec = f"openai:gpt-4o-audio-preview@{srv.openai_base_url}?concurrency=2"
        out = tmp_path / "killed"
        env = {**os.environ, "VOXEVAL_CACHE": str(tmp_path / "cache")}
        cmd = [sys.executable, "-m", "voxeval", *run_args(spec, out, "--no-cache")]
        before, replies, recorded = srv.count(), out / "replies.jsonl", 0
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while recorded < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
            recorded = len(replies.read_text(encoding="utf-8").splitlines()) if replies.exists() else 0
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        at_kill = len(replies.read_text(encoding="utf-8").splitlines()) if replies.exists() else 0
        assert 2 <= at_kill < LIMIT, f"the kill was to land mid reply stage, with {at_kill} of {LIMIT} replies"
        assert subprocess.run(cmd, env=env, capture_output=True, timeout=120).returncode == 0
        calls_resumed = srv.count() - before
    assert final_rows(out) == clean_scores
    keys = [json.loads(x)["key"] for x in replies.read_text(encoding="utf-8").splitlines()]
    assert len(keys) == len(set(keys)) == LIMIT
    # Work in flight when killed is redone, at most `concurrency` requests; nothing else repeats.
    assert LIMIT <= calls_resumed <= LIMIT + 2
