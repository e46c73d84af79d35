"""The realtime mock speaks the protocols as the official SDKs type them, in order, and its faults are reproducible."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

import pytest

from voxeval.llm import SessionInput
from voxeval.llm.sessions._live_gemini import ACTIVITY_END, LiveSettings, setup_message, turn_messages
from voxeval.llm.sessions._realtime_openai import COMMIT, RESPONSE_CREATE, RealtimeSettings, turn_events
from voxeval.testing.realtime import RealtimeMockServer, SessionFaultPlan


def _needs(module: str) -> None:
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


async def _exchange(url: str, sent: list[dict[str, Any]], last: Any) -> list[dict[str, Any]]:
    from websockets.asyncio.client import connect

    received = []
    async with connect(url) as ws:
        for message in sent:
            await ws.send(json.dumps(message))
        while not received or not last(received[-1]):
            received.append(json.loads(await ws.recv()))
    return received


def openai_events(srv: RealtimeMockServer, settings: RealtimeSettings) -> list[dict[str, Any]]:
    turn = SessionInput("sys", "user", b"\x01\x00" * 7200, 24_000)
    sent = [*turn_events(turn, settings), COMMIT, RESPONSE_CREATE]
    return asyncio.run(_exchange(f"{srv.openai_url}?model=m", sent, lambda e: e["type"] == "response.done"))


def gemini_messages(srv: RealtimeMockServer) -> list[dict[str, Any]]:
    turn = SessionInput("sys", "user", b"\x01\x00" * 4800, 16_000)
    sent = [setup_message("m", turn, LiveSettings()), *turn_messages(turn, LiveSettings()), ACTIVITY_END]
    return asyncio.run(_exchange(srv.gemini_url, sent, lambda m: m.get("serverContent", {}).get("turnComplete")))


def test_openai_events_validate_against_the_sdk_types_in_order() -> None:
    _needs("openai")
    from openai.types.realtime import RealtimeServerEvent
    from pydantic import TypeAdapter

    with RealtimeMockServer() as srv:
        events = openai_events(srv, RealtimeSettings())
    adapter = TypeAdapter(RealtimeServerEvent)
    for event in events:
        adapter.validate_python(event)  # raises on a missing or mistyped field
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["session.created", "session.updated", "input_audio_buffer.committed", "response.created"]
    assert kinds[-2:] == ["response.output_audio_transcript.done", "response.done"]
    assert {"response.output_audio.delta", "response.output_audio_transcript.delta"} <= set(kinds)
    assert len({e["event_id"] for e in events}) == len(events)
    assert events[-1]["response"]["usage"]["output_tokens"] > 0


def test_gemini_messages_validate_against_the_sdk_types_in_order() -> None:
    _needs("google.genai")
    from google.genai import types

    with RealtimeMockServer() as srv:
        messages = gemini_messages(srv)
    parsed = [types.LiveServerMessage.model_validate(m) for m in messages]
    assert parsed[0].setup_complete is not None
    assert any(p.server_content and p.server_content.model_turn for p in parsed)
    assert any(p.server_content and p.server_content.output_transcription for p in parsed)
    assert parsed[-1].server_content is not None and parsed[-1].server_content.turn_complete
    assert parsed[-1].usage_metadata is not None and parsed[-1].usage_metadata.response_token_count


def test_text_mode_sends_text_deltas_only() -> None:
    with RealtimeMockServer() as srv:
        kinds = {e["type"] for e in openai_events(srv, RealtimeSettings(output="text"))}
    assert "response.output_text.delta" in kinds and not any(
        "audio" in k for k in kinds - {"input_audio_buffer.committed"}
    )


def test_fault_draws_repeat_across_servers_and_retries_draw_afresh() -> None:
    plan = SessionFaultPlan(rates={"close_1011": 0.5}, seed=7)
    draws = [[plan.pick(n, f"{i:064x}", a) for i in range(40) for a in range(3)] for n in (1, 2)]
    assert draws[0] == draws[1]  # a sample's faults do not depend on arrival order
    assert 0 < draws[0].count("close_1011") < len(draws[0])
    by_attempt = [[plan.pick(1, f"{i:064x}", a) for i in range(40)] for a in range(2)]
    assert by_attempt[0] != by_attempt[1]


@pytest.mark.parametrize(
    "bad",
    [
        {"rates": {"explode": 0.1}},
        {"rates": {"silent": 0.7, "go_away": 0.5}},
        {"script": {1: "nope"}},
        {"slow_seconds": 11},
    ],
)
def test_bad_fault_plans_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        SessionFaultPlan(**bad)
