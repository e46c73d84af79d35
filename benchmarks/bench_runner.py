"""Runner efficiency: 300 samples against the mock server with 200 ms latency, concurrency 1 vs 16 vs 64.

Reports the reply stage's wall time as a ratio to the ideal N × latency / concurrency (1.0 is perfect).
Run: ``python benchmarks/bench_runner.py [--samples N] [--latency S] [--concurrency 1,16,64]``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from voxeval.data import builtin_path, dumps
from voxeval.llm import set_request_cache
from voxeval.run._inputs import InputItem, make_inputs
from voxeval.run._replies import ReplyItem, generate_replies
from voxeval.run._stage import StageRun
from voxeval.systems import system_from_spec
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer, silence_wav


def run_once(samples: int, latency: float, concurrency: int, work: Path) -> dict[str, float]:
    """Time the reply stage of one fresh run directory."""
    set_request_cache(None)
    (work / "in.wav").write_bytes(silence_wav(0.3))
    items = [InputItem("bench", f"s{i:04d}", "x", audio="in.wav", root=work, source="bench") for i in range(samples)]
    run_dir = work / f"run-c{concurrency}"
    inputs = asyncio.run(make_inputs(run_dir, items, "pyopenjtalk", how=StageRun(progress=False)))
    plan = FaultPlan(rate=1.0, random_faults=(Fault("latency", seconds=latency),))
    with MockServer(lambda endpoint, request: "はい、承知しました。", faults=plan) as srv:
        system = system_from_spec(f"openai-compat:bench@{srv.openai_base_url}?concurrency={concurrency}")
        started = time.perf_counter()
        asyncio.run(
            generate_replies(
                run_dir,
                [ReplyItem("bench", i.id, "") for i in items],
                [system],
                inputs,
                ("system", "user"),
                concurrency=concurrency,
                how=StageRun(progress=False),
            )
        )
        wall = time.perf_counter() - started
        calls = srv.count()
    ideal = samples * latency / concurrency
    return {
        "concurrency": concurrency,
        "samples": samples,
        "calls": calls,
        "wall_s": wall,
        "ideal_s": ideal,
        "ratio_to_ideal": wall / ideal,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", default="1,16,64")
    args = parser.parse_args()
    assert builtin_path("ja-assistant").exists()
    with tempfile.TemporaryDirectory() as tmp:
        for c in (int(x) for x in args.concurrency.split(",")):
            print(dumps({"benchmark": "runner", **run_once(args.samples, args.latency, c, Path(tmp))}), flush=True)


if __name__ == "__main__":
    main()
