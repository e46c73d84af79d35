"""Errors that reach the user: each names where the bad input is (file, line, field)."""

from __future__ import annotations

from dataclasses import dataclass


class VoxevalError(Exception):
    """Base class of every error voxeval reports to a user with a non-zero exit."""


@dataclass(frozen=True)
class Location:
    """Where a value came from, for error messages."""

    path: str | None = None
    """File the value was read from, if any."""
    line: int | None = None
    """1-based line number in that file, if any."""
    field: str | None = None
    """Dotted field path inside the row, e.g. ``output_dialogue_acts.steps[1].act``."""

    def child(self, field: str) -> Location:
        """The location of a sub-field (``steps[0]`` → ``steps[0].act``)."""
        joined = (
            field if not self.field else (f"{self.field}{field}" if field.startswith("[") else f"{self.field}.{field}")
        )
        return Location(self.path, self.line, joined)

    def __str__(self) -> str:
        parts = []
        if self.path:
            parts.append(self.path if self.line is None else f"{self.path}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field {self.field}")
        return ", ".join(parts) if parts else "<input>"


class InputError(VoxevalError):
    """Bad user input: a malformed file, row or value. The message names file, line and field."""

    def __init__(self, where: Location, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


class OutputError(VoxevalError):
    """A file voxeval writes could not be written (disk full, read-only, no permission); the message names it.

    What was written before stays intact: logs are appended line by line and other files replaced atomically.
    """

    def __init__(self, path: object, exc: OSError) -> None:
        self.path = str(path)
        self.errno = exc.errno
        super().__init__(f"cannot write {path}: {exc.strerror or exc}")


class ConfigError(VoxevalError):
    """A bad command-line option, spec string or missing optional dependency."""


class MissingDependencyError(ConfigError):
    """An optional heavy dependency is not installed; the message says which extra provides it."""

    def __init__(self, what: str, extra: str, package: str | None = None) -> None:
        pkg = f" ({package})" if package else ""
        super().__init__(f"{what} needs the optional dependency{pkg}: install it with `pip install 'voxeval[{extra}]'`")
