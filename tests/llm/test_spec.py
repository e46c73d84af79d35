"""Spec strings: parsing (table-driven), building, keys from the environment only."""

from __future__ import annotations

import json

import pytest

from voxeval.errors import ConfigError
from voxeval.llm import (
    GEMINI_BASE_URL,
    OPENAI_BASE_URL,
    CachedChatModel,
    ModelSpec,
    ProviderOptions,
    RequestCache,
    chat_model_from_spec,
    parse_model_spec,
    set_request_cache,
)

Opts = ProviderOptions


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o-audio-preview", ModelSpec("openai", "gpt-4o-audio-preview", None, Opts())),
        ("gemini:gemini-2.0-flash", ModelSpec("gemini", "gemini-2.0-flash", None, Opts())),
        ("llamacpp:qwen2.5-1.5b", ModelSpec("llamacpp", "qwen2.5-1.5b", None, Opts())),
        (
            "openai-compat:Qwen/Qwen2-Audio-7B-Instruct@http://localhost:8000/v1/",
            ModelSpec("openai-compat", "Qwen/Qwen2-Audio-7B-Instruct", "http://localhost:8000/v1", Opts()),
        ),
        (
            "openai-compat:qwen2.5:1.5b@http://127.0.0.1:11434/v1?key_env=OLLAMA_KEY&concurrency=16",
            ModelSpec(
                "openai-compat", "qwen2.5:1.5b", "http://127.0.0.1:11434/v1", Opts(key_env="OLLAMA_KEY", concurrency=16)
            ),
        ),
        (
            "gemini:gemini-2.5-flash@https://proxy.example/v1beta?timeout=12.5&rps=0.5&max_retries=0",
            ModelSpec(
                "gemini", "gemini-2.5-flash", "https://proxy.example/v1beta", Opts(timeout=12.5, rps=0.5, max_retries=0)
            ),
        ),
        ("openai-compat:model@v2@https://h/v1", ModelSpec("openai-compat", "model@v2", "https://h/v1", Opts())),
        ("  openai:gpt-4o  ", ModelSpec("openai", "gpt-4o", None, Opts())),
    ],
)
def test_parse(spec: str, expected: ModelSpec) -> None:
    assert parse_model_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o", "expected PROVIDER:MODEL"),
        ("OpenAI:gpt-4o", "expected PROVIDER:MODEL"),
        (":gpt-4o", "expected PROVIDER:MODEL"),
        ("openai:", "model name is empty"),
        ("openai:gpt 4o", "contains spaces"),
        ("openai:@http://h/v1", "model name is empty"),
        ("openai-compat:m@localhost:8000/v1", "must start with http"),
        ("openai-compat:m@", "must start with http"),
        ("openai:gpt-4o?timeout", "not of the form key=value"),
        ("openai:gpt-4o?timeout=", "not of the form key=value"),
        ("openai:gpt-4o?", "not of the form key=value"),
        ("openai:gpt-4o?colour=red", "unknown option 'colour'; known: key_env, timeout"),
        ("openai:gpt-4o?timeout=soon", "expected a number"),
        ("openai:gpt-4o?timeout=0", "must be positive"),
        ("openai:gpt-4o?timeout=nan", "must be at least"),
        ("openai:gpt-4o?rps=-1", "must be at least"),
        ("openai:gpt-4o?concurrency=0", "must be at least 1"),
        ("openai:gpt-4o?concurrency=2.5", "expected an integer"),
        ("openai:gpt-4o?max_retries=-1", "must be at least 0"),
        ("openai:gpt-4o?key_env=MY-KEY", "environment variable name"),
        ("openai:gpt-4o?rps=1&rps=2", "given twice"),
        ("openai-compat:m@http://h:1/v1 x", "malformed base URL"),
    ],
)
def test_parse_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_model_spec(spec)


def test_missing_openai_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="set the environment variable OPENAI_API_KEY"):
        chat_model_from_spec("openai:gpt-4o")


def test_missing_gemini_key_names_both_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        chat_model_from_spec("gemini:gemini-2.0-flash")
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    assert chat_model_from_spec("gemini:models/gemini-2.0-flash").model == "gemini-2.0-flash"


def test_key_env_option_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="MY_PROXY_KEY"):
        chat_model_from_spec("openai:gpt-4o?key_env=MY_PROXY_KEY")
    monkeypatch.setenv("MY_PROXY_KEY", "sk-proxy")
    assert chat_model_from_spec("openai:gpt-4o?key_env=MY_PROXY_KEY").provider == "openai"


def test_compat_key_is_optional_unless_key_env_is_explicit() -> None:
    model = chat_model_from_spec("openai-compat:m@http://127.0.0.1:9/v1")
    assert model.describe()["base_url"] == "http://127.0.0.1:9/v1"
    with pytest.raises(ConfigError, match="VLLM_KEY"):
        chat_model_from_spec("openai-compat:m@http://127.0.0.1:9/v1?key_env=VLLM_KEY")
    with pytest.raises(ConfigError, match="needs a base URL"):
        chat_model_from_spec("openai-compat:m")


def test_describe_has_the_settings_and_never_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-value")
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-very-secret-value")
    openai = chat_model_from_spec("openai:gpt-4o?rps=3", concurrency=2)
    assert openai.describe() == {
        "provider": "openai",
        "model": "gpt-4o",
        "base_url": OPENAI_BASE_URL,
        "parameters": {
            "key_env": None,
            "timeout": 60.0,
            "concurrency": 2,
            "rps": 3.0,
            "max_retries": 4,
            "temperature": None,
            "reasoning_effort": None,
            "thinking_budget": None,
            "max_tokens": None,
            "api_version": None,
        },
        "profile": {
            "family": "gpt-4",
            "known": True,
            "temperature": "request",
            "max_tokens_field": "max_completion_tokens",
            "reasoning_headroom": 0,
            "reasoning_effort": None,
            "thinking_level": None,
            "thinking_budget": None,
            "max_tokens": None,
        },
    }
    gemini = chat_model_from_spec("gemini:gemini-2.0-flash")
    assert gemini.describe()["base_url"] == GEMINI_BASE_URL
    for model in (openai, gemini):
        dumped = json.dumps(model.describe()) + repr(model)
        assert "very-secret" not in dumped


def test_overrides_are_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert chat_model_from_spec("openai:m", timeout="5").describe()["parameters"]["timeout"] == 5.0
    with pytest.raises(ConfigError, match="unknown option 'top_p'"):
        chat_model_from_spec("openai:m", top_p=1)
    with pytest.raises(ConfigError, match="reasoning_effort='extreme'"):
        chat_model_from_spec("openai:m?reasoning_effort=extreme")
    with pytest.raises(ConfigError, match="thinking_budget applies to gemini"):
        chat_model_from_spec("openai:gpt-5?thinking_budget=0")
    with pytest.raises(ConfigError, match="must be at least 1"):
        chat_model_from_spec("openai:m", concurrency=0)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown LLM provider 'anthropic'; known: gemini, llamacpp, openai"):
        chat_model_from_spec("anthropic:claude")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("llamacpp:llama-70b", "unknown llamacpp model 'llama-70b'; known: qwen2.5-1.5b"),
        ("llamacpp:qwen2.5-1.5b@http://h/v1", "runs locally"),
        ("llamacpp:qwen2.5-1.5b?key_env=X", "runs locally"),
    ],
)
def test_llamacpp_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        chat_model_from_spec(spec)


def test_llamacpp_is_built_lazily_without_loading_anything() -> None:
    model = chat_model_from_spec("llamacpp:qwen2.5-1.5b")
    assert model.describe()["parameters"]["concurrency"] == 1


def test_models_from_specs_go_through_the_request_cache(tmp_path) -> None:  # type: ignore[no-untyped-def]
    set_request_cache(tmp_path / "requests")
    model = chat_model_from_spec("openai-compat:m@http://127.0.0.1:9/v1")
    assert isinstance(model, CachedChatModel) and model.cache.directory == tmp_path / "requests"
    set_request_cache(RequestCache(tmp_path / "other"))
    assert isinstance(chat_model_from_spec("llamacpp:qwen2.5-1.5b"), CachedChatModel)
    set_request_cache(None)
    assert not isinstance(chat_model_from_spec("openai-compat:m@http://127.0.0.1:9/v1"), CachedChatModel)
