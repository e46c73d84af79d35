"""The request a system under test sends for one turn, as literal provider payloads."""

from __future__ import annotations

import base64

from voxeval.llm import gemini_payload, openai_chat_payload
from voxeval.systems import Turn, default_prompts
from voxeval.systems._chat import chat_request

AUDIO = b"RIFF-test-audio"


def turn() -> Turn:
    system, user = default_prompts()
    return Turn("t1", AUDIO, system, user)


def test_openai_payload_for_a_turn() -> None:
    payload = openai_chat_payload("gpt-4o-audio-preview", chat_request(turn()))
    assert payload == {
        "model": "gpt-4o-audio-preview",
        "messages": [
            {"role": "system", "content": "あなたは親切な日本語音声対話アシスタントです。"},
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "この音声の内容を理解し、音声対話として適切な返答をしてください。"
                        "出力には返答文以外の一切のテキストを含めず、返答文のみを返してください。",
                    },
                    {"type": "input_audio", "input_audio": {"data": base64.b64encode(AUDIO).decode(), "format": "wav"}},
                ],
            },
        ],
        "temperature": 0.0,
    }


def test_openai_payload_with_spoken_output() -> None:
    payload = openai_chat_payload("gpt-4o-audio-preview", chat_request(turn(), audio_output=True, voice="alloy"))
    assert payload["modalities"] == ["text", "audio"] and payload["audio"] == {"voice": "alloy", "format": "wav"}


def test_gemini_payload_for_a_turn() -> None:
    payload = gemini_payload(chat_request(turn()))
    assert payload["systemInstruction"] == {
        "role": "user",
        "parts": [{"text": "あなたは親切な日本語音声対話アシスタントです。"}],
    }
    assert payload["contents"][0]["role"] == "user"
    parts = payload["contents"][0]["parts"]
    assert parts[0]["text"].startswith("この音声の内容を理解し")
    assert parts[1] == {"inline_data": {"mime_type": "audio/wav", "data": base64.b64encode(AUDIO).decode()}}
    assert payload["generationConfig"]["temperature"] == 0.0
