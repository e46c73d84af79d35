"""Capture what the official SDKs send over WebSocket sessions (OpenAI Realtime, Gemini Live) on 127.0.0.1.

``python -m tests.llm.realtime_capture`` rewrites ``tests/llm/fixtures/realtime/*.json`` from the installed
``openai`` and ``google-genai``: the request path and query, the headers that matter and every client message as
JSON. ``tests/llm/test_realtime_fixtures.py`` compares voxeval's messages for the same sample with them, field by
field, and re-captures when the SDKs are installed so a stored file cannot drift from what the SDK sends.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "realtime"
KEY = "sk-capture-key"
SYSTEM = "あなたは親切な日本語音声対話アシスタントです。"
USER = "音声を聞いて答えてください。"
OPENAI_MODEL = "gpt-realtime-2"
GEMINI_MODEL = "gemini-2.5-flash-native-audio-preview-09-2025"
VOICE_OPENAI = "marin"
VOICE_GEMINI = "Kore"
OPENAI_PCM = bytes(range(256)) * 25  # 6400 bytes: 133 ms at 24 kHz, two 100 ms chunks (4800 + 1600)
GEMINI_PCM = bytes(range(256)) * 20  # 5120 bytes: 160 ms at 16 kHz, two 100 ms chunks (3200 + 1920)
CHUNK_MS = 100
KEPT_HEADERS = ("authorization", "x-goog-api-key", "openai-beta")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def chunks(pcm: bytes, rate: int, chunk_ms: int = CHUNK_MS) -> list[bytes]:
    """``pcm`` (16-bit mono) cut into ``chunk_ms`` pieces, as voxeval sends it."""
    size = rate * 2 * chunk_ms // 1000
    return [pcm[i : i + size] for i in range(0, len(pcm), size)]


async def _serve(answer: Callable[[Any, list[dict[str, Any]]], Awaitable[None]]) -> tuple[Any, dict[str, Any]]:
    from websockets.asyncio.server import serve

    record: dict[str, Any] = {"messages": []}

    async def handler(connection: Any) -> None:
        request = connection.request
        record["path"] = request.path
        # The key's place is kept, its value is not: fixtures hold no key-like string.
        record["headers"] = {k: request.headers[k].replace(KEY, "<KEY>") for k in KEPT_HEADERS if k in request.headers}
        await answer(connection, record["messages"])

    server = await serve(handler, "127.0.0.1", 0)
    return server, record


def _port(server: Any) -> int:
    return int(next(iter(server.sockets)).getsockname()[1])


async def _openai_answer(connection: Any, messages: list[dict[str, Any]]) -> None:
    await connection.send(json.dumps({"type": "session.created", "event_id": "e0", "session": {}}))
    async for raw in connection:
        event = json.loads(raw)
        messages.append(event)
        if event.get("type") == "response.create":
            done = {"type": "response.done", "event_id": "e1", "response": {"id": "r1", "status": "completed"}}
            await connection.send(json.dumps(done))
            return


async def capture_openai() -> dict[str, Any]:
    """The OpenAI SDK's realtime client sending one turn (voxeval's sequence of calls)."""
    from openai import AsyncOpenAI

    server, record = await _serve(_openai_answer)
    try:
        client = AsyncOpenAI(api_key=KEY, base_url=f"http://127.0.0.1:{_port(server)}/v1", max_retries=0)
        async with client.realtime.connect(model=OPENAI_MODEL) as conn:
            await conn.session.update(
                session={
                    "type": "realtime",
                    "instructions": SYSTEM,
                    "output_modalities": ["audio"],
                    "audio": {
                        "input": {"format": {"type": "audio/pcm", "rate": 24000}, "turn_detection": None},
                        "output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": VOICE_OPENAI},
                    },
                    "max_output_tokens": 1024,
                }
            )
            await conn.conversation.item.create(
                item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": USER}]}
            )
            for piece in chunks(OPENAI_PCM, 24000):
                await conn.input_audio_buffer.append(audio=_b64(piece))
            await conn.input_audio_buffer.commit()
            await conn.response.create()
            async for event in conn:
                if event.type == "response.done":
                    break
    finally:
        server.close()
        await server.wait_closed()
    return record


async def _gemini_answer(connection: Any, messages: list[dict[str, Any]]) -> None:
    async for raw in connection:
        message = json.loads(raw)
        messages.append(message)
        if "setup" in message:
            await connection.send(json.dumps({"setupComplete": {}}))
        if message.get("realtimeInput", message.get("realtime_input", {})).keys() & {"activityEnd", "activity_end"}:
            await connection.send(json.dumps({"serverContent": {"turnComplete": True}}))
            return


async def capture_gemini() -> dict[str, Any]:
    """The google-genai live client sending one turn (voxeval's sequence of calls)."""
    from google import genai
    from google.genai import types

    server, record = await _serve(_gemini_answer)
    try:
        base = f"http://127.0.0.1:{_port(server)}"
        client = genai.Client(api_key=KEY, http_options={"base_url": base, "api_version": "v1beta"})
        # The SDK always turns the base URL into wss://; the capture server speaks plain ws:// on 127.0.0.1.
        client._api_client._websocket_base_url = lambda http_options=None: base.replace("http", "ws", 1)  # type: ignore[method-assign]
        client._api_client._websocket_ssl_ctx = {}
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO],
            system_instruction=types.Content(parts=[types.Part(text=SYSTEM)]),
            speech_config=types.SpeechConfig(
                voice_config=types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=VOICE_GEMINI))
            ),
            temperature=0.0,
            max_output_tokens=1024,
            input_audio_transcription=types.AudioTranscriptionConfig(),
            output_audio_transcription=types.AudioTranscriptionConfig(),
            realtime_input_config=types.RealtimeInputConfig(
                automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
            ),
        )
        async with client.aio.live.connect(model=GEMINI_MODEL, config=config) as session:
            await session.send_client_content(
                turns=types.Content(role="user", parts=[types.Part(text=USER)]), turn_complete=False
            )
            await session.send_realtime_input(activity_start=types.ActivityStart())
            for piece in chunks(GEMINI_PCM, 16000):
                await session.send_realtime_input(audio=types.Blob(data=piece, mime_type="audio/pcm;rate=16000"))
            await session.send_realtime_input(activity_end=types.ActivityEnd())
            async for message in session.receive():
                if message.server_content and message.server_content.turn_complete:
                    break
    finally:
        server.close()
        await server.wait_closed()
    return record


CASES: dict[str, Callable[[], Awaitable[dict[str, Any]]]] = {
    "openai_realtime": capture_openai,
    "gemini_live": capture_gemini,
}


def main() -> None:
    """Rewrite every fixture from the installed SDKs."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items():
        record = asyncio.run(case())
        path = FIXTURES / f"{name}.json"
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(record['messages'])} messages)")


if __name__ == "__main__":
    main()
