"""Versioned prompt files and their hashes (recorded in every run's ``config.json``)."""

from __future__ import annotations

import hashlib
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


def fill(template: str, **slots: str) -> str:
    """Fill ``{name}`` slots strictly: every slot must be given and every given value must be used.

    Literal braces are written ``{{`` / ``}}``. Values are inserted verbatim (never re-scanned for slots),
    so model output placed in a prompt cannot inject a slot.

    >>> fill("Type: {instruction_type}", instruction_type="pitch")
    'Type: pitch'
    """
    import string

    names: list[str] = []
    for _, field_name, spec, conversion in string.Formatter().parse(template):
        if field_name is None:
            continue
        if not field_name.isidentifier() or spec or conversion:
            raise ConfigError(f"prompt slot {{{field_name}}} is not a plain name")
        names.append(field_name)
    missing = sorted(set(names) - set(slots))
    unknown = sorted(set(slots) - set(names))
    if missing or unknown:
        raise ConfigError(f"prompt slots: missing {missing}, unknown {unknown}")
    return template.format(**slots)
