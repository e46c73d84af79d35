"""What was said and how fast, end to end: reply audio transcribed by a test-double ASR, ``--reply-text``,
latency per reply, and the report, terminal table and ``compare`` sections built from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.run.asr_doubles import clip
from voxeval.cli import main
from voxeval.data import builtin_path

GOLD = {json.loads(x)["id"]: json.loads(x) for x in builtin_path("ja-assistant").read_text("utf-8").splitlines()}
IDS = list(GOLD)[:4]
NOT_GOLD = "これは金の返事ではありません"
"""What the second reply's audio says (its text is the gold reply): no gold reply, so the gold annotator refuses it."""


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def gold_text(sample_id: str) -> str:
    return str(GOLD[sample_id]["output"]["text"])


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four replies: speech only; text with audio saying something else; text only; text with audio that is no WAV."""
    folder = tmp_path_factory.mktemp("replay")
    a, b, c, d = IDS
    (folder / "a.wav").write_bytes(clip(gold_text(a)))
    (folder / "b.wav").write_bytes(clip(NOT_GOLD, seconds=0.25))
    (folder / "d.wav").write_bytes(b"RIFF not really a wav file")
    rows = [
        {"id": a, "audio": "a.wav"},
        {"id": b, "text": gold_text(b), "audio": "b.wav"},
        {"id": c, "text": gold_text(c)},
        {"id": d, "text": gold_text(d), "audio": "d.wav"},
    ]
    path = folder / "speech.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run(out: Path, *systems: str, extra: tuple[str, ...] = ()) -> int:
    args = ["run", "--dataset", "ja-assistant", "--limit", "4", "--annotator", "gold", "--out", str(out), "--quiet"]
    for system in systems:
        args += ["--system", system]
    return main([*args, *extra])


@pytest.fixture(scope="module")
def runs(replay: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same systems annotated on speech and on model text (one run each)."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("runs")
    systems = (f"replay:{replay}", "python:tests.run.doubles:speak_gold")
    printed = {}
    for mode in ("speech", "model"):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            code = run(root / mode, *systems, extra=("--reply-text", mode, "--reply-asr", "test-said"))
        assert code == 0
        printed[mode] = stdout.getvalue()
    return {"root": root, "printed": printed}


def scores(out: Path, system: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in lines(out / "scores.jsonl") if r["system"] == system}


def test_speech_is_annotated_and_a_speech_only_system_is_scored(runs: dict[str, Any]) -> None:
    out = runs["root"] / "speech"
    a, b, c, d = IDS
    replayed = scores(out, "replay:speech")
    assert replayed[a]["wed"] == 0.0  # speech only: heard through the reply ASR, scored
    assert replayed[c]["wed"] == 0.0  # no audio: its text is scored
    assert b not in replayed and d not in replayed  # excluded: what was said is no gold reply; the ASR failed
    notes = {r["id"]: r for r in lines(out / "annotations.jsonl") if r["system"] == "replay:speech"}
    assert notes[b]["status"] == "failed" and notes[b]["raw"] == NOT_GOLD  # the spoken channel was annotated
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    replay_summary = next(r for r in summary["runs"] if r["system"] == "replay:speech")
    assert replay_summary["n"] == 2
    assert f"{d}: reply failed: reply ASR: Error: not a WAVE file" in (out / "report.md").read_text(encoding="utf-8")
    spoken = scores(out, "python:tests.run.doubles:speak_gold")
    assert [spoken[i]["wed"] for i in IDS] == [0.0] * 4  # a python: callable returning only WAV bytes


def test_model_text_is_annotated_with_reply_text_model(runs: dict[str, Any]) -> None:
    out = runs["root"] / "model"
    a, b, c, d = IDS
    replayed = scores(out, "replay:speech")
    assert replayed[a]["wed"] == 1.0  # speech only, and the model channel is empty: an empty prediction
    assert [replayed[i]["wed"] for i in (b, c, d)] == [0.0] * 3  # the model's text, whatever the audio says


def test_reply_rows_keep_audio_model_text_and_latency(runs: dict[str, Any]) -> None:
    out = runs["root"] / "speech"
    rows = {r["id"]: r for r in lines(out / "replies.jsonl") if r["system"] == "replay:speech"}
    a, b, c, d = IDS
    assert rows[b]["text"] == gold_text(b) and rows[a]["text"] == ""  # the log keeps the model's own text
    assert rows[a]["latency"]["audio_s"] == 0.5 and rows[b]["latency"]["audio_s"] == 0.25
    assert rows[c]["latency"]["audio_s"] is None and rows[c]["latency"]["first_audio_s"] is None
    assert rows[d]["latency"]["audio_s"] is None and rows[d]["latency"]["first_audio_s"] is not None  # undecodable
    for row in rows.values():
        latency = row["latency"]
        assert latency["timed_by"] == "call" and latency["total_s"] >= 0
        assert latency["first_text_s"] == (latency["total_s"] if row["text"] else None)
    assert rows[a]["latency"]["rtf"] == pytest.approx(rows[a]["latency"]["total_s"] / 0.5, abs=1e-3)
    heard = {r["id"]: r for r in lines(out / "reply_asr.jsonl") if r["system"] == "replay:speech"}
    assert sorted(heard) == sorted([a, b, d]) and heard[b]["text"] == NOT_GOLD and heard[d]["status"] == "failed"


def test_config_records_the_reply_channel_and_engine(runs: dict[str, Any]) -> None:
    speech = json.loads((runs["root"] / "speech" / "config.json").read_text(encoding="utf-8"))
    model = json.loads((runs["root"] / "model" / "config.json").read_text(encoding="utf-8"))
    assert speech["settings"]["extra"]["reply"] == {"text": "speech", "asr": "test-said"}
    assert model["settings"]["extra"]["reply"] == {"text": "model", "asr": "test-said"}
    assert speech["components"]["reply_asr"] == {"asr": "test-said"}
    assert speech["fingerprint"] != model["fingerprint"]


def test_resuming_with_another_reply_channel_is_refused(runs: dict[str, Any], replay: Path, capsys) -> None:
    out = runs["root"] / "speech"
    before = (out / "replies.jsonl").read_bytes()
    assert run(out, f"replay:{replay}", "python:tests.run.doubles:speak_gold", extra=("--reply-text", "model")) == 2
    err = capsys.readouterr().err
    assert "different settings" in err and "--reply-text speech --reply-asr test-said" in err
    assert (out / "replies.jsonl").read_bytes() == before


def test_reports_show_latency_and_the_two_channels(runs: dict[str, Any]) -> None:
    out = runs["root"] / "speech"
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Table 1 (latency): time to reply per system" in report
    latency = report.split("## Table 1 (latency)")[1].split("\n\n")[1]
    assert "| replay:speech | 4 | call |" in latency and "| python:tests.run.doubles:speak_gold | 4 | call |" in latency
    channels = report.split("## What was said: spoken versus text channel")[1]
    # The replay has one pair (b: text and audio disagree), one speech-only reply (a); d's ASR failed.
    assert "| replay:speech | 1 | 1 | 1.300 [1.300, 1.300] | 1 (100%) | 1 (100%) |" in channels
    assert NOT_GOLD in channels and "(--reply-text speech)" in channels
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Table 1 (latency)" in html and "spoken versus text channel" in html
    assert "Table 1 (latency): time to reply per system" in runs["printed"]["speech"]
    csv_rows = (out / "tables.csv").read_text(encoding="utf-8").splitlines()
    assert any(r.startswith("latency,replay:speech,4,call,") for r in csv_rows)


def test_compare_shows_latency_between_runs(runs: dict[str, Any], capsys) -> None:
    root = runs["root"]
    assert main(["compare", str(root / "speech"), str(root / "model"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    pair = next(c for c in result["comparisons"] if c["a"] == "replay:speech")
    total = pair["latency"]["total_s"]
    assert total["paired_n"] == 4 and total["median_a"] is not None and len(total["ci"]) == 2
    assert pair["latency"]["first_audio_s"]["paired_n"] == 3  # the replies with audio: a, b and d
    assert main(["compare", str(root / "speech"), str(root / "model")]) == 0
    assert "## Latency (seconds from the end of the input" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--reply-text", "speech", "--reply-asr", "none"), "needs a --reply-asr"),
        (("--reply-asr", "no-such-engine"), "unknown ASR engine 'no-such-engine'"),
        (("--benchmark", "style", "--reply-text", "model"), "apply to --benchmark da"),
    ],
)
def test_bad_reply_options_stop_before_anything_is_written(tmp_path, capsys, extra, message) -> None:
    out = tmp_path / "run"
    assert run(out, "python:tests.run.doubles:silent", extra=extra) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_reply_asr_worker_travels_to_cpu_workers_as_its_spec() -> None:
    """The stage runs on the CPU executor (a process pool or Ray pickles the worker): the engine is rebuilt there."""
    import pickle

    from tests.run.asr_doubles import SaidASR
    from voxeval.run._reply_asr import ReplyASRWorker

    worker = ReplyASRWorker("test-said", SaidASR())
    copy = pickle.loads(pickle.dumps(worker))
    assert worker.cpu_bound and copy.cpu_bound and copy.engine is None
    copy.setup()
    assert isinstance(copy.engine, SaidASR)


def test_an_openai_model_speaking_is_annotated_on_what_it_said(tmp_path, monkeypatch) -> None:
    """``openai:…?audio_out=1`` against the mock: its transcript is some gold reply, but its audio (the mock's
    sine clip, for every reply) is heard as the first sample's gold reply: what is annotated is what was heard."""
    import hashlib

    from tests.run.asr_doubles import SAID
    from tests.run.mock_replies import gold_by_audio
    from voxeval.testing.mockserver import MockServer, sine_wav

    first, second = IDS[:2]
    SAID[hashlib.sha256(sine_wav(0.2)).hexdigest()] = gold_text(first)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-speech")
    out = tmp_path / "run"
    with MockServer(gold_by_audio) as srv:
        spec = f"openai:gpt-4o-audio-preview@{srv.openai_base_url}?audio_out=1"
        args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--system", spec, "--annotator", "gold"]
        assert main([*args, "--reply-asr", "test-said", "--out", str(out), "--quiet", "--no-cache"]) == 0
    replies = {r["id"]: r for r in lines(out / "replies.jsonl")}
    assert all(replies[i]["text"] != gold_text(first) and replies[i]["latency"]["audio_s"] == 0.2 for i in IDS[:2])
    got = {r["id"]: r["wed"] for r in lines(out / "scores.jsonl")}
    assert got[first] == 0.0 and got[second] > 0.0  # both annotated as the first gold reply: what was heard
    channels = (out / "report.md").read_text(encoding="utf-8").split("spoken versus text channel")[1]
    assert "| 2 | 0 |" in channels and "2 (100%)" in channels  # two pairs, none speech only, both differ


def test_a_run_killed_before_its_reply_asr_resumes_without_asking_again(runs, replay, tmp_path, capsys) -> None:
    """Replies whose audio was not transcribed yet are listed as pending, and a resumed run transcribes them
    without calling the systems again; the scores equal the uninterrupted run's."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(runs["root"] / "speech", out)
    (out / "reply_asr.jsonl").unlink()
    assert main(["report", str(out)]) == 0
    assert "reply pending: reply audio not transcribed yet (resume the run" in (out / "report.md").read_text("utf-8")
    replies = (out / "replies.jsonl").read_bytes()
    systems = (f"replay:{replay}", "python:tests.run.doubles:speak_gold")
    assert run(out, *systems, extra=("--reply-asr", "test-said")) == 0
    assert (out / "replies.jsonl").read_bytes() == replies
    assert scores(out, "replay:speech") == scores(runs["root"] / "speech", "replay:speech")
    capsys.readouterr()
