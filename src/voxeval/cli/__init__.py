"""The ``voxeval`` command line: one module per command group, each adding its sub-commands here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from voxeval import __version__
from voxeval.cli import _analyze, _annotate, _dataset, _generate, _judge, _report, _run, _score, _synth
from voxeval.errors import VoxevalError

_COMMAND_MODULES = (_score, _dataset, _run, _annotate, _generate, _synth, _report, _judge, _analyze)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (used by ``main`` and by the docs tests)."""
    parser = argparse.ArgumentParser(
        prog="voxeval",
        description="Evaluate spoken dialogue models: what they said (dialogue acts) and how they said it (style).",
    )
    parser.add_argument("--version", action="version", version=f"voxeval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMAND_MODULES:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``voxeval`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except VoxevalError as exc:
        print(f"voxeval: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("voxeval: interrupted; completed results are kept and a rerun resumes", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
