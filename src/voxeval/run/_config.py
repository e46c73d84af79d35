"""A run's settings (``config.json``) and the check that a resumed run uses the same ones."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from voxeval import __version__
from voxeval.data import atomic_write_json
from voxeval.errors import ConfigError, InputError, Location
from voxeval.paths import sha256_file

STAGES = ("inputs", "replies", "annotations")
"""Append-only stage logs in a run directory, keyed by (sample, stage): one file each."""

LOGS = ("inputs.jsonl", "replies.jsonl", "annotations.jsonl", "judgements.jsonl")
"""The logs of a run (either benchmark): results that only the run's ``config.json`` says how they were made."""


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """The ``config.json`` of a folder voxeval wrote (``None`` when there is none): the one reader of it.

    Unreadable bytes, invalid JSON, or anything but an object with a ``settings`` object raise
    :class:`InputError` naming the file (a tampered or truncated file never becomes a traceback).
    """
    from voxeval.io import read_json_object

    path = run_dir / "config.json"
    config = read_json_object(path)
    if config is None:
        return None
    if not isinstance(config.get("settings"), dict):
        raise InputError(Location(str(path), field="settings"), "missing or not an object; not a voxeval config")
    return config


def settings_of(config: dict[str, Any], run_dir: Path) -> RunSettings:
    """The :class:`RunSettings` recorded in a run's ``config.json`` (checked: a wrong field is an InputError)."""
    try:
        return RunSettings.from_json(config["settings"])
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        where = Location(str(run_dir / "config.json"), field="settings")
        raise InputError(where, f"not the settings of a voxeval run ({type(exc).__name__}: {exc})") from None


def refuse_logs_without_config(run_dir: Path) -> None:
    """A folder holding a run's logs but no ``config.json`` cannot say which settings made them: refused, since
    resuming it under any settings would mix results (e.g. another annotator's annotations scored as gold)."""
    found = [name for name in LOGS if (run_dir / name).exists()]
    if found and not (run_dir / "config.json").exists():
        raise ConfigError(
            f"{run_dir} holds {', '.join(found)} but no config.json, so nothing says which settings made them; "
            "use a new --out folder (or restore its config.json)"
        )


@dataclass(frozen=True)
class RunSettings:
    """Everything that decides a run's results; a resumed run must match it exactly."""

    benchmark: str
    """``da`` (dialogue acts) or ``style``."""
    datasets: tuple[str, ...]
    """Dataset names or files."""
    systems: tuple[str, ...]
    """System spec strings."""
    annotator: str
    """Annotator (``da``) or judge (``style``) spec."""
    tts: str
    """TTS engine used to synthesise inputs that have no audio."""
    split: str | None = None
    """Only this split of each dataset, if given."""
    system_prompt: str = ""
    """System prompt text given to systems (Appendix B.1 by default)."""
    user_prompt: str = ""
    """User prompt text given with the audio (Appendix B.2 by default)."""
    abilities: tuple[str, ...] = ()
    """Only items of these abilities (style; empty: all)."""
    judge_repeats: int = 1
    """Judgements per response (style)."""
    reply_text: str = "model"
    """Which reply channel is annotated (da): ``speech`` (the ASR transcript of the reply audio) or ``model``
    (the model's own text; what runs did before reply ASR, hence the default of a ``config.json`` without it)."""
    reply_asr: str = ""
    """ASR engine spec that transcribes reply audio (da); empty: reply audio is not transcribed."""
    reference_aware: bool = False
    """The annotator gets each sample's reference reply as context (da; ``voxeval run`` turns it on by default)."""
    history: tuple[str, ...] = ()
    """History conditions of a dialogue run (``gold``, ``own``, ``none``), each its own column of results."""
    duplex: dict[str, Any] = field(default_factory=dict)
    """A duplex run's scenarios, pace, seed and turn-detection options (empty for other runs)."""

    def to_json(self) -> dict[str, Any]:
        """The ``settings`` of ``config.json``; the benchmark-specific fields are kept under ``extra``, as before
        they were typed, so runs started by earlier versions keep their fingerprint and resume.

        >>> RunSettings("style", ("acoustic-ja",), ("s",), "acoustic", "auto", judge_repeats=3).to_json()["extra"]
        {'judge_options': {'repeats': 3}}
        >>> RunSettings("da", ("ja-assistant",), ("s",), "offline", "pyopenjtalk", reply_text="speech",
        ...             reply_asr="whisper-base").to_json()["extra"]
        {'reply': {'text': 'speech', 'asr': 'whisper-base'}}
        """
        raw = asdict(self)
        abilities, repeats, history = raw.pop("abilities"), raw.pop("judge_repeats"), raw.pop("history")
        duplex = raw.pop("duplex")
        reply = {"text": raw.pop("reply_text"), "asr": raw.pop("reply_asr")}
        extra: dict[str, Any] = {}
        if raw.pop("reference_aware"):
            extra["annotator_context"] = "reference"
        if abilities:
            extra["abilities"] = sorted(abilities)
        if history:  # only dialogue runs have one: other runs keep their fingerprint
            extra["history"] = list(history)
        if duplex:  # only duplex runs have one
            extra["duplex"] = duplex
        if repeats != 1:
            extra["judge_options"] = {"repeats": repeats}
        if reply != {"text": "model", "asr": ""}:  # a run of an earlier version (model text, no ASR) keeps its hash
            extra["reply"] = reply
        return {**raw, "extra": extra}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> RunSettings:
        """Settings read back from ``config.json``."""
        fields = {k: v for k, v in raw.items() if k != "extra"}
        extra = raw.get("extra") or {}
        return cls(
            **{**fields, "datasets": tuple(fields["datasets"]), "systems": tuple(fields["systems"])},
            abilities=tuple(extra.get("abilities", ())),
            judge_repeats=int(extra.get("judge_options", {}).get("repeats", 1)),
            reply_text=str(extra.get("reply", {}).get("text", "model")),
            reply_asr=str(extra.get("reply", {}).get("asr", "")),
            reference_aware=extra.get("annotator_context") == "reference",
            history=tuple(extra.get("history", ())),
            duplex=dict(extra.get("duplex") or {}),
        )

    def fingerprint(self) -> str:
        """Hash of the settings; a run directory holds the results of exactly one fingerprint."""
        blob = json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _reply_hint(previous: dict[str, Any], settings: RunSettings) -> str:
    """What to pass when only the reply channel differs (a run started before reply ASR annotated model text)."""
    extra = (previous.get("settings") or {}).get("extra") or {}
    reply = extra.get("reply") or {"text": "model", "asr": ""}
    if (reply.get("text"), reply.get("asr")) == (settings.reply_text, settings.reply_asr):
        return ""
    return f" (this run used --reply-text {reply.get('text')} --reply-asr {reply.get('asr') or 'none'})"


def _prompt_info(text: str) -> dict[str, str]:
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}


def _context_hint(previous: dict[str, Any], settings: RunSettings) -> str:
    """A hint when the runs differ in whether the annotator sees the reference (runs started before voxeval gave
    it by default lack the setting)."""
    before = (previous.get("extra") or {}).get("annotator_context") == "reference"
    if before == settings.reference_aware or settings.benchmark != "da":
        return ""
    return (
        " (that run annotated "
        + ("with" if before else "without")
        + " the reference reply as context: "
        + ("drop --no-reference-context)" if before else "add --no-reference-context)")
    )


def write_config(
    run_dir: Path,
    settings: RunSettings,
    *,
    dataset_files: dict[str, Path],
    described: dict[str, Any],
    limit: int | None,
    argv: list[str],
) -> dict[str, Any]:
    """Write ``config.json``; when the directory already has one, refuse different settings."""
    path = run_dir / "config.json"
    fingerprint = settings.fingerprint()
    refuse_logs_without_config(run_dir)
    previous = read_config(run_dir)
    if previous is not None and previous.get("fingerprint") != fingerprint:
        raise ConfigError(
            f"{run_dir} holds a run with different settings (fingerprint {previous.get('fingerprint')} ≠ "
            f"{fingerprint}); use a new --out directory, or the same options as before to resume"
            + _reply_hint(previous, settings)
            + _context_hint(previous.get("settings") or {}, settings)
        )
    config = {
        "voxeval_version": __version__,
        "fingerprint": fingerprint,
        "settings": settings.to_json(),
        "prompts": {"system": _prompt_info(settings.system_prompt), "user": _prompt_info(settings.user_prompt)},
        # Absolute, so that `voxeval report` finds the file from any working directory (it checks the sha256).
        "datasets": {name: {"path": str(p.resolve()), "sha256": sha256_file(p)} for name, p in dataset_files.items()},
        "components": described,
        "limit": limit,
        "created": previous.get("created") if previous else time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": argv,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
    if previous and _hashes(previous.get("datasets")) != _hashes(config["datasets"]):
        raise ConfigError(f"a dataset file changed since {run_dir} was started; use a new --out directory")
    if previous and _same_run(previous, config):
        return previous  # a rerun of the same run rewrites nothing (works on a read-only copy too)
    atomic_write_json(path, config)
    return config


def _hashes(datasets: Any) -> Any:
    """Dataset name → sha256: what a resumed run must match (the path may be written relative or absolute)."""
    if not isinstance(datasets, dict):
        return datasets
    return {name: entry.get("sha256") if isinstance(entry, dict) else entry for name, entry in datasets.items()}


_TRANSIENT = ("updated", "command")
"""Fields of ``config.json`` that alone do not make a rerun rewrite it."""


def _same_run(previous: dict[str, Any], config: dict[str, Any]) -> bool:
    """Everything but the time and the exact command line is unchanged."""
    strip = lambda c: {k: v for k, v in c.items() if k not in _TRANSIENT}  # noqa: E731
    return bool(strip(json.loads(json.dumps(previous))) == strip(json.loads(json.dumps(config))))
