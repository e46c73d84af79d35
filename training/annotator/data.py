"""Authored training replies: import, validation, conversion to voxeval's gold schema, and the fixed splits.

Authored rows (``training/data/da-replies/*.jsonl``) carry a reply as a list of segments, each either a
dialogue-act step (``act``, ``importance``) or chatter outside every span (``act: null``); the reply is the
concatenation of the segment texts. :func:`validate_row` checks every rule of the labelling guide that a machine
can check; :func:`to_gold` turns a row into a :class:`~voxeval.data.GoldSample` whose ``raw`` is a row of
voxeval's dataset schema (plus ``style``, ``flaw``, ``author``).

The validation split is fixed by a stable hash (:func:`split_of`): about 20% of the reply groups, where a
group is the built-in input a row answers (``source``) or, for a new input, the row itself, so replies to the
same input never straddle the split. Nothing is tuned on it.
"""

from __future__ import annotations

import hashlib
import math
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.acts import LABELS, Step
from voxeval.data import GoldSample, resolve_dataset
from voxeval.io import read_jsonl

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""

AUTHORED_DIR = ROOT / "training" / "data" / "da-replies"
"""Where the imported authored rows live (one file per authored batch)."""

STYLES = ("concise", "chatty", "flawed")
"""Reply styles of the authored data."""

FLAWS = (
    "missing_key_act",
    "redundant_acts",
    "needless_refusal",
    "asks_again",
    "wrong_order",
    "wrong_act",
    "off_topic",
    "incomplete",
    "hallucinated_action",
)
"""Flaw types a ``flawed`` row names."""

VALIDATION_SHARE = 0.2
"""Share of reply groups in the validation split."""

DATASET = "ja-assistant"
"""The built-in dataset whose dev split is also training data (its test split never is)."""


@dataclass(frozen=True)
class Corpus:
    """One language's training data and where its build writes (issue 34: ``--language ja|en|zh``)."""

    language: str
    """ISO 639-1 code."""
    dataset: str
    """The built-in dataset whose dev split is training data and whose dev inputs rows answer (``source``)."""
    locale: str
    """``input.locale`` of the rows in voxeval's schema."""
    authored_dir: Path
    """The authored rows (every ``*.jsonl`` in it)."""
    validation_file: Path
    """The validation rows with at least one act, in voxeval's dataset schema (``voxeval annotator-check``)."""
    report: Path
    """The build's validation report."""
    version: str
    """The artefact's name."""


CORPORA = {
    "ja": Corpus(
        "ja",
        DATASET,
        "ja-JP",
        AUTHORED_DIR,
        ROOT / "training" / "data" / "da-replies-validation.jsonl",
        ROOT / "training" / "annotator" / "report.json",
        "offline-v3",
    ),
    **{
        lang: Corpus(
            lang,
            f"{lang}-assistant",
            locale,
            ROOT / "training" / "data" / f"da-replies-{lang}",
            ROOT / "training" / "data" / f"da-replies-validation-{lang}.jsonl",
            ROOT / "training" / "annotator" / f"report-{lang}.json",
            f"offline-{lang}-v1",
        )
        for lang, locale in (("en", "en-US"), ("zh", "zh-CN"))
    },
}
"""Each language's corpus (Japanese: the files the shipped ``offline-v3`` was built from)."""


@dataclass(frozen=True)
class LabelledReply:
    """A gold reply with the facts the training and the evaluation group by."""

    sample: GoldSample
    """The row in voxeval's schema (``acts`` may be empty: chatter only)."""
    style: str
    """``concise`` / ``chatty`` / ``flawed``."""
    flaw: str | None
    """The named flaw of a ``flawed`` row."""
    author: str
    """Who wrote it (``a1`` …, or ``builtin`` for ja-assistant's dev split)."""
    group: str
    """The split group: the input it answers (``ja-assistant:ID``) or its own id."""

    @property
    def split(self) -> str:
        """``validation`` or ``train`` (see :func:`split_of`)."""
        return split_of(self.group)


def split_of(group: str) -> str:
    """``validation`` for about :data:`VALIDATION_SHARE` of groups, by sha256 of the group key; else ``train``."""
    digest = hashlib.sha256(group.encode("utf-8")).digest()
    return "validation" if int.from_bytes(digest[:8], "big") / 2**64 < VALIDATION_SHARE else "train"


NEW_INPUT_LANGUAGES = ("en", "zh")
"""Languages whose rows for invented inputs (``source`` null) are grouped by their input text."""


def normal_input(text: object) -> str:
    """An input text as it is compared: lower-cased, runs of spaces made one, final punctuation dropped."""
    return " ".join(str(text).lower().split()).strip(" .?!。？！")


def split_group(row: dict[str, Any]) -> str:
    """The split group of an authored row: the built-in input it answers (``source``); for an input its author
    invented, in English or Mandarin, the input text (``<lang>-new:<text>``, lower-cased, spaces and final
    punctuation dropped), so that every reply to one invented input falls on the same side of the split; for the
    Japanese rows, the row's own id (as the shipped Japanese split was drawn; kept so that it stays the same)."""
    if row.get("source"):
        return str(row["source"])
    language = str(row.get("author", "")).split("-", 1)[0]
    if language in NEW_INPUT_LANGUAGES:
        return f"{language}-new:{normal_input(row.get('input_text', ''))}"
    return str(row.get("id", ""))


def _is_two_decimals(x: float) -> bool:
    return math.isclose(round(x, 2), x, abs_tol=1e-12)


def validate_row(row: dict[str, Any], test_ids: frozenset[str] = frozenset(), dataset: str = DATASET) -> list[str]:
    """Every problem of one authored row (empty when it is valid); ``source`` must be a dev input of ``dataset``."""
    problems: list[str] = []
    for key in ("id", "author", "domain", "input_text", "style", "segments"):
        if not row.get(key):
            problems.append(f"missing {key}")
    if problems:
        return problems
    style, flaw = row["style"], row.get("flaw")
    if style not in STYLES:
        problems.append(f"style {style!r} not one of {STYLES}")
    if (style == "flawed") != (flaw is not None) or (flaw is not None and flaw not in FLAWS):
        problems.append(f"flaw {flaw!r} does not fit style {style!r}")
    source = row.get("source")
    if source is not None and (not str(source).startswith(dataset + ":") or source.split(":", 1)[1] in test_ids):
        problems.append(f"source {source!r} is not a {dataset} dev input")
    segments = row["segments"]
    if not isinstance(segments, list) or not all(isinstance(s, dict) for s in segments):
        return [*problems, "segments must be a list of objects"]
    acts = [s for s in segments if s.get("act") is not None]
    for i, seg in enumerate(segments):
        text, act = seg.get("text"), seg.get("act")
        if not isinstance(text, str) or not text.strip():
            problems.append(f"segments[{i}].text is empty")
        if act is not None and act not in LABELS:
            problems.append(f"segments[{i}].act {act!r} is not a label")
        if act is None and "importance" in seg:
            problems.append(f"segments[{i}] has an importance but no act")
        if i and act is not None and act == segments[i - 1].get("act") and not seg.get("split_ok"):
            problems.append(f"segments[{i}] repeats the act of the previous segment without split_ok")
    if not acts and style != "flawed" and row["domain"] != "small_talk":
        # the guide's chatter (thanks, greetings, general offers of help) performs no act: a small-talk reply may
        # be chatter only, e.g. 「どういたしまして！…ほかにも何かあれば、いつでも声をかけてくださいね。」
        problems.append("no act, but only a flawed or small-talk reply may perform none")
    weights = [s.get("importance") for s in acts]
    if any(isinstance(w, bool) or not isinstance(w, (int, float)) or w <= 0 for w in weights):
        return [*problems, f"importances must be positive numbers: {weights}"]
    numbers = [float(w) for w in weights if w is not None]
    if numbers and not math.isclose(math.fsum(numbers), 1.0, abs_tol=1e-9):
        problems.append(f"importances sum to {math.fsum(numbers)}, not 1")
    if not all(_is_two_decimals(w) for w in numbers):
        problems.append(f"importances need at most two decimals: {numbers}")
    if numbers and numbers.count(max(numbers)) != 1:
        problems.append(f"the maximum importance is not unique: {numbers}")
    return problems


def reply_of(row: dict[str, Any]) -> str:
    """The reply: the segment texts concatenated."""
    return "".join(s["text"] for s in row["segments"])


def to_gold(row: dict[str, Any], locale: str = "ja-JP") -> LabelledReply:
    """A valid authored row as a gold sample (spans are the act segments, stripped of outer whitespace) in the
    language of ``locale``."""
    reply = reply_of(row)
    steps = [Step(s["act"], float(s["importance"]), span=s["text"].strip()) for s in row["segments"] if s["act"]]
    schema = {
        "id": row["id"],
        "domain": row["domain"],
        "split": split_of(split_group(row)),
        "scenario_context": {"background": row.get("background") or ""},
        "input": {"role": "USER", "text": row["input_text"], "locale": locale},
        "output": {"role": "ASSISTANT", "text": reply},
        "output_dialogue_acts": {"steps": [s.to_json() for s in steps]},
        "style": row["style"],
        "flaw": row.get("flaw"),
        "author": row["author"],
        "source": row.get("source"),
    }
    sample = GoldSample(
        id=row["id"],
        input_text=row["input_text"],
        output_text=reply,
        acts=tuple(steps),
        background=row.get("background") or "",
        domain=row["domain"],
        split=schema["split"],
        locale=locale,
        raw=schema,
    )
    return LabelledReply(sample, row["style"], row.get("flaw"), row["author"], split_group(row))


def span_problems(sample: GoldSample) -> list[str]:
    """Spans that are not exact, in-order, non-overlapping substrings of the reply."""
    problems, cursor = [], 0
    for i, step in enumerate(sample.acts):
        found = sample.output_text.find(step.span or "", cursor) if step.span else -1
        if found < 0:
            problems.append(f"step {i}: span {step.span!r} is not in order in the reply")
        else:
            cursor = found + len(step.span or "")
    return problems


def held_out_ids(dataset: str = DATASET) -> frozenset[str]:
    """Ids of the built-in dataset's test split (no authored row may answer one)."""
    return frozenset(s.id for s in resolve_dataset(dataset).split("test").samples)


def read_rows(paths: Iterable[Path]) -> list[tuple[Path, int, dict[str, Any]]]:
    """``(file, line, row)`` of every non-blank line, files in sorted order (``voxeval.io.read_jsonl``, so an
    unreadable file, text that is not UTF-8 or a line that is not a JSON object raises ``InputError`` naming the
    file and line)."""
    return [(path, line, row) for path in sorted(paths) for line, row in read_jsonl(path)]


def load_authored(directory: Path = AUTHORED_DIR, language: str = "ja") -> list[LabelledReply]:
    """Every authored row under ``directory`` (in ``language``), validated; raises ``ValueError`` listing all
    problems."""
    corpus = CORPORA[language]
    tests, seen, problems, out = held_out_ids(corpus.dataset), set(), [], []
    for path, line, row in read_rows(directory.glob("*.jsonl")):
        where = f"{path.name}:{line}"
        found = validate_row(row, tests, corpus.dataset)
        if row.get("id") in seen:
            found.append(f"duplicate id {row.get('id')!r}")
        seen.add(row.get("id"))
        if not found:
            reply = to_gold(row, corpus.locale)
            found = span_problems(reply.sample)
            out.append(reply)
        problems += [f"{where}: {p}" for p in found]
    if problems:
        raise ValueError("invalid authored rows:\n" + "\n".join(problems))
    return out


def builtin_dev(language: str = "ja") -> list[LabelledReply]:
    """The language's built-in dataset's dev split as concise training replies (author ``builtin``)."""
    dataset = CORPORA[language].dataset
    return [
        LabelledReply(s, "concise", None, "builtin", f"{dataset}:{s.id}")
        for s in resolve_dataset(dataset).split("dev").samples
    ]


def all_replies(directory: Path | None = None, language: str = "ja") -> list[LabelledReply]:
    """The built-in dev rows, then the authored rows (default: the language's folder)."""
    folder = CORPORA[language].authored_dir if directory is None else directory
    return [*builtin_dev(language), *load_authored(folder, language)]


def import_files(sources: Sequence[Path], dest: Path = AUTHORED_DIR) -> dict[str, Any]:
    """Copy authored files whose every row is valid into ``dest``; report the files refused and why."""
    tests = held_out_ids()
    dest.mkdir(parents=True, exist_ok=True)
    copied, refused = [], {}
    for path in sorted(sources):
        problems = []
        for _, line, row in read_rows([path]):
            found = validate_row(row, tests) or span_problems(to_gold(row).sample)
            problems += [f"line {line}: {p}" for p in found]
        if problems:
            refused[path.name] = problems[:20]
            continue
        shutil.copyfile(path, dest / path.name)
        copied.append(path.name)
    return {"copied": copied, "refused": refused}
