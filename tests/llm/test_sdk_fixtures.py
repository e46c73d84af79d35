"""voxeval's requests against the ones the official SDKs send, captured on the same local server, field by field.

The fixtures in ``fixtures/sdk`` were written by ``python -m tests.llm.sdk_capture`` from the installed ``openai``
and ``google-genai``; when those SDKs are installed (the ``test`` extra) they are captured again here, so a stored
file can never drift from what the SDK really sends. Gemini's REST API reads proto JSON, which accepts both
``lowerCamelCase`` and ``snake_case`` names (the SDK itself mixes them), so names are compared in one form; values,
including enum spellings, are compared exactly.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.llm.sdk_capture import CASES, FIXTURES, KEY, SYSTEM, USER, WAV, capture, capture_server
from voxeval.llm import (
    AudioInput,
    ChatMessage,
    ChatRequest,
    GeminiFiles,
    RemoteChatModel,
    chat_model_from_spec,
    parse_model_spec,
)

AUDIO_TURN = (ChatMessage("system", SYSTEM), ChatMessage("user", USER, AudioInput(WAV)))
HEADERS_COMPARED = ("content-type", "x-goog-upload-protocol", "x-goog-upload-command", "x-goog-upload-offset")


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def normalized(value: Any) -> Any:
    """``value`` with every object key in lowerCamelCase."""
    if isinstance(value, dict):
        return {_camel(k): normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def differences(sdk: Any, ours: Any, path: str = "$") -> list[str]:
    """Every field where the two bodies differ, by JSON path."""
    if isinstance(sdk, dict) and isinstance(ours, dict):
        found = []
        for key in sorted(set(sdk) | set(ours)):
            if key not in ours:
                found.append(f"{path}.{key}: sent by the SDK, missing from voxeval")
            elif key not in sdk:
                found.append(f"{path}.{key}: sent by voxeval, not by the SDK")
            else:
                found += differences(sdk[key], ours[key], f"{path}.{key}")
        return found
    if isinstance(sdk, list) and isinstance(ours, list) and len(sdk) == len(ours):
        return [d for i, (a, b) in enumerate(zip(sdk, ours, strict=True)) for d in differences(a, b, f"{path}[{i}]")]
    return [] if sdk == ours and type(sdk) is type(ours) else [f"{path}: SDK {sdk!r} != voxeval {ours!r}"]


def _chat(spec: str, request: ChatRequest) -> Callable[[str], None]:
    def send(base: str) -> None:
        model = chat_model_from_spec(spec.replace("BASE", base))
        assert isinstance(model, RemoteChatModel)
        asyncio.run(model.complete(request))

    return send


def _gemini_files(base: str) -> None:
    files = GeminiFiles(parse_model_spec(f"gemini:gemini-2.5-pro@{base}/v1beta"))
    request = ChatRequest(messages=(ChatMessage("user", USER),), temperature=0.0, max_tokens=512)

    async def scenario() -> None:
        uploaded = await files.upload(WAV, "audio/wav", "voxeval-r1")
        await files.generate(request, uploaded)
        await files.delete(uploaded)

    asyncio.run(scenario())


VOXEVAL: dict[str, Callable[[str], None]] = {
    "openai_audio_input": _chat(
        "openai:gpt-audio-mini@BASE/v1", ChatRequest(AUDIO_TURN, temperature=0.0, max_tokens=512)
    ),
    "openai_audio_output": _chat(
        "openai:gpt-audio-mini@BASE/v1", ChatRequest(AUDIO_TURN, temperature=0.0, audio_output=True, voice="alloy")
    ),
    "openai_reasoning_text": _chat(
        "openai:gpt-5-nano@BASE/v1",
        ChatRequest((ChatMessage("system", SYSTEM), ChatMessage("user", USER)), max_tokens=512, json_output=True),
    ),
    "vllm_audio_input": _chat(
        "openai-compat:Qwen/Qwen2.5-Omni-7B@BASE/v1", ChatRequest(AUDIO_TURN, temperature=0.0, max_tokens=256)
    ),
    "gemini_inline_audio": _chat(
        "gemini:gemini-3.5-flash@BASE/v1beta", ChatRequest(AUDIO_TURN, temperature=0.0, max_tokens=512)
    ),
    "gemini_files_audio": _gemini_files,
}
"""The same calls made through voxeval (the judge's temperature 0; profiles decide what is sent)."""


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOXEVAL_COMPAT_API_KEY"):
        monkeypatch.setenv(name, KEY)


def comparable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Method, path, the headers that carry meaning and the normalized JSON body of each request.

    ``Content-Type`` is compared on JSON bodies only: the SDK labels raw audio and an empty DELETE
    ``application/json`` too, which the Files API ignores.
    """
    out = []
    for r in records:
        json_body = isinstance(r["json"], dict) and "raw_bytes" not in r["json"]
        headers = {
            k: v for k, v in r["headers"].items() if k in HEADERS_COMPARED and (json_body or k != "content-type")
        }
        out.append({"method": r["method"], "path": r["path"], "headers": headers, "json": normalized(r["json"])})
    return out


def voxeval_records(case: str) -> list[dict[str, Any]]:
    with capture_server() as (base, records):
        VOXEVAL[case](base)
        port = base.rsplit(":", 1)[1]
    return json.loads(json.dumps(records).replace(port, "PORT"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_voxeval_sends_what_the_official_sdk_sends(case: str) -> None:
    sdk = comparable(json.loads((FIXTURES / f"{case}.json").read_text(encoding="utf-8")))
    ours = comparable(voxeval_records(case))
    assert len(ours) == len(sdk), [(r["method"], r["path"]) for r in ours]
    problems = [d for a, b in zip(sdk, ours, strict=True) for d in differences(a, b)]
    assert problems == []


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_stored_fixture_is_what_the_installed_sdk_sends(case: str) -> None:
    needed = "google.genai" if case.startswith("gemini") else "openai"
    if not _installed(needed):
        pytest.skip(f"{needed} is not installed (pip install -e '.[test]')")
    stored = json.loads((FIXTURES / f"{case}.json").read_text(encoding="utf-8"))
    assert capture(case) == stored, "the SDK now sends something else: rerun python -m tests.llm.sdk_capture"


def test_the_comparison_catches_a_changed_field() -> None:
    sdk = {"generationConfig": {"thinkingConfig": {"thinking_level": "LOW"}, "temperature": 1.0}}
    assert differences(normalized(sdk), normalized(sdk)) == []
    ours = {"generationConfig": {"thinkingConfig": {"thinkingLevel": "low"}, "temperature": 0}}
    assert differences(normalized(sdk), normalized(ours)) == [
        "$.generationConfig.temperature: SDK 1.0 != voxeval 0",
        "$.generationConfig.thinkingConfig.thinkingLevel: SDK 'LOW' != voxeval 'low'",
    ]
