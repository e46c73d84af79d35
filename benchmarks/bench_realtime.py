"""Realtime sessions against the WebSocket mock in its own process, the mock pacing reply audio in real time.

``--sessions`` concurrent ``realtime:openai:`` (and ``live:gemini:``) sessions per round, ``--rounds`` rounds; the
mock waits ``--delay`` seconds after the commit / activity end, then streams ``--reply-s`` seconds of audio in
100 ms deltas at playback speed. Reported per protocol: the median and p90 of the measured time to first audio
minus the mock's configured delay (target: median within 20 ms), the time to the end of the reply, and the client's
CPU seconds (this process, ``time.process_time``) per session-second (the sum of the sessions' wall times).
Run: ``python benchmarks/bench_realtime.py [--sessions 16] [--rounds 3] [--delay 0.2] [--reply-s 1.0] [--input-s 1.0]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from voxeval.llm import SessionInput, set_request_cache
from voxeval.llm.sessions._session_spec import session_model_from_spec

_SERVER = """
import sys
from voxeval.testing.realtime import Pacing, RealtimeMockServer, tone
from voxeval.testing.realtime._protocols import MockReply
reply = MockReply("はい、承知しました。", tone(float(sys.argv[2])))
with RealtimeMockServer(lambda turn: reply, pacing=Pacing(first_delay=float(sys.argv[1]), realtime=True)) as srv:
    print(srv.openai_url, srv.gemini_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our stdin
"""


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


async def _rounds(spec: str, turn: SessionInput, sessions: int, rounds: int) -> tuple[list, float, float]:
    model = session_model_from_spec(f"{spec}?concurrency={sessions}&max_retries=0")
    results = []
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        results += await asyncio.gather(*(model.answer(turn) for _ in range(sessions)))
    return results, time.process_time() - cpu, time.perf_counter() - wall


def measure(protocol: str, url: str, args: argparse.Namespace) -> dict[str, object]:
    """One protocol's row."""
    rate = 24_000 if protocol == "openai" else 16_000
    turn = SessionInput("あなたは音声アシスタントです。", "", b"\x00\x01" * round(rate * args.input_s), rate)
    model = "gpt-realtime-2" if protocol == "openai" else "gemini-3.8-live"
    results, cpu_s, wall_s = asyncio.run(_rounds(f"{protocol}:{model}@{url}", turn, args.sessions, args.rounds))
    first = [r.first_audio_s - args.delay for r in results]
    session_seconds = sum(r.total_s for r in results)
    return {
        "bench": "realtime",
        "protocol": protocol,
        "sessions_concurrent": args.sessions,
        "sessions": len(results),
        "configured_delay_s": args.delay,
        "reply_audio_s": args.reply_s,
        "input_audio_s": args.input_s,
        "first_audio_over_delay_ms_median": round(1000 * statistics.median(first), 2),
        "first_audio_over_delay_ms_p90": round(1000 * _p90(first), 2),
        "total_s_median": round(statistics.median(r.total_s for r in results), 4),
        "client_cpu_s_per_session_s": round(cpu_s / session_seconds, 5),
        "client_cpu_ms_per_session": round(1000 * cpu_s / len(results), 2),
        "wall_s": round(wall_s, 3),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--reply-s", type=float, default=1.0)
    parser.add_argument("--input-s", type=float, default=1.0)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    os.environ.setdefault("GEMINI_API_KEY", "sk-bench")
    set_request_cache(None)
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(args.delay), str(args.reply_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        openai_url, gemini_url = server.stdout.readline().split()
        for protocol, url in (("openai", openai_url), ("gemini", gemini_url)):
            print(json.dumps(measure(protocol, url, args)), flush=True)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
