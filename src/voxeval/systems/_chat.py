"""Systems that are audio-capable chat models: OpenAI audio models, Gemini, OpenAI-compatible servers."""

from __future__ import annotations

from typing import Any

from voxeval.systems._protocol import Reply, Turn, systems


def chat_request(turn: Turn, *, audio_output: bool = False, voice: str | None = None) -> Any:
    """The request sent for one turn: system prompt, then the user prompt with the input audio (Appendix B).

    A turn of a dialogue carries the dialogue so far: each earlier user turn is sent as the current one is (the user
    prompt with that turn's audio), each earlier assistant turn as an assistant message with its text."""
    from voxeval.llm import AudioInput, ChatMessage, ChatRequest

    earlier = tuple(
        ChatMessage("user", text=turn.user_prompt, audio=AudioInput(said.audio, "audio/wav"))
        if said.role == "user" and said.audio is not None
        else ChatMessage(said.role, text=said.text)
        for said in turn.history
    )
    return ChatRequest(
        messages=(
            ChatMessage("system", text=turn.system_prompt),
            *earlier,
            ChatMessage("user", text=turn.user_prompt, audio=AudioInput(turn.audio, "audio/wav")),
        ),
        temperature=0.0,
        audio_output=audio_output,
        voice=voice,
    )


class ChatModelSystem:
    """A spoken dialogue model reached through a chat API that accepts audio input."""

    def __init__(self, spec: str, model: Any, *, audio_output: bool, voice: str | None) -> None:
        self.name = spec
        self.model = model
        self.audio_output = audio_output
        self.voice = voice
        described = model.describe() if hasattr(model, "describe") else {}
        options = described.get("parameters", {})
        # Concurrency is per replica: a model served at several base URLs takes that many times as many requests.
        self.concurrency = int(options.get("concurrency", 8)) * max(1, len(described.get("replicas") or ()))

    async def respond(self, turn: Turn) -> Reply:
        """Send the turn; the provider layer retries transient failures."""
        response = await self.model.complete(chat_request(turn, audio_output=self.audio_output, voice=self.voice))
        usage = response.usage
        return Reply(
            response.text,
            response.audio,
            {
                "model_version": response.model_version,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "finish_reason": response.finish_reason,
                **({"usage_warnings": list(usage.warnings)} if usage.warnings else {}),
            },
        )

    def describe(self) -> dict[str, Any]:
        """The model's description plus audio-output settings."""
        return {"system": "chat", **self.model.describe(), "audio_output": self.audio_output, "voice": self.voice}


def _split_system_options(rest: str) -> tuple[str, bool, str | None]:
    # System-level options ride in the same query string as provider options: audio_out=1, voice=NAME.
    base, _, query = rest.partition("?")
    keep, audio_output, voice = [], False, None
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key == "audio_out":
            audio_output = value.lower() in ("1", "true", "yes")
        elif key == "voice":
            voice = value
        else:
            keep.append(item)
    return base + ("?" + "&".join(keep) if keep else ""), audio_output, voice


def _factory(provider: str) -> Any:
    def make(rest: str) -> ChatModelSystem:
        from voxeval.llm import chat_model_from_spec

        model_spec, audio_output, voice = _split_system_options(rest)
        spec = f"{provider}:{model_spec}"
        return ChatModelSystem(f"{provider}:{rest}", chat_model_from_spec(spec), audio_output=audio_output, voice=voice)

    make.__doc__ = f"``{provider}:MODEL[...]`` — see docs/systems.md."
    return make


for _provider in ("openai", "gemini", "openai-compat"):
    systems.register(_provider)(_factory(_provider))
