"""Evaluating a trained model on held-out examples: WED / WLCS / exact label sequences by style and by flaw type.

    python -m training.annotator.evaluate DIR [--version V]   # a shipped artefact on authored rows it never saw

The command scores an artefact (default: the shipped one) on every authored row under ``DIR`` (e.g.
``training/data/da-replies-pending``, rows no shipped model was trained on), with its gate, as it runs.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator.examples import Embedded, ReplyExample
from training.annotator.scoring import score_annotations
from voxeval.acts import Acts
from voxeval.annotate._offline_model import OfflineModel, ReplyInput
from voxeval.metrics import weighted_edit_distance

TARGETS = {"concise": 0.10, "chatty": 0.13, "flawed": 0.18}
"""Issue 17's mean-WED targets by style (and exact label sequences >= 75% overall)."""


def predict(model: OfflineModel, examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int]) -> list[Acts]:
    """The runtime prediction (:meth:`OfflineModel.predict_many`) of each example at ``idx``, from cached
    embeddings."""
    items = [
        ReplyInput(
            examples[i].sample.output_text,
            examples[i].segments,
            emb.segments[i],
            examples[i].sample.input_text,
            emb.users[i],
            examples[i].sample.background,
            emb.backgrounds[i],
        )
        for i in idx
    ]
    return [steps for steps, _ in model.predict_many(items)]


def _group(gold: Sequence[Acts], pred: Sequence[Acts]) -> dict[str, Any]:
    score = score_annotations(gold, pred)
    exact = [float([s.act for s in g] == [s.act for s in p]) for g, p in zip(gold, pred, strict=True)]
    return {
        "n": score.n,
        "wed_mean": round(score.wed_mean, 4),
        "wlcs_mean": round(score.wlcs_mean, 4),
        "exact_sequence_rate": round(math.fsum(exact) / max(len(exact), 1), 4),
    }


def evaluate(gold_examples: Sequence[ReplyExample], pred: Sequence[Acts]) -> dict[str, Any]:
    """Overall, by style, by flaw type and by author; the confusion over WED-aligned steps; worst rows."""
    gold = [ex.sample.acts for ex in gold_examples]
    keys: dict[str, list[int]] = {}
    for k, ex in enumerate(gold_examples):
        for key in (
            f"style={ex.reply.style}",
            f"flaw={ex.reply.flaw}" if ex.reply.flaw else "",
            f"author={ex.reply.author}",
        ):
            if key:
                keys.setdefault(key, []).append(k)
    overall = score_annotations(gold, pred)
    worst = sorted(range(len(gold)), key=lambda k: -weighted_edit_distance(pred[k], gold[k]).total)[:15]
    return {
        "overall": _group(gold, pred) | {"macro_f1": round(overall.macro_f1, 4)},
        "groups": {key: _group([gold[k] for k in ks], [pred[k] for k in ks]) for key, ks in sorted(keys.items())},
        "confusion": overall.confusion,
        "chatter_only": {
            "n": sum(1 for g in gold if not g),
            "predicted_empty": sum(1 for g, p in zip(gold, pred, strict=True) if not g and not p),
        },
        "worst": [
            {
                "id": gold_examples[k].sample.id,
                "style": gold_examples[k].reply.style,
                "gold": [s.act for s in gold[k]],
                "pred": [s.act for s in pred[k]],
            }
            for k in worst
        ],
    }


def meets_targets(report: dict[str, Any]) -> dict[str, bool]:
    """Which of issue 17's targets a validation report meets."""
    groups = report["groups"]
    out = {
        f"wed_{style}<={limit}": groups.get(f"style={style}", {}).get("wed_mean", 1.0) <= limit
        for style, limit in TARGETS.items()
    }
    out["exact_sequence>=0.75"] = report["overall"]["exact_sequence_rate"] >= 0.75
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: print the overall figures, then each group's, then the rows given no acts."""
    from training.annotator.data import load_authored
    from training.annotator.examples import CachedEncoder, embed_examples, examples_from
    from voxeval.annotate._encoder import shared_encoder
    from voxeval.annotate._offline import DEFAULT_VERSION, load_version

    parser = argparse.ArgumentParser(prog="python -m training.annotator.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="folder of authored *.jsonl rows")
    parser.add_argument("--version", default=DEFAULT_VERSION, help="artefact (default %(default)s)")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        parser.error(f"{args.directory}: not a folder")
    model = load_version(args.version).model
    examples = examples_from(load_authored(args.directory))
    emb = embed_examples(examples, CachedEncoder(shared_encoder()))
    pred = predict(model, examples, emb, range(len(examples)))
    report = evaluate(examples, pred)
    print(json.dumps(report["overall"]))
    for key, value in report["groups"].items():
        print(f"{key:28s} n={value['n']:4d} wed={value['wed_mean']:.4f} exact={value['exact_sequence_rate']:.3f}")
    empty = Counter(
        ex.reply.flaw or ex.reply.style for ex, p in zip(examples, pred, strict=True) if ex.sample.acts and not p
    )
    print("rows with gold acts given none:", json.dumps(dict(sorted(empty.items()))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
