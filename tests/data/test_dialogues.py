"""Dialogue sets (issue 41): the schema's refusals, the validator and CLI on dialogue files, the built-in sets."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from voxeval.cli import main
from voxeval.data import PHENOMENA, builtin_path, load_dialogues, parse_dialogue, parse_gold, turn_samples
from voxeval.data._dialogue_check import dialogue_stats, validate_dialogue_file
from voxeval.errors import InputError, Location


def _reply(text: str, act: str, context: str, *tags: str) -> dict[str, Any]:
    steps = [{"act": act, "importance": 1.0, "span": text}]
    return {"role": "ASSISTANT", "text": text, "context": context, "phenomena": list(tags),
            "output_dialogue_acts": {"steps": steps}}  # fmt: skip


GOOD: dict[str, Any] = {
    "id": "d-1",
    "locale": "ja-JP",
    "domain": "alarm",
    "scenario_context": {"background": "夜、寝室でアラームを頼んでいる。"},
    "turns": [
        {"role": "USER", "text": "7時に起こして"},
        _reply("明日の朝7時でよろしいですか？", "Check-Question", "free"),
        {"role": "USER", "text": "うん"},
        _reply("明日の朝7時にアラームをセットしました。", "Commissive", "needed", "confirmation"),
    ],
}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation setting ``turns.1.context``-style dotted path (``del`` removes the key)."""

    def mutate(row: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        obj: Any = row
        for key in parents:
            obj = obj[int(key)] if isinstance(obj, list) else obj[key]
        if value == "del":
            del obj[int(last) if isinstance(obj, list) else last]
        else:
            obj[int(last) if isinstance(obj, list) else last] = value

    return mutate


def _drop_last_turn(row: dict[str, Any]) -> None:
    row["turns"].pop()


def _swap_first_turns(row: dict[str, Any]) -> None:
    row["turns"][0], row["turns"][1] = row["turns"][1], row["turns"][0]


def _one_exchange(row: dict[str, Any]) -> None:
    del row["turns"][2:]


def _six_exchanges(row: dict[str, Any]) -> None:
    extra = [{"role": "USER", "text": "ありがとう"}, _reply("どういたしまして。", "Commissive", "free")]
    row["turns"] += extra * 4


REFUSALS = [
    ("missing turn", _drop_last_turn, "turns[3]", "missing turn"),
    ("turns out of order", _swap_first_turns, "turns[0].role", "out of order"),
    ("two user turns in a row", _set("turns.1.role", "USER"), "turns[1].role", "out of order"),
    ("assistant without reference", _set("turns.3.output_dialogue_acts", "del"), "turns[3].output_dialogue_acts.steps",
     "needs its reference"),
    ("empty steps", _set("turns.3.output_dialogue_acts.steps", []), "turns[3].output_dialogue_acts.steps", "empty"),
    ("bad context", _set("turns.3.context", "maybe"), "turns[3].context", "'needed' or 'free'"),
    ("missing context", _set("turns.3.context", "del"), "turns[3].context", "'needed' or 'free'"),
    ("first reply needs context", _set("turns.1.context", "needed"), "turns[1].context", "first reply"),
    ("unknown phenomenon", _set("turns.3.phenomena", ["sarcasm"]), "turns[3].phenomena", "unknown phenomenon"),
    ("phenomena not a list", _set("turns.3.phenomena", "confirmation"), "turns[3].phenomena", "list of tags"),
    ("context tag on a free turn", _set("turns.3.context", "free"), "turns[3].phenomena", "must be 'needed'"),
    ("confirmation without a check", _set("turns.1.output_dialogue_acts.steps.0.act", "Question"),
     "turns[3].phenomena", "no Check-Question"),
    ("topic change needing context", _set("turns.3.phenomena", ["topic_change"]), "turns[3].phenomena", "'free'"),
    ("one user turn", _one_exchange, "turns", "1 user turns"),
    ("six user turns", _six_exchanges, "turns", "6 user turns"),
    ("turns missing", _set("turns", "del"), "turns", "missing"),
    ("turn not an object", _set("turns.2", "うん"), "turns[2]", "must be an object"),
    ("empty user text", _set("turns.2.text", " "), "turns[2].text", "non-empty"),
    ("missing assistant text", _set("turns.1.text", "del"), "turns[1].text", "missing"),
    ("NUL in audio path", _set("turns.0.audio", "a\x00.wav"), "turns[0].audio", "NUL"),
    ("missing locale", _set("locale", "del"), "locale", "missing"),
    ("missing background", _set("scenario_context", {}), "scenario_context.background", "missing"),
    ("missing id", _set("id", "del"), "id", "missing"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "mutate", "field", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_bad_dialogue_is_refused_naming_file_line_and_field(case, mutate, field, message) -> None:
    row = copy.deepcopy(GOOD)
    mutate(row)
    with pytest.raises(InputError) as caught:
        parse_dialogue(row, Location("dlg.jsonl", 7))
    assert caught.value.where.field == field, case
    assert str(caught.value).startswith(f"dlg.jsonl:7, field {field}: ") and message in str(caught.value), case


def test_good_dialogue_parses_into_exchanges_and_turn_samples() -> None:
    dialogue = parse_dialogue(copy.deepcopy(GOOD), Location("dlg.jsonl", 1))
    assert [u.text for u, _ in dialogue.exchanges] == ["7時に起こして", "うん"]
    assert [r.context for _, r in dialogue.exchanges] == ["free", "needed"]
    assert dialogue.phenomena == {"confirmation"} and dialogue.language == "ja"
    samples = turn_samples(dialogue)
    assert [(s.id, s.input_text) for s in samples] == [("d-1/1", "7時に起こして"), ("d-1/2", "うん")]
    # A turn sample is a valid single-turn row, so single-turn checks read it unchanged.
    assert parse_gold(samples[1].raw, Location()).acts == samples[1].acts


def test_single_turn_reader_names_a_dialogue_row() -> None:
    with pytest.raises(InputError, match="a dialogue row"):
        parse_gold(copy.deepcopy(GOOD), Location("x.jsonl", 1))


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_validator_lists_every_problem_and_cli_exits_1(tmp_path, capsys) -> None:
    bad_span = copy.deepcopy(GOOD) | {"id": "d-2"}
    bad_span["turns"][3]["output_dialogue_acts"]["steps"][0]["span"] = "セットしませんでした。"
    english = copy.deepcopy(GOOD) | {"id": "d-3", "locale": "en-US"}
    rows = [GOOD, GOOD, bad_span, english, {"id": "d-4", "turns": []}]
    path = _write(tmp_path / "d.jsonl", rows)
    errors = validate_dialogue_file(path).errors
    assert any(":2, field id: duplicate id 'd-1'" in e for e in errors)
    assert any(":3, field turns[3].output_dialogue_acts.steps[0].span" in e for e in errors)
    assert any("mixes languages" in e for e in errors)
    assert any(":5, field locale: missing" in e for e in errors)
    assert main(["dataset", "validate", str(path)]) == 1
    assert "problem(s)" in capsys.readouterr().out


def test_cli_validate_stats_and_export_on_a_dialogue_file(tmp_path, capsys) -> None:
    path = _write(tmp_path / "d.jsonl", [GOOD | {"split": "dev"}])
    assert main(["dataset", "validate", str(path), "--require-spans"]) == 0
    assert "1 dialogues valid" in capsys.readouterr().out
    assert main(["dataset", "stats", str(path)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["kind"] == "dialogues" and stats["assistant_turns"] == 2 and stats["context_needed_share"] == 0.5
    assert stats["phenomena_dialogues"]["confirmation"] == 1
    assert main(["dataset", "export", str(path), "--out", str(tmp_path / "out.jsonl"), "--split", "dev"]) == 0
    assert load_dialogues(tmp_path / "out.jsonl") == load_dialogues(path)
    assert main(["dataset", "stats", str(path), "--split", "test"]) == 2


BUILTIN = [("ja-dialogues", "ja", 150), ("en-dialogues", "en", 100), ("zh-dialogues", "zh", 100)]


@pytest.mark.parametrize(("name", "language", "least"), BUILTIN)
def test_builtin_dialogue_set_counts_and_coverage(name: str, language: str, least: int) -> None:
    report = validate_dialogue_file(builtin_path(name), require_spans=True)
    assert report.ok, report.errors[:5]
    stats = dialogue_stats(report.dialogues)
    assert stats["dialogues"] >= least and stats["assistant_turns"] >= 500
    assert stats["languages"] == {language: stats["dialogues"]}
    assert set(stats["user_turns_per_dialogue"]) <= {2, 3, 4, 5}
    for phenomenon in PHENOMENA:  # each covered on purpose, in at least 5% of the dialogues
        assert stats["phenomena_dialogues"][phenomenon] >= 0.05 * stats["dialogues"], phenomenon
    assert 0.3 < stats["context_needed_share"] < 0.9
    replies = [r.text for d in report.dialogues for _, r in d.exchanges]
    assert len({json.dumps([u.text for u, _ in d.exchanges]) for d in report.dialogues}) == stats["dialogues"]
    assert len(set(replies)) > 0.5 * len(replies)


def test_japanese_dialogue_replies_conform_to_the_settled_cases() -> None:
    from training.annotator.conformance import check, reply_from_row

    path = builtin_path("ja-dialogues")
    findings = [
        str(f)
        for d in load_dialogues(path)
        for s in turn_samples(d)
        for f in check(reply_from_row(path, d.line or 0, s.raw))
    ]
    assert findings == []
