"""What a labeller sees: the items of a run directory or a JSONL file, in a per-labeller random order."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from voxeval.data import read_jsonl
from voxeval.errors import InputError, Location
from voxeval.io._keys import read_run_log, sample_key

Task = Literal["da", "style"]
"""``da``: label a reply's dialogue acts; ``style``: rate a spoken reply's style adherence 1–5."""

LABELLER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A labeller's name is a file name: letters, digits, ``_ . -``; no path separators (matched whole:
``fullmatch``, so a trailing newline is refused too)."""


@dataclass(frozen=True)
class LabelItem:
    """One reply to judge, with what the page shows beside it."""

    key: str
    """Stable key (the run's ``dataset/system/id`` or the file's ``id``); judgements are keyed by it."""
    id: str
    """Sample id."""
    text: str
    """The reply text (shown as text, never as HTML)."""
    text_source: str = ""
    """Which channel ``text`` is: ``speech`` (the ASR transcript of the reply audio, what a run with
    ``--reply-text speech`` annotates) or ``model`` (the model's own text); empty when not known (an items file)."""
    model_text: str = ""
    """The model's own text when ``text`` is the speech transcript (shown beside it when they differ)."""
    system: str = ""
    """System that replied (hidden from the labeller by default: blind rating)."""
    dataset: str = ""
    """Dataset the sample comes from."""
    reply_audio: str | None = None
    """Reply audio, relative to the served root."""
    input_text: str = ""
    """What the user said, when known."""
    background: str = ""
    """The scenario the exchange happens in (``scenario_context.background``), when known."""
    locale: str = ""
    """The input's locale (``input.locale``, e.g. ``en-US``), when known."""
    input_audio: str | None = None
    """Input (or instruction) audio, relative to the served root."""
    instruction: str = ""
    """Style task: the instruction the reply had to follow."""
    attributes: dict[str, str] = field(default_factory=dict)
    """Style task: requested attribute → level."""

    def public(self, *, show_system: bool) -> dict[str, Any]:
        """The item as the page receives it (JSON)."""
        row = {
            "key": self.key,
            "id": self.id,
            "text": self.text,
            "text_source": self.text_source,
            "model_text": self.model_text,
            "locale": self.locale,
            "dataset": self.dataset,
            "reply_audio": self.reply_audio,
            "input_text": self.input_text,
            "background": self.background,
            "input_audio": self.input_audio,
            "instruction": self.instruction,
            "attributes": self.attributes,
        }
        if show_system:
            row["system"] = self.system
        return row


def check_labeller(name: str) -> str:
    """The labeller's name, refused when it could not be a plain file name."""
    if not LABELLER.fullmatch(name):
        raise InputError(Location("--labeller"), f"{name!r}: use 1-64 letters, digits, '_', '.' or '-'")
    return name


def _str(row: dict[str, Any], *keys: str) -> str:
    return next((row[k] for k in keys if isinstance(row.get(k), str)), "")


def _attributes(row: dict[str, Any], where: Location) -> dict[str, str]:
    raw = row.get("attributes", row.get("requirements", {}))
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise InputError(where.child("attributes"), "must be an object of attribute → level strings")
    return {str(k): v for k, v in raw.items()}


def _from_row(row: dict[str, Any], key: str, where: Location) -> LabelItem:
    audio = row.get("audio")
    return LabelItem(
        key=key,
        id=str(row.get("id", key)),
        text=_str(row, "text"),
        text_source=_str(row, "text_source"),
        model_text=_str(row, "model_text") if _str(row, "text_source") == "speech" else "",
        system=_str(row, "system", "model_name"),
        dataset=_str(row, "dataset"),
        reply_audio=audio if isinstance(audio, str) else None,
        input_text=_str(row, "input_text"),
        background=_str(row, "background"),
        locale=_str(row, "locale"),
        input_audio=_str(row, "input_audio") or None,
        instruction=_str(row, "instruction", "instruct_text"),
        attributes=_attributes(row, where),
    )


def _recorded_inputs(run_dir: Path) -> dict[str, dict[str, str]]:
    """Input text and background of every sample of a dialogue-act run, by sample key, from the datasets its
    ``config.json`` recorded (found by path and sha256, as ``voxeval report`` finds them); empty for other runs."""
    from voxeval.run._config import read_config, settings_of
    from voxeval.run._read import recorded_datasets

    config = read_config(run_dir)
    if config is None or (config.get("settings") or {}).get("benchmark") != "da":
        return {}
    datasets = recorded_datasets(run_dir, config, settings_of(config, run_dir))
    return {
        sample_key(d.name, s.id): {"input_text": s.input_text, "background": s.background, "locale": s.locale}
        for d in datasets
        for s in d.samples
    }


def _builtin_style_file(spec: str) -> str | None:
    """This installation's file of a built-in style set name (another candidate for the recorded path)."""
    from importlib import resources

    if Path(spec).suffix == ".jsonl":
        return None
    style = resources.files("voxeval.data.builtin").joinpath("style")
    path = Path(str(style.joinpath(f"{spec.removeprefix('style/')}.jsonl")))
    return str(path) if path.is_file() else None


def _recorded_style(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Instruction text and requested attributes of every item of a style run, by sample key, from the style sets
    its ``config.json`` recorded (found by path and sha256, never a same-named file); empty for other runs."""
    from voxeval.run._config import read_config, settings_of
    from voxeval.run._names import split_named
    from voxeval.run._recorded import locate_recorded
    from voxeval.style._sets import load_style_set

    config = read_config(run_dir)
    if config is None or (config.get("settings") or {}).get("benchmark") != "style":
        return {}
    specs, recorded = settings_of(config, run_dir).datasets, config.get("datasets")
    if not isinstance(recorded, dict) or len(recorded) != len(specs):
        where = Location(str(run_dir / "config.json"), field="datasets")
        raise InputError(where, "must record one {path, sha256} per dataset of the settings; not a voxeval config")
    out = {}
    for spec, (name, entry) in zip(specs, recorded.items(), strict=True):
        path = locate_recorded(run_dir, entry, f"datasets.{name}", also=_builtin_style_file(split_named(spec)[1]))
        for item in load_style_set(path).items:
            out[sample_key(name, item.id)] = {"instruction": item.instruction, "attributes": dict(item.requirements)}
    return out


def _recorded(run_dir: Path, task: Task) -> dict[str, dict[str, Any]]:
    return _recorded_inputs(run_dir) if task == "da" else _recorded_style(run_dir)


def load_run_items(run_dir: Path, task: Task) -> list[LabelItem]:
    """The run's replies that can be judged: ``ok`` replies with text (DA: the channel the run scores, e.g. the
    ASR transcript of a spoken reply) or with audio (style). Logs are read through the run's checked reader."""
    from voxeval.run._read import read_replies

    replies_path = run_dir / "replies.jsonl"
    if not replies_path.exists():
        raise InputError(Location(str(replies_path)), "missing: not a run directory (no replies.jsonl)")
    inputs = read_run_log(run_dir / "inputs.jsonl")
    recorded = _recorded(run_dir, task)
    replies = read_replies(run_dir) if recorded and task == "da" else read_run_log(replies_path)
    items = []
    for key, row in sorted(replies.items()):
        if row.get("status") != "ok" or not (row.get("text") if task == "da" else row.get("audio")):
            continue  # failed or empty replies carry nothing to judge
        sample = sample_key(row["dataset"], row["id"])
        source, known = inputs.get(sample, {}), recorded.get(sample, {})
        where = Location(str(replies_path), None, key)
        if task == "style" and recorded and not known:
            raise InputError(where, f"{sample!r} is not an item of the style sets config.json recorded")
        merged = {
            **row,
            "input_audio": source.get("audio"),
            "input_text": known.get("input_text") or _str(source, "text", "input_text"),
            "background": known.get("background", ""),
            "locale": known.get("locale", ""),
            "instruction": known.get("instruction", ""),
            "attributes": known.get("attributes", {}),
        }
        items.append(_from_row(merged, key, where))
    return items


def load_file_items(path: Path) -> list[LabelItem]:
    """Rows ``{"id", "text", "audio"?, "input_text"?, "background"?, "locale"?, "input_audio"?, "instruction"?,
    "attributes"?, "text_source"?, "model_text"?}``."""
    items, seen = [], set()
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        if not isinstance(row.get("id"), (str, int)) or isinstance(row.get("id"), bool) or row.get("id") == "":
            raise InputError(where.child("id"), "missing or not a non-empty string/integer")
        key = str(row["id"])
        if key in seen:
            raise InputError(where.child("id"), f"{key!r} appears twice")
        seen.add(key)
        items.append(_from_row(row, key, where))
    return items


def order_seed(labeller: str, task: Task) -> int:
    """The labeller's order seed: derived from the name and task, so a reopened page keeps its order."""
    return int.from_bytes(hashlib.sha256(f"{task}:{labeller}".encode()).digest()[:4], "big")


def ordered(items: list[LabelItem], seed: int, first: frozenset[str] = frozenset()) -> list[LabelItem]:
    """The items shuffled with ``seed`` (sorted by key first, so the order does not depend on file order); the
    keys in ``first`` (a drawn sample, :mod:`voxeval.label._sample`) come before the others, each part shuffled."""
    out = sorted(items, key=lambda i: i.key)
    random.Random(seed).shuffle(out)
    return sorted(out, key=lambda i: i.key not in first)  # stable: keeps the shuffled order within each part
