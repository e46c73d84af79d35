"""Versioned prompt files and their hashes (recorded in every run's ``config.json``)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

from voxeval.errors import ConfigError


@dataclass(frozen=True)
class Prompt:
    """A prompt file's text with its identity."""

    name: str
    """Path under ``voxeval/prompts`` without the suffix, e.g. ``da/response_system.v1``."""
    text: str
    """The prompt text (a trailing newline is stripped)."""

    @property
    def sha256(self) -> str:
        """Hash of the text, recorded with results so a changed prompt is visible."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def load_prompt(name: str) -> Prompt:
    """Load ``voxeval/prompts/<name>.txt``."""
    ref = resources.files("voxeval.prompts").joinpath(f"{name}.txt")
    if not ref.is_file():
        raise ConfigError(f"no prompt file {name!r}")
    return Prompt(name, ref.read_text(encoding="utf-8").rstrip("\n"))


def for_language(name: str, language: str) -> str:
    """The name of prompt ``name`` in ``language``: the spec's own (Japanese) file for ``ja``, else the file with
    the language before the version (``da/response_system.v1`` → ``da/response_system.en.v1``).

    >>> for_language("da/generate.v1", "zh"), for_language("da/generate.v1", "ja")
    ('da/generate.zh.v1', 'da/generate.v1')
    """
    if language == "ja":
        return name
    stem, dot, version = name.rpartition(".")
    localized = f"{stem}.{language}.{version}" if dot else f"{name}.{language}"
    if not resources.files("voxeval.prompts").joinpath(f"{localized}.txt").is_file():
        raise ConfigError(f"no {language!r} version of prompt {name!r} (expected {localized}.txt)")
    return localized


_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def slots(template: str) -> list[str]:
    """The slot names of a template, in order of appearance (with repeats)."""
    return _SLOT.findall(template)


def fill(template: str, **values: str) -> str:
    """Fill ``{name}`` slots strictly: every slot must be given and every given value must be used.

    Only ``{identifier}`` is a slot, so JSON examples inside a prompt stay literal. Values are inserted in
    one pass and never re-scanned, so text placed in a prompt (a model's reply) cannot inject a slot.

    >>> fill("Type: {instruction_type} {x", instruction_type="pitch")
    'Type: pitch {x'
    """
    names = set(slots(template))
    missing, unknown = sorted(names - set(values)), sorted(set(values) - names)
    if missing or unknown:
        raise ConfigError(f"prompt slots: missing {missing}, unknown {unknown}")
    return _SLOT.sub(lambda m: values[m.group(1)], template)
