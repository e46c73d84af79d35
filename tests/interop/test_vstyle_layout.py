"""VStyle's own layout (a language folder with ``metadata*.jsonl``) runs through the style benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import tests.run.style_doubles  # noqa: F401  (registers the "tone" judge)
from voxeval.cli import main
from voxeval.errors import InputError
from voxeval.style import load_style_set

ROWS = [
    {"instruct_text": 'Please say in a very high-pitched voice: "The cat is sleeping on the sofa."',
     "ability": "acoustic_attributes/pitch", "instruct_id": 1, "instruct_audio_path": "p-1.mp3",
     "responses": [{"model_name": "X", "response_audio_path": "p-1-X.mp3", "id": 5, "gemini_score": 3}]},
    {"instruct_text": 'Say in a very low-pitched voice: "Good night, everyone."',
     "ability": "acoustic_attributes/pitch", "instruct_id": 2, "instruct_audio_path": "p-2.mp3", "responses": []},
    {"instruct_text": "I failed my exam today and I feel terrible.", "ability": "empathy/sadness_disappointment",
     "instruct_id": 3, "responses": []},
    {"instruct_text": "Speak like a pirate captain greeting the crew.", "ability": "Role-Playing/character",
     "instruct_id": 4, "responses": []},
]  # fmt: skip
"""VStyle-style instruction rows (written for this test; the published data's keys and ability names)."""


def _folder(tmp_path: Path, rows: list[dict]) -> Path:
    folder = tmp_path / "vstyle" / "en"
    folder.mkdir(parents=True)
    (folder / "metadata_sample.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_vstyle_rows_become_style_items(tmp_path: Path) -> None:
    folder = _folder(tmp_path, ROWS)
    for spec in (str(folder), f"vstyle:{folder}", f"vstyle:{folder / 'metadata_sample.jsonl'}"):
        items = {i.id: i for i in load_style_set(spec).items}
        assert load_style_set(spec).name == "en"
        assert items["1"].requirements == {"pitch": "very_high"} and items["1"].content.startswith("The cat")
        assert items["3"].requirements == {}  # an empathy instruction states no style for the reply
        assert items["4"].ability == "role_play/character"  # the published name, read as the result format's


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"ability": "acoustic_attributes/pitch", "instruct_id": 9}, "instruct_text: missing"),
        ({"instruct_text": "Say it", "ability": "singing/opera", "instruct_id": 9}, "unknown ability"),
        ({**ROWS[1], "instruct_id": 1}, "id '1' already used on line 1"),
    ],
)
def test_a_bad_vstyle_row_is_named(tmp_path: Path, row: dict, message: str) -> None:
    folder = _folder(tmp_path, [ROWS[0], row])
    with pytest.raises(InputError, match=message) as caught:
        load_style_set(str(folder))
    assert "metadata_sample.jsonl:2" in str(caught.value)


def test_a_vstyle_folder_runs_through_the_style_benchmark(tmp_path: Path) -> None:
    folder = _folder(tmp_path, ROWS)
    out = tmp_path / "run"
    args = ["run", "--benchmark", "style", "--dataset", str(folder), "--abilities", "pitch", "--judge", "tone"]
    args += ["--system", "python:tests.run.style_doubles:high_voice", "--out", str(out), "--quiet"]
    assert main(args) == 0
    rows = [json.loads(x) for x in (out / "judgements.jsonl").read_text(encoding="utf-8").splitlines()]
    # The high voice meets the high-pitch instruction and misses the low one.
    assert sorted((r["id"], r["score"]) for r in rows) == [("1", 5), ("2", 2)]
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["datasets"]["en"]["path"] == str((folder / "metadata_sample.jsonl").resolve())
    # The style run's score goes out as an Every Eval Ever record too.
    assert main(["export-results", str(out), "--format", "eee", "--out", str(tmp_path / "eee")]) == 0
    [path] = list((tmp_path / "eee").rglob("*.json"))
    record = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads((Path(__file__).with_name("schemas") / "eee-eval-0.2.0.schema.json").read_text("utf-8"))
    jsonschema.Draft7Validator(schema).validate(record)
    [result] = record["evaluation_results"]
    assert result["evaluation_name"] == "en vstyle" and result["score_details"]["score"] == pytest.approx(3.5)
