"""voxeval's WebSocket client messages against the ones the official SDKs send on the same capture server.

The fixtures in ``fixtures/realtime`` were written by ``python -m tests.llm.realtime_capture`` from the installed
``openai`` (realtime client) and ``google-genai`` (live client); when those SDKs are installed they are captured
again here, so a stored file cannot drift from what the SDK sends. Deliberate difference: Gemini's SDK mixes
``snake_case`` and ``lowerCamelCase`` keys (``realtime_input``, ``voice_config``...); voxeval sends lowerCamelCase
only (the API's proto JSON reads both), so Gemini keys are compared in one form. Values are compared exactly,
including the URL-safe base64 the SDK uses for audio bytes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

import pytest

from tests.llm.realtime_capture import (
    CASES,
    FIXTURES,
    GEMINI_MODEL,
    GEMINI_PCM,
    KEY,
    OPENAI_MODEL,
    OPENAI_PCM,
    SYSTEM,
    USER,
    _gemini_answer,
    _openai_answer,
    _port,
    _serve,
)
from tests.llm.test_sdk_fixtures import differences, normalized
from voxeval.llm import SessionInput, session_model_from_spec

SPECS = {
    "openai_realtime": (
        f"openai:{OPENAI_MODEL}@ws://127.0.0.1:PORT/v1/realtime?voice=marin&max_tokens=1024",
        _openai_answer,
        SessionInput(SYSTEM, USER, OPENAI_PCM, 24_000),
    ),
    "gemini_live": (
        f"gemini:{GEMINI_MODEL}@ws://127.0.0.1:PORT/ws/google.ai.generativelanguage.v1beta.GenerativeService."
        "BidiGenerateContent?voice=Kore&max_tokens=1024&temperature=0",
        _gemini_answer,
        SessionInput(SYSTEM, USER, GEMINI_PCM, 16_000),
    ),
}
"""The same turn sent through voxeval (``realtime:`` / ``live:`` spec without the system prefix)."""


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


def voxeval_record(case: str) -> dict[str, Any]:
    spec, answer, turn = SPECS[case]

    async def scenario() -> dict[str, Any]:
        server, record = await _serve(answer)
        try:
            model = session_model_from_spec(spec.replace("PORT", str(_port(server))))
            await model.answer(turn)
        finally:
            server.close()
            await server.wait_closed()
        return record

    return asyncio.run(scenario())


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    return {"path": record["path"], "headers": record["headers"], "messages": normalized(record["messages"])}


@pytest.mark.parametrize("case", sorted(CASES))
def test_voxeval_sends_what_the_official_sdk_sends(case: str) -> None:
    sdk = comparable(json.loads((FIXTURES / f"{case}.json").read_text(encoding="utf-8")))
    ours = comparable(voxeval_record(case))
    assert [next(iter(m)) if "type" not in m else m["type"] for m in ours["messages"]] == [
        next(iter(m)) if "type" not in m else m["type"] for m in sdk["messages"]
    ]
    assert differences(sdk, ours) == []


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
    assert asyncio.run(CASES[case]()) == stored, "the SDK now sends something else: rerun the capture"


def test_the_comparison_catches_a_changed_message() -> None:
    sdk = comparable(json.loads((FIXTURES / "openai_realtime.json").read_text(encoding="utf-8")))
    changed = json.loads(json.dumps(sdk))
    changed["messages"][0]["session"]["audio"]["output"]["voice"] = "alloy"
    assert differences(sdk, changed) == ["$.messages[0].session.audio.output.voice: SDK 'marin' != voxeval 'alloy'"]
