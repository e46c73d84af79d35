"""A turn of a dialogue carries the dialogue so far, and every stateless system kind passes it on.

The responder below answers the second turn right ("10分のタイマーに変更しました") only when the first turn
reached the model; without it the model must ask what to change.
"""

from __future__ import annotations

import asyncio
import base64
import sys
import types
from typing import Any

import pytest

from voxeval.llm import gemini_payload, openai_chat_payload
from voxeval.systems import Reply, Said, StatelessConversation, Turn, default_prompts, open_conversation
from voxeval.systems._chat import chat_request
from voxeval.systems._protocol import system_from_spec
from voxeval.testing.mockserver import MockServer, sine_wav

FIRST = sine_wav(0.1, frequency=300.0)
SECOND = sine_wav(0.1, frequency=600.0)
TEXTS = ("3分のタイマーをセットして", "やっぱり10分にして")
RIGHT, WRONG = "10分のタイマーに変更しました。", "何を10分にしますか？"


def _turns() -> tuple[Turn, Turn]:
    system, user = default_prompts()
    first = Turn("d1/1", FIRST, system, user, reference_text=TEXTS[0])
    return first, Turn("d1/2", SECOND, system, user, reference_text=TEXTS[1])


def _gold(turn: Turn, first: Turn) -> Turn:
    history = (Said("user", TEXTS[0], first.audio), Said("assistant", "3分のタイマーをセットしました。"))
    return Turn(turn.id, turn.audio, turn.system_prompt, turn.user_prompt, turn.reference_text, history=history)


def _says(message: dict[str, Any], audio: bytes, text: str) -> bool:
    """Whether a user message carries a turn: its audio (an audio model) or its transcript (a text LLM)."""
    content = message["content"]
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    data = base64.b64encode(audio).decode()
    return any(p.get("input_audio", {}).get("data") == data or text in p.get("text", "") for p in parts)


def _responder(endpoint: str, request: dict[str, Any]) -> str:
    *earlier, current = request["messages"][1:]
    if not _says(current, SECOND, "10分"):
        return "3分のタイマーをセットしました。"
    return RIGHT if any(_says(m, FIRST, "タイマー") for m in earlier if m["role"] == "user") else WRONG


def _python_model(turn: Turn) -> str:
    """A user's callable: it reads the history from the turn (old callables ignore it and keep working)."""
    if turn.reference_text == TEXTS[0]:
        return "3分のタイマーをセットしました。"
    return RIGHT if any("タイマー" in said.text for said in turn.history if said.role == "user") else WRONG


def _system(kind: str, server: MockServer) -> Any:
    if kind == "chat":
        return system_from_spec(f"openai-compat:audio-model@{server.openai_base_url}?max_retries=0")
    if kind == "cascade":
        return system_from_spec(
            f"cascade:asr=oracle,llm=openai-compat:m@{server.openai_base_url}?max_retries=0,tts=none"
        )
    module = types.ModuleType("history_test_model")
    module.answer = _python_model  # type: ignore[attr-defined]
    sys.modules["history_test_model"] = module
    return system_from_spec("python:history_test_model:answer")


KINDS = ["chat", "cascade", "python"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_second_turn_is_right_only_when_the_first_reached_the_model(kind: str) -> None:
    first, second = _turns()
    with MockServer(_responder) as server:
        system = _system(kind, server)

        async def own() -> list[Reply]:
            conversation = open_conversation(system, "d1")
            assert isinstance(conversation, StatelessConversation)
            replies = [await conversation.respond(first), await conversation.respond(second)]
            await conversation.close()
            return replies

        own_replies = asyncio.run(own())
        gold = asyncio.run(system.respond(_gold(second, first)))
        alone = asyncio.run(system.respond(second))
    assert own_replies[1].text == RIGHT, "own: the system heard its own first reply"
    assert gold.text == RIGHT, "gold: the reference dialogue so far"
    assert alone.text == WRONG, "none: the turn alone cannot be answered right"


def test_a_chat_request_sends_the_dialogue_so_far_as_messages() -> None:
    first, second = _turns()
    payload = openai_chat_payload("m", chat_request(_gold(second, first)))
    roles = [m["role"] for m in payload["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert payload["messages"][1]["content"][1]["input_audio"]["data"] == base64.b64encode(FIRST).decode()
    assert payload["messages"][2] == {"role": "assistant", "content": "3分のタイマーをセットしました。"}
    assert payload["messages"][3]["content"][1]["input_audio"]["data"] == base64.b64encode(SECOND).decode()
    contents = gemini_payload(chat_request(_gold(second, first)))["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]


@pytest.mark.parametrize(
    ("history", "message"),
    [
        ((Said("assistant", "はい"),), "history item 0 is said by the assistant"),
        ((Said("user", "a", b"x"), Said("user", "b", b"y")), "history item 1 is said by the user"),
        ((Said("user", "a", b"x"),), "ends with a user turn"),
    ],
)
def test_a_history_out_of_order_is_refused(history: tuple[Said, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Turn("d/2", b"wav", "s", "u", history=history)


@pytest.mark.parametrize(
    ("role", "text", "audio", "message"),
    [("system", "x", None, "user or the assistant"), ("user", "", None, "needs its audio or its text")],
)
def test_a_said_item_must_make_sense(role: Any, text: str, audio: bytes | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Said(role, text, audio)


def _session_responder(rate_of: dict[str, int]) -> Any:
    from voxeval.systems._realtime import input_pcm

    def respond(turn: Any) -> str:
        rate = rate_of[turn.protocol]
        if turn.pcm != input_pcm(SECOND, rate, "second"):
            return "3分のタイマーをセットしました。"
        first = input_pcm(FIRST, rate, "first")
        return RIGHT if any(s.role == "user" and s.pcm == first for s in turn.history) else WRONG

    return respond


@pytest.mark.parametrize("kind", ["realtime", "live"])
def test_a_session_system_hears_the_dialogue_in_one_session_or_as_history(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """own: ONE session for the dialogue (the mock counts sessions); gold: the reference dialogue sent as conversation
    items into the turn's fresh session; none: the turn alone."""
    from voxeval.testing.realtime import RealtimeMockServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GEMINI_API_KEY", "g-test")
    first, second = _turns()
    with RealtimeMockServer(_session_responder({"openai": 24_000, "gemini": 16_000})) as server:
        url = server.openai_url if kind == "realtime" else server.gemini_url
        provider = "openai:gpt-realtime" if kind == "realtime" else "gemini:gemini-live"
        system = system_from_spec(f"{kind}:{provider}@{url}?max_retries=0")

        async def own() -> list[Reply]:
            conversation = open_conversation(system, "d1")
            assert not isinstance(conversation, StatelessConversation)
            try:
                return [await conversation.respond(first), await conversation.respond(second)]
            finally:
                await conversation.close()

        own_replies = asyncio.run(own())
        assert server.count() == 1, "own: one session for the whole dialogue"
        gold = asyncio.run(system.respond(_gold(second, first)))
        alone = asyncio.run(system.respond(second))
        assert server.count() == 3
    assert [r.text for r in own_replies] == ["3分のタイマーをセットしました。", RIGHT]
    assert gold.text == RIGHT and alone.text == WRONG
