"""One turn on a real speech-to-speech API: speak a WAV into ``realtime:openai:`` or ``live:gemini:`` and save the
spoken reply. Needs a key in the environment and ``pip install 'voxeval[realtime,audio]'``; not run by the tests.

    OPENAI_API_KEY=... python examples/realtime_session.py input.wav realtime:openai:gpt-realtime-2
    GEMINI_API_KEY=... python examples/realtime_session.py input.wav live:gemini:MODEL --out reply.wav

For whole benchmark runs use ``voxeval run --system realtime:openai:gpt-realtime-2 …`` (docs/systems.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from voxeval.systems import Turn, default_prompts, system_from_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wav", type=Path, help="input speech (any WAV; resampled to the session's rate)")
    parser.add_argument("system", help="realtime:openai:MODEL[@WS_URL][?OPTIONS] or live:gemini:MODEL[...]")
    parser.add_argument("--out", type=Path, default=Path("reply.wav"), help="where to write the spoken reply")
    args = parser.parse_args()
    system_prompt, user_prompt = default_prompts()
    system = system_from_spec(args.system)
    reply = asyncio.run(system.respond(Turn("example", args.wav.read_bytes(), system_prompt, user_prompt)))
    if reply.audio:
        args.out.write_bytes(reply.audio)
    timing = reply.timing
    print(json.dumps({"text": reply.text, "audio": str(args.out) if reply.audio else None, "meta": reply.meta,
                      "first_audio_s": timing and timing.first_audio_s, "first_text_s": timing and timing.first_text_s,
                      "total_s": timing and timing.total_s}, ensure_ascii=False, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
