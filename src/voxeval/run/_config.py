"""A run's settings (``config.json``) and the check that a resumed run uses the same ones."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voxeval import __version__
from voxeval.data import atomic_write_json
from voxeval.errors import ConfigError
from voxeval.paths import sha256_file

STAGES = ("inputs", "replies", "annotations")
"""Append-only stage logs in a run directory, keyed by (sample, stage): one file each."""


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
    reference_aware: bool = False
    """The annotator gets each sample's reference reply as context (da; ``voxeval run`` turns it on by default)."""

    def to_json(self) -> dict[str, Any]:
        """The ``settings`` of ``config.json``; the benchmark-specific fields are kept under ``extra``, as before
        they were typed, so runs started by earlier versions keep their fingerprint and resume.

        >>> RunSettings("style", ("acoustic-ja",), ("s",), "acoustic", "auto", judge_repeats=3).to_json()["extra"]
        {'judge_options': {'repeats': 3}}
        """
        raw = asdict(self)
        abilities, repeats = raw.pop("abilities"), raw.pop("judge_repeats")
        extra: dict[str, Any] = {}
        if raw.pop("reference_aware"):
            extra["annotator_context"] = "reference"
        if abilities:
            extra["abilities"] = sorted(abilities)
        if repeats != 1:
            extra["judge_options"] = {"repeats": repeats}
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
            reference_aware=extra.get("annotator_context") == "reference",
        )

    def fingerprint(self) -> str:
        """Hash of the settings; a run directory holds the results of exactly one fingerprint."""
        blob = json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


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
    previous: dict[str, Any] | None = None
    if path.exists():
        previous = json.loads(path.read_text(encoding="utf-8"))
        if previous.get("fingerprint") != fingerprint:
            raise ConfigError(
                f"{run_dir} holds a run with different settings (fingerprint {previous.get('fingerprint')} ≠ "
                f"{fingerprint}); use a new --out directory, or the same options as before to resume"
                + _context_hint(previous.get("settings") or {}, settings)
            )
    config = {
        "voxeval_version": __version__,
        "fingerprint": fingerprint,
        "settings": settings.to_json(),
        "prompts": {"system": _prompt_info(settings.system_prompt), "user": _prompt_info(settings.user_prompt)},
        "datasets": {name: {"path": str(p), "sha256": sha256_file(p)} for name, p in dataset_files.items()},
        "components": described,
        "limit": limit,
        "created": previous["created"] if previous else time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": argv,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
    if previous and previous.get("datasets") != config["datasets"]:
        raise ConfigError(f"a dataset file changed since {run_dir} was started; use a new --out directory")
    if previous and _same_run(previous, config):
        return previous  # a rerun of the same run rewrites nothing (works on a read-only copy too)
    atomic_write_json(path, config)
    return config


_TRANSIENT = ("updated", "command")
"""Fields of ``config.json`` that alone do not make a rerun rewrite it."""


def _same_run(previous: dict[str, Any], config: dict[str, Any]) -> bool:
    """Everything but the time and the exact command line is unchanged."""
    strip = lambda c: {k: v for k, v in c.items() if k not in _TRANSIENT}  # noqa: E731
    return bool(strip(json.loads(json.dumps(previous))) == strip(json.loads(json.dumps(config))))
