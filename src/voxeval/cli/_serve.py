"""``voxeval serve``: a voxeval system behind a local OpenAI Realtime server."""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from voxeval.errors import ConfigError


def register(commands: Any) -> None:
    """Add the ``serve`` command."""
    p = commands.add_parser(
        "serve",
        description="Serve a voxeval system (the offline cascade, a python: function, any --system spec) over the "
        "OpenAI Realtime protocol (GA) at ws://HOST:PORT/v1/realtime, so any Realtime client can talk to it: "
        "session.update, input_audio_buffer.append/commit/clear, conversation.item.create, response.create/cancel; "
        "server-side turn detection (server_vad, Silero VAD; the default, as the API's) and barge-in "
        "(interrupt_response). Each session keeps its conversation as the system's Turn.history. Stop with Ctrl-C "
        "or SIGTERM. docs/serve.md lists what of the protocol is implemented.",
    )
    p.add_argument("system", help="a system spec: cascade, cascade:asr=…,llm=…,tts=…, python:MODULE:FN, …")
    p.add_argument("--protocol", choices=("openai-realtime",), default="openai-realtime", help="(the only one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others are reachable "
                   "from the network: use --require-key-env)")  # fmt: skip
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: a free one, printed)")
    p.add_argument(
        "--require-key-env",
        default=None,
        metavar="NAME",
        help="refuse handshakes whose 'Authorization: Bearer …' is not the value of the environment variable NAME",
    )
    p.add_argument("--language", default="ja", help="the language of every turn (Turn.language; default ja)")
    p.add_argument(
        "--pace",
        default="realtime",
        help="how fast reply audio is streamed: realtime (default: each delta when it would play, so a user can "
        "barge in), instant (all at once), or a factor X (X times real time)",
    )
    p.add_argument("--max-sessions", type=int, default=16, help="sessions at once; more get HTTP 503 (default 16)")
    p.set_defaults(handler=_serve)


def parse_pace(value: str) -> float:
    """``realtime`` → 1, ``instant`` → ∞, ``X`` → X (> 0)."""
    if value == "realtime":
        return 1.0
    if value == "instant":
        return math.inf
    try:
        speed = float(value)
    except ValueError:
        speed = 0.0
    if not speed > 0 or math.isnan(speed):
        raise ConfigError(f"--pace {value!r}: expected realtime, instant or a positive factor")
    return speed


def _key(name: str | None) -> str | None:
    if name is None:
        return None
    key = os.environ.get(name, "")
    if not key.strip():
        raise ConfigError(f"--require-key-env {name}: the environment variable {name} is not set (or empty)")
    return key


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    from voxeval.languages import LANGUAGES
    from voxeval.serve import RealtimeServer, ServeOptions, SystemRunner
    from voxeval.systems import default_prompts, system_from_spec

    if args.language not in LANGUAGES:
        raise ConfigError(f"--language {args.language}: expected one of {', '.join(LANGUAGES)}")
    if not 0 <= args.port <= 65535 or args.max_sessions < 1:
        raise ConfigError("--port must be 0-65535 and --max-sessions at least 1")
    key, speed = _key(args.require_key_env), parse_pace(args.pace)
    if key is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"voxeval serve: warning: {args.host} is reachable from the network and no key is required "
              "(--require-key-env)", file=sys.stderr, flush=True)  # fmt: skip
    runner = SystemRunner(system_from_spec(args.system))
    options = ServeOptions(default_prompts(args.language)[0], args.language, speed)
    server = RealtimeServer(runner, options, host=args.host, port=args.port, key=key, max_sessions=args.max_sessions)

    async def main() -> None:
        await server.start()
        print(f"voxeval serve: {args.system} at {server.url} (OpenAI Realtime, GA)", flush=True)
        print(f"try: voxeval run --system 'realtime:openai:served@{server.url}' …  (Ctrl-C stops)", flush=True)
        await server.serve_until_signal()

    try:
        asyncio.run(main())
    finally:
        runner.close()
    print("voxeval serve: stopped", flush=True)
    return 0
