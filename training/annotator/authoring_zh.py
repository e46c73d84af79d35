"""Checks for authored Mandarin reply files: ``authoring_lang`` with ``--language zh``.

python -m training.annotator.authoring_zh FILE ...
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.annotator import authoring_lang


def problems_in(rows: Sequence[tuple[Path, int, dict[str, Any]]]) -> list[str]:
    """``FILE:LINE (ID): problem`` for every problem of the rows (see ``authoring_lang``)."""
    return authoring_lang.problems_in(rows, "zh")


def main(argv: Sequence[str] | None = None) -> int:
    """Print every problem and the counts; 1 if anything is found, 2 if a file cannot be read."""
    return authoring_lang.main(argv, language="zh")


if __name__ == "__main__":
    raise SystemExit(main())
