"""Request payload builders, compared with literal dicts."""

from __future__ import annotations

import base64

import pytest

from voxeval.errors import ConfigError
from voxeval.llm import AudioInput, ChatMessage, ChatRequest, gemini_payload, lookup_profile, openai_chat_payload

WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "
WAV_B64 = base64.b64encode(WAV).decode()


def request(**params: object) -> ChatRequest:
    return ChatRequest(
        messages=(
            ChatMessage("system", text="You are a helpful assistant."),
            ChatMessage("user", text="Listen and answer.", audio=AudioInput(WAV)),
        ),
        **params,  # type: ignore[arg-type]
    )


def test_openai_text_only_uses_string_content() -> None:
    req = ChatRequest(messages=(ChatMessage("system", text="S"), ChatMessage("user", text="U")))
    assert openai_chat_payload("gpt-4o", req) == {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}],
        "temperature": 0.0,
    }


def test_openai_audio_input_is_an_input_audio_part_after_the_text() -> None:
    assert openai_chat_payload("gpt-4o-audio-preview", request()) == {
        "model": "gpt-4o-audio-preview",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Listen and answer."},
                    {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
                ],
            },
        ],
        "temperature": 0.0,
    }


def test_openai_all_parameters() -> None:
    payload = openai_chat_payload(
        "m",
        request(temperature=0.7, max_tokens=64, json_output=True, audio_output=True, voice="verse", seed=7),
        lookup_profile("openai", "gpt-audio-mini"),
    )
    del payload["messages"]
    assert payload == {
        "model": "m",
        "temperature": 0.7,
        "max_completion_tokens": 64,
        "seed": 7,
        "response_format": {"type": "json_object"},
        "modalities": ["text", "audio"],
        "audio": {"voice": "verse", "format": "wav"},
    }


def test_openai_audio_output_default_voice_and_mp3_input() -> None:
    req = ChatRequest(messages=(ChatMessage("user", audio=AudioInput(b"ID3", "audio/mpeg")),), audio_output=True)
    assert openai_chat_payload("m", req) == {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}}],
            }
        ],
        "temperature": 0.0,
        "modalities": ["text", "audio"],
        "audio": {"voice": "alloy", "format": "wav"},
    }


def test_openai_rejects_audio_it_cannot_take() -> None:
    req = ChatRequest(messages=(ChatMessage("user", audio=AudioInput(b"OggS", "audio/ogg")),))
    with pytest.raises(ConfigError, match="WAV or MP3"):
        openai_chat_payload("m", req)


def test_gemini_payload_with_system_instruction_and_audio() -> None:
    assert gemini_payload(request(max_tokens=100, json_output=True, seed=3)) == {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Listen and answer."},
                    {"inline_data": {"mime_type": "audio/wav", "data": WAV_B64}},
                ],
            }
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "You are a helpful assistant."}]},
        "generationConfig": {
            "temperature": 0.0,
            "maxOutputTokens": 100,
            "responseMimeType": "application/json",
            "seed": 3,
        },
    }


def test_gemini_assistant_turns_have_role_model_and_no_system_means_no_instruction() -> None:
    req = ChatRequest(
        messages=(
            ChatMessage("user", text="hi"),
            ChatMessage("assistant", text="hello"),
            ChatMessage("user", text="bye"),
        ),
        temperature=0.2,
    )
    assert gemini_payload(req) == {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"text": "hello"}]},
            {"role": "user", "parts": [{"text": "bye"}]},
        ],
        "generationConfig": {"temperature": 0.2},
    }


def test_gemini_refuses_audio_output() -> None:
    with pytest.raises(ConfigError, match="audio output"):
        gemini_payload(request(audio_output=True))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ChatMessage("user"), "needs text or audio"),
        (lambda: ChatMessage("system", audio=AudioInput(WAV)), "only user messages"),
        (lambda: ChatRequest(messages=()), "at least one message"),
        (lambda: ChatRequest(messages=(ChatMessage("user", "x"),), max_tokens=0), "max_tokens"),
    ],
)
def test_records_reject_impossible_values(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()
