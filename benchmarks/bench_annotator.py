"""Offline annotator throughput: ``voxeval annotate --annotator offline`` on 3,000 replies INCLUDING start-up
(target ≥ 1,000 replies/s, issue 18), and ``annotate_batch`` after loading (the limit the command chases).

Two inputs of 3,000 rows each: ``repeated`` (ja-assistant's 336 gold replies cycled, as issue 18 measured) and
``distinct`` (every authored training reply, ja-assistant and ja-probe, ~2,500 distinct texts, cycled to 3,000).
The command runs in a fresh process (interpreter start, imports, artefact and encoder load, JSONL in and out);
its time on 8 replies is the start-up. ``annotate_batch`` is timed cold (no embeddings remembered); medians of 3.

What is cold: every command is a new process, and no embedding outlives a process (there is no disk cache of
embeddings). What is kept: the sentence encoder's *prepared copy* (its weights unpacked, its tokenizer tables;
``annotate/_use.py``), which the first run on a machine writes to ``$VOXEVAL_CACHE/encoders`` and every later run
maps. The benchmark points ``$VOXEVAL_CACHE`` at a fresh temporary folder, times that first run separately
(``first_run_s_on_8_replies``), and times the other runs as a user's second and later runs.
Run: ``python benchmarks/bench_annotator.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voxeval.annotate import AnnotationInput, annotator_from_spec
from voxeval.annotate._offline import OfflineAnnotator
from voxeval.annotate._use import default_workers
from voxeval.data import dumps, resolve_dataset

ROOT = Path(__file__).resolve().parent.parent
N = 3000
REPEATS = 3


def _rows(kind: str) -> list[dict[str, object]]:
    """``{id, text, input: {text}}`` rows of the ``repeated`` or ``distinct`` input."""
    pairs = [(s.output_text, s.input_text) for s in resolve_dataset("ja-assistant").samples]
    if kind == "distinct":
        pairs += [(s.output_text, s.input_text) for s in resolve_dataset("ja-probe").samples]
        for path in sorted((ROOT / "training" / "data" / "da-replies").glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                pairs.append(("".join(seg["text"] for seg in row["segments"]), row["input_text"]))
        pairs = list(dict.fromkeys(pairs))
    cycled = (pairs * (N // len(pairs) + 1))[:N]
    return [{"id": f"r{i:05d}", "text": text, "input": {"text": user}} for i, (text, user) in enumerate(cycled)]


def _command(rows: list[dict[str, object]], repeats: int = REPEATS) -> tuple[float, int]:
    """Median wall time of ``voxeval annotate`` in a fresh process, and the distinct texts in the input."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        for k in range(repeats):
            out = Path(tmp) / f"out{k}.jsonl"
            cmd = [sys.executable, "-m", "voxeval", "annotate", "--annotator", "offline", "--in", str(src)]
            started = time.perf_counter()
            subprocess.run([*cmd, "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
            times.append(time.perf_counter() - started)
            assert len(out.read_text(encoding="utf-8").splitlines()) == len(rows)
    return statistics.median(times), len({str(r["text"]) for r in rows})


def _batch(rows: list[dict[str, object]]) -> float:
    """Median replies/s of ``annotate_batch`` on the rows, after loading, with no embeddings remembered."""
    annotator = annotator_from_spec("offline")
    assert isinstance(annotator, OfflineAnnotator)
    items = [AnnotationInput(str(r["text"]), str(r["input"]["text"])) for r in rows]  # type: ignore[index]
    annotator.annotate_batch(items[:8])  # loads the sentence encoder
    rates = []
    for _ in range(REPEATS):
        annotator.forget()  # cold: no embeddings remembered from the previous repeat
        started = time.perf_counter()
        annotator.annotate_batch(items)
        rates.append(len(items) / (time.perf_counter() - started))
    return statistics.median(rates)


def main() -> None:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["VOXEVAL_CACHE"] = cache  # this process and the commands: a cache no earlier run has filled
        first, _ = _command(_rows("repeated")[:8], repeats=1)  # writes the encoder's prepared copy
        startup, _ = _command(_rows("repeated")[:8])
        results = [_measure(kind, startup, first) for kind in ("repeated", "distinct")]
    for row in results:
        print(dumps({**row, "load_average_before": round(load_before, 1), "load_average_after": _load_average()}))


def _load_average() -> float:
    return round(os.getloadavg()[0], 1)


def _measure(kind: str, startup: float, first: float) -> dict[str, object]:
    """The figures of one input."""
    rows = _rows(kind)
    seconds, distinct = _command(rows)
    rate = _batch(rows)
    return {
        "benchmark": "annotator",
        "input": kind,
        "replies": len(rows),
        "distinct_texts": distinct,
        "command_s_incl_startup": round(seconds, 3),
        "command_replies_per_s": round(len(rows) / seconds, 1),
        "command_s_on_8_replies": round(startup, 3),
        "first_run_s_on_8_replies": round(first, 3),
        "target_replies_per_s": 1000,
        "annotate_batch_replies_per_s": round(rate, 1),
        "command_vs_batch": round(len(rows) / seconds / rate, 3),
        "encoder_threads": default_workers(),
    }


if __name__ == "__main__":
    main()
