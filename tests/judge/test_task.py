"""Reading the content to speak from free-text instructions, and the requirement parser on the same corpus.

``data/instructions_heldout.jsonl``: 150 VStyle-like instructions (60 en, 60 zh, 30 ja) written by a separate
author against a brief, without seeing the parser or the reader, with the expected requirements, content and task
kind. First run (before any fix): the reader 146/150 right, 4 ``unknown``, none wrong; the parser 133/150. The
parser fixes that followed are listed in docs/acoustic-judge.md; the corpus now guards them.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from voxeval.judge import parse_requirements
from voxeval.style._task import read_task, style_text

CORPUS = [json.loads(line) for line in (Path(__file__).parent / "data" / "instructions_heldout.jsonl").open()]


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _expected(row: dict[str, Any]) -> tuple[str, str]:
    kind = row["content_check"]
    return ("exact", _nfkc(row["content"])) if kind in ("exact", "count") else ("open", "")


def test_the_reader_never_reads_a_wrong_content_and_rarely_gives_up() -> None:
    wrong, unknown = [], []
    for row in CORPUS:
        task = read_task(row["instruction"], row["language"])
        got = (task.check, _nfkc(task.content))
        if task.check == "unknown":
            unknown.append(row["id"])
        elif got != _expected(row):
            wrong.append((row["id"], got))
    assert wrong == []  # a wrong content would fail a correct reply: never
    assert len(unknown) <= 5, unknown  # 4 now: unquoted content after a full stop, and lead-ins it does not know


def test_the_parser_reads_every_requirement_of_the_corpus() -> None:
    misses = [
        (row["id"], got)
        for row in CORPUS
        if (got := parse_requirements(style_text(row["instruction"], read_task(row["instruction"], row["language"])),
                                      row["language"])) != row["requirements"]
    ]  # fmt: skip
    assert misses == []


@pytest.mark.parametrize(
    ("instruction", "language", "check", "content", "kind"),
    [
        ("Please say 'I'll be there in five minutes' in a very deep voice.", "en", "exact",
         "I'll be there in five minutes", "quoted"),
        ("Read the following sentence quickly: The train leaves at seven.", "en", "exact",
         "The train leaves at seven.", "after_colon"),
        ("Count backwards from twenty to fifteen.", "en", "exact", "20 19 18 17 16 15", "counting"),
        ("Count from one to ten as slowly as you can.", "en", "exact", "1 2 3 4 5 6 7 8 9 10", "counting"),
        ("Describe what 'serendipity' means, slowly.", "en", "open", "", "open"),
        ("Name five fruits in a high-pitched voice.", "en", "open", "", "listing"),
        ("Say good morning in a deep voice.", "en", "unknown", "", "unknown"),  # not delimited: not guessed
        ("请用非常低沉的声音说：“今天的会议取消了。”", "zh", "exact", "今天的会议取消了。", "quoted"),
        ("用很快的语速从一数到二十。", "zh", "exact", " ".join(str(n) for n in range(1, 21)), "counting"),
        ("请你用老奶奶的声音给我讲一个睡前故事。", "zh", "open", "", "open"),
        ("用很快的语速说今天天气很好", "zh", "unknown", "", "unknown"),
        ("とても小さな声で「おやすみなさい」と言ってください。", "ja", "exact", "おやすみなさい", "quoted"),
        ("1から10まで数えてください、ゆっくりと。", "ja", "exact", "1 2 3 4 5 6 7 8 9 10", "counting"),
        ("Count down to one.", "en", "unknown", "", "unknown"),  # direction without a start: not read as counting
    ],
)  # fmt: skip
def test_read_task(instruction: str, language: str, check: str, content: str, kind: str) -> None:
    task = read_task(instruction, language)
    assert (task.check, task.content, task.kind) == (check, content, kind)


def test_style_words_inside_the_content_are_not_read_as_style() -> None:
    instruction = 'Say "the music is too loud" in a quiet voice.'
    task = read_task(instruction, "en")
    assert task.content == "the music is too loud"
    assert parse_requirements(style_text(instruction, task), "en") == {"volume": "quiet"}
    colon = "Whisper the following: I can't hear you, speak loud!"
    assert parse_requirements(style_text(colon, read_task(colon, "en")), "en") == {"volume": "very_quiet"}


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="no task rules"):
        read_task("hello", "fr")


def test_the_content_span_indexes_the_same_text_style_text_masks() -> None:
    instruction = '  Say "loud noise" quietly.'  # leading blanks: the span must not shift
    assert style_text(instruction, read_task(instruction, "en")).split() == ["Say", "quietly."]
