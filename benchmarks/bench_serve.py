"""``voxeval serve`` under streamed speech: how long server VAD takes to end a turn, to answer, and to stop on
barge-in, with ``--sessions`` clients at once, each streaming pyopenjtalk speech at real-time pace.

Each session: 0.5 s of silence, 「今日はいい天気ですね」, then silence, in ``--frame-ms`` appends paced by the wall
clock (a frame goes once its last sample is "spoken"); the served system answers at once with a 3 s tone streamed
at real-time pace; 1.0 s after its first audio delta the client speaks the sentence again (barge-in). Measured on
the client's clock: **end of turn** (the sending of the last speech sample → ``speech_stopped``) minus
``silence_duration_ms``; **first audio** (last speech sample → first ``response.output_audio.delta``); **stop**
(the sending of the interrupting speech's first sample → ``response.done`` status ``cancelled``). Also Silero's
CPU per second of audio, and this process's CPU (server and clients together) per session-second. One JSON line
per figure (``make bench`` collects them). Run: ``python benchmarks/bench_serve.py [--sessions 16] [--frame-ms 20]``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import statistics
import time
from typing import Any

import numpy as np

from voxeval.duplex import speech_bounds
from voxeval.serve import RealtimeServer, ServeOptions, SileroStream, SystemRunner
from voxeval.speech.audio import encode_wav, input_format_pcm
from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle
from voxeval.systems import Reply, Turn

RATE = 24_000
SILENCE_MS = 500
TONE = encode_wav((0.3 * np.sin(2 * np.pi * 220 * np.arange(3 * RATE) / RATE) * 32767).astype("<i2"), RATE)


class Tone:
    """Answers every turn at once with a 3 s tone."""

    name, concurrency = "tone", 64

    async def respond(self, turn: Turn) -> Reply:
        return Reply("はい、わかりました。", TONE)

    def describe(self) -> dict[str, Any]:
        return {"system": "tone"}


async def _stream(ws: Any, pcm: np.ndarray, frame: int, start: float) -> None:
    """Send ``pcm`` in frames, each when its audio would have been spoken (``start`` = the wall time of sample 0)."""
    data = pcm.astype("<i2").tobytes()
    for i, at in enumerate(range(0, len(data), frame * 2)):  # a frame goes once its last sample is spoken, as a mic's
        await asyncio.sleep(max(0.0, start + (i + 1) * frame / RATE - time.perf_counter()))
        await ws.send(
            json.dumps(
                {"type": "input_audio_buffer.append", "audio": base64.b64encode(data[at : at + frame * 2]).decode()}
            )
        )


async def _session(url: str, clip: np.ndarray, bounds: tuple[float, float], frame: int) -> dict[str, float]:
    from websockets.asyncio.client import connect

    lead = np.zeros(RATE // 2, dtype="<i2")
    times: dict[str, float] = {}
    async with connect(url, max_size=None) as ws:
        vad = {"type": "server_vad", "silence_duration_ms": SILENCE_MS}
        await ws.send(json.dumps({"type": "session.update", "session": {"audio": {"input": {"turn_detection": vad}}}}))
        start = time.perf_counter() + 0.05
        speech_end = start + 0.5 + bounds[1]
        sender = asyncio.ensure_future(
            _stream(ws, np.concatenate([lead, clip, np.zeros(3 * RATE, "<i2")]), frame, start)
        )
        async for raw in ws:
            event, now = json.loads(raw), time.perf_counter()
            kind = event["type"]
            if kind == "input_audio_buffer.speech_stopped" and "stopped" not in times:
                times["stopped"] = now - speech_end - SILENCE_MS / 1000
            elif kind == "response.output_audio.delta" and "first_audio" not in times:
                times["first_audio"] = now - speech_end
                sender.cancel()
                barge = now + 1.0
                times["_onset"] = barge + bounds[0]
                sender = asyncio.ensure_future(_stream(ws, np.concatenate([clip, np.zeros(RATE, "<i2")]), frame, barge))
            elif kind == "response.done" and event["response"]["status"] == "cancelled":
                times["stop"] = now - times.pop("_onset")
                break
        sender.cancel()
    return times


def _silero_cpu(clip: np.ndarray) -> float:
    pcm = np.tile(np.concatenate([clip, np.zeros(RATE, "<i2")]), 20).astype("<i2").tobytes()
    stream, cpu = SileroStream(), time.process_time()
    for i in range(0, len(pcm), 960):
        stream.feed(pcm[i : i + 960])
    return (time.process_time() - cpu) / (len(pcm) / 2 / RATE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--frame-ms", type=int, default=20)
    args = parser.parse_args()
    clip = input_format_pcm(PyOpenJTalkEngine().synthesize("今日はいい天気ですね", VoiceStyle()))
    bounds = speech_bounds(clip, RATE)
    assert bounds is not None
    setup = {"sessions": args.sessions, "frame_ms": args.frame_ms, "silence_duration_ms": SILENCE_MS}
    print(json.dumps({"figure": "silero streaming CPU per audio second", "ms": round(_silero_cpu(clip) * 1000, 2)}))
    runner = SystemRunner(Tone())
    with RealtimeServer(runner, ServeOptions("x")) as server:
        cpu, wall = time.process_time(), time.perf_counter()

        async def all_sessions() -> list[dict[str, float]]:
            frame = RATE * args.frame_ms // 1000
            return await asyncio.gather(*(_session(server.url, clip, bounds, frame) for _ in range(args.sessions)))

        results = asyncio.run(all_sessions())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    runner.close()
    labels = {"stopped": "end of turn beyond the silence", "first_audio": "speech end to first audio",
              "stop": "barge-in onset to response cancelled"}  # fmt: skip
    for key, label in labels.items():
        values = sorted(r[key] * 1000 for r in results)
        row = {"figure": label, "median_ms": round(statistics.median(values)), "min_ms": round(values[0])}
        print(json.dumps({**row, "max_ms": round(values[-1]), **setup}))
    per_session = round(cpu / (wall * args.sessions) * 1000, 1)
    print(json.dumps({"figure": "CPU (server + clients) per session-second", "ms": per_session, **setup}))


if __name__ == "__main__":
    main()
