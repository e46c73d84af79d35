"""Response parsers on bodies shaped like the providers' real answers."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from voxeval.llm import ChatResponse, ProviderError, Usage, parse_gemini, parse_openai_chat

OPENAI_TEXT: dict[str, Any] = {
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion",
    "created": 1741569952,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Hello! How can I help?", "refusal": None, "annotations": []},
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
    "service_tier": "default",
    "system_fingerprint": "fp_44709d6fcb",
}


def openai_audio(content: str | None, transcript: str = "Is a golden retriever a good family dog?") -> dict[str, Any]:
    return {
        "id": "chatcmpl-AFhmB4Q1eZq3",
        "object": "chat.completion",
        "model": "gpt-4o-audio-preview-2024-12-17",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    "audio": {
                        "id": "audio_abc123",
                        "expires_at": 1729018505,
                        "data": base64.b64encode(b"RIFFwav").decode(),
                        "transcript": transcript,
                    },
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 17, "completion_tokens": 97, "total_tokens": 114},
    }


GEMINI: dict[str, Any] = {
    "candidates": [
        {
            "content": {"parts": [{"text": "こんにちは。"}, {"text": "元気です。"}], "role": "model"},
            "finishReason": "STOP",
            "avgLogprobs": -0.05,
        }
    ],
    "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 6, "totalTokenCount": 14},
    "modelVersion": "gemini-2.0-flash-001",
    "responseId": "abc",
}


def test_openai_text() -> None:
    assert parse_openai_chat(OPENAI_TEXT) == ChatResponse(
        "Hello! How can I help?", None, "gpt-4o-2024-08-06", Usage(19, 10), "stop"
    )


def test_openai_audio_with_null_content_takes_the_transcript() -> None:
    parsed = parse_openai_chat(openai_audio(None))
    assert parsed.text == "Is a golden retriever a good family dog?"
    assert parsed.audio == b"RIFFwav"
    assert parsed.usage == Usage(17, 97)
    assert parsed.model_version == "gpt-4o-audio-preview-2024-12-17"


def test_openai_content_wins_over_transcript() -> None:
    assert parse_openai_chat(openai_audio("typed text")).text == "typed text"


def test_openai_audio_without_transcript_is_still_usable() -> None:
    parsed = parse_openai_chat(openai_audio(None, transcript=""))
    assert (parsed.text, parsed.audio) == ("", b"RIFFwav")


def test_openai_content_parts_from_compatible_servers() -> None:
    body = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}
    parsed = parse_openai_chat(body)
    assert (parsed.text, parsed.usage, parsed.model_version, parsed.finish_reason) == (
        "ab",
        Usage(None, None),
        None,
        None,
    )


@pytest.mark.parametrize("body", [{"choices": []}, {}, {"choices": [None]}])
def test_openai_without_choices_is_a_retryable_bad_response_with_the_body(body: dict[str, Any]) -> None:
    with pytest.raises(ProviderError) as info:
        parse_openai_chat(body)
    assert info.value.kind == "bad_response" and info.value.retryable
    assert "no choices in response: {" in str(info.value)


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None},
        {"role": "assistant", "content": "  \n"},
        None,
    ],
)
def test_openai_null_or_empty_content_is_an_empty_reply_not_a_failure(message: Any) -> None:
    parsed = parse_openai_chat({"choices": [{"message": message, "finish_reason": "stop"}]})
    assert parsed.text.strip() == "" and parsed.audio is None and parsed.finish_reason == "stop"


def test_openai_length_with_empty_content_is_truncated_and_not_retried() -> None:
    body = {
        "choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "length"}],
        "usage": {"completion_tokens": 512, "completion_tokens_details": {"reasoning_tokens": 512}},
    }
    with pytest.raises(ProviderError, match="512 completion tokens, 512 of them reasoning") as info:
        parse_openai_chat(body)
    assert info.value.kind == "truncated" and not info.value.retryable
    assert "max_tokens" in str(info.value)


def test_openai_length_with_some_text_is_kept_with_its_finish_reason() -> None:
    body = {"choices": [{"message": {"content": "partial ans"}, "finish_reason": "length"}]}
    assert parse_openai_chat(body).finish_reason == "length"


def test_openai_content_filter_is_refused_and_not_retried() -> None:
    body = {"choices": [{"message": {"content": None}, "finish_reason": "content_filter"}]}
    with pytest.raises(ProviderError, match="content filter") as info:
        parse_openai_chat(body)
    assert info.value.kind == "refused" and not info.value.retryable


def test_openai_replacement_characters_are_undecodable() -> None:
    body = {"choices": [{"message": {"content": "\u3053\ufffd\ufffd"}, "finish_reason": "stop"}]}
    with pytest.raises(ProviderError) as info:
        parse_openai_chat(body)
    assert info.value.kind == "undecodable" and not info.value.retryable


def test_openai_refusal_is_not_retried() -> None:
    body = {"choices": [{"message": {"content": None, "refusal": "I can't help with that."}}]}
    with pytest.raises(ProviderError, match="refused") as info:
        parse_openai_chat(body)
    assert not info.value.retryable


def test_openai_broken_audio_is_a_bad_response() -> None:
    body = openai_audio(None)
    body["choices"][0]["message"]["audio"]["data"] = "not base64!!"
    with pytest.raises(ProviderError) as info:
        parse_openai_chat(body)
    assert info.value.kind == "undecodable"


def test_gemini_text_parts_are_joined() -> None:
    assert parse_gemini(GEMINI) == ChatResponse(
        "こんにちは。元気です。", None, "gemini-2.0-flash-001", Usage(8, 6), "STOP"
    )


def test_gemini_thoughts_are_left_out_but_counted() -> None:
    body = {
        "candidates": [
            {"content": {"parts": [{"text": "hmm", "thought": True}, {"text": "{}"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "thoughtsTokenCount": 40},
    }
    parsed = parse_gemini(body)
    assert (parsed.text, parsed.usage) == ("{}", Usage(3, 41))


def test_gemini_blocked_prompt_is_not_retried() -> None:
    body = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 5}}
    with pytest.raises(ProviderError, match="SAFETY") as info:
        parse_gemini(body)
    assert info.value.kind == "refused" and not info.value.retryable


def test_gemini_empty_candidate_is_an_empty_reply() -> None:
    body = {"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": "STOP"}]}
    assert parse_gemini(body).text == ""
    assert parse_gemini({"candidates": [{"finishReason": "STOP"}]}).text == ""


def test_gemini_without_candidates_is_a_retryable_bad_response() -> None:
    with pytest.raises(ProviderError, match="no candidates") as info:
        parse_gemini({"usageMetadata": {"promptTokenCount": 5}})
    assert info.value.kind == "bad_response" and info.value.retryable


def test_gemini_max_tokens_with_no_parts_is_truncated_and_not_retried() -> None:
    body = {
        "candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}],
        "usageMetadata": {"promptTokenCount": 5, "thoughtsTokenCount": 1021},
    }
    with pytest.raises(ProviderError, match="1021 thinking tokens") as info:
        parse_gemini(body)
    assert info.value.kind == "truncated" and not info.value.retryable


def test_gemini_safety_with_no_parts_is_refused() -> None:
    body = {"candidates": [{"finishReason": "SAFETY", "safetyRatings": [{"probability": "HIGH"}]}]}
    with pytest.raises(ProviderError, match="SAFETY") as info:
        parse_gemini(body)
    assert info.value.kind == "refused" and not info.value.retryable
