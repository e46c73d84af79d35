"""Dataset synthesis: output rows, content-addressed cache, limit, checkpoints, errors naming rows, the pool."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import gold_row, write_jsonl
from tests.speech.helpers import parse_header
from voxeval.data import resolve_dataset
from voxeval.errors import ConfigError, InputError
from voxeval.speech._synthesize import audio_key, synthesize_dataset
from voxeval.speech.tts import VoiceStyle

STEPS = [("Inform", 1.0)]
TEXTS = ["はい。", "いいえ。", "こんにちは。", "はい。"]  # the last repeats the first: one shared file


def _dataset(tmp_path: Path, texts: list[str]) -> Path:
    rows = [gold_row(f"r{i}", STEPS, inp=text) for i, text in enumerate(texts, start=1)]
    rows[0]["extra_field"] = {"kept": True}
    return write_jsonl(tmp_path / "in.jsonl", rows)


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]


def test_rows_are_written_with_audio_and_synthesis(tmp_path) -> None:
    out = tmp_path / "out"
    report = synthesize_dataset(resolve_dataset(_dataset(tmp_path, TEXTS)), "pyopenjtalk", out, workers=1)
    assert (report.rows, report.rendered, report.cached) == (4, 3, 0)
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["r1", "r2", "r3", "r4"] and rows[0]["extra_field"] == {"kept": True}
    assert rows[0]["input"]["audio"] == rows[3]["input"]["audio"] != rows[1]["input"]["audio"]
    for row in rows:
        audio = out / row["input"]["audio"]
        data = audio.read_bytes()
        synthesis = row["input"]["synthesis"]
        assert row["input"]["audio"].startswith("audio/") and audio.suffix == ".wav"
        assert synthesis["sha256"] == hashlib.sha256(data).hexdigest()
        assert synthesis["duration_s"] == pytest.approx((len(data) - 44) / 48000)
        assert parse_header(data).sample_rate == 24000
        assert synthesis["engine"] == "pyopenjtalk" and synthesis["voice"] == "mei_normal"
        assert synthesis["settings"]["rate"] == 1.0 and synthesis["settings"]["engine_version"]
    assert sorted(p.name for p in (out / "audio").iterdir()) == sorted({Path(r["input"]["audio"]).name for r in rows})
    assert report.rendered_audio_s > 0 and report.real_time_factor is not None


def test_a_rerun_renders_nothing_and_a_new_style_renders_again(tmp_path) -> None:
    dataset = resolve_dataset(_dataset(tmp_path, TEXTS[:2]))
    out = tmp_path / "out"
    first = synthesize_dataset(dataset, "pyopenjtalk", out, workers=1)
    before = (out / "dataset.jsonl").read_bytes()
    second = synthesize_dataset(dataset, "pyopenjtalk", out, workers=1)
    assert (first.rendered, second.rendered, second.cached) == (2, 0, 2)
    assert (out / "dataset.jsonl").read_bytes() == before
    louder = synthesize_dataset(dataset, "pyopenjtalk", out, workers=1, style=VoiceStyle(gain_db=-3))
    assert (louder.rendered, louder.cached) == (2, 0)


def test_a_damaged_cached_file_is_rendered_again(tmp_path) -> None:
    dataset = resolve_dataset(_dataset(tmp_path, TEXTS[:1]))
    out = tmp_path / "out"
    synthesize_dataset(dataset, "pyopenjtalk", out, workers=1)
    (wav,) = (out / "audio").iterdir()
    good = wav.read_bytes()
    wav.write_bytes(good[: len(good) // 2])
    assert synthesize_dataset(dataset, "pyopenjtalk", out, workers=1).rendered == 1
    assert wav.read_bytes() == good


def test_limit_takes_the_first_rows(tmp_path) -> None:
    out = tmp_path / "out"
    report = synthesize_dataset(resolve_dataset(_dataset(tmp_path, TEXTS)), "pyopenjtalk", out, limit=2, workers=1)
    assert report.rows == 2 and [r["id"] for r in _rows(out)] == ["r1", "r2"]
    with pytest.raises(ConfigError, match="--limit"):
        synthesize_dataset(resolve_dataset(_dataset(tmp_path, TEXTS)), "pyopenjtalk", out, limit=0)


def test_a_row_without_speech_is_named_and_earlier_rows_are_kept(tmp_path) -> None:
    out = tmp_path / "out"
    dataset = resolve_dataset(_dataset(tmp_path, ["はい。", "いいえ。", "。", "こんにちは。"]))
    with pytest.raises(InputError) as caught:
        synthesize_dataset(dataset, "pyopenjtalk", out, workers=1, checkpoint_every=1)
    assert caught.value.where.line == 3 and caught.value.where.field == "input.text"
    assert "row 'r3'" in caught.value.message and "engine produced no speech" in caught.value.message
    assert [r["id"] for r in _rows(out)] == ["r1", "r2"]
    assert len(list((out / "audio").iterdir())) == 2


def test_the_process_pool_gives_the_same_files_as_one_process(tmp_path) -> None:
    dataset = resolve_dataset(_dataset(tmp_path, TEXTS))
    serial = synthesize_dataset(dataset, "pyopenjtalk", tmp_path / "a", workers=1)
    pooled = synthesize_dataset(dataset, "pyopenjtalk", tmp_path / "b", workers=2)
    assert (serial.rendered, pooled.rendered) == (3, 3)
    assert (tmp_path / "a" / "dataset.jsonl").read_bytes() == (tmp_path / "b" / "dataset.jsonl").read_bytes()
    for wav in (tmp_path / "a" / "audio").iterdir():
        assert wav.read_bytes() == (tmp_path / "b" / "audio" / wav.name).read_bytes()


def test_a_style_the_engine_refuses_is_a_config_error_from_the_pool(tmp_path) -> None:
    dataset = resolve_dataset(_dataset(tmp_path, TEXTS[:2]))
    with pytest.raises(ConfigError, match="no voice 'ghost'"):
        synthesize_dataset(dataset, "pyopenjtalk", tmp_path / "o", workers=2, style=VoiceStyle(voice="ghost"))


def test_the_key_covers_text_engine_and_style() -> None:
    engine = {"engine": "e", "version": "1", "voice": "v", "settings": {}}
    base = audio_key("はい", engine, VoiceStyle())
    assert base == audio_key("はい", dict(engine), VoiceStyle())
    assert (
        len(
            {
                base,
                audio_key("いいえ", engine, VoiceStyle()),
                audio_key("はい", {**engine, "version": "2"}, VoiceStyle()),
                audio_key("はい", engine, VoiceStyle(rate=1.1)),
            }
        )
        == 4
    )
