"""Offline annotator throughput: replies per second after loading (target ≥ 200/s), and load times.

Annotates ja-assistant's 336 gold replies, repeated to 3,000, in batches.
Run: ``python benchmarks/bench_annotator.py``.
"""

from __future__ import annotations

import statistics
import time

from voxeval.annotate import AnnotationInput, annotator_from_spec
from voxeval.data import dumps, resolve_dataset


def main() -> None:
    started = time.perf_counter()
    annotator = annotator_from_spec("offline")
    built = time.perf_counter() - started
    samples = resolve_dataset("ja-assistant").samples
    items = [AnnotationInput(s.output_text, s.input_text, s.background) for s in samples]
    items = (items * (3000 // len(items) + 1))[:3000]
    started = time.perf_counter()
    annotator.annotate_batch(items[:8])  # first call loads the sentence encoder
    first = time.perf_counter() - started
    rates = []
    for _ in range(3):
        started = time.perf_counter()
        annotator.annotate_batch(items)
        rates.append(len(items) / (time.perf_counter() - started))
    print(
        dumps(
            {
                "benchmark": "annotator",
                "replies": len(items),
                "repeats": 3,
                "median_replies_per_s": round(statistics.median(rates), 1),
                "artefact_load_s": round(built, 3),
                "first_call_incl_encoder_load_s": round(first, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
