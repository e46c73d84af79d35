"""Names of the systems and datasets of a run: distinct and stable, so result keys can never collide (pure).

A system or dataset is named by its short name (a replay file's stem, a dataset file's stem, a spec). Two that
share one — ``replay:a/replies.jsonl`` and ``replay:b/replies.jsonl`` — are both named ``replay:replies~`` plus six
hex digits of their full spec, which stay the same on every rerun of the same command. ``NAME=SPEC`` names one
explicitly (``--system mine=replay:a/replies.jsonl``). The same spec given twice, or two explicit names that are
equal, stop the run before it writes anything.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError

_NAMED = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)=(.+)", re.DOTALL)
"""``NAME=SPEC``: a name without ``:`` or ``/``, then the spec."""


def split_named(given: str) -> tuple[str | None, str]:
    """``NAME=SPEC`` → ``(NAME, SPEC)``; a plain spec (or an existing file whose name has a ``=``) → ``(None, it)``.

    >>> split_named("mine=replay:a/r.jsonl"), split_named("cascade:asr=oracle"), split_named("openai:gpt?x=1")
    (('mine', 'replay:a/r.jsonl'), (None, 'cascade:asr=oracle'), (None, 'openai:gpt?x=1'))
    """
    match = _NAMED.fullmatch(given)
    if match is None or Path(given).exists():
        return None, given
    return match.group(1), match.group(2)


def spec_hash(spec: str) -> str:
    """Six hex digits of a spec, appended to a short name that another spec shares.

    >>> spec_hash("replay:a/replies.jsonl")
    'a37e02'
    """
    return hashlib.sha256(spec.encode("utf-8")).hexdigest()[:6]


@dataclass(frozen=True)
class Entry:
    """One ``--system`` or ``--dataset`` value, before naming."""

    given: str
    """As given on the command line (``NAME=SPEC`` or ``SPEC``)."""
    short: str
    """The name it has by itself (the adapter's or the dataset's)."""


def distinct_names(entries: Sequence[Entry], option: str) -> list[str]:
    """A distinct, stable name per entry (see the module docstring); ``option`` (``--system``) names errors.

    >>> distinct_names([Entry("replay:a/r.jsonl", "replay:r"), Entry("replay:b/r.jsonl", "replay:r")], "--system")
    ['replay:r~a77949', 'replay:r~fd945d']
    """
    for given, count in Counter(e.given for e in entries).items():
        if count > 1:
            raise ConfigError(f"{option} {given!r} is given {count} times; give it once")
    explicit = [split_named(e.given)[0] for e in entries]
    taken = Counter(name for name in explicit if name is not None)
    for name, count in taken.items():
        if count > 1:
            both = [e.given for e, n in zip(entries, explicit, strict=True) if n == name]
            raise ConfigError(f"{option} values {both[0]!r} and {both[1]!r} are both named {name!r}; rename one")
    shorts = Counter(e.short for e, n in zip(entries, explicit, strict=True) if n is None)
    names = []
    for entry, chosen in zip(entries, explicit, strict=True):
        clash = shorts[entry.short] > 1 or entry.short in taken
        hashed = f"{entry.short}~{spec_hash(split_named(entry.given)[1])}" if clash else entry.short
        names.append(chosen if chosen is not None else hashed)
    for name, count in Counter(names).items():
        if count > 1:
            clashing = [e.given for e, n in zip(entries, names, strict=True) if n == name]
            raise ConfigError(
                f"{option} values {' and '.join(map(repr, clashing))} would share the name {name!r}; "
                f"name them with NAME=SPEC"
            )
    return names


def build_systems(given: Sequence[str]) -> list[Any]:
    """Build the systems of ``--system`` values (``NAME=SPEC`` or ``SPEC``), each under its distinct name."""
    from voxeval.systems import system_from_spec

    systems = [system_from_spec(split_named(g)[1]) for g in given]
    names = distinct_names([Entry(g, s.name) for g, s in zip(given, systems, strict=True)], "--system")
    for system, name in zip(systems, names, strict=True):
        system.name = name
    return systems
