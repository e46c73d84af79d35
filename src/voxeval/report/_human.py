"""Human judgements in reports: the human ceiling beside the annotator's and the judge's agreement with people.

Read from ``RUN_DIR/human/<task>/`` (written by ``voxeval label``); a run without them gets no section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.report._html import esc, table

HUMAN_HEAD = ["who", "items", "exact label sequence", "mean WED", "mean WLCS"]
"""Columns of the dialogue-act human-agreement table."""


def ci_text(ci: dict[str, Any] | None, digits: int = 3) -> str:
    """``mean [low, high]`` of a bootstrap interval, or a dash."""
    return "—" if ci is None else f"{ci['mean']:.{digits}f} [{ci['low']:.{digits}f}, {ci['high']:.{digits}f}]"


def da_human_rows(run_dir: Path) -> list[list[object]]:
    """Human–human (the ceiling) and annotator–human rows, when the run has dialogue-act judgements."""
    from voxeval.label._agreement import agreement_report

    da = agreement_report(run_dir, ["da"]).get("da")
    if da is None:
        return []
    rows: list[list[object]] = []
    if da["human_human"] is not None:
        rows.append(["human vs human (ceiling)", *_cells(da["human_human"])])
    for who, s in da.get("annotator_vs_human", {}).items():
        rows.append([f"annotator vs {who}", *_cells(s)])
    return rows


def _cells(s: dict[str, Any]) -> list[object]:
    return [s["items"], ci_text(s["exact"]), ci_text(s["wed"]), ci_text(s["wlcs"])]


def da_human_section(run_dir: Path) -> tuple[str, str]:
    """HTML and Markdown of :func:`da_human_rows` (empty strings when there are none)."""
    from voxeval.report._escape import markdown_table

    rows = da_human_rows(run_dir)
    if not rows:
        return "", ""
    note = (
        "From the labellers' judgements in human/da/ (voxeval label): two people's agreement is the ceiling the "
        "annotator's figures are read against; 95% bootstrap intervals over items. `voxeval agreement` has more."
    )
    title = "Agreement with human labellers"
    html = f"<h3>{title}</h3>" + table(HUMAN_HEAD, rows) + f'<p class="meta">{esc(note)}</p>'
    return html, f"\n## {title}\n\n" + markdown_table(HUMAN_HEAD, rows) + "\n\n" + note + "\n"


def style_human(run_dir: Path, judge_scores: dict[str, float]) -> dict[str, Any] | None:
    """Style agreement (alpha, pairs, judge vs human mean) from the run's own human ratings, if any."""
    from voxeval.label._agreement import style_agreement
    from voxeval.label._study import read_judgements

    humans = read_judgements(run_dir, "style")
    return style_agreement(humans, judge_scores) if humans else None
