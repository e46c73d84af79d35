"""The annotator's authored training data: every row valid, the validator's rules, the fixed split."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from training.annotator.data import AUTHORED_DIR, held_out_ids, load_authored, split_of, to_gold, validate_row

ROW = {
    "id": "t-0001",
    "author": "t",
    "source": None,
    "domain": "timer",
    "background": "キッチンにいる。",
    "input_text": "3分測って",
    "style": "chatty",
    "flaw": None,
    "segments": [
        {"text": "了解です！", "act": "Commissive", "importance": 0.1},
        {"text": "3分のタイマーをスタートしました。", "act": "Commissive", "importance": 0.9, "split_ok": True},
        {"text": "美味しく出来上がるといいですね。", "act": None},
    ],
}


def test_every_authored_row_is_valid_and_there_are_enough() -> None:
    replies = load_authored()  # raises listing every problem
    assert len(replies) >= 1000
    assert {r.style for r in replies} == {"concise", "chatty", "flawed"}
    assert len({r.author for r in replies}) >= 3
    tests = held_out_ids()
    assert not any(r.group.split(":", 1)[-1] in tests for r in replies if r.group.startswith("ja-assistant:"))


def test_a_valid_row_converts_to_exact_spans() -> None:
    assert validate_row(ROW) == []
    gold = to_gold(ROW).sample
    assert gold.output_text == "了解です！3分のタイマーをスタートしました。美味しく出来上がるといいですね。"
    assert [(s.act, s.span) for s in gold.acts] == [
        ("Commissive", "了解です！"),
        ("Commissive", "3分のタイマーをスタートしました。"),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["segments"][0].update(importance=0.2), "sum to"),
        (lambda r: r["segments"][0].update(importance=0.45) or r["segments"][1].update(importance=0.55), None),
        (lambda r: r["segments"][0].update(importance=0.5) or r["segments"][1].update(importance=0.5), "not unique"),
        (lambda r: r["segments"][0].update(importance=0.105) or r["segments"][1].update(importance=0.895), "decimals"),
        (lambda r: r["segments"][1].pop("split_ok"), "without split_ok"),
        (lambda r: r["segments"][0].update(act="Greeting"), "not a label"),
        (lambda r: r["segments"][2].update(importance=0.0), "no act"),
        (lambda r: r.update(style="flawed"), "does not fit"),
        (lambda r: r.update(flaw="off_topic"), "does not fit"),
        (lambda r: r.update(source="ja-assistant:timer-004"), "not a ja-assistant dev input"),
        (
            lambda r: (
                [s.update(act=None) for s in r["segments"]] and [s.pop("importance", None) for s in r["segments"]]
            ),
            "only a flawed",
        ),
    ],
)
def test_validator_rules(change, message) -> None:  # type: ignore[no-untyped-def]
    row = copy.deepcopy(ROW)
    change(row)
    problems = validate_row(row, frozenset({"timer-004"}))
    if message is None:
        assert problems == []
    else:
        assert any(message in p for p in problems), problems


FIRST_AUTHORS = frozenset({"a1", "a2", "a3"})
"""Authors whose rows were split by the hash alone; later authors (training/data/AUTHORING.md) wrote train rows
only (``python -m training.annotator.authoring`` refuses others), so the validation split stayed as it was."""


def test_split_is_stable_about_a_fifth_and_keeps_an_inputs_replies_together() -> None:
    assert split_of("ja-assistant:timer-001") == split_of("ja-assistant:timer-001")
    keys = Counter(split_of(f"key-{k}") for k in range(20_000))
    assert 0.19 < keys["validation"] / 20_000 < 0.21
    replies = load_authored()
    shares = Counter(r.split for r in replies if r.author in FIRST_AUTHORS)
    assert 0.13 < shares["validation"] / sum(shares.values()) < 0.27
    assert all(r.split == "train" for r in replies if r.author not in FIRST_AUTHORS)
    validation_replies = {r.sample.output_text for r in replies if r.split == "validation"}
    assert not any(r.sample.output_text in validation_replies for r in replies if r.split == "train")
    by_group: dict[str, set[str]] = {}
    for r in replies:
        by_group.setdefault(r.group, set()).add(r.split)
    assert all(len(splits) == 1 for splits in by_group.values())
    assert AUTHORED_DIR.is_dir()


def test_the_authoring_check_keeps_new_rows_out_of_the_validation_split(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from training.annotator.authoring import main, problems_of
    from training.annotator.data import all_replies

    ids = [f"t-{k:04d}" for k in range(200)]
    train_id = next(i for i in ids if split_of(i) == "train")
    validation_id = next(i for i in ids if split_of(i) == "validation")
    validation = next(r.sample for r in all_replies() if r.split == "validation")
    validation_input = validation.input_text
    echo = [{"text": validation.output_text, "act": "Inform", "importance": 1.0}]
    shipped_id = load_authored()[0].sample.id
    rows = [
        {**ROW, "id": train_id, "input_text": "3分だけ測ってくれる？"},
        {**ROW, "id": validation_id, "input_text": "5分だけ測ってくれる？"},
        {**ROW, "id": next(i for i in ids if split_of(i) == "train" and i != train_id), "input_text": validation_input},
        {**ROW, "id": shipped_id, "input_text": "7分だけ測ってくれる？"} if split_of(shipped_id) == "train" else None,
        {**ROW, "id": train_id, "input_text": "9分だけ測ってくれる？"},
        {**ROW, "id": "t-9999", "input_text": "11分だけ測ってくれる？", "segments": echo},
    ]
    path = tmp_path / "t-01.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows if r), encoding="utf-8")
    found = problems_of([path])
    assert not any(":1 " in p for p in found), found  # the clean row
    assert any(":2 " in p and "validation split" in p for p in found)
    assert any(":3 " in p and "input of the validation split" in p for p in found)
    assert any("duplicate id" in p for p in found)
    assert any("t-9999" in p and "word for word" in p for p in found)
    assert main([str(path)]) == 1
    assert "problems" in capsys.readouterr().out
    clean = tmp_path / "t-02.jsonl"
    clean.write_text(json.dumps(rows[0], ensure_ascii=False) + "\n", encoding="utf-8")
    assert problems_of([clean]) == [] and main([str(clean)]) == 0


def test_the_pending_rows_pass_the_authoring_check() -> None:
    from training.annotator.authoring import problems_of
    from training.annotator.conformance import check, replies_in

    paths = sorted((AUTHORED_DIR.parent / "da-replies-pending").glob("*.jsonl"))
    assert len(paths) == 24
    assert problems_of(paths) == []
    assert [f for r in replies_in(paths) for f in check(r)] == []
    assert len(load_authored(AUTHORED_DIR.parent / "da-replies-pending")) == 2394


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"id": "t-1"}\n{"id": \n', ":2: invalid JSON"),
        (b'["not", "an", "object"]\n', ":1: each line must be a JSON object, got list"),
        (b'{"id": "\xff"}\n', ":1: not valid UTF-8"),
    ],
)
def test_the_authoring_check_names_the_file_and_line_it_cannot_read(tmp_path, capsys, content, message) -> None:  # type: ignore[no-untyped-def]
    from training.annotator.authoring import main

    path = tmp_path / "t-01.jsonl"
    path.write_bytes(content)
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
