"""The ``voxeval`` command line: one module per command group, imported only when its command runs.

``voxeval --help`` lists the commands from :data:`COMMANDS` without importing any command module, so it loads
neither numpy nor the speech, acoustics or model stacks; ``voxeval CMD`` imports only CMD's module.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from voxeval import __version__
from voxeval.errors import VoxevalError

COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("voxeval.cli._score", "score predicted dialogue acts against gold (WLCS, WED and its breakdown)"),
    "dataset": ("voxeval.cli._dataset", "validate, describe and export datasets"),
    "run": (
        "voxeval.cli._run",
        "run a benchmark end to end (resumable): inputs → replies → annotations → scores → report",
    ),
    "annotate": (
        "voxeval.cli._annotate",
        "label replies in a JSONL file with dialogue acts (writes the PRED format of `voxeval score`)",
    ),
    "annotator-check": (
        "voxeval.cli._annotate",
        "measure an annotator against gold dialogue acts (WED, WLCS, label accuracy, macro-F1, confusion; "
        "by style / flaw type when the data has them; system level; garbage replies) and say whether to trust it",
    ),
    "generate": (
        "voxeval.cli._generate",
        "generate single-turn assistant samples with an LLM (Appendix A prompt, validated JSON)",
    ),
    "synth": (
        "voxeval.cli._synth",
        "render every row's input.text to 24 kHz / 16-bit / mono WAV with 120 ms of silence at both ends",
    ),
    "report": (
        "voxeval.cli._report",
        "(re)build report.md, report.html and tables.csv of a run directory, finished or partial",
    ),
    "compare": ("voxeval.cli._report", "what changed between two runs: per-sample wins/losses, significance"),
    "judge": (
        "voxeval.cli._judge",
        "score existing spoken responses for style adherence (VStyle format, 1-5 rubric, weighted summary)",
    ),
    "analyze": (
        "voxeval.cli._analyze",
        "measure F0, speaking rate, loudness, gender cues and prosody of audio files and map them to levels",
    ),
    "label": (
        "voxeval.cli._label",
        "label dialogue acts or rate style of replies in a local browser app (saved at once, resumable)",
    ),
    "agreement": (
        "voxeval.cli._label",
        "agreement between human labellers, and of the annotator and the style judge with them; export labels",
    ),
    "export-results": (
        "voxeval.cli._interop",
        "write a run's scores as the Hugging Face Hub's .eval_results YAML, Every Eval Ever records or JSON",
    ),
    "leaderboard": (
        "voxeval.cli._interop",
        "rank the systems of several comparable runs on a static HTML page (intervals, latency, cost, reproduce)",
    ),
    "serve": (
        "voxeval.cli._serve",
        "serve a system (e.g. the offline cascade) over the OpenAI Realtime protocol, with server-side turn detection",
    ),
}
"""Command → (module that registers it, one-line help shown by ``voxeval --help``)."""


class _Commands:
    """The sub-command action, handing each command its one-line help from :data:`COMMANDS`."""

    def __init__(self, action: Any) -> None:
        self._action = action

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._action.add_parser(name, help=COMMANDS[name][1], **options)
        return parser


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The argument parser with ``command`` fully registered (``"*"``: all; ``None``: none, only their names)."""
    parser = argparse.ArgumentParser(
        prog="voxeval",
        description="Evaluate spoken dialogue models: what they said (dialogue acts) and how they said it (style).",
    )
    parser.add_argument("--version", action="version", version=f"voxeval {__version__}")
    action = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = [m for name, (m, _) in COMMANDS.items() if command in ("*", name)]
    for module in dict.fromkeys(wanted):
        importlib.import_module(module).register(_Commands(action))
    for name, (_, text) in COMMANDS.items():
        if name not in action.choices:
            action.add_parser(name, help=text, add_help=False)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first argument that is not an option), if any."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``voxeval`` console script; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_command(argv)).parse_args(argv)
    args.argv = argv  # the command line as given (a run records it as the command that reproduces it)
    try:
        code: int = args.handler(args)
    except VoxevalError as exc:
        print(f"voxeval: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the environment (a full disk, a read-only folder): writers name their file themselves
        print(f"voxeval: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("voxeval: interrupted; completed results are kept and a rerun resumes", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
