"""Plain-text tables for the terminal: aligned columns that fit :data:`WIDTH` columns (pure).

What a command prints for a person (``voxeval run``'s summary, ``voxeval annotator-check``) is one of these; the
files a run writes (report.md, report.html, tables.csv) keep their full tables.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voxeval.report._tables import TableRow

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


def _fit(chars: Sequence[str], width: int) -> str:
    out, used = "", 0
    for ch in chars:
        if used + display_width(ch) > width:
            break
        out, used = out + ch, used + display_width(ch)
    return out


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` display columns in the middle, where ``…`` marks the cut: the start and the end of a
    name tell names apart (``python:pkg.mod:one`` and ``python:pkg.mod:two``).

    >>> shorten("python:tests.run.doubles:echo_gold", 16)
    'python:t…ho_gold'
    """
    if display_width(text) <= width:
        return text
    tail = _fit(text[::-1], (width - 1) // 2)[::-1]
    return _fit(text, width - 1 - display_width(tail)) + "…" + tail


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


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def table1_text(rows: Sequence[TableRow]) -> str:
    """Table 1 for a terminal: the figures of :func:`~voxeval.report._tables.table1_markdown` under short names
    (WLCS and WED with their std, gold coverage, the WED breakdown, missing and excluded samples)."""
    content = any(r.content is not None for r in rows)
    head = ["dataset", "system", "n", "WLCS↑", "std", "coverage↑", "WED↓", "std", "del", "ins", "sub", "missing"]
    head += ["excluded", *(["WLCS-c↑", "WED-c↓"] if content else [])]
    body: list[list[object]] = []
    for r in rows:
        s = r.summary
        cells: list[object] = [r.dataset, r.system, s.n, _fmt(s.wlcs_mean), _fmt(s.wlcs_std)]
        cells += [_fmt(s.gold_coverage_mean), _fmt(s.wed_mean), _fmt(s.wed_std), _fmt(s.deletion_mean)]
        cells += [_fmt(s.insertion_mean), _fmt(s.substitution_mean), s.missing_predictions, len(s.excluded)]
        if content:
            c = r.content
            cells += [_fmt(c.wlcs_c_mean if c else None), _fmt(c.wed_c_mean if c else None)]
        body.append(cells)
    return text_table(head, body, numeric=tuple(range(2, len(head))), shrink=(0, 1))
