"""Streamed full-duplex sessions against the duplex mock (server-side turn detection) in its own process.

``--sessions`` concurrent ``end_of_turn`` scenarios per round, ``--rounds`` rounds, per protocol: each sends 0.5 s of
silence, ``--speech-s`` seconds of noise "speech" and then silence in 20 ms frames at real-time pace, with the
session's turn detection on; the mock ends the turn after ``--silence-ms`` of silence and answers ``--delay-ms``
later with ``--reply-s`` seconds of audio at real time. Reported: the median and p90 of the measured response onset
latency (server evidence, from the session records) minus the configured ``silence + delay`` (target: median within
20 ms), and the client's CPU seconds (this process, ``time.process_time``) per session-second (the sum of the
sessions' lengths).
Run: ``python benchmarks/bench_duplex.py [--sessions 16] [--rounds 2] [--silence-ms 300] [--delay-ms 200]``.
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

import numpy as np

from voxeval.duplex import Clip, ScenarioSource, SessionRecord, end_of_turn, onset_latency, session_key
from voxeval.llm import set_request_cache
from voxeval.llm.sessions._session_spec import session_model_from_spec
from voxeval.llm.stream import StreamSettings, TurnDetection, drive

_SERVER = """
import sys
from voxeval.testing.realtime import DuplexMockServer, TurnBehaviour
behaviour = TurnBehaviour(silence_ms=int(sys.argv[1]), reply_delay_ms=int(sys.argv[2]), reply_s=float(sys.argv[3]))
with DuplexMockServer(behaviour) as srv:
    print(srv.openai_url, srv.gemini_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our stdin
"""


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def _clip(speech_s: float) -> Clip:
    pad = np.zeros(round(0.12 * 24_000), dtype="<i2")
    noise = np.random.default_rng(0).integers(500, 3000, round(speech_s * 24_000)).astype("<i2")
    return Clip(np.concatenate([pad, noise, pad]).tobytes(), 0.12, 0.12 + speech_s)


async def _rounds(spec: str, args: argparse.Namespace) -> tuple[list[SessionRecord], float, float]:
    model = session_model_from_spec(f"{spec}?concurrency={args.sessions}&max_retries=0")
    clip = _clip(args.speech_s)
    settings = StreamSettings(frame_ms=20, answer_timeout_s=5.0, bound_s=30.0, settle_s=0.2)
    records: list[SessionRecord] = []
    cpu, wall = time.process_time(), time.perf_counter()
    for r in range(args.rounds):
        scenarios = [end_of_turn(ScenarioSource("bench", f"s{r}-{k}", "ja", "x"), 0) for k in range(args.sessions)]
        takes = await asyncio.gather(*(drive(model, s, [clip], TurnDetection(), settings, "") for s in scenarios))
        records += [
            SessionRecord(session_key(spec, s), spec, s, s.sample_id, tuple(t.events), "none.wav")
            for s, t in zip(scenarios, takes, strict=True)
        ]
    return records, time.process_time() - cpu, time.perf_counter() - wall


def measure(protocol: str, url: str, args: argparse.Namespace) -> dict[str, object]:
    """One protocol's row."""
    records, cpu_s, wall_s = asyncio.run(_rounds(f"{protocol}:mock@{url}", args))
    configured = (args.silence_ms + args.delay_ms) / 1000
    onsets = [onset_latency(r, "server") for r in records]
    over = [o.latency_s - configured for o in onsets if o.latency_s is not None]
    session_seconds = sum(r.events[-1].t for r in records)
    return {
        "bench": "duplex",
        "protocol": protocol,
        "sessions_concurrent": args.sessions,
        "sessions": len(records),
        "measured": len(over),
        "frame_ms": 20,
        "configured_onset_s": configured,
        "onset_over_configured_ms_median": round(1000 * statistics.median(over), 2) if over else None,
        "onset_over_configured_ms_p90": round(1000 * _p90(over), 2) if over else None,
        "session_s_median": round(statistics.median(r.events[-1].t for r in records), 3),
        "client_cpu_s_per_session_s": round(cpu_s / session_seconds, 5),
        "wall_s": round(wall_s, 3),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--silence-ms", type=int, default=300)
    parser.add_argument("--delay-ms", type=int, default=200)
    parser.add_argument("--reply-s", type=float, default=1.0)
    parser.add_argument("--speech-s", type=float, default=1.0)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    os.environ.setdefault("GEMINI_API_KEY", "sk-bench")
    set_request_cache(None)
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(args.silence_ms), str(args.delay_ms), str(args.reply_s)],
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
