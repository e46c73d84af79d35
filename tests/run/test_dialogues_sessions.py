"""Dialogues on realtime / live sessions: ONE session per dialogue under ``--history own`` (the mock counts them), a
SIGKILL mid-run resumed to the scores of a clean run, and replay rows keyed by dialogue and turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tests.run.realtime_doubles  # noqa: F401  (registers the tone-tts engine)
from tests.run.dialogue_doubles import by_session
from voxeval.cli import main
from voxeval.data import builtin_path
from voxeval.testing.realtime import Pacing, RealtimeMockServer

ROOT = Path(__file__).resolve().parents[2]
DIALOGUES = 20


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


@pytest.fixture(scope="module")
def dialogues(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = builtin_path("ja-dialogues").read_text("utf-8").splitlines()[:DIALOGUES]
    path = tmp_path_factory.mktemp("data") / "twenty.dialogues.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def args(data: Path, out: Path, spec: str, *extra: str) -> list[str]:
    return [
        "run", "--benchmark", "dialogues", "--dataset", str(data), "--system", spec, "--history", "own",
        "--tts", "tone-tts", "--annotator", "gold:ja-dialogues", "--reply-text", "model", "--reply-asr", "none",
        "--out", str(out), "--quiet", "--no-cache", *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["realtime", "live"])
def test_own_history_keeps_one_session_per_dialogue(kind: str, dialogues: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GEMINI_API_KEY", "g-test")
    with RealtimeMockServer(by_session) as srv:
        url = srv.openai_url if kind == "realtime" else srv.gemini_url
        provider = "openai:gpt-realtime" if kind == "realtime" else "gemini:gemini-live"
        assert main(args(dialogues, tmp_path / "run", f"{kind}:{provider}@{url}?concurrency=4")) == 0
        assert srv.count() == DIALOGUES
        turns_per_session = [sum(m.get("type") == "response.create" or "activityEnd" in str(m) for m in s.messages)
                             for s in srv.sessions]  # fmt: skip
    replies = rows(tmp_path / "run" / "replies.jsonl")
    assert sum(turns_per_session) == len(replies) > 2 * DIALOGUES
    assert all(r["status"] == "ok" for r in replies)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text("utf-8"))
    assert [c["history"] for c in summary["conditions"]] == ["own"]


@pytest.mark.slow  # two processes' start-up
def test_a_killed_own_run_resumes_to_the_scores_of_a_clean_run(dialogues: Path, tmp_path: Path) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    with RealtimeMockServer(by_session) as srv:
        spec = f"realtime:openai:gpt-realtime@{srv.openai_url}?concurrency=2"
        os.environ["OPENAI_API_KEY"] = env["OPENAI_API_KEY"]
        try:
            assert main(args(dialogues, tmp_path / "clean", spec)) == 0
        finally:
            del os.environ["OPENAI_API_KEY"]
    with RealtimeMockServer(by_session, pacing=Pacing(first_delay=0.05, realtime=True)) as srv:
        spec = f"realtime:openai:gpt-realtime@{srv.openai_url}?concurrency=2"
        out = tmp_path / "killed"
        code = "import sys, tests.run.realtime_doubles; from voxeval.cli import main; sys.exit(main(sys.argv[1:]))"
        cmd = [sys.executable, "-c", code, *args(dialogues, out, spec)]
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        replies, deadline = out / "replies.jsonl", time.monotonic() + 120
        while (
            not (replies.exists() and len(rows(replies)) >= 6) and proc.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        at_kill = rows(replies)
        assert 6 <= len(at_kill) < len(rows(tmp_path / "clean" / "replies.jsonl")), "the kill was to land mid-run"
        assert subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, timeout=180).returncode == 0
        sessions = srv.count()
    assert rows(out / "scores.jsonl") == rows(tmp_path / "clean" / "scores.jsonl")
    done = {r["id"].rpartition("/")[0] for r in at_kill}
    assert sessions <= DIALOGUES - len(done) + 2 + len(done)  # whole dialogues: a killed one is redone from turn 1
    keys = [r["key"] for r in rows(replies)]
    assert len(keys) == len(set(keys))


def test_a_replay_missing_a_turn_breaks_its_own_dialogue_and_says_why(dialogues: Path, tmp_path: Path) -> None:
    source = rows(dialogues)[:2]
    replay = []
    for d in source:
        for k, turn in enumerate(t for t in d["turns"] if t["role"] == "ASSISTANT"):
            if not (d is source[0] and k == 1):  # the first dialogue's second turn is missing
                replay.append({"dialogue": d["id"], "turn": k + 1, "text": turn["text"]})
    path = tmp_path / "replay.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in replay), "utf-8")
    data = tmp_path / "two.dialogues.jsonl"
    data.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in source), "utf-8")
    run = tmp_path / "run"
    assert main([*args(data, run, f"replay:{path}")[:-1], "--history", "gold"]) == 0
    got = {(r["system"].rpartition("=")[2], r["id"]): r for r in rows(run / "replies.jsonl")}
    first = source[0]["id"]
    assert "has no reply for id" in got[("gold", f"{first}/2")]["error"]
    assert got[("gold", f"{first}/3")]["status"] == "ok"  # gold: every turn stands alone
    assert got[("own", f"{first}/1")]["status"] == "failed" and "broke at turn 2" in got[("own", f"{first}/1")]["error"]
    assert got[("own", f"{first}/3")]["error"].startswith("not attempted: the dialogue's session broke at turn 2")
    assert all(r["status"] == "ok" for (h, i), r in got.items() if i.startswith(source[1]["id"]))
    assert main(["compare", str(run), str(run)]) == 0


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"dialogue": "d", "turn": 0, "text": "x"}, "turn"),
        ({"dialogue": "d", "turn": "1", "text": "x"}, "turn"),
        ({"dialogue": "", "turn": 1, "text": "x"}, "dialogue"),
        ({"dialogue": "d", "turn": 1, "id": "d/1", "text": "x"}, "id"),
    ],
)
def test_a_bad_dialogue_replay_row_names_its_field(row: dict, field: str, tmp_path: Path) -> None:
    from voxeval.errors import InputError
    from voxeval.systems import system_from_spec

    path = tmp_path / "replay.jsonl"
    path.write_text(json.dumps(row) + "\n", "utf-8")
    with pytest.raises(InputError, match=rf"replay.jsonl:1.*{field}"):
        system_from_spec(f"replay:{path}")
