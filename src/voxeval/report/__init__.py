"""Reports: the spec's Table 1 and Table 2, in Markdown (HTML and statistics come later)."""

from voxeval.report._tables import (
    Representative,
    TableRow,
    format_acts,
    render_markdown,
    representatives,
    table1_markdown,
    table2_markdown,
)

__all__ = [
    "Representative",
    "TableRow",
    "format_acts",
    "render_markdown",
    "representatives",
    "table1_markdown",
    "table2_markdown",
]
