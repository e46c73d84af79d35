"""Plain-text tables for the terminal: aligned columns that fit :data:`WIDTH` columns (pure).

What a command prints for a person (``voxeval run``'s summary, ``voxeval annotator-check``) is one of these; the
files a run writes (report.md, report.html, tables.csv) keep their full tables.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

WIDTH = 120
"""Terminal columns every printed line fits in."""
GAP = "  "
"""Between two columns."""
_MIN_CELL = 8
"""A shortened column keeps at least this many display columns."""


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide and full-width characters take two.

    >>> display_width("abc"), display_width("タイマー")
    (3, 8)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` display columns, ending in ``…`` when cut.

    >>> shorten("python:tests.run.doubles:echo_gold", 12)
    'python:test…'
    """
    if display_width(text) <= width:
        return text
    out, used = "", 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            break
        out, used = out + ch, used + w
    return out + "…"


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def text_table(
    head: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    numeric: Sequence[int] = (),
    shrink: Sequence[int] = (0,),
    width: int = WIDTH,
    indent: str = "",
) -> str:
    """``head`` and ``rows`` as aligned text; columns in ``numeric`` are right-aligned.

    When the table is wider than ``width``, the columns in ``shrink`` (names, not figures) are cut, widest first,
    each to no less than :data:`_MIN_CELL` columns; a figure is never cut. A table that still does not fit (too many
    figures for the width) is a caller's error and raises :class:`ValueError`, so no printed line is ever wider.
    """
    cells = [[str(c) for c in head], *([str(c) for c in r] for r in rows)]
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(head))]
    excess = len(indent) + sum(widths) + len(GAP) * (len(widths) - 1) - width
    while excess > 0:
        i = max(shrink, key=lambda k: widths[k])
        cut = min(excess, widths[i] - _MIN_CELL)
        if cut <= 0:
            raise ValueError(f"a table of {len(head)} columns does not fit {width} columns: {list(head)}")
        widths[i] -= cut
        excess -= cut
    lines = []
    for row in cells:
        parts = [_pad(shorten(c, widths[i]), widths[i], i in numeric) for i, c in enumerate(row)]
        lines.append((indent + GAP.join(parts)).rstrip())
    rule = indent + GAP.join("-" * w for w in widths)
    return "\n".join([lines[0], rule, *lines[1:]])
