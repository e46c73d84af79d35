"""The dialogue benchmark's report: the three history conditions side by side, context gain and drift with their
intervals, and each dialogue as a chat with every turn's acts and score (HTML). Reads plain data only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from voxeval.io import atomic_write_text
from voxeval.report._escape import md_cell
from voxeval.report._html import esc, page, table

HEADERS = (
    "dataset",
    "system",
    "history",
    "turns",
    "turn WLCS [95% CI]",
    "turn WED",
    "dialogue WLCS",
    "context-needed WLCS",
    "context-free WLCS",
    "dialogue success",
    "excluded",
)
"""Columns of the conditions table."""
GAIN_HEADERS = ("dataset", "system", "context gain (gold − none, context-needed turns)", "drift (gold − own)")
"""Columns of the gains table."""
NOTE = (
    "WLCS higher is better, WED lower is better; intervals are 95% bootstrap intervals that resample dialogues. "
    "gold: each turn after the reference dialogue so far; own: the system's own earlier replies, one session per "
    "dialogue; none: each turn alone. Dialogue success: every scored turn holds its reference's most important act."
)
"""What the tables mean (both formats)."""


def _ci(estimate: Mapping[str, Any] | None, signed: bool = False) -> str:
    if not estimate:
        return "–"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    return f"{fmt.format(estimate['value'])} [{fmt.format(estimate['low'])}, {fmt.format(estimate['high'])}]"


def _value(estimate: Mapping[str, Any] | None) -> str:
    return "–" if not estimate else f"{estimate['value']:.3f}"


def condition_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """One row per (dataset, system, condition)."""
    return [
        [
            c["dataset"],
            c["system"],
            c["history"],
            str(c["turns_scored"]),
            _ci(c["turn_wlcs"]),
            _value(c["turn_wed"]),
            "–" if c["dialogue_wlcs"] is None else f"{c['dialogue_wlcs']:.3f}",
            _value(c["context_needed_wlcs"]),
            _value(c["context_free_wlcs"]),
            _value(c["dialogue_success"]),
            str(len(c["excluded"])),
        ]
        for c in summary["conditions"]
    ]


def gain_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """One row per (dataset, system) with gains."""
    return [
        [g["dataset"], g["system"], _ci(g.get("context_gain"), True), _ci(g.get("drift"), True)]
        for g in summary["gains"]
    ]


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def dialogues_markdown(summary: Mapping[str, Any]) -> str:
    """The conditions table and the gains table (terminal and report.md)."""
    text = _md_table(HEADERS, condition_rows(summary))
    if summary["gains"]:
        text += "\n\n" + _md_table(GAIN_HEADERS, gain_rows(summary))
    return text + "\n\n" + NOTE


def _chat_html(turns: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for k, t in enumerate(turns, start=1):
        score = "excluded: " + t["note"] if t["wlcs"] is None else f"WLCS {t['wlcs']:.3f}"
        acts = " → ".join(t["acts"]) or "(no act)"
        gold = " → ".join(t["gold_acts"])
        parts.append(
            f'<div class="turn"><div class="user"><b>User {k}</b> {esc(t["user"])}</div>'
            f'<div class="bot"><b>Reply</b> {esc(t["reply"]) or "<i>(nothing)</i>"}'
            f'<div class="acts">acts: {esc(acts)} · reference: {esc(gold)} · {esc(score)} · '
            f"context {esc(t['context'])}</div>"
            f'<div class="ref">reference reply: {esc(t["reference"])}</div></div></div>'
        )
    return "".join(parts)


CHAT_CSS = (
    "<style>.turn{margin:.5rem 0}.user{background:#eef4ff;padding:.3rem .6rem;border-radius:.5rem;max-width:40rem}"
    ".bot{background:#f4f4f4;padding:.3rem .6rem;border-radius:.5rem;max-width:48rem;margin:.3rem 0 0 3rem}"
    ".acts{font-size:.8rem;color:#333}.ref{font-size:.8rem;color:#777}details{margin:.3rem 0}</style>"
)
"""Styles of the chat view."""
MAX_CHATS = 50
"""Dialogues shown as chats per system and condition (the first ones; every turn is in scores.jsonl)."""


def dialogues_html(
    summary: Mapping[str, Any], chats: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]], latency: str = ""
) -> str:
    """The whole report page."""
    sections = [
        "<h2>Conditions</h2>" + table(HEADERS, condition_rows(summary), numeric=range(3, 11)),
        f'<p class="meta">{esc(NOTE)}</p>',
    ]
    if latency:
        sections.append(latency)
    if summary["gains"]:
        sections.append("<h2>What context is worth</h2>" + table(GAIN_HEADERS, gain_rows(summary)))
    views = []
    for view, dialogues in chats.items():
        items = list(dialogues.items())[:MAX_CHATS]
        body = "".join(f"<details><summary>{esc(d)}</summary>{_chat_html(turns)}</details>" for d, turns in items)
        views.append(f"<h3>{esc(view)}</h3>{body}")
    sections.append(CHAT_CSS + "<h2>Dialogues</h2>" + "".join(views))
    return page("voxeval — dialogues", sections)


def write_dialogue_reports(
    run_dir: Path,
    summary: Mapping[str, Any],
    chats: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
    replies: Mapping[str, Mapping[str, Any]],
) -> dict[str, Path]:
    """``report.md`` and ``report.html`` of a dialogue run (latency per turn from the reply rows)."""
    from voxeval.report._speech import latency_section

    latency_html, latency_md = latency_section(replies)
    md = run_dir / "report.md"
    html = run_dir / "report.html"
    atomic_write_text(md, "# voxeval — dialogues\n\n" + dialogues_markdown(summary) + "\n" + latency_md)
    atomic_write_text(html, dialogues_html(summary, chats, latency_html))
    return {"markdown": md, "html": html}
