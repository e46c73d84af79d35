"""A dataset's language (from its rows' ``input.locale``) and the validation rules built-in data must meet."""

from __future__ import annotations

import json

import pytest

from voxeval.data import builtin_path, resolve_dataset
from voxeval.data._validate import validate_file
from voxeval.languages import language_of


def _row(i: int, locale: str = "en-US", weights: tuple[float, ...] = (1.0,)) -> dict:
    spans = [f"Part {k}." for k in range(len(weights))]
    return {
        "id": f"r{i}",
        "scenario_context": {"background": "b"},
        "input": {"role": "USER", "text": "hi", "locale": locale},
        "output": {"role": "ASSISTANT", "text": " ".join(spans)},
        "output_dialogue_acts": {
            "steps": [{"act": "Inform", "importance": w, "span": s} for w, s in zip(weights, spans, strict=True)]
        },
    }


def _write(tmp_path, rows) -> str:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("locale", "code"), [("ja-JP", "ja"), ("en-US", "en"), ("en_GB", "en"), ("zh-CN", "zh"), ("ZH-tw", "zh")]
)
def test_language_of_locale(locale: str, code: str) -> None:
    assert language_of(locale) == code


def test_dataset_language_from_locales(tmp_path) -> None:
    assert resolve_dataset("ja-assistant").language == "ja"
    assert resolve_dataset(_write(tmp_path, [_row(1), _row(2, "en-GB")])).language == "en"
    assert resolve_dataset(_write(tmp_path, [_row(1), _row(2, "zh-CN")])).language == "en+zh"


def test_validate_rejects_a_file_mixing_languages(tmp_path) -> None:
    report = validate_file(_write(tmp_path, [_row(1), _row(2), _row(3, "zh-CN")]))
    assert len(report.errors) == 1 and "mixes languages" in report.errors[0] and "line 3" in report.errors[0]
    assert validate_file(_write(tmp_path, [_row(1), _row(2, "en-GB")])).ok


@pytest.mark.parametrize(
    ("weights", "ok"),
    [((0.5, 0.5), False), ((0.4, 0.4, 0.2), False), ((0.2, 0.4, 0.4), False), ((0.6, 0.4), True), ((1.0,), True)],
)
def test_validate_wants_a_unique_maximum(tmp_path, weights, ok) -> None:
    report = validate_file(_write(tmp_path, [_row(1, weights=weights)]))
    assert report.ok is ok
    if not ok:
        assert "unique maximum" in report.errors[0]


def test_builtin_ja_data_still_validates() -> None:
    for name in ("ja-assistant", "ja-probe", "paper-examples"):
        assert validate_file(builtin_path(name)).ok, name
