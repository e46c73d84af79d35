"""Cells of the Markdown and CSV reports, made inert.

Every value a report shows can come from outside: a reply's text, a sample id, a model name from a VStyle file, a
dataset file's name. Markdown renderers pass raw HTML through (``<img src=x onerror=…>`` runs when ``report.md`` is
shown by markdown-it or a code-hosting page), and spreadsheet tools evaluate a CSV cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula. These two functions are the one place each kind of cell is neutralised.
"""

from __future__ import annotations

import re

_MD = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "\n": " ", "\r": " "})

# A plain number ("-0.125", "+3", "1e-05") is data, not a formula; anything else starting with one of these
# characters is prefixed with an apostrophe, which spreadsheet tools (Excel, LibreOffice, Sheets) read as "text".
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def md_cell(value: object) -> str:
    """``value`` as the text of a Markdown table cell or inline text: HTML-escaped, pipes and newlines neutralised.

    >>> md_cell("<img src=x onerror=alert(1)> | a & b")
    '&lt;img src=x onerror=alert(1)&gt; \\\\| a &amp; b'
    """
    return str(value).translate(_MD)


def csv_cell(value: object) -> object:
    """``value`` for a CSV cell: a string a spreadsheet would run as a formula gets a leading apostrophe.

    Numbers (also numbers written as strings, such as ``-0.125``) are left as they are.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("-0.125"), csv_cell(-3)
    ('\\'=HYPERLINK("http://x")', '-0.125', -3)
    """
    if not isinstance(value, str) or not value.startswith(_FORMULA_START) or _NUMBER.fullmatch(value):
        return value
    return "'" + value
