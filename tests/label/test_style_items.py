"""A style run directory's items show the instruction and requested attributes of the style set the run recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from voxeval.errors import InputError
from voxeval.label import Study
from voxeval.label._items import load_run_items


@pytest.fixture(scope="module")
def style_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two pitch items of ``acoustic-ja`` answered by a test double, instructions spoken by the instant tone engine."""
    # registers the instant tone-tts engine and the "tone" judge
    import tests.run.realtime_doubles
    import tests.run.style_doubles  # noqa: F401
    from voxeval.cli import main

    out = tmp_path_factory.mktemp("style-items") / "run"
    args = ["run", "--benchmark", "style", "--dataset", "acoustic-ja", "--abilities", "pitch", "--limit", "2"]
    args += ["--judge", "tone", "--tts", "tone-tts", "--system", "python:tests.run.style_doubles:high_voice"]
    from voxeval.report import _plots as plots

    with pytest.MonkeyPatch.context() as patch:  # the report's figures are not what is tested here: skip drawing
        patch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
        assert main([*args, "--out", str(out), "--quiet"]) == 0
    return out


def _copy(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    return copy


def _edit_json(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_style_items_carry_the_recorded_instruction_and_attributes(
    style_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxeval.style._sets import load_style_set

    by_id = {i.id: i for i in load_style_set("acoustic-ja").items}
    monkeypatch.chdir(tmp_path)  # the recorded set is found from any working directory
    items = load_run_items(style_run, "style")
    assert len(items) == 2
    for item in items:
        assert item.instruction == by_id[item.id].instruction and item.instruction
        assert item.attributes == by_id[item.id].requirements and "pitch" in item.attributes
        assert item.reply_audio and item.input_audio
    shown = Study(style_run, items, "style", "ann").state()["item"]
    assert shown["instruction"] == by_id[shown["id"]].instruction
    assert shown["attributes"] == by_id[shown["id"]].requirements
    assert load_run_items(style_run, "da")  # the same replies' text, for dialogue acts, needs no style set


def _wrong_sha(config: dict[str, Any]) -> None:
    config["datasets"]["acoustic-ja"]["sha256"] = "0" * 64


def _moved_set(config: dict[str, Any]) -> None:
    config["settings"]["datasets"] = ["gone/acoustic-ja.jsonl"]
    config["datasets"]["acoustic-ja"]["path"] = "gone/acoustic-ja.jsonl"


def _no_record(config: dict[str, Any]) -> None:
    del config["datasets"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_wrong_sha, r"config\.json, field datasets\.acoustic-ja: .*changed since the run"),
        (_moved_set, r"config\.json, field datasets\.acoustic-ja: gone/acoustic-ja\.jsonl not found"),
        (_no_record, r"config\.json, field datasets: must record one"),
    ],
)
def test_a_style_set_that_cannot_be_found_as_recorded_is_refused(
    style_run: Path, tmp_path: Path, change: Any, message: str
) -> None:
    run = _copy(style_run, tmp_path)
    _edit_json(run / "config.json", change)
    with pytest.raises(InputError, match=message):
        load_run_items(run, "style")


def test_a_reply_to_an_item_outside_the_recorded_set_is_refused(style_run: Path, tmp_path: Path) -> None:
    run = _copy(style_run, tmp_path)
    rows = [json.loads(line) for line in (run / "replies.jsonl").read_text(encoding="utf-8").splitlines()]
    rows[0]["key"] = rows[0]["key"].replace(rows[0]["id"], "ja-pitch-999")
    rows[0]["id"] = "ja-pitch-999"
    (run / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"replies\.jsonl.*'acoustic-ja/ja-pitch-999' is not an item of the style"):
        load_run_items(run, "style")
