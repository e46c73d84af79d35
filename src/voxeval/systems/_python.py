"""``python:MODULE:CALLABLE``: a user's own model as a Python function."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any

from voxeval.errors import ConfigError
from voxeval.systems._protocol import Reply, SystemFailure, Turn, systems


class PythonSystem:
    """Wraps ``callable(turn) -> str | bytes | Reply | None`` (sync or async).

    ``bytes`` are a spoken reply (WAV) without text, scored through the run's reply ASR (``--reply-text speech``);
    ``None`` is an empty reply (as an API's ``content: null``); raising :class:`voxeval.systems.NoReply` reports a
    refusal, a spent output budget or undecodable output the way API systems do.
    """

    concurrency = 1

    def __init__(self, target: str) -> None:
        module_name, _, attr = target.partition(":")
        if not module_name or not attr:
            raise ConfigError(f"python system needs MODULE:CALLABLE, got {target!r}")
        # Like `python -m`, resolve the user's module from the current directory first.
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(f"cannot import {module_name!r} for python:{target}: {exc}") from None
        fn = getattr(module, attr, None)
        if not callable(fn):
            raise ConfigError(f"{module_name}.{attr} is not a callable")
        self._fn = fn
        self.name = f"python:{target}"
        self.concurrency = int(getattr(fn, "concurrency", 1))

    async def respond(self, turn: Turn) -> Reply:
        """Call the user's function."""
        result = self._fn(turn)
        if inspect.isawaitable(result):
            result = await result
        if result is None:
            return Reply("")
        if isinstance(result, Reply):
            return result
        if isinstance(result, str):
            return Reply(result)
        if isinstance(result, (bytes, bytearray)):  # speech only: scored through the run's reply ASR
            return Reply("", bytes(result))
        kind = type(result).__name__
        raise SystemFailure(f"{self.name} returned {kind}; expected str, bytes (WAV), None or voxeval.systems.Reply")

    def describe(self) -> dict[str, Any]:
        """The entry point."""
        return {"system": "python", "target": self.name}


@systems.register("python")
def make_python(rest: str) -> PythonSystem:
    """``python:package.module:function``."""
    return PythonSystem(rest)
