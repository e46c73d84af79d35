"""Cells of the Markdown and CSV reports, made inert.

Every value a report shows can come from outside: a reply's text, a sample id, a model name from a VStyle file, a
dataset file's name. Markdown renderers pass raw HTML through (``<img src=x onerror=…>`` runs when ``report.md`` is
shown by markdown-it or a code-hosting page), and spreadsheet tools evaluate a CSV cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula. These functions are the one place each kind of cell is neutralised, and
:func:`markdown_table` the one way a Markdown table is written (a section with its own table code let reply text
through raw before: issue 40, class H).
"""

from __future__ import annotations

import re

_MD = str.maketrans(
    {
        # HTML: no tag, entity or autolink (<javascript:…>) can form
        **{"&": "&amp;", "<": "&lt;", ">": "&gt;"},
        # A cell stays one cell of one line: no new row, no heading or list after a newline
        **{"|": "\\|", "\n": " ", "\r": " ", "\t": " ", "\u2028": " ", "\u2029": " "},
        # No code span, and no escape of our escapes
        **{"\\": "\\\\", "`": "\\`"},
    }
)
_UNSEEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
"""Control characters (NUL, ESC: terminal escapes) and bidirectional overrides (U+202E shows text reversed): shown
as U+FFFD, never written."""
_LINK_END = re.compile(r"\](?=[(\[:])")
"""The ``]`` that closes a link or image text (``[x](javascript:…)``, ``![](http://tracker)``, ``[x][ref]``): escaped,
so no link, image or reference forms; a ``[95% CI]`` stays as it reads."""
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|file|javascript|vbscript|data):(//)?")
"""A URL scheme: its colon is escaped so that extended (bare) autolinks do not form either."""

# A plain number ("-0.125", "+3", "1e-05") is data, not a formula; anything else starting with one of these
# characters is prefixed with an apostrophe, which spreadsheet tools (Excel, LibreOffice, Sheets) read as "text".
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def md_cell(value: object) -> str:
    """``value`` as the text of a Markdown table cell or inline text, inert: HTML-escaped; pipes, newlines and link,
    image and code syntax escaped; URL schemes defused; control and bidi characters replaced by U+FFFD.

    >>> md_cell("<img src=x onerror=alert(1)> | a & b")
    '&lt;img src=x onerror=alert(1)&gt; \\\\| a &amp; b'
    >>> md_cell("![t](http://x/p.png)\\n# h\\u202e")
    '![t\\\\](http\\\\://x/p.png) # h\\ufffd'
    """
    text = _LINK_END.sub("\\\\]", _UNSEEN.sub("\ufffd", str(value)).translate(_MD))
    return _AUTOLINK.sub(lambda m: m.group(1) + "\\:" + (m.group(2) or ""), text)


def markdown_table(head: list[str], rows: list[list[object]]) -> str:
    """A Markdown table, every cell (head included) through :func:`md_cell`.

    >>> print(markdown_table(["a", "b"], [["x|y", 1]]))
    | a | b |
    |---|---|
    | x\\|y | 1 |
    """
    lines = ["| " + " | ".join(md_cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    return "\n".join([*lines, *("| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows)])


def fixed(value: float | None, digits: int = 3) -> str:
    """A number for a report: ``digits`` decimals, in scientific notation from a million on (a value that slipped
    past every range check still prints in a few characters, never as 300 digits); ``—`` for none or NaN.

    >>> fixed(0.12345), fixed(-1e308), fixed(None), fixed(2_500_000.0, 1)
    ('0.123', '-1.000e+308', '—', '2.500e+06')
    """
    if value is None or value != value:
        return "—"
    return f"{value:.{digits}f}" if abs(value) < 1e6 else f"{value:.3e}"


def csv_cell(value: object) -> object:
    """``value`` for a CSV cell: a string a spreadsheet would run as a formula gets a leading apostrophe.

    Numbers (also numbers written as strings, such as ``-0.125``) are left as they are.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("-0.125"), csv_cell(-3)
    ('\\'=HYPERLINK("http://x")', '-0.125', -3)
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START) or _NUMBER.fullmatch(value):
        return value
    return "'" + value
