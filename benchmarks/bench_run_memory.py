"""Run memory: peak RSS of ``voxeval run`` on N replay samples (target: 10,000 samples under 400 MB).

Each size runs ``voxeval run --system replay:… --annotator gold:…`` in a fresh child process on a generated dataset
(every sample references one 0.5 s WAV, so no TTS; distinct reply texts, so the gold annotator holds N entries) and
reads the child's own peak RSS from ``wait4``. Growth per sample is the slope between the smallest and largest N.
Run: ``python benchmarks/bench_run_memory.py [--samples 1000,10000] [--src DIR]`` (``--src``: another source tree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ACTS = ("Answer", "Inform", "Commissive", "Question", "Suggestion")


def write_dataset(folder: Path, samples: int) -> tuple[Path, Path]:
    """A dataset of ``samples`` rows with audio, and a replay file answering each with its gold reply."""
    from voxeval.testing.mockserver import silence_wav

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.wav").write_bytes(silence_wav(0.5))
    rows, replies = [], []
    for i in range(samples):
        text = f"{i}番目の返答です。ご用件は承りました。明日の天気は晴れの予報です。"
        rows.append(
            {
                "id": f"s{i:06d}",
                "split": "test",
                "scenario_context": {"background": f"ユーザーは{i}番目の場面で話しかけている。"},
                "input": {"role": "USER", "text": f"{i}番目の質問です", "locale": "ja-JP", "audio": "in.wav"},
                "output": {"role": "ASSISTANT", "text": text},
                "output_dialogue_acts": {
                    "steps": [{"act": ACTS[i % len(ACTS)], "importance": 0.6}, {"act": "Inform", "importance": 0.4}]
                },
            }
        )
        replies.append({"id": f"s{i:06d}", "text": text})
    data = folder / "bench.jsonl"
    replay = folder / "replies.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in replies), encoding="utf-8")
    return data, replay


def peak_rss_of_run(data: Path, replay: Path, out: Path, src: Path | None) -> tuple[float, float, int]:
    """(peak RSS in MiB, wall seconds, exit code) of one ``voxeval run`` child process."""
    command = [sys.executable, "-m", "voxeval", "run", "--dataset", str(data), "--system", f"replay:{replay}"]
    command += ["--annotator", f"gold:{data}", "--out", str(out), "--quiet"]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        assert proc.stderr is not None
        sys.stderr.write(proc.stderr.read().decode(errors="replace")[-2000:])
    return usage.ru_maxrss / 1024, time.perf_counter() - started, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", default="1000,10000", help="comma-separated dataset sizes")
    parser.add_argument("--src", type=Path, help="run the child against this source tree (PYTHONPATH)")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.samples.split(","))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            data, replay = write_dataset(Path(tmp) / f"data-{n}", n)
            peak, wall, code = peak_rss_of_run(data, replay, Path(tmp) / f"run-{n}", args.src)
            results.append((n, peak))
            row: dict[str, object] = {"samples": n, "peak_rss_mib": round(peak, 1), "wall_s": round(wall, 1)}
            if code:
                row["exit"] = code
            if len(results) > 1:
                (n0, p0), (n1, p1) = results[0], results[-1]
                row["kib_per_sample"] = round((p1 - p0) * 1024 / (n1 - n0), 1)
            print(json.dumps({"benchmark": "run_memory", **row}), flush=True)


if __name__ == "__main__":
    main()
