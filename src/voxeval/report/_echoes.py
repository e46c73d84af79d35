"""How many replies of each system only repeated the user's input (echoes: no acts, see ``annotate._echo``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.report._escape import markdown_table
from voxeval.report._html import esc, table

ECHO_HEAD = ["dataset", "system", "annotated replies", "echoes (no acts)", "share"]

NOTE = (
    "An echo repeats the user's input (verbatim, a particle changed, 「はい、」 in front, a misheard transcript "
    "repeated); it performs no act of the assistant, so it gets no acts whatever the annotator (WLCS 0). "
    'Detected by character similarity to the input (docs/annotators.md, "Echoes").'
)


def echo_rows(run_dir: Path, sets: list[Any]) -> list[list[object]]:
    """Per dataset × system: replies annotated, how many were echoes, and their share (empty without a log)."""
    from voxeval.io import read_log

    path = run_dir / "annotations.jsonl"
    if not path.is_file():
        return []  # a ``voxeval score`` folder: no annotation stage, nothing to count
    counts: dict[tuple[str, str], list[int]] = {(s.dataset, s.system): [0, 0] for s in sets}
    for row in read_log(path, "key").values():
        cell = counts.get((row.get("dataset", ""), row.get("system", "")))
        if cell is not None and row.get("status") == "ok":
            cell[0] += 1
            cell[1] += bool(row.get("echo"))
    return [[d, s, n, e, f"{e / n:.0%}" if n else "—"] for (d, s), (n, e) in counts.items()]


def echo_section(run_dir: Path, sets: list[Any]) -> tuple[str, str]:
    """The echoes section (HTML, Markdown); empty strings when the folder has no annotation log."""
    rows = echo_rows(run_dir, sets)
    if not rows:
        return "", ""
    head = "Echoes of the input"
    html = f"<h3>{head}</h3>" + table(ECHO_HEAD, rows, numeric=(2, 3, 4)) + f'<p class="meta">{esc(NOTE)}</p>'
    return html, f"\n## {head}\n\n" + markdown_table(ECHO_HEAD, rows) + "\n\n" + NOTE + "\n"
