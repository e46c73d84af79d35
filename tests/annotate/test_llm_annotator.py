"""The ``llm`` annotator against a mock server: validation, feedback retries, recorded failures."""

from __future__ import annotations

import asyncio
import json

import pytest

from voxeval.annotate import AnnotationFailed, AnnotationInput, annotator_from_spec
from voxeval.annotate._llm import parse_annotation
from voxeval.testing.mockserver import MockServer

REPLY = "3分のタイマーをセットしました。名前を付けますか？"


def good() -> str:
    return json.dumps(
        {
            "steps": [
                {"act": "Commissive", "importance": 0.7, "span": "3分のタイマーをセットしました。"},
                {"act": "question", "importance": 0.3, "span": "名前を付けますか？"},
            ]
        },
        ensure_ascii=False,
    )


def test_valid_annotation_with_spans() -> None:
    acts, dropped = parse_annotation(good(), REPLY)
    assert [(a.act, a.importance, a.span) for a in acts] == [
        ("Commissive", 0.7, "3分のタイマーをセットしました。"),
        ("Question", 0.3, "名前を付けますか？"),
    ]
    assert dropped == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no json", "not valid JSON"),
        ('{"acts": []}', '"steps" list'),
        ('{"steps": [{"act": "Greeting", "importance": 1}]}', "steps[0].act"),
        ('{"steps": [{"act": "Answer", "importance": -1}]}', "steps[0].importance"),
    ],
)
def test_invalid_annotations(text, message) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_annotation(text, REPLY)


def test_no_steps_is_valid_for_text_without_a_task_act() -> None:
    assert parse_annotation('{"steps": []}', "縺薙ｓ縺ｫ縺｡縺ｯ") == ((), 0)


def test_prompt_v2_has_settled_case_examples_and_v1_is_kept() -> None:
    from voxeval.prompts import load_prompt

    v2 = load_prompt("da/annotate.v2").text
    assert "もう一度言っていただけますか？" in v2 and '{"steps": []}' in v2 and "&lt;" in v2
    assert load_prompt("da/annotate.v1").sha256 != load_prompt("da/annotate.v2").sha256


def test_span_not_in_reply_is_dropped_not_fatal() -> None:
    text = json.dumps({"steps": [{"act": "Commissive", "importance": 1, "span": "存在しない文。"}]})
    acts, dropped = parse_annotation(text, REPLY)
    assert acts[0].span is None and dropped == 1


def test_feedback_retry_then_success_then_recorded_failure() -> None:
    replies = iter(["sorry, here it is: steps?", good(), "bad", "bad again", "still bad"])
    with MockServer(lambda endpoint, request: next(replies)) as srv:
        annotator = annotator_from_spec(f"llm:openai-compat:m@{srv.openai_base_url}")
        result = asyncio.run(annotator.annotate(AnnotationInput(REPLY, "3分タイマー")))
        assert [a.act for a in result.acts] == ["Commissive", "Question"] and result.meta["attempts"] == 2
        second = srv.requests[1].json
        assert second["temperature"] == 0.0
        assert "not valid" in second["messages"][-1]["content"]  # the validation error was fed back
        with pytest.raises(AnnotationFailed) as info:
            asyncio.run(annotator.annotate(AnnotationInput("別の返答です。", "")))
        assert info.value.raw == "still bad" and info.value.attempts == 3
    assert annotator.describe()["prompt_sha256"]
