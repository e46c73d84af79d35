"""Variants of the stacked label model's settings (``stack_*``) compared by grouped 5-fold CV on the train split.

    python -m training.annotator.stack_grid --set stack_bags=5 --set stack_subsample=0.8 [--variant ...]

Equivalent to ``python -m training.annotator.cv --no-gate --set …`` for each variant (same folds, same fits), but
each outer fold's classifier, rows and out-of-fold classifier log-probabilities are computed once and shared by
all variants, which only refit the trees. A variant is a space-separated list of ``NAME=JSON`` overrides; the
first variant printed is the current Settings.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.annotator.cv import FOLDS, DiskCachedEncoder, fold_of
from training.annotator.data import all_replies
from training.annotator.evaluate import evaluate, predict
from training.annotator.examples import embed_examples, examples_from
from training.annotator.fit import CLASSES, design, fit_stack, parse_settings, train_model, training_table
from voxeval.annotate._trees import TreeEnsemble


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m training.annotator.stack_grid", description=__doc__.split("\n")[0])
    parser.add_argument("--variant", action="append", default=[], help="space-separated NAME=JSON overrides")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/voxeval-annotator-emb.npz"))
    args = parser.parse_args(argv)
    base = parse_settings([])
    variants = [parse_settings(v.split()) for v in ["", *args.variant]]
    replies = [r for r in all_replies() if r.split == "train"]
    examples = examples_from(replies)
    encoder = DiskCachedEncoder(args.cache)
    emb = embed_examples(examples, encoder)
    encoder.save()
    fold = [fold_of(ex.reply.group) for ex in examples]
    order: list[int] = []
    preds: list[list] = [[] for _ in variants]
    for f in range(FOLDS):
        train = [i for i in range(len(examples)) if fold[i] != f]
        held = [i for i in range(len(examples)) if fold[i] == f]
        plain = train_model(
            examples, emb, dataclasses.replace(base, stack=False), train, None, training_table(examples, train)
        )
        rows = design(examples, emb, train, plain.vocabulary, plain.bigrams, base.answers)
        sequences = [[CLASSES.index(label) for label in examples[i].labels] for i in train]
        cache: dict[str, list[np.ndarray]] = {}
        fitted: dict[str, TreeEnsemble] = {}  # by the settings less the blend, which only mixes at prediction
        for k, settings in enumerate(variants):
            start = time.perf_counter()
            key = json.dumps(dataclasses.replace(settings, stack_blend=0.0).to_json(), sort_keys=True)
            if key not in fitted:
                fitted[key] = fit_stack(
                    examples, train, rows, sequences, settings, len(CLASSES), len(plain.vocabulary), cache
                )
            model = dataclasses.replace(
                plain, stack=fitted[key], stack_blend=settings.stack_blend, stack_raw=settings.stack_raw
            )
            preds[k] += predict(model, examples, emb, held)
            print(f"fold {f} variant {k}: {time.perf_counter() - start:.1f}s", flush=True)
        order += held
    gold_examples = [examples[i] for i in order]
    for settings, pred in zip(variants, preds, strict=True):
        report = evaluate(gold_examples, pred)
        changed = {k: v for k, v in settings.to_json().items() if v != getattr(base, k)}
        styles = " / ".join(
            f"{report['groups'][f'style={s}']['wed_mean']:.4f}" for s in ("concise", "chatty", "flawed")
        )
        overall = report["overall"]
        print(
            f"{json.dumps(changed)}: wed {overall['wed_mean']:.4f} exact {overall['exact_sequence_rate']:.4f}"
            f" ({styles})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
