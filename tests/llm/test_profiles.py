"""Model profiles: what each model family is sent, spec overrides, and the first real runs against a strict mock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voxeval.errors import ConfigError
from voxeval.llm import (
    ChatMessage,
    ChatRequest,
    ProviderError,
    RemoteChatModel,
    chat_model_from_spec,
    gemini_payload,
    lookup_profile,
    openai_chat_payload,
)
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer

KEY = "sk-profile-test-key"
# What an annotator or judge asks: deterministic, a modest output cap, JSON.
ASK = ChatRequest(messages=(ChatMessage("user", "label this"),), temperature=0.0, max_tokens=512, json_output=True)


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def model(spec: str) -> RemoteChatModel:
    built = chat_model_from_spec(spec)
    assert isinstance(built, RemoteChatModel)
    built.sleep = FakeSleep()
    return built


def sent(provider: str, name: str, request: ChatRequest = ASK) -> dict[str, Any]:
    profile = lookup_profile(provider, name)
    payload = openai_chat_payload(name, request, profile) if provider != "gemini" else gemini_payload(request, profile)
    payload.pop("messages", None)
    payload.pop("contents", None)
    return payload


@pytest.mark.parametrize(
    ("provider", "name", "expected"),
    [
        (
            "openai",
            "gpt-5-nano",
            {
                "model": "gpt-5-nano",
                "max_completion_tokens": 512 + 4096,
                "reasoning_effort": "minimal",
                "response_format": {"type": "json_object"},
            },
        ),
        (
            "openai",
            "gpt-5.4-mini",
            {
                "model": "gpt-5.4-mini",
                "max_completion_tokens": 512 + 8192,
                "reasoning_effort": "low",
                "response_format": {"type": "json_object"},
            },
        ),
        (
            "openai",
            "o4-mini-2025-04-16",
            {
                "model": "o4-mini-2025-04-16",
                "max_completion_tokens": 512 + 8192,
                "reasoning_effort": "low",
                "response_format": {"type": "json_object"},
            },
        ),
        (
            "openai",
            "gpt-audio-mini",
            {
                "model": "gpt-audio-mini",
                "temperature": 0.0,
                "max_completion_tokens": 512,
                "response_format": {"type": "json_object"},
            },
        ),
        (
            "openai",
            "gpt-5-chat-latest",
            {"model": "gpt-5-chat-latest", "max_completion_tokens": 512, "response_format": {"type": "json_object"}},
        ),
        (
            "openai-compat",
            "Qwen/Qwen2.5-Omni-7B",
            {
                "model": "Qwen/Qwen2.5-Omni-7B",
                "temperature": 0.0,
                "max_tokens": 512,
                "response_format": {"type": "json_object"},
            },
        ),
        (
            "gemini",
            "gemini-3.5-flash",
            {
                "generationConfig": {
                    "temperature": 1.0,
                    "maxOutputTokens": 512 + 8192,
                    "responseMimeType": "application/json",
                    "thinkingConfig": {"thinkingLevel": "LOW"},
                }
            },
        ),
        (
            "gemini",
            "gemini-2.5-pro",
            {
                "generationConfig": {
                    "temperature": 0.0,
                    "maxOutputTokens": 512 + 8192,
                    "responseMimeType": "application/json",
                    "thinkingConfig": {"thinkingBudget": 128},
                }
            },
        ),
        (
            "gemini",
            "gemini-2.5-flash",
            {
                "generationConfig": {
                    "temperature": 0.0,
                    "maxOutputTokens": 512,
                    "responseMimeType": "application/json",
                    "thinkingConfig": {"thinkingBudget": 0},
                }
            },
        ),
        (
            "openai",
            "gpt-9-hyperion",
            {"model": "gpt-9-hyperion", "max_completion_tokens": 512, "response_format": {"type": "json_object"}},
        ),
        ("gemini", "gemma-9", {"generationConfig": {"maxOutputTokens": 512, "responseMimeType": "application/json"}}),
    ],
)
def test_each_family_is_sent_only_what_it_accepts(provider: str, name: str, expected: dict[str, Any]) -> None:
    assert sent(provider, name) == expected


def test_unknown_model_gets_provider_defaults_and_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with caplog.at_level("WARNING", logger="voxeval.llm"):
        built = model("openai:gpt-9-hyperion")
    assert "gpt-9-hyperion" in caplog.text and "not in the model profile table" in caplog.text
    assert built.describe()["profile"]["known"] is False
    with caplog.at_level("WARNING", logger="voxeval.llm"):
        caplog.clear()
        model("openai:gpt-5-nano")
    assert caplog.text == ""


def test_spec_overrides_win_and_are_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with MockServer(lambda endpoint, body: "ok") as srv:
        gpt = model(f"openai:gpt-audio-mini@{srv.openai_base_url}?temperature=0.3&max_tokens=99")
        gem = model(f"gemini:gemini-3.5-flash@{srv.gemini_base_url}?reasoning_effort=high&temperature=0.5")
        asyncio.run(gpt.complete(ASK))
        asyncio.run(gem.complete(ASK))
        first, second = (r.json for r in srv.requests)
    assert (first["temperature"], first["max_completion_tokens"]) == (0.3, 99)
    assert second["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "HIGH"}
    assert second["generationConfig"]["temperature"] == 0.5
    assert gpt.describe()["profile"]["temperature"] == 0.3
    assert gpt.describe()["parameters"]["max_tokens"] == 99
    default = lookup_profile("gemini", "gemini-2.5-pro")
    assert default.thinking_budget == 128  # the table itself is not changed by an override


def test_reasoning_effort_default_sends_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    built = model("openai:gpt-5-nano?reasoning_effort=default")
    assert "reasoning_effort" not in built._build(ASK)


def test_gpt5_family_is_not_sent_temperature_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before profiles every call sent temperature 0.0: the real API (and this mock) answers 400 for GPT-5 models.
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with MockServer(lambda endpoint, body: '{"acts": []}') as srv:
        for name in ("gpt-5-nano", "gpt-5.4-mini", "o3"):
            response = asyncio.run(model(f"openai:{name}@{srv.openai_base_url}").complete(ASK))
            assert response.text == '{"acts": []}'
        assert srv.count() == 3


def test_the_mock_rejects_temperature_for_gpt5_as_the_api_does() -> None:
    # The strict mock is what makes the test above meaningful: temperature 0 is refused with the documented 400.
    with MockServer() as srv:
        compat = model(f"openai-compat:gpt-5-nano@{srv.openai_base_url}")  # a compat server sends what it is asked
        with pytest.raises(ProviderError, match="Only the default \\(1\\) value is supported") as info:
            asyncio.run(compat.complete(ASK))
    assert info.value.status == 400 and not info.value.retryable


def test_gemini_429_waits_the_retry_delay_from_the_body(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with MockServer(faults=FaultPlan.sequence(Fault("rate_limit", retry_after=37))) as srv:
        built = model(f"gemini:gemini-3.5-flash@{srv.gemini_base_url}")
        asyncio.run(built.complete(ASK))
        assert srv.count() == 2
    assert built.sleep.delays == [37.0]  # type: ignore[attr-defined]


def test_retired_model_404_names_model_and_spec_and_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    retired = frozenset({"gpt-4o-audio-preview", "gemini-2.0-flash"})
    with MockServer(retired=retired) as srv:
        for spec in (
            f"openai:gpt-4o-audio-preview@{srv.openai_base_url}",
            f"gemini:gemini-2.0-flash@{srv.gemini_base_url}",
        ):
            with pytest.raises(ProviderError) as info:
                asyncio.run(model(spec).complete(ASK))
            name = spec.split(":")[1].split("@")[0]
            assert f"model not found or retired: {name} (" in str(info.value) and spec.split("@")[0] in str(info.value)
            assert info.value.status == 404
        assert srv.count() == 2


def test_openai_base_url_variable_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/proxy/v1/")
    assert chat_model_from_spec("openai:gpt-5-nano").describe()["base_url"] == "http://127.0.0.1:9/proxy/v1"
    assert chat_model_from_spec("openai:gpt-5-nano@http://h:1/v1").describe()["base_url"] == "http://h:1/v1"


def test_gemini_api_version_is_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    built = chat_model_from_spec("gemini:gemini-3.5-flash?api_version=v1")
    assert built.describe()["base_url"] == "https://generativelanguage.googleapis.com/v1"
    with pytest.raises(ConfigError, match="api_version"):
        chat_model_from_spec("gemini:gemini-3.5-flash?api_version=latest")
    with pytest.raises(ConfigError, match="put the version in the URL"):
        chat_model_from_spec("gemini:gemini-3.5-flash@http://h:1/v1beta?api_version=v1")
