"""The Mandarin authoring check (``authoring_lang --language zh``) passes the shipped rows, catches bad ones."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from training.annotator import authoring_lang
from training.annotator.data import ROOT, read_rows
from voxeval.data import resolve_dataset

problems_in = functools.partial(authoring_lang.problems_in, language="zh")
main = functools.partial(authoring_lang.main, language="zh")

ZH_DIR = ROOT / "training" / "data" / "da-replies-zh"
BACKGROUND = next(s.background for s in resolve_dataset("zh-assistant").samples if s.id == "timer-001")


def _row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "zh-t-0001",
        "author": "zh-t",
        "source": "zh-assistant:timer-001",
        "domain": "timer",
        "background": BACKGROUND,
        "input_text": "定个三分钟的计时器。",
        "style": "concise",
        "flaw": None,
        "segments": [{"text": "好的，三分钟计时开始了。", "act": "Commissive", "importance": 1.0}],
    }
    return {**row, **changes}


def _problems(tmp_path: Path, *rows: dict[str, Any]) -> list[str]:
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return problems_in(read_rows([path]))


def test_the_shipped_mandarin_rows_pass() -> None:
    assert main([str(p) for p in sorted(ZH_DIR.glob("*.jsonl"))]) == 0


def test_a_good_row_passes(tmp_path: Path) -> None:
    assert _problems(tmp_path, _row()) == []


def test_bad_rows_are_caught(tmp_path: Path) -> None:
    two = [
        {"text": "好的，", "act": "Commissive", "importance": 0.5},
        {"text": "开始了。", "act": "Inform", "importance": 0.5},
    ]
    cases = {
        "test-split input": _row(source="zh-assistant:alarm-005"),
        "zh-assistant dev input": _row(source="ja-assistant:alarm-002"),
        "differs from zh-assistant:timer-001": _row(input_text="别的话"),
        "not unique": _row(segments=two),
        "does not fit style": _row(style="flawed"),
    }
    # alarm-005 must really be a test-split id for the first case to mean anything
    assert "alarm-005" in {s.id for s in resolve_dataset("zh-assistant").split("test").samples}
    for expected, row in cases.items():
        found = _problems(tmp_path, row)
        assert any(expected in p for p in found), (expected, found)


def test_repeated_and_near_duplicate_replies_are_caught(tmp_path: Path) -> None:
    near = _row(id="zh-t-0002", segments=[{"text": "好的，三分钟计时开始啦。", "act": "Commissive", "importance": 1.0}])
    same = _row(id="zh-t-0003")
    found = _problems(tmp_path, _row(), near, same)
    assert any("nearly repeats" in p for p in found)
    assert any("same reply to the same input appears twice" in p for p in found)
