"""VStyle's metadata format: rows into StyleItems, language detection, and errors naming file, line and field."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from voxeval.errors import InputError
from voxeval.judge import detect_language, read_response_audio, read_vstyle
from voxeval.testing.mockserver import sine_wav


def row(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "r1",
        "instruct_id": "i1",
        "model_name": "sys-a",
        "ability": "acoustic_attributes/speed",
        "instruct_text": "用非常快的语速说“你好”",
        "response_audio_path": "audio/r1.wav",
    }
    return {k: v for k, v in {**base, **fields}.items() if v is not ...}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "audio").mkdir(parents=True)
    (data / "audio" / "r1.wav").write_bytes(sine_wav(0.1))
    (data / "audio" / "r2.mp3").write_bytes(b"ID3\x04fake mp3")
    return data


def write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows))
    return path


def test_rows_become_style_items(root: Path, tmp_path: Path) -> None:
    meta = write(
        tmp_path / "meta.jsonl",
        [
            row(),
            row(
                id=2,
                instruct_id=7,
                model_name="sys-b",
                ability="role_play/character",
                instruct_text="Speak like an old man, slowly.",
                response_audio_path="audio/r2.mp3",
                response_text="Well, back in my day...",
            ),
        ],
    )
    first, second = read_vstyle(meta, root)
    assert first.id == "r1" and first.language == "zh" and first.requirements == {"speed": "very_fast"}
    assert (first.ability, first.category, first.sub_ability) == (
        "acoustic_attributes/speed",
        "acoustic_attributes",
        "speed",
    )
    assert first.model_name == "sys-a" and first.instruct_id == "i1" and first.response_audio == "audio/r1.wav"
    assert first.response_text is None and (first.content, first.content_check) == ("你好", "exact")
    assert second.id == "2" and second.instruct_id == "7" and second.language == "en"
    assert second.requirements == {"gender": "male", "age": "elderly", "speed": "slow"}
    assert second.response_text == "Well, back in my day..."
    assert read_response_audio(first, root) == sine_wav(0.1)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("とても大きな声で言って", "ja"),
        ("カタカナだけ", "ja"),
        ("用非常快的语速说", "zh"),
        ("大声", "zh"),  # ideographs without kana
        ("Say it slowly", "en"),
        ("", "en"),
        ("Café, très lentement", "en"),
    ],
)
def test_language_from_script(text: str, language: str) -> None:
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"id": ...}, "id", "missing"),
        ({"id": True}, "id", "non-empty string"),
        ({"model_name": ...}, "model_name", "missing"),
        ({"ability": "acoustic_attributes/timbre"}, "ability", "unknown ability"),
        ({"ability": "pitch"}, "ability", "unknown ability"),
        ({"instruct_text": ""}, "instruct_text", "non-empty string"),
        ({"instruct_text": 3}, "instruct_text", "non-empty string"),
        ({"response_audio_path": ...}, "response_audio_path", "missing"),
        ({"response_audio_path": "audio/r1.flac"}, "response_audio_path", ".wav or .mp3"),
        ({"response_audio_path": "audio/none.wav"}, "response_audio_path", "not found"),
        ({"response_audio_path": "../secret.wav"}, "response_audio_path", "leaves the dataset folder"),
        ({"response_audio_path": "/etc/passwd.wav"}, "response_audio_path", "absolute paths"),
        ({"response_text": 5}, "response_text", "string or null"),
    ],
)
def test_errors_name_file_line_and_field(root: Path, tmp_path: Path, fields: dict, field: str, message: str) -> None:
    (tmp_path / "secret.wav").write_bytes(b"RIFF")
    meta = write(tmp_path / "meta.jsonl", [row(id="ok", response_audio_path="audio/r1.wav"), row(**fields)])
    with pytest.raises(InputError, match=message) as info:
        read_vstyle(meta, root)
    assert (info.value.where.path, info.value.where.line, info.value.where.field) == (str(meta), 2, field)


def test_symlink_out_of_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.wav"
    outside.write_bytes(sine_wav(0.1))
    os.symlink(outside, root / "audio" / "link.wav")
    meta = write(tmp_path / "meta.jsonl", [row(response_audio_path="audio/link.wav")])
    with pytest.raises(InputError, match="leaves the dataset folder"):
        read_vstyle(meta, root)


def test_repeated_id_names_both_lines(root: Path, tmp_path: Path) -> None:
    meta = write(tmp_path / "meta.jsonl", [row(), "", row(model_name="sys-b")])
    with pytest.raises(InputError, match="already used on line 1") as info:
        read_vstyle(meta, root)
    assert info.value.where.line == 3


def test_invalid_json_names_the_line(root: Path, tmp_path: Path) -> None:
    meta = write(tmp_path / "meta.jsonl", [row(), "{not json"])
    with pytest.raises(InputError, match="invalid JSON") as info:
        read_vstyle(meta, root)
    assert info.value.where.line == 2


def test_every_vstyle_ability_is_accepted(root: Path, tmp_path: Path) -> None:
    from voxeval.judge import ABILITIES

    meta = write(tmp_path / "meta.jsonl", [row(id=f"r{i}", ability=a) for i, a in enumerate(ABILITIES)])
    assert [item.ability for item in read_vstyle(meta, root)] == list(ABILITIES)


def test_empathy_instructions_state_no_style(root: Path, tmp_path: Path) -> None:
    text = "I am feeling very sad today, can you comfort me?"
    meta = write(tmp_path / "meta.jsonl", [row(ability="empathy/sadness_disappointment", instruct_text=text)])
    (only,) = read_vstyle(meta, root)
    assert only.requirements == {} and only.language == "en"
