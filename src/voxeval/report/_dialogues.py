"""The dialogue benchmark's report: the three history conditions side by side, context gain and drift with their
intervals, and each dialogue as a chat with every turn's acts and score (HTML). Reads plain data only."""

from __future__ import annotations

import textwrap
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


CONTENT_HEADERS = ("turn WLCS-c [95% CI]", "turn WED-c")
"""Columns added when the report was asked for content-aware scores (``--content``)."""


def has_content(summary: Mapping[str, Any]) -> bool:
    """Whether the summary carries WLCS-c / WED-c."""
    return any("turn_wlcs_c" in c for c in summary["conditions"])


def condition_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """One row per (dataset, system, condition); WLCS-c / WED-c last when present."""
    extra = has_content(summary)
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
            *((_ci(c.get("turn_wlcs_c")), _value(c.get("turn_wed_c"))) if extra else ()),
        ]
        for c in summary["conditions"]
    ]


def _headers(summary: Mapping[str, Any], base: Sequence[str]) -> tuple[str, ...]:
    return (*base, *CONTENT_HEADERS) if has_content(summary) else tuple(base)


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
    text = _md_table(_headers(summary, HEADERS), condition_rows(summary))
    if summary["gains"]:
        text += "\n\n" + _md_table(GAIN_HEADERS, gain_rows(summary))
    return text + "\n\n" + NOTE


TERMINAL_HEADERS = (
    "dataset", "system", "history", "turns", "turn WLCS [95% CI]", "WED", "dlg WLCS", "needed", "free", "success",
    "excl",
)  # fmt: skip
"""The conditions table's columns on a terminal (report.md names them in full)."""


def dialogues_text(summary: Mapping[str, Any]) -> str:
    """The conditions and gains tables for a terminal, within 120 columns."""
    from voxeval.report._terminal import text_table

    rows = [row[: len(TERMINAL_HEADERS)] for row in condition_rows(summary)]  # WLCS-c / WED-c: in the report files
    text = text_table(TERMINAL_HEADERS, rows, numeric=range(3, 11), shrink=(0, 1))
    if summary["gains"]:
        head = ("dataset", "system", "context gain (gold − none, needed turns)", "drift (gold − own)")
        text += "\n\n" + text_table(head, gain_rows(summary), shrink=(0, 1))
    return text + "\n\n" + textwrap.fill(NOTE, 120)


Chats = Mapping[str, Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]]]
"""``system · dataset`` → dialogue → history condition → turns (plain dicts)."""


def _reply_html(history: str, t: Mapping[str, Any]) -> str:
    score = "excluded: " + t["note"] if t["wlcs"] is None else f"WLCS {t['wlcs']:.3f}"
    acts = " → ".join(t["acts"]) or "(no act)"
    text = esc(t["reply"]) or "<i>(nothing)</i>"
    return (
        f'<div class="bot"><span class="cond">{esc(history)}</span> {text}'
        f'<div class="acts">{esc(acts)} · {esc(score)}</div></div>'
    )


def _chat_html(by_history: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """One dialogue: each user turn, then the reply under every condition, and the reference."""
    histories = list(by_history)
    parts = []
    for k, first in enumerate(by_history[histories[0]], start=1):
        replies = "".join(_reply_html(h, by_history[h][k - 1]) for h in histories if len(by_history[h]) >= k)
        parts.append(
            f'<div class="turn"><div class="user"><b>User {k}</b> {esc(first["user"])}'
            f' <span class="ctx">context {esc(first["context"])}</span></div>{replies}'
            f'<div class="ref">reference: {esc(first["reference"])} ({esc(" → ".join(first["gold_acts"]))})</div>'
            "</div>"
        )
    return "".join(parts)


CHAT_CSS = (
    "<style>.turn{margin:.6rem 0}.user{background:#eef4ff;padding:.3rem .6rem;border-radius:.5rem;max-width:44rem}"
    ".bot{background:#f4f4f4;padding:.3rem .6rem;border-radius:.5rem;max-width:48rem;margin:.25rem 0 0 3rem}"
    ".cond{display:inline-block;min-width:3rem;font-size:.75rem;font-weight:bold;color:#555}"
    ".acts{font-size:.8rem;color:#333}.ref{font-size:.8rem;color:#777;margin:.2rem 0 0 3rem}.ctx{font-size:.75rem;"
    "color:#777}details{margin:.3rem 0}summary{cursor:pointer}</style>"
)
"""Styles of the chat view."""
MAX_CHATS = 50
"""Dialogues shown as chats per system and condition (the first ones; every turn is in scores.jsonl)."""


def dialogues_html(summary: Mapping[str, Any], chats: Chats, latency: str = "") -> str:
    """The whole report page: the conditions, what context is worth, latency, then each dialogue as a chat."""
    head = _headers(summary, HEADERS)
    sections = [
        "<h2>Conditions</h2>" + table(head, condition_rows(summary), numeric=range(3, len(head))),
        f'<p class="meta">{esc(NOTE)}</p>',
    ]
    if summary["gains"]:
        sections.append("<h2>What context is worth</h2>" + table(GAIN_HEADERS, gain_rows(summary)))
    if latency:
        sections.append(latency)
    views = []
    for view, dialogues in chats.items():
        items = list(dialogues.items())[:MAX_CHATS]
        body = "".join(
            f"<details{' open' if i == 0 else ''}><summary>{esc(d)}</summary>{_chat_html(by)}</details>"
            for i, (d, by) in enumerate(items)
        )
        more = len(dialogues) - len(items)
        note = f'<p class="meta">{more} more dialogues in scores.jsonl</p>' if more > 0 else ""
        views.append(f"<h3>{esc(view)}</h3>{body}{note}")
    sections.append(CHAT_CSS + "<h2>Dialogues</h2>" + "".join(views))
    return page("voxeval — dialogues", sections)


def write_dialogue_reports(
    run_dir: Path,
    summary: Mapping[str, Any],
    chats: Chats,
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
