"""Error and outcome shapes as the providers document them (OpenAI's ``error`` object with ``type``/``param``/
``code`` and ``x-ratelimit``/``retry-after-ms`` headers; Google's ``google.rpc.Status`` with typed ``details``),
written here in those structures, and what voxeval makes of each."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from voxeval.llm import ProviderError, parse_gemini, parse_openai_chat, redact_error
from voxeval.llm._http import classify_status


def openai_error(message: str, type_: str, param: str | None, code: str | None) -> bytes:
    return json.dumps({"error": {"message": message, "type": type_, "param": param, "code": code}}).encode()


def google_status(code: int, status: str, message: str, *details: dict[str, Any]) -> bytes:
    return json.dumps(
        {"error": {"code": code, "message": message, "status": status, "details": list(details)}}
    ).encode()


RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}
QUOTA = {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "requests"}]}
KEY_INVALID = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "x"}

# (case, status, headers, body, kind, retryable, retry delay, fragment of the message)
HTTP_CASES = [
    (
        "openai-gpt5-temperature",
        400,
        {},
        openai_error(
            "Unsupported value: 'temperature' does not support 0.0 with this model. "
            "Only the default (1) value is supported.",
            "invalid_request_error",
            "temperature",
            "unsupported_value",
        ),
        "client",
        False,
        None,
        "Only the default (1) value",
    ),
    (
        "openai-invalid-key",
        401,
        {},
        openai_error("Incorrect API key provided: sk-abc***wxyz.", "invalid_request_error", None, "invalid_api_key"),
        "client",
        False,
        None,
        "Incorrect API key",
    ),
    (
        "openai-model-not-found",
        404,
        {},
        openai_error(
            "The model `gpt-4o-audio-preview` does not exist.", "invalid_request_error", None, "model_not_found"
        ),
        "client",
        False,
        None,
        "does not exist",
    ),
    (
        "openai-rate-limit-ms",
        429,
        {"retry-after-ms": "2500", "x-ratelimit-remaining-requests": "0"},
        openai_error("Rate limit reached for requests", "requests", None, "rate_limit_exceeded"),
        "rate_limit",
        True,
        2.5,
        "Rate limit reached",
    ),
    (
        "openai-insufficient-quota",
        429,
        {},
        openai_error("You exceeded your current quota.", "insufficient_quota", None, "insufficient_quota"),
        "rate_limit",
        True,
        None,
        "exceeded your current quota",
    ),
    (
        "openai-overloaded",
        503,
        {"retry-after": "3"},
        openai_error("The engine is currently overloaded.", "server_error", None, None),
        "server",
        True,
        3.0,
        "overloaded",
    ),
    (
        "gemini-resource-exhausted",
        429,
        {},
        google_status(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", QUOTA, RETRY_INFO),
        "rate_limit",
        True,
        37.0,
        "exceeded your current quota",
    ),
    (
        "gemini-key-invalid",
        400,
        {},
        google_status(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", KEY_INVALID),
        "client",
        False,
        None,
        "API key not valid",
    ),
    (
        "gemini-not-found",
        404,
        {},
        google_status(404, "NOT_FOUND", "models/gemini-2.0-flash is not found for API version v1beta."),
        "client",
        False,
        None,
        "is not found",
    ),
    (
        "gemini-unavailable",
        503,
        {},
        google_status(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        "server",
        True,
        None,
        "overloaded",
    ),
]


@pytest.mark.parametrize(
    ("case", "status", "headers", "body", "kind", "retryable", "delay", "fragment"),
    HTTP_CASES,
    ids=[c[0] for c in HTTP_CASES],
)
def test_documented_error_shapes_are_classified(
    case: str,
    status: int,
    headers: dict[str, str],
    body: bytes,
    kind: str,
    retryable: bool,
    delay: float | None,
    fragment: str,
) -> None:
    error = redact_error(classify_status(status, httpx.Headers(headers), body, "https://api/x"), [])
    assert (error.kind, error.retryable, error.status, error.retry_after) == (kind, retryable, status, delay)
    assert fragment in str(error)


OUTCOME_CASES: list[tuple[str, Any, dict[str, Any], str]] = [
    (
        "openai-reasoning-spent-budget",
        parse_openai_chat,
        {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}],
            "usage": {"completion_tokens": 600, "completion_tokens_details": {"reasoning_tokens": 600}},
        },
        "truncated",
    ),
    (
        "openai-content-filter",
        parse_openai_chat,
        {
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}
            ]
        },
        "refused",
    ),
    (
        "openai-refusal",
        parse_openai_chat,
        {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't help."}}]},
        "refused",
    ),
    (
        "gemini-max-tokens-no-parts",
        parse_gemini,
        {
            "candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 1034, "thoughtsTokenCount": 1024},
        },
        "truncated",
    ),
    (
        "gemini-safety-no-parts",
        parse_gemini,
        {"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": []}]},
        "refused",
    ),
    (
        "gemini-prompt-blocked",
        parse_gemini,
        {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}},
        "refused",
    ),
]


@pytest.mark.parametrize(("case", "parse", "body", "kind"), OUTCOME_CASES, ids=[c[0] for c in OUTCOME_CASES])
def test_documented_deterministic_outcomes_are_not_retried(
    case: str, parse: Any, body: dict[str, Any], kind: str
) -> None:
    with pytest.raises(ProviderError) as info:
        parse(body)
    assert info.value.kind == kind and not info.value.retryable
