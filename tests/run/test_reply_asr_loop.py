"""A reply whose ASR transcript still loops is kept in ``reply_asr.jsonl`` with its symptom, excluded from the
scores with its reason, listed in the report and counted in the spoken-versus-text table."""

from __future__ import annotations

import json
from pathlib import Path

from tests.run.asr_doubles import clip
from voxeval.cli import main
from voxeval.data import builtin_path

GOLD = [json.loads(x) for x in builtin_path("ja-assistant").read_text("utf-8").splitlines()][:2]
LOOP = "3分のタイマーをスタートしました。は" + "ぁ" * 40


def test_a_looped_reply_transcript_is_excluded_listed_and_counted(tmp_path: Path) -> None:
    clean, looping = GOLD
    (tmp_path / "a.wav").write_bytes(clip(clean["output"]["text"], seconds=0.3))
    (tmp_path / "b.wav").write_bytes(clip(LOOP, seconds=0.35))
    rows = [{"id": clean["id"], "audio": "a.wav"}, {"id": looping["id"], "text": "はい。", "audio": "b.wav"}]
    replay = tmp_path / "speech.jsonl"
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--annotator", "gold", "--out", str(out), "--quiet"]
    assert main([*args, "--system", f"replay:{replay}", "--reply-asr", "test-said"]) == 0
    heard = {r["id"]: r for r in map(json.loads, (out / "reply_asr.jsonl").read_text("utf-8").splitlines())}
    assert heard[looping["id"]]["looped"] == "compression" and heard[looping["id"]]["text"] == LOOP
    assert "looped" not in heard[clean["id"]]
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text("utf-8").splitlines()]
    assert [s["id"] for s in scores] == [clean["id"]]  # the looped reply is not scored
    report = (out / "report.md").read_text("utf-8")
    assert f"{looping['id']}: reply looped: reply ASR transcript still loops after recovery (compression)" in report
    channels = report.split("spoken versus text channel")[1]
    assert "| ASR looped |" in channels and channels.split("\n| replay:speech |")[1].split("\n")[0].endswith(" 1 |")
