"""Validation and statistics of dialogue sets (``voxeval dataset validate | stats`` on a file of dialogues)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from voxeval.acts import LABELS
from voxeval.data._dialogue import PHENOMENA, Dialogue, is_dialogue_row, parse_dialogue
from voxeval.data._validate import ValidationReport, _check_steps, parsed_rows
from voxeval.errors import InputError
from voxeval.io import read_jsonl


def is_dialogue_file(path: str | Path) -> bool:
    """Whether the file's first row is a dialogue (has ``turns``); an unreadable first row counts as single-turn,
    whose validator then reports it."""
    try:
        for _, row in read_jsonl(path):
            return is_dialogue_row(row)
    except InputError:
        return False
    return False


def validate_dialogue_file(path: str | Path, *, require_spans: bool = False) -> ValidationReport:
    """Check every dialogue (structure, turn order, context, phenomena) and every assistant turn's steps as the
    single-turn validator does (labels, weights summing to 1 with a unique maximum, spans exact and in order);
    ids unique, one language per file. The report's ``dialogues`` holds those that parsed."""
    report = ValidationReport(str(path))
    for where, row, dialogue in parsed_rows(path, parse_dialogue, report):
        for i, turn in enumerate(row["turns"]):
            if i % 2:
                steps_where = where.child(f"turns[{i}].output_dialogue_acts.steps")
                report.errors += _check_steps(
                    turn["output_dialogue_acts"]["steps"], turn["text"], steps_where, require_spans
                )
        report.dialogues.append(dialogue)
    if not report.dialogues and not report.errors:
        report.errors.append(f"{path}: no rows")
    languages = {d.language: d for d in reversed(report.dialogues)}
    if len(languages) > 1:
        seen_langs = ", ".join(f"{lang!r} (id {d.id!r})" for lang, d in sorted(languages.items()))
        report.errors.append(f"{path}: locale mixes languages {seen_langs}; a dataset holds one language")
    return report


def dialogue_stats(dialogues: list[Dialogue]) -> dict[str, Any]:
    """Dialogues, user / assistant turns, the context-needed share, phenomena (dialogues and turns), labels."""
    replies = [reply for d in dialogues for _, reply in d.exchanges]
    needed = sum(1 for r in replies if r.context == "needed")
    return {
        "kind": "dialogues",
        "dialogues": len(dialogues),
        "user_turns": sum(len(d.exchanges) for d in dialogues),
        "assistant_turns": len(replies),
        "user_turns_per_dialogue": dict(sorted(Counter(len(d.exchanges) for d in dialogues).items())),
        "context_needed_turns": needed,
        "context_needed_share": round(needed / max(len(replies), 1), 3),
        "phenomena_dialogues": {p: sum(1 for d in dialogues if p in d.phenomena) for p in PHENOMENA},
        "phenomena_turns": {p: sum(1 for r in replies if p in r.phenomena) for p in PHENOMENA},
        "languages": dict(Counter(d.language for d in dialogues).most_common()),
        "splits": dict(Counter(d.split or "-" for d in dialogues).most_common()),
        "domains": dict(Counter(d.domain or "-" for d in dialogues).most_common()),
        "label_steps": {label: sum(1 for r in replies for a in r.acts if a.act == label) for label in LABELS},
        "sequence_lengths": dict(sorted(Counter(len(r.acts) for r in replies).items())),
    }
