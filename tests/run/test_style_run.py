"""``voxeval run --benchmark style`` with test doubles: stages, resume, failures, weighting, report."""

from __future__ import annotations

import json

import tests.run.style_doubles  # noqa: F401  (registers the "tone" judge)
from voxeval.cli import main


def run(out, *systems, extra=()):
    args = [
        "run",
        "--benchmark",
        "style",
        "--dataset",
        "acoustic-ja",
        "--abilities",
        "pitch,speed",
        "--limit",
        "6",
        "--judge",
        "tone",
        "--out",
        str(out),
        "--quiet",
        "--tts",
        "pyopenjtalk",
        *extra,
    ]
    for s in systems:
        args += ["--system", f"python:tests.run.style_doubles:{s}"]
    return main(args)


def test_style_run_separates_systems_and_resumes(tmp_path) -> None:
    out = tmp_path / "style"
    assert run(out, "high_voice", "low_voice", "mute") == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["systems"]
    rows = [json.loads(x) for x in (out / "judgements.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 18
    # 6 items spread over two abilities: 3 pitch (measured) + 3 speed (not measured by this judge).
    high = summary["python:tests.run.style_doubles:high_voice"]
    assert high["ok"] == 3 and high["not_measured"] == 3
    mute = summary["python:tests.run.style_doubles:mute"]
    assert mute["failed"] == 6 and mute["overall"] is None
    assert {r["reason"] for r in rows if r["system"].endswith("mute")} == {"no reply audio"}
    before = (out / "judgements.jsonl").read_bytes()
    assert run(out, "high_voice", "low_voice", "mute") == 0
    assert (out / "judgements.jsonl").read_bytes() == before
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "voxeval style report" in html and "Paired comparisons" in html and "no reply audio" in html
    # Latency is recorded for the style benchmark too (issue 30): per reply, and summarised per system.
    replies = [json.loads(x) for x in (out / "replies.jsonl").read_text(encoding="utf-8").splitlines()]
    high_rows = [r for r in replies if r["system"].endswith("high_voice")]
    assert all(r["latency"]["audio_s"] == 0.5 and r["latency"]["first_audio_s"] is not None for r in high_rows)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| python:tests.run.style_doubles:high_voice | 6 | call |" in md
    assert not (out / "reply_asr.jsonl").exists()  # the style judge hears the audio itself: no reply ASR


def test_batch_judges_see_all_of_a_systems_replies(tmp_path) -> None:
    from tests.run.style_doubles import BatchToneJudge

    out = tmp_path / "batch"
    base = [
        "run",
        "--benchmark",
        "style",
        "--dataset",
        "acoustic-ja",
        "--abilities",
        "pitch",
        "--judge",
        "batchtone",
        "--out",
        str(out),
        "--quiet",
        "--tts",
        "pyopenjtalk",
        "--system",
        "python:tests.run.style_doubles:high_voice",
    ]
    BatchToneJudge.batches.clear()
    assert main([*base, "--limit", "3"]) == 0
    assert main([*base, "--limit", "5"]) == 0  # resume with more items: the batch holds all 5 replies
    assert BatchToneJudge.batches == [3, 5]
    rows = [json.loads(x) for x in (out / "judgements.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len({r["key"] for r in rows}) == 5
