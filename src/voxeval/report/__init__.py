"""Reports, built from the files of a run directory: Table 1 and 2, statistics, figures, Markdown, HTML and CSV.

``report`` imports nothing from ``run``: a benchmark reads its run directory and hands the data over.
"""

from voxeval.report._load import RunData
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
    "RunData",
    "TableRow",
    "format_acts",
    "render_markdown",
    "representatives",
    "table1_markdown",
    "table2_markdown",
]
