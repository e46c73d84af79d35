"""Reply stage against the mock server in its own process: wall time as a ratio to the ideal N × latency / width.

The mock answers every request after ``--latency`` seconds; the stage runs ``--per-width`` × width samples at each
width, so the ideal is the same at every width. ``--client per-request`` reproduces the old behaviour (a new
HTTP client, hence a new TCP connection, per request) for a before/after comparison in one run.
Targets (issue 18): ≤ 1.05 at width 4, ≤ 1.5 at width 64. The client's CPU per request and the load average are
printed too: on a shared machine the wall ratio mostly measures how much CPU the two processes were given.
Run: ``python benchmarks/bench_providers.py [--widths 4,64] [--latency 0.2] [--per-width 20] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from voxeval.data import dumps
from voxeval.llm import HttpClient, HttpReply, set_request_cache
from voxeval.run._inputs import InputItem, make_inputs
from voxeval.run._replies import ReplyItem, generate_replies
from voxeval.run._stage import StageRun
from voxeval.systems import system_from_spec
from voxeval.testing.mockserver import silence_wav

_SERVER = """
import sys, time
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer
plan = FaultPlan(rate=1.0, random_faults=(Fault("latency", seconds=float(sys.argv[1])),))
with MockServer(lambda endpoint, request: "はい、承知しました。", faults=plan, max_lifetime=3600) as srv:
    print(srv.openai_base_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our stdin
"""


class _PerRequestClient(HttpClient):
    """The old behaviour: a fresh client (and TCP connection) for every request."""

    async def request(self, method: str, url: str, *, headers: Any, **kwargs: Any) -> HttpReply:
        fresh = HttpClient(timeout=self.timeout, connections=1, limits=self.limits)
        try:
            return await fresh.request(method, url, headers=headers, **kwargs)
        finally:
            await fresh.aclose()


def _stage(base_url: str, work: Path, width: int, samples: int, per_request: bool) -> tuple[float, float]:
    """Wall and client CPU seconds of one reply stage over ``samples`` fresh samples."""
    set_request_cache(None)
    (work / "in.wav").write_bytes(silence_wav(0.3))
    items = [InputItem("bench", f"s{i:05d}", "x", audio="in.wav", root=work, source="bench") for i in range(samples)]
    run_dir = Path(tempfile.mkdtemp(dir=work))
    inputs = asyncio.run(make_inputs(run_dir, items, "pyopenjtalk", how=StageRun(progress=False)))
    system = system_from_spec(f"openai-compat:bench@{base_url}?concurrency={width}&timeout=30")
    if per_request:
        model = system.model  # type: ignore[attr-defined]
        model.http = _PerRequestClient(timeout=30, connections=width)
    started, cpu = time.perf_counter(), time.process_time()
    asyncio.run(
        generate_replies(
            run_dir,
            [ReplyItem("bench", i.id, "") for i in items],
            [system],
            inputs,
            ("system", "user"),
            concurrency=width,
            how=StageRun(progress=False),
        )
    )
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--widths", default="4,64")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--per-width", type=int, default=20, help="samples per unit of width")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--client", choices=("pooled", "per-request", "both"), default="both")
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(args.latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        modes = ("pooled", "per-request") if args.client == "both" else (args.client,)
        with tempfile.TemporaryDirectory() as tmp:
            for width in (int(w) for w in args.widths.split(",")):
                samples = args.per_width * width
                ideal = samples * args.latency / width
                for mode in modes:
                    per_request = mode == "per-request"
                    runs = [_stage(base_url, Path(tmp), width, samples, per_request) for _ in range(args.repeats)]
                    walls = [w for w, _ in runs]
                    wall = statistics.median(walls)
                    cpu_ms = 1000 * statistics.median(c for _, c in runs) / samples
                    row = {"benchmark": "reply_stage", "client": mode, "width": width, "samples": samples}
                    row.update(latency_s=args.latency, ideal_s=ideal, median_wall_s=round(wall, 3))
                    row.update(ratio_to_ideal=round(wall / ideal, 3), walls_s=[round(w, 3) for w in walls])
                    row.update(client_cpu_ms_per_request=round(cpu_ms, 2), load_average=round(os.getloadavg()[0], 1))
                    print(dumps(row), flush=True)
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
