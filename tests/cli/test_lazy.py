"""The command line imports only what the command it runs needs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from voxeval.cli import COMMANDS, build_parser

PROBE = """
import contextlib, io, sys
from voxeval.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
heavy = ("numpy", "scipy", "soundfile", "matplotlib", "voxeval.speech", "voxeval.judge", "voxeval.annotate")
print(sorted({{m for m in sys.modules for h in heavy if m == h or m.startswith(h + ".")}}))
"""


def loaded(argv: list[str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.parametrize("argv", [["--help"], ["score", "--help"], ["run", "--help"], ["report", "--help"]])
def test_help_imports_no_heavy_module(argv: list[str]) -> None:
    assert loaded(argv) == "[]"


def test_every_command_is_registered_by_its_module() -> None:
    parser = build_parser("*")
    action = next(a for a in parser._actions if a.dest == "command")
    assert list(action.choices) == list(COMMANDS)
    for name, sub in action.choices.items():  # registered by the module: the command has its own options
        assert sub.add_help, name
