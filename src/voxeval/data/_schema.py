"""Rows of the paper's dataset schema (Appendix A) and of predictions, parsed into typed records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from voxeval.acts import Acts, parse_acts
from voxeval.errors import InputError, Location
from voxeval.languages import language_of

REQUIRED_GOLD_FIELDS = ("id", "scenario_context", "input", "output", "output_dialogue_acts")
"""Top-level keys every gold row must have; other keys are kept and ignored."""


@dataclass(frozen=True)
class GoldSample:
    """One single-turn benchmark item: the user's input, the optimal reply and its dialogue acts."""

    id: str
    """Stable sample id."""
    input_text: str
    """What the user says (rendered to the input audio)."""
    output_text: str
    """The optimal assistant reply."""
    acts: Acts
    """The reply's dialogue-act sequence, normalised."""
    background: str = ""
    """``scenario_context.background``: the situation the exchange happens in."""
    locale: str = "ja-JP"
    """``input.locale``."""
    domain: str | None = None
    """Topic domain (timer, weather, …), when the dataset records one."""
    split: str | None = None
    """``dev`` / ``test`` for built-in data."""
    audio: str | None = None
    """Path of the input audio as written in the row (relative to the dataset file), if synthesised."""
    line: int | None = None
    """Line of the row in its file, for error messages."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The row as read, for export and for fields voxeval does not interpret."""

    @property
    def language(self) -> str:
        """ISO 639-1 code of the input's language, from ``input.locale`` (``ja-JP`` → ``ja``)."""
        return language_of(self.locale)


def parse_id(row: dict[str, Any], where: Location) -> str:
    """The row's ``id`` as a string; ids must be non-empty strings or integers."""
    if "id" not in row:
        raise InputError(where.child("id"), "missing")
    value = row["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise InputError(where.child("id"), f"must be a non-empty string or integer, got {value!r}")
    return str(value)


def _obj(row: dict[str, Any], key: str, where: Location) -> dict[str, Any]:
    value = row.get(key)
    if not isinstance(value, dict):
        raise InputError(
            where.child(key), "missing" if value is None else f"must be an object, got {type(value).__name__}"
        )
    return value


def _text(obj: dict[str, Any], key: str, where: Location, *, required: bool = True) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(where.child(key), "missing" if value is None else f"must be a non-empty string, got {value!r}")
    return value


def parse_gold(row: dict[str, Any], where: Location) -> GoldSample:
    """Parse one gold row (paper schema + ``id``, optional ``domain``, ``split``, ``audio``)."""
    if "turns" in row and "input" not in row:
        raise InputError(
            where.child("turns"),
            "a dialogue row (it has turns) where a single-turn sample belongs; dialogue sets "
            "(docs/datasets.md) are not single-turn datasets",
        )
    for key in REQUIRED_GOLD_FIELDS:
        if key not in row:
            raise InputError(where.child(key), "missing (gold rows need " + ", ".join(REQUIRED_GOLD_FIELDS) + ")")
    sample_id = parse_id(row, where)
    scenario = _obj(row, "scenario_context", where)
    user = _obj(row, "input", where)
    reply = _obj(row, "output", where)
    dialogue_acts = _obj(row, "output_dialogue_acts", where)
    if "steps" not in dialogue_acts:
        raise InputError(where.child("output_dialogue_acts.steps"), "missing")
    acts = parse_acts(dialogue_acts["steps"], where.child("output_dialogue_acts.steps"), allow_empty=False)
    audio = user.get("audio")
    if audio is not None and not isinstance(audio, str):
        raise InputError(where.child("input.audio"), f"must be a path string, got {audio!r}")
    if audio is not None and "\x00" in audio:
        # A NUL byte is valid JSON text but no path: the operating system cannot open it.
        raise InputError(where.child("input.audio"), f"must be a path string without NUL bytes, got {audio!r}")
    optional = {k: row.get(k) for k in ("domain", "split")}
    for key, value in optional.items():
        if value is not None and not isinstance(value, str):
            raise InputError(where.child(key), f"must be a string, got {value!r}")
    return GoldSample(
        id=sample_id,
        input_text=_text(user, "text", where.child("input")),
        output_text=_text(reply, "text", where.child("output")),
        acts=acts,
        background=_text(scenario, "background", where.child("scenario_context"), required=False),
        locale=str(user.get("locale") or "ja-JP"),
        domain=optional["domain"],
        split=optional["split"],
        audio=audio,
        line=where.line,
        raw=row,
    )


@dataclass(frozen=True)
class Prediction:
    """A model's reply as dialogue acts (the PRED format of ``voxeval score``)."""

    id: str
    """Sample id it answers."""
    acts: Acts
    """Normalised acts; empty when the model said nothing."""
    text: str | None = None
    """The reply text, when the row carries it (used in reports)."""
    failure: str | None = None
    """Why the prediction could not be produced (``status: failed``); such rows are excluded, never scored."""


def parse_prediction(row: dict[str, Any], where: Location) -> Prediction:
    """Parse ``{"id", "steps", "text"?, "status"?, "error"?}``; ``status: failed`` marks an excluded sample."""
    sample_id = parse_id(row, where)
    text = row.get("text")
    if text is not None and not isinstance(text, str):
        raise InputError(where.child("text"), f"must be a string, got {type(text).__name__}")
    if row.get("status") == "failed":
        return Prediction(sample_id, (), text, str(row.get("error") or "failed"))
    if "steps" not in row:
        raise InputError(where.child("steps"), "missing (use [] for a reply with no dialogue acts)")
    return Prediction(sample_id, parse_acts(row["steps"], where.child("steps"), allow_empty=True), text)
