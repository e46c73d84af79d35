"""``voxeval judge`` end to end: a fake judge registered here, and the lalm judge against the mock server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from voxeval.cli import main
from voxeval.judge import EachReply, Judgement, StyleItem, judges
from voxeval.llm import _cache, set_request_cache
from voxeval.testing.mockserver import MockServer, sine_wav

FAKE = "fake-test-judge"


class FakeJudge(EachReply):
    """Scores from the item's instruction (``score=N``); ``fail`` in it fails the first time only."""

    concurrency = 2
    calls: ClassVar[list[str]] = []
    failed_once: ClassVar[set[str]] = set()

    def __init__(self, arg: str) -> None:
        self.name = f"{FAKE}:{arg}" if arg else FAKE

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        assert audio.startswith(b"RIFF")
        FakeJudge.calls.append(item.id)
        if "fail" in item.instruction and item.id not in FakeJudge.failed_once:
            FakeJudge.failed_once.add(item.id)
            return Judgement(item.id, item.ability, None, "failed", self.name, raw="???", reason="unparsable")
        if "unmeasurable" in item.instruction:
            return Judgement(item.id, item.ability, None, "not_measured", self.name, reason="no pitch track")
        score = int(item.instruction.split("score=")[1][0])
        return Judgement(item.id, item.ability, score, "ok", self.name, attributes={"speed": {"value": "fast"}})

    def describe(self) -> dict[str, Any]:
        return {"judge": FAKE}


if FAKE not in judges.names():
    judges.register(FAKE)(lambda arg, **options: FakeJudge(arg, **options))


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "cache"))
    saved = _cache._request_cache
    set_request_cache(None)
    FakeJudge.calls, FakeJudge.failed_once = [], set()
    yield
    _cache._request_cache = saved


ROWS = [
    ("a1", "A", "acoustic_attributes/pitch", "score=4 in a deep voice"),
    ("a2", "A", "acoustic_attributes/composite_properties", "score=2 fast and loud"),
    ("a3", "A", "instruction/style", "score=5 fail once"),
    ("a4", "A", "empathy/anger", "unmeasurable"),
    ("b1", "B", "acoustic_attributes/pitch", "score=1 in a deep voice"),
]


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "vstyle"
    (root / "wav").mkdir(parents=True)
    lines = []
    for rid, model, ability, text in ROWS:
        (root / "wav" / f"{rid}.wav").write_bytes(sine_wav(0.05))
        row = {"id": rid, "instruct_id": rid[1], "model_name": model, "ability": ability, "instruct_text": text}
        lines.append(json.dumps({**row, "response_audio_path": f"wav/{rid}.wav"}))
    meta = tmp_path / "meta.jsonl"
    meta.write_text("\n".join(lines) + "\n")
    return meta, root


def judge_cmd(meta: Path, root: Path, out: Path, *extra: str, judge: str = FAKE) -> int:
    return main(["judge", "--judge", judge, "--in", str(meta), "--root", str(root), "--out", str(out), *extra])


def read_rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "judgements.jsonl").read_text().splitlines()]


def test_judge_writes_rows_and_the_weighted_summary(data, tmp_path, capsys) -> None:
    meta, root = data
    out = tmp_path / "out"
    assert judge_cmd(meta, root, out) == 0
    rows = {r["id"]: r for r in read_rows(out)}
    assert set(rows) == {"a1", "a2", "a3", "a4", "b1"}
    assert set(rows["a1"]) == {
        "id",
        "model_name",
        "ability",
        "score",
        "status",
        "attributes",
        "raw",
        "reason",
        "judge",
        "meta",
    }
    assert (rows["a1"]["score"], rows["a1"]["status"], rows["a1"]["model_name"]) == (4, "ok", "A")
    assert (rows["a3"]["status"], rows["a3"]["score"], rows["a3"]["raw"]) == ("failed", None, "???")
    summary = json.loads((out / "summary.json").read_text())
    a = summary["models"]["A"]
    # pitch 4 (weight 1/48) and composite 2 (6/48); instruction failed, empathy not measured → no weight.
    assert a["overall"] == pytest.approx((4 * 1 + 2 * 6) / 7)
    assert a["categories"]["acoustic_attributes"]["mean"] == pytest.approx(16 / 7)
    assert a["categories"]["instruction"]["mean"] is None and a["categories"]["instruction"]["failed"] == 1
    assert (a["n"], a["ok"], a["failed"], a["not_measured"]) == (4, 2, 1, 1) and a["coverage"] == 0.5
    assert summary["models"]["B"]["overall"] == 1.0
    assert summary["counts"] == {"n": 5, "ok": 3, "failed": 1, "not_measured": 1, "coverage": 0.6}
    assert summary["failed"] == [
        {"id": "a3", "model_name": "A", "ability": "instruction/style", "reason": "unparsable"}
    ]
    assert "| A | 2.286 |" in capsys.readouterr().out


def test_rerun_resumes_and_retries_failures_only(data, tmp_path, capsys) -> None:
    meta, root = data
    out = tmp_path / "out"
    assert judge_cmd(meta, root, out) == 0
    assert sorted(FakeJudge.calls) == ["a1", "a2", "a3", "a4", "b1"]
    FakeJudge.calls = []
    assert judge_cmd(meta, root, out) == 0
    assert FakeJudge.calls == ["a3"]
    rows = read_rows(out)
    assert len(rows) == 6 and rows[-1]["id"] == "a3" and rows[-1]["score"] == 5  # the retry supersedes the failure
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == [] and summary["models"]["A"]["categories"]["instruction"]["mean"] == 5.0
    FakeJudge.calls = []
    assert judge_cmd(meta, root, out) == 0 and FakeJudge.calls == []
    assert "judged 0 response(s) (5 already in" in capsys.readouterr().out


def test_limit_judges_the_first_rows(data, tmp_path) -> None:
    meta, root = data
    out = tmp_path / "out"
    assert judge_cmd(meta, root, out, "--limit", "2") == 0
    assert [r["id"] for r in read_rows(out)] in (["a1", "a2"], ["a2", "a1"])
    assert json.loads((out / "summary.json").read_text())["items"] == 2


def test_option_errors_exit_2(data, tmp_path, capsys) -> None:
    meta, root = data
    assert judge_cmd(meta, root, tmp_path / "o1", "--repeats", "3") == 2
    assert "does not take --repeats" in capsys.readouterr().err
    assert judge_cmd(meta, root, tmp_path / "o2", "--limit", "0") == 2
    assert "--limit must be at least 1" in capsys.readouterr().err
    assert judge_cmd(meta, root, tmp_path / "o3", judge="nope") == 2
    assert "unknown style judge 'nope'" in capsys.readouterr().err


def test_another_judge_cannot_resume_an_output_folder(data, tmp_path, capsys) -> None:
    meta, root = data
    out = tmp_path / "out"
    assert judge_cmd(meta, root, out) == 0
    assert judge_cmd(meta, root, out, judge=f"{FAKE}:other") == 2
    assert "use a new --out folder" in capsys.readouterr().err


def test_bad_input_names_file_line_and_field(data, tmp_path, capsys) -> None:
    meta, root = data
    meta.write_text(
        meta.read_text()
        + json.dumps({**json.loads(meta.read_text().splitlines()[0]), "id": "x", "ability": "bad/ability"})
        + "\n"
    )
    assert judge_cmd(meta, root, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert f"{meta}:6, field ability: unknown ability 'bad/ability'" in err


def test_lalm_judge_against_the_mock_with_repeats(data, tmp_path) -> None:
    meta, root = data

    def responder(endpoint: str, body: dict[str, Any]) -> str:
        text = body["messages"][0]["content"][0]["text"]
        if "unmeasurable" in text:
            return "I cannot tell."
        return f"- Pitch: 20 (低)\nFinal score: [[{3 if body.get('seed') is None else 4}]]"

    with MockServer(responder) as srv:
        spec = f"lalm:openai-compat:Qwen/Qwen2.5-Omni-7B@{srv.openai_base_url}?max_retries=0"
        out = tmp_path / "out"
        assert judge_cmd(meta, root, out, "--repeats", "2", judge=spec) == 0
    rows = {r["id"]: r for r in read_rows(out)}
    assert rows["a1"]["score"] == 3 and rows["a1"]["meta"]["scores"] == [3, 4] and rows["a1"]["meta"]["mean"] == 3.5
    assert rows["a1"]["attributes"]["pitch"]["value"] == "low" and rows["a1"]["judge"] == spec
    assert rows["a4"]["status"] == "failed" and rows["a4"]["raw"] == "I cannot tell."
    config = json.loads((out / "config.json").read_text())
    assert config["settings"] == {"judge": spec, "repeats": 2} and config["judge"]["repeats"] == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["failed"] == 1 and summary["models"]["B"]["overall"] == 3.0


def test_acoustic_judge_reads_mp3_and_wav_replies_alike(tmp_path) -> None:
    """VStyle replies may be MP3: the real acoustic judge (Whisper, Praat) measures one clip in both formats alike."""
    import io

    import soundfile as sf

    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    text = "今日は天気が良いので、公園を散歩しましょう。"
    audio = engine_from_spec("pyopenjtalk").synthesize(text, VoiceStyle(rate=1.6))
    root = tmp_path / "vstyle"
    root.mkdir()
    for fmt, subtype, name in (("WAV", "PCM_16", "r.wav"), ("MP3", "MPEG_LAYER_III", "r.mp3")):
        buf = io.BytesIO()
        sf.write(buf, audio.samples, audio.sample_rate, format=fmt, subtype=subtype)
        (root / name).write_bytes(buf.getvalue())
    instruction = f"とても速く、次の文を読んでください：{text}"
    rows = [
        {"id": name, "instruct_id": "1", "model_name": "m", "ability": "acoustic_attributes/speed",
         "instruct_text": instruction, "response_audio_path": name}
        for name in ("r.wav", "r.mp3")
    ]  # fmt: skip
    meta = tmp_path / "meta.jsonl"
    meta.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    assert judge_cmd(meta, root, tmp_path / "out", judge="acoustic") == 0
    got = {r["id"]: r for r in read_rows(tmp_path / "out")}
    wav, mp3 = got["r.wav"], got["r.mp3"]
    assert wav["status"] == mp3["status"] == "ok", (wav["reason"], mp3["reason"])
    # Lossy coding moves frame-level F0 a little (here 2.58 vs 2.46 st of F0 sd); every level and the rubric step
    # agree, and the naturalness classifier rates this HTS voice not natural in both formats (4, never 5).
    assert wav["attributes"]["step"] == mp3["attributes"]["step"]
    assert abs(wav["attributes"]["measurements"]["f0_sd_st"] - mp3["attributes"]["measurements"]["f0_sd_st"]) < 0.3
    assert wav["score"] == mp3["score"] and wav["score"] != 5
    for attribute in ("gender", "speed", "pitch"):
        assert wav["attributes"]["measured"][attribute]["level"] == mp3["attributes"]["measured"][attribute]["level"]
    assert wav["attributes"]["measured"]["speed"]["intensity"] > 55  # faster than the norm (×1.6 set, ~×1.3 heard)


def test_batch_judges_get_every_reply_of_a_model_at_once(data, tmp_path) -> None:
    """A judge with ``judge_batch`` (the acoustic judge) gets a model's replies together, as in ``voxeval run``."""
    from tests.run.style_doubles import BatchToneJudge

    meta, root = data
    BatchToneJudge.batches = []
    assert judge_cmd(meta, root, tmp_path / "out", judge="batchtone") == 0
    assert sorted(BatchToneJudge.batches) == [1, 4]  # model B: one reply, model A: four
    assert {r["id"] for r in read_rows(tmp_path / "out")} == {"a1", "a2", "a3", "a4", "b1"}


def test_report_builds_on_a_judge_output_folder(data, tmp_path, capsys) -> None:
    meta, root = data
    out = tmp_path / "out"
    assert judge_cmd(meta, root, out) == 0
    assert main(["report", str(out)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "voxeval style report" in html and "unparsable" in html
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| A | 2.286 |" in md and "| B | 1.000 |" in md
