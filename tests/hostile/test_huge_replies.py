"""Huge replies: never stored whole, never break a later stage; rows no reader would accept are never written."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from tests.hostile.outcome_doubles import OK_TEXT
from voxeval.annotate import AnnotationInput, annotator_from_spec
from voxeval.cli import main
from voxeval.io import MAX_LINE_BYTES, AppendLog, RowTooLong
from voxeval.run import Stage, Task, run_stage
from voxeval.testing.mockserver import MockServer, sine_wav


class HugeServer(MockServer):
    """Answers every chat request with ~20 MB of text (under the 32 MiB body cap)."""

    def handle(self, request: Any, raw: bytes) -> None:
        self._record("chat", request.path, None, {}, 0)
        body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x" * (20 << 20)}}]}
        request._send(200, json.dumps(body).encode())


def _dataset(root: Path) -> Path:
    (root / "in.wav").write_bytes(sine_wav(0.3))
    rows = [gold_row(f"s{i}", [("Commissive", 1.0)], out=OK_TEXT) for i in range(2)]
    for row in rows:
        row["input"]["audio"] = "in.wav"
    return write_jsonl(root / "set.jsonl", rows)


@pytest.mark.parametrize("system", ["python", "api"])
def test_a_huge_reply_is_oversized_and_score_report_resume_and_retry_keep_working(tmp_path: Path, system: str) -> None:
    data = _dataset(tmp_path)
    out = tmp_path / "run"
    with HugeServer() as server:
        spec = {
            "python": "python:tests.hostile.outcome_doubles:huge",
            "api": f"openai-compat:m@{server.openai_base_url}?max_retries=0",
        }[system]
        args = ["run", "--dataset", str(data), "--system", spec, "--annotator", f"gold:{data}"]
        args += ["--out", str(out), "--quiet", "--no-cache"]
        assert main(args) == 0
        replies = out / "replies.jsonl"
        assert replies.stat().st_size < 16 << 10, "the huge reply was stored"
        rows = [json.loads(x) for x in replies.read_text("utf-8").splitlines()]
        assert {r["id"]: r["outcome"] for r in rows}["s0"] == "oversized"
        summary = json.loads((out / "summary.json").read_text("utf-8"))
        assert "s0" in summary["excluded_ids"] and "oversized" in summary["excluded_ids"]["s0"]
        assert main(["report", str(out)]) == 0
        assert main(args) == 0  # resume: nothing to do
        assert replies.read_text("utf-8").count("\n") == len(rows)
        assert main([*args, "--retry-failed"]) == 0  # asked again, recorded again, still readable
        again = [json.loads(x) for x in replies.read_text("utf-8").splitlines()]
        assert [r["outcome"] for r in again[len(rows) :] if r["id"] == "s0"] == ["oversized"]


def test_a_row_longer_than_a_line_is_never_written(tmp_path: Path) -> None:
    log_path = tmp_path / "log.jsonl"
    with AppendLog(log_path, key="key") as log, pytest.raises(RowTooLong):
        log.append({"key": "a", "raw": "y" * MAX_LINE_BYTES})
    assert not log_path.exists()  # nothing written (the file opens on the first row written)


def test_a_stage_row_longer_than_a_line_is_recorded_as_failed(tmp_path: Path) -> None:
    class Bloated:
        cpu_bound = False

        def setup(self) -> None:
            pass

        async def __call__(self, payload: str) -> list[dict[str, Any]]:
            return [{"key": payload, "status": "ok", "raw": "z" * (2 * MAX_LINE_BYTES)}]

    stage = Stage("bloated", tmp_path / "log.jsonl")
    rows = asyncio.run(run_stage(stage, [Task(("a",), "a", {"id": "a"})], Bloated(), limit=1))
    assert rows["a"]["status"] == "failed" and "RowTooLong" in rows["a"]["error"]
    assert (tmp_path / "log.jsonl").stat().st_size < 8 << 10


def test_reply_meta_that_is_not_json_or_too_big_is_replaced_by_a_note() -> None:
    from voxeval.run._outcomes import recordable_meta

    assert "not JSON" in recordable_meta({"x": object()})["dropped"]
    assert "not JSON" in recordable_meta({"x": float("nan")})["dropped"]
    assert "limit" in recordable_meta({"x": "m" * (1 << 20)})["dropped"]
    assert recordable_meta({"model_version": "v1"}) == {"model_version": "v1"}


def test_the_offline_annotator_does_not_allocate_in_proportion_to_a_hostile_reply() -> None:
    annotator = annotator_from_spec("offline")
    asyncio.run(annotator.annotate(AnnotationInput("こんにちは。", "やあ")))  # load the encoder first
    tracemalloc.start()
    try:
        result = asyncio.run(annotator.annotate(AnnotationInput("あ" * 40_000, "やあ")))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20, f"peak {peak >> 20} MiB for one 40,000-character segment (was 667 MiB)"
    assert result.meta.get("annotated_chars") == 20_000


def test_a_bad_reply_cap_override_stops_the_run_before_it_writes(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("VOXEVAL_MAX_REPLY_BYTES", str(MAX_LINE_BYTES))
    data = _dataset(tmp_path)
    args = ["run", "--dataset", str(data), "--system", "python:tests.run.doubles:silent", "--annotator", "gold"]
    assert main([*args, "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "VOXEVAL_MAX_REPLY_BYTES" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
