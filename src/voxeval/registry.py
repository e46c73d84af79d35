"""A tiny registry: one per extension point (TTS engines, providers, systems, annotators, judges)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from voxeval.errors import ConfigError

F = TypeVar("F", bound=Callable[..., object])


class Registry(Generic[F]):
    """Factories registered by name with a decorator.

    >>> engines: Registry = Registry("TTS engine")
    >>> @engines.register("silent")
    ... def make_silent(**options):
    ...     return "engine"
    >>> engines.get("silent")()
    'engine'
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, F] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """Decorator registering ``factory`` under ``name`` (names are unique)."""

        def decorate(factory: F) -> F:
            if name in self._factories:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            self._factories[name] = factory
            return factory

        return decorate

    def get(self, name: str) -> F:
        """The factory registered as ``name``; a clear error lists the known names otherwise."""
        try:
            return self._factories[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._factories))}") from None

    def names(self) -> list[str]:
        """All registered names, sorted."""
        return sorted(self._factories)
