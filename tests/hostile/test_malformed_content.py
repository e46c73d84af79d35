"""A response of the wrong shape is ``bad_response`` (issue 31, group 14): retried, then a failure that is excluded
and listed, never an empty reply scored WLCS 0 / WED 1.

``content: null`` or ``""`` still is an empty reply (``tests/hostile/test_providers.py``); what changes is content,
messages, candidates and parts that are present but of a shape no provider documents.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from tests.hostile.raw_server import BodyServer, gemini_body, no_wait_model, openai_body
from voxeval.cli import main
from voxeval.llm import ChatMessage, ChatRequest, ProviderError
from voxeval.llm.chat._gemini import parse_gemini
from voxeval.llm.chat._openai import parse_openai_chat

ASK = ChatRequest(messages=(ChatMessage("user", "hi"),), max_tokens=16)

OPENAI_MESSAGES: list[tuple[str, Any]] = [
    ("content-object", {"role": "assistant", "content": {"text": "x"}}),
    ("content-number", {"role": "assistant", "content": 5}),
    ("content-true", {"role": "assistant", "content": True}),
    ("parts-of-strings", {"role": "assistant", "content": ["x"]}),
    ("part-text-not-a-string", {"role": "assistant", "content": [{"type": "text", "text": {"value": "x"}}]}),
    ("message-a-string", "hello"),
    ("message-a-list", [{"content": "x"}]),
    ("audio-a-string", {"role": "assistant", "content": None, "audio": "UklGRg=="}),
]
GEMINI_CONTENTS: list[tuple[str, Any]] = [
    ("content-a-string", "x"),
    ("parts-an-object", {"parts": {"text": "x"}}),
    ("parts-of-strings", {"parts": ["x"]}),
    ("part-text-an-object", {"parts": [{"text": {"value": "x"}}]}),
    ("part-text-a-number", {"parts": [{"text": 3}]}),
]


@pytest.mark.parametrize("message", [m for _, m in OPENAI_MESSAGES], ids=[n for n, _ in OPENAI_MESSAGES])
def test_openai_content_of_an_unknown_shape_is_a_retryable_bad_response(message: Any) -> None:
    with pytest.raises(ProviderError) as info:
        parse_openai_chat(openai_body(message))
    assert info.value.kind == "bad_response" and info.value.retryable


@pytest.mark.parametrize("content", [c for _, c in GEMINI_CONTENTS], ids=[n for n, _ in GEMINI_CONTENTS])
def test_gemini_content_of_an_unknown_shape_is_a_retryable_bad_response(content: Any) -> None:
    with pytest.raises(ProviderError) as info:
        parse_gemini(gemini_body(content))
    assert info.value.kind == "bad_response" and info.value.retryable


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "refusal_note"}, {"text": "b"}]},
        {"role": "assistant", "content": None, "audio": None},
    ],
    ids=["parts-with-a-non-text-part", "null-audio"],
)
def test_documented_shapes_still_parse(message: Any) -> None:
    assert parse_openai_chat(openai_body(message)).text in ("ab", "")


@pytest.mark.parametrize("provider", ["openai-compat", "gemini"])
def test_a_malformed_answer_is_retried_then_raised(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    body = openai_body({"content": {"text": "x"}}) if provider != "gemini" else gemini_body({"parts": [{"text": 1}]})
    with BodyServer(lambda: body) as srv:
        base = srv.openai_base_url if provider != "gemini" else srv.gemini_base_url
        model = no_wait_model(f"{provider}:m@{base}?max_retries=2")
        with pytest.raises(ProviderError) as info:
            asyncio.run(model.complete(ASK))
        assert srv.calls == 3, "asked once and retried twice"
    assert info.value.kind == "bad_response"


def test_a_run_excludes_malformed_replies_instead_of_scoring_them_empty(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    write_jsonl(tmp_path / "set.jsonl", [gold_row("a", [("Answer", 1.0)])])
    out = tmp_path / "run"
    with BodyServer(lambda: openai_body({"role": "assistant", "content": {"text": "x"}})) as srv:
        system = f"mine=openai-compat:m@{srv.openai_base_url}?max_retries=1"
        args = ["run", "--dataset", str(tmp_path / "set.jsonl"), "--system", system]
        assert main([*args, "--annotator", "gold:paper-examples", "--out", str(out), "--quiet"]) == 0
        assert srv.calls == 2
    [reply] = [json.loads(x) for x in (out / "replies.jsonl").read_text().splitlines()]
    assert (reply["status"], reply["outcome"]) == ("failed", "failed") and "bad_response" in reply["error"]
    assert not (out / "scores.jsonl").exists() or not (out / "scores.jsonl").read_text().strip()
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| set | mine | 0 |" in md and "excluded from the means" in md
