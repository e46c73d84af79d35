"""The speech sections of a report: latency per system (Table 1's latency) and the spoken versus text channel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from voxeval.report._channels import (
    CHANNEL_HEAD,
    CHANNEL_NOTE,
    EXAMPLE_HEAD,
    channel_rows,
    channel_summaries,
    example_rows,
)
from voxeval.report._escape import markdown_table
from voxeval.report._html import esc, table
from voxeval.report._latency import LATENCY_NOTE, latency_table, system_latency

LATENCY_TITLE = "Table 1 (latency): time to reply per system"
"""Heading of the latency table in every report."""


_md_table = markdown_table  # reply texts and transcripts are shown here: every cell goes through md_cell


def latency_text(replies: Mapping[str, Mapping[str, Any]]) -> str:
    """The latency table for a terminal: one ``median / p90`` cell per field, within 120 columns (empty when no
    reply has a latency record, e.g. a run of an older version)."""
    from voxeval.report._terminal import text_table

    head, rows = latency_table(system_latency(replies), compact=True)
    if not rows:
        return ""
    note = "seconds, median / p90 over the replies; report.md has their 95% CIs"
    return text_table(head, rows, numeric=(1, *range(3, len(head)))) + f"\n({note})"


def latency_section(replies: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """The latency table as (HTML, Markdown); both empty without latency records."""
    head, rows = latency_table(system_latency(replies))
    if not rows:
        return "", ""
    numeric = (1, *range(3, len(head)))
    html = f"<h3>{LATENCY_TITLE}</h3>" + table(head, rows, numeric=numeric)
    html += f'<p class="meta">{esc(LATENCY_NOTE)}</p>'
    md = f"\n## {LATENCY_TITLE}\n\n{_md_table(head, rows)}\n\n{LATENCY_NOTE}\n"
    return html, md


def channel_section(replies: Mapping[str, Mapping[str, Any]], reply_text: str) -> tuple[str, str]:
    """What was said against the text given, per system, as (HTML, Markdown); both empty when no reply audio
    was transcribed."""
    summaries = channel_summaries(replies)
    if not summaries:
        return "", ""
    title = "What was said: spoken versus text channel"
    scored = (
        "the ASR transcript of the reply audio (replies without audio: their text)"
        if reply_text == "speech"
        else "the model's own text"
    )
    lead = f"This run annotates {scored} (--reply-text {reply_text})."
    rows, examples = channel_rows(summaries), example_rows(summaries)
    html = f"<h2>{title}</h2><p>{esc(lead)}</p>" + table(CHANNEL_HEAD, rows, numeric=(1, 2, 3, 4, 5, 6))
    md = f"\n## {title}\n\n{lead}\n\n{_md_table(CHANNEL_HEAD, rows)}\n"
    if examples:
        html += "<h3>Largest differences</h3>" + table(EXAMPLE_HEAD, examples, numeric=(2,))
        md += "\nLargest differences:\n\n" + _md_table(EXAMPLE_HEAD, examples) + "\n"
    html += f'<p class="meta">{esc(CHANNEL_NOTE)}</p>'
    md += f"\n{CHANNEL_NOTE}\n"
    return html, md
