"""Chaos: a flaky provider and repeated SIGKILLs never change a score, duplicate a row or repeat recorded work."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.run.mock_replies import audio_of, gold_by_audio
from voxeval.cli import main
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer

N = 12


def args(spec: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--dataset",
        "ja-assistant",
        "--limit",
        str(N),
        "--system",
        spec,
        "--annotator",
        "gold",
        "--out",
        str(out),
        "--quiet",
        "--no-cache",
        *extra,
    ]


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def scores(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in rows(out / "scores.jsonl")}


MIXED = (
    Fault("rate_limit", retry_after=0.05),
    Fault("server_error"),
    Fault("unavailable"),
    Fault("truncated"),
    Fault("invalid_json"),
    Fault("empty"),
    Fault("drop"),
    Fault("hang", seconds=1.5),
)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with no faults and no kills. The mock's reply depends only on the input audio and scores are keyed by
    sample id, so both tests compare their runs with this one."""
    with MockServer(gold_by_audio) as srv:
        out = tmp_path_factory.mktemp("clean") / "run"
        assert main(args(f"openai-compat:m@{srv.openai_base_url}", out)) == 0
    return out


def test_twenty_percent_mixed_failures(tmp_path, clean) -> None:
    plan = FaultPlan(rate=0.2, random_faults=MIXED, seed=11)
    with MockServer(gold_by_audio, faults=plan) as srv:
        flaky = tmp_path / "flaky"
        spec = f"openai-compat:m@{srv.openai_base_url}?timeout=1&max_retries=2&concurrency=4"
        assert main(args(spec, flaky)) == 0
        faults = sum(1 for r in srv.requests if r.fault is not None)
    assert faults >= 2, "the plan must actually inject failures"
    replies = {r["id"]: r for r in rows(flaky / "replies.jsonl")}
    assert len(replies) == N and all(r["status"] in ("ok", "failed") for r in replies.values())
    summary = json.loads((flaky / "summary.json").read_text(encoding="utf-8"))
    failed = {i for i, r in replies.items() if r["status"] == "failed"}
    assert set(summary["excluded_ids"]) == failed and summary["n"] == N - len(failed)
    # Every sample that succeeded scored exactly as in the clean run.
    clean_scores, flaky_scores = scores(clean), scores(flaky)
    assert set(flaky_scores) == set(clean_scores) - failed
    assert all(flaky_scores[i] == clean_scores[i] for i in flaky_scores)


def test_ten_sigkills_then_resume(tmp_path, clean) -> None:
    slow = FaultPlan(rate=1.0, random_faults=(Fault("latency", seconds=0.15),))
    with MockServer(gold_by_audio, faults=slow) as srv:
        spec = f"openai-compat:m@{srv.openai_base_url}?concurrency=2"
        out = tmp_path / "killed"
        cmd = [sys.executable, "-m", "voxeval", *args(spec, out)]
        env = {**os.environ, "VOXEVAL_CACHE": str(tmp_path / "cache")}
        rng = random.Random(20261121)
        start = srv.count()
        recorded_before: list[set[str]] = []
        boundaries: list[int] = []
        for _ in range(10):
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.4, 1.4))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            recorded_before.append({r["id"] for r in rows(out / "replies.jsonl")})
            boundaries.append(srv.count())
        assert subprocess.run(cmd, env=env, capture_output=True, timeout=120).returncode == 0
        requests = srv.requests[start:]
    assert scores(out) == scores(clean) and len(scores(out)) == N
    keys = [r["key"] for r in rows(out / "replies.jsonl")]
    assert len(keys) == len(set(keys)) == N, "no duplicate rows"
    for name in ("annotations.jsonl", "inputs.jsonl"):
        assert len({r["key"] for r in rows(out / name)}) == len(rows(out / name))
    # Map each request back to its sample by the audio it carried.
    inputs = {r["id"]: (out / r["audio"]).read_bytes() for r in rows(out / "inputs.jsonl")}
    by_audio = {hashlib.sha256(a).hexdigest(): i for i, a in inputs.items()}
    sample_of = [by_audio[hashlib.sha256(audio_of(r.json)).hexdigest()] for r in requests]
    # A reply recorded before a kill is never requested again after it: recorded work is not repeated.
    for k, recorded in enumerate(recorded_before):
        later = set(sample_of[boundaries[k] - start :])
        assert not (later & recorded), f"kill {k}: recorded samples were requested again: {later & recorded}"
    # Only calls in flight at a kill are repeated: at most `concurrency` per kill.
    assert len(sample_of) - N <= 2 * 10
