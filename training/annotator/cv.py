"""Model selection by cross-validation on the train split only (the validation split is never read here).

    python -m training.annotator.cv                    # grouped 5-fold CV of the current Settings
    python -m training.annotator.cv --set c=0.02 --set transition_weight=1.0 --errors 20
    python -m training.annotator.cv --no-gate --extra training/data/da-replies-pending   # rows added to training
    python -m training.annotator.cv --language en      # English (en-assistant dev + training/data/da-replies-en)

Folds group replies by the input they answer (``LabelledReply.group``), so replies to one input never straddle a
fold, like the validation split. Each fold fits everything the shipped model fits (bigram table, gate, segment
classifier, transitions, boundaries, importances) on the other folds. Prints the out-of-fold figures by style and
flaw type, the confusion and, with ``--errors``, wrong rows to look at. Embeddings are cached on disk
(``--cache``) so that trying settings does not re-encode.

``--extra DIR`` adds the authored rows under DIR (train split only) to every training fold without evaluating
them, so the figures stay those of the same held-out rows: what more data does. ``--share S`` keeps only that
share of the evaluated rows' input groups (by sha256) in the training folds: a learning curve.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.annotator.data import CORPORA, all_replies, load_authored
from training.annotator.evaluate import evaluate, predict
from training.annotator.examples import CachedEncoder, ReplyExample, embed_examples, examples_from
from training.annotator.fit import _hash_share, parse_settings, train_model, training_table
from training.annotator.gate import fit_settings_gate
from training.annotator.scoring import confusion_table, score_annotations
from voxeval.annotate._encoder import shared_encoder

FOLDS = 5
"""Number of grouped folds."""


def fold_of(group: str, folds: int = FOLDS) -> int:
    """A group's fold, by sha256 (stable across runs)."""
    return _hash_share("cv:", group) % folds


def extra_folds(evaluated: Sequence[ReplyExample], extra: Sequence[ReplyExample]) -> list[frozenset[int]]:
    """Per extra row, the folds whose training must leave it out: its own group's fold, and the fold of every
    evaluated row that answers the same input text. Without this, an added reply to an input whose evaluated
    replies are held out would be trained on (the leak the session-8 figures had: 1,338 of the 2,394 added rows
    answer a ja-assistant dev input that evaluated rows answer too)."""
    by_text: dict[str, set[int]] = {}
    for ex in evaluated:
        by_text.setdefault(ex.sample.input_text.strip(), set()).add(fold_of(ex.reply.group))
    return [frozenset({fold_of(ex.reply.group), *by_text.get(ex.sample.input_text.strip(), ())}) for ex in extra]


def _kept(group: str, share: float) -> bool:
    """Whether a group is among the ``share`` of groups trained on (by sha256; all at 1)."""
    return share >= 1.0 or _hash_share("lc:", group) < share * 2**32


class DiskCachedEncoder(CachedEncoder):
    """A :class:`CachedEncoder` whose memo is loaded from and saved to an ``.npz`` file (texts and vectors)."""

    def __init__(self, path: Path) -> None:
        super().__init__(shared_encoder())
        self._path = path
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                self._memo = dict(zip(z["texts"].tolist(), z["vectors"], strict=True))
        self._size = len(self._memo)

    def save(self) -> None:
        """Write the memo when it grew."""
        if len(self._memo) != self._size:
            texts = list(self._memo)
            with self._path.open("wb") as f:
                np.savez(f, texts=np.array(texts, dtype=str), vectors=np.stack([self._memo[t] for t in texts]))
            self._size = len(self._memo)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m training.annotator.cv", description=__doc__.split("\n")[0])
    parser.add_argument("--language", choices=sorted(CORPORA), default="ja", help="the replies' language")
    parser.add_argument("--set", dest="changes", action="append", default=[], help="Settings override NAME=JSON")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong rows")
    parser.add_argument("--no-gate", action="store_true", help="skip the gate (labels only)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/voxeval-annotator-emb.npz"))
    parser.add_argument("--extra", type=Path, action="append", default=[], help="authored rows added to training")
    parser.add_argument("--share", type=float, default=1.0, help="share of the evaluated groups trained on")
    args = parser.parse_args(argv)
    settings = parse_settings(args.changes)
    replies = [r for r in all_replies(language=args.language) if r.split == "train"]
    evaluated = len(replies)
    extra = [r for d in args.extra for r in load_authored(d, args.language)]
    if any(r.split != "train" for r in extra):
        raise SystemExit("--extra: rows in the validation split are never trained on")
    replies += extra
    examples = examples_from(replies)
    encoder = DiskCachedEncoder(args.cache)
    emb = embed_examples(examples, encoder)
    fold = [fold_of(ex.reply.group) for ex in examples]
    left_out = extra_folds(examples[:evaluated], examples[evaluated:])
    order: list[int] = []
    preds = []
    for f in range(FOLDS):
        train = [i for i in range(evaluated) if fold[i] != f and _kept(examples[i].reply.group, args.share)]
        train += [i for i in range(evaluated, len(examples)) if f not in left_out[i - evaluated]]
        held = [i for i in range(evaluated) if fold[i] == f]
        table = training_table(examples, train)
        gate = None if args.no_gate else fit_settings_gate(examples, emb, train, encoder, settings, table)[0]
        model = train_model(examples, emb, settings, train, gate, table)
        preds += predict(model, examples, emb, held)
        order += held
    encoder.save()
    gold_examples = [examples[i] for i in order]
    report = evaluate(gold_examples, preds)
    print(json.dumps(settings.to_json()))
    if extra or args.share < 1.0:
        print(f"evaluated rows {evaluated}, extra training rows {len(extra)}, share of their groups {args.share}")
    print(json.dumps(report["overall"]))
    for key, value in report["groups"].items():
        if not key.startswith("author="):
            print(f"{key:28s} n={value['n']:4d} wed={value['wed_mean']:.4f} exact={value['exact_sequence_rate']:.3f}")
    gold = [ex.sample.acts for ex in gold_examples]
    print(confusion_table(score_annotations(gold, preds)))
    empty = sum(1 for g, p in zip(gold, preds, strict=True) if g and not p)
    print(f"gold with acts predicted empty: {empty}")
    shown = 0
    rng = np.random.default_rng(0)
    for k in rng.permutation(len(gold)):
        if shown >= args.errors:
            break
        g, p = gold[k], preds[k]
        if [s.act for s in g] != [s.act for s in p]:
            ex = gold_examples[k]
            shown += 1
            print(f"--- {ex.sample.id} {ex.reply.style} {ex.reply.flaw or ''} | {ex.sample.input_text}")
            print("  gold:", " | ".join(f"{s.act}:{s.span}" for s in g))
            print("  pred:", " | ".join(f"{s.act}:{s.span}" for s in p))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
