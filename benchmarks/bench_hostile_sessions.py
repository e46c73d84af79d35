"""Hostile session servers (issue 40, class A) against the session layer: wall time, attempts and traced memory.

Cases: endless 60 KB transcript deltas that never end the reply (OpenAI and Gemini; once 1.5 GB resident after 8 s),
and 26 MB of PCM labelled ``audio/pcm;rate=100`` (once accepted as a 36.7-hour reply). Each must end in a classified
``ProviderError`` after one attempt, in well under a second of the server's sending, with memory bounded by the
reply caps (``voxeval.llm.sessions._collect``). The traced peak includes the mock, which holds the 26 MB reply itself.
Run: ``PYTHONPATH=src python benchmarks/bench_hostile_sessions.py``.
"""

from __future__ import annotations

import asyncio
import os
import re
import resource
import time
import tracemalloc
from typing import Any

from voxeval.llm import ProviderError, SessionInput, session_model_from_spec, set_request_cache
from voxeval.testing.realtime import Hostility, MockReply, RealtimeMockServer

CASES: dict[str, tuple[str, Hostility, int]] = {
    "flood-openai": ("openai", Hostility(flood_bytes=60_000), 0),
    "flood-gemini": ("gemini", Hostility(flood_bytes=60_000), 0),
    "rate100-26MB-gemini": ("gemini", Hostility(audio_rate="100"), 26_000_000),
}


def measure(provider: str, hostility: Hostility, size: int) -> tuple[float, int, float, str]:
    """Wall seconds, attempts, traced peak MiB and the outcome of one turn against the hostile mock."""

    def responder(turn: Any) -> MockReply | str:
        return MockReply("x", bytes(size)) if size else "x"

    tracemalloc.start()
    with RealtimeMockServer(responder, hostility=hostility) as srv:
        url = srv.openai_url if provider == "openai" else srv.gemini_url
        model = session_model_from_spec(f"{provider}:m@{url}?max_retries=4")
        pcm, rate = (b"\0\0" * 4800, 24_000) if provider == "openai" else (b"\0\0" * 3200, 16_000)
        started = time.perf_counter()
        try:
            asyncio.run(model.answer(SessionInput("s", "", pcm, rate)))
            outcome = "accepted (a bound is missing)"
        except ProviderError as error:
            outcome = f"{error.kind}: {re.sub(r'wss?://[^ ]+', 'URL', error.message)[:90]}"
        wall = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return wall, model.attempts, peak, outcome


def main() -> None:
    os.environ.setdefault("OPENAI_API_KEY", "bench-key")
    os.environ.setdefault("GEMINI_API_KEY", "bench-key")
    set_request_cache(None)
    for name, (provider, hostility, size) in CASES.items():
        wall, attempts, peak, outcome = measure(provider, hostility, size)
        print(f"{name}: {wall:.2f} s, {attempts} attempt(s), traced peak {peak:.1f} MiB; {outcome}")
    print(f"max RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
