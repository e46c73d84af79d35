"""Reading typed values out of a JSON row, with errors that name the file, line and field."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from voxeval.errors import InputError, Location


class Fields:
    """The fields of one JSON object read at ``where``; every accessor raises :class:`InputError` naming the field.

    ``done()`` refuses fields nobody asked for: a row voxeval never writes is an error, not silently half-read.
    """

    def __init__(self, row: Any, where: Location) -> None:
        if not isinstance(row, dict):
            raise InputError(where, f"must be a JSON object, got {type(row).__name__}")
        self.row: dict[str, Any] = row
        self.where = where
        self._seen: set[str] = set()

    def at(self, name: str) -> Location:
        """Where field ``name`` is."""
        return self.where.child(name)

    def _get(self, name: str, default: Any = ..., /) -> Any:
        self._seen.add(name)
        if name not in self.row:
            if default is ...:
                raise InputError(self.at(name), "missing")
            return default
        return self.row[name]

    def text(self, name: str, default: Any = ..., *, empty: bool = True) -> str:
        """A string (``empty=False``: a non-blank one)."""
        value = self._get(name, default)
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise InputError(self.at(name), f"must be a {'' if empty else 'non-empty '}string, got {value!r}")
        return value

    def optional_text(self, name: str) -> str | None:
        """A string or ``null`` (absent: ``null``)."""
        value = self._get(name, None)
        if value is not None and not isinstance(value, str):
            raise InputError(self.at(name), f"must be a string or null, got {value!r}")
        return value

    def number(self, name: str, *, low: float = 0.0, above: bool = False, default: Any = ...) -> float:
        """A finite number ``≥ low`` (``above``: ``> low``)."""
        value = self._get(name, default)
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or value < low or (above and value == low):
            raise InputError(self.at(name), f"must be a finite number {'>' if above else '≥'} {low:g}, got {value!r}")
        return float(value)

    def integer(self, name: str, *, low: int = 0, default: Any = ...) -> int:
        """An integer ``≥ low``."""
        value = self._get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise InputError(self.at(name), f"must be an integer ≥ {low}, got {value!r}")
        return value

    def optional_integer(self, name: str) -> int | None:
        """An integer ``≥ 0`` or ``null`` (absent: ``null``)."""
        return None if self._get(name, None) is None else self.integer(name)

    def choice(self, name: str, choices: Iterable[str], default: Any = ...) -> str:
        """One of ``choices``."""
        allowed = tuple(choices)
        value = self._get(name, default)
        if value not in allowed:
            raise InputError(self.at(name), f"must be one of {', '.join(allowed)}; got {value!r}")
        return str(value)

    def items(self, name: str, *, nullable: bool = False) -> list[Any] | None:
        """A JSON array (``nullable``: or ``null``)."""
        value = self._get(name, None if nullable else ...)
        if value is None and nullable:
            return None
        if not isinstance(value, list):
            raise InputError(self.at(name), f"must be an array, got {type(value).__name__}")
        return value

    def value(self, name: str) -> Any:
        """A field's raw value (checked by the caller)."""
        return self._get(name)

    def optional_choice(self, name: str, choices: Iterable[str]) -> str | None:
        """One of ``choices`` or ``null`` (absent: ``null``)."""
        return None if self._get(name, None) is None else self.choice(name, choices)

    def has(self, name: str) -> bool:
        """Whether field ``name`` is present."""
        return name in self.row

    def object(self, name: str) -> Fields:
        """A nested JSON object, read with the same care."""
        return Fields(self._get(name), self.at(name))

    def done(self) -> None:
        """Refuse fields that were not read."""
        extra = sorted(set(self.row) - self._seen)
        if extra:
            raise InputError(self.at(extra[0]), "unknown field (not one voxeval writes)")
