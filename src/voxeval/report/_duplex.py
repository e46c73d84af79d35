"""The duplex report: the four turn-taking figures per system with 95% intervals (Markdown and HTML), and a
timeline per session (user and model lanes, server events marked) drawn from its record."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from voxeval.duplex import ServerEvent, SessionRecord, model_speech, user_speech
from voxeval.io import atomic_write_text

_TITLES = {
    "onset_latency": "onset latency p50 (s)",
    "takeover_rate": "takeover rate (↓)",
    "stop_rate": "stop rate (↑)",
    "stop_latency": "stop latency p50 (s)",
    "continuation_rate": "continuation rate (↑)",
}
_MARKS = {
    "speech_started": ("#1b9e77", "started"),
    "speech_stopped": ("#1b9e77", "stopped"),
    "response_cancelled": ("#d95f02", "cancelled"),
    "interrupted": ("#d95f02", "interrupted"),
    "response_done": ("#7570b3", "done"),
    "turn_complete": ("#7570b3", "done"),
}


def _cell(figure: Mapping[str, Any]) -> str:
    value = figure.get("p50", figure)
    if not value or value.get("value") is None:
        return "–"
    return f"{value['value']:.3f} [{value['low']:.3f}, {value['high']:.3f}] (n={value['n']})"


def rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """One row per (system, evidence): the figures with their intervals, then the interruption replies' WLCS."""
    out = []
    for system, data in summary["systems"].items():
        scores = data.get("interruption_reply") or {}
        wlcs = "; ".join(f"{d}: {_cell(s['wlcs'] or {})}" for d, s in scores.items()) or "–"
        for evidence, figures in (data.get("figures") or {}).items():
            out.append([system, evidence, *(_cell(figures[k]) for k in _TITLES), wlcs])
    return out


def duplex_markdown(summary: Mapping[str, Any]) -> str:
    """The figures per system and evidence as a Markdown table, then every session's outcome."""
    head = ["system", "evidence", *_TITLES.values(), "WLCS after interruption"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows(summary)]
    for system, data in summary["systems"].items():
        after = data.get("audio_after_cancel") or {}
        lines.append(
            f"\n{system}: sessions {data.get('sessions', {})}, outcomes {data.get('outcomes', {})}, "
            f"audio after a cancel: {after.get('chunks', 0)} chunks ({after.get('seconds', 0.0):.2f} s)"
        )
    return "\n".join(lines)


def timeline(record: SessionRecord) -> bytes:
    """One session's lanes: the user's planned speech, the model's audio as played (and VAD speech when run),
    server events as ticks."""
    from voxeval.report._plots import _plt, _png

    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 1.3))
    for span in user_speech(record.events).values():
        ax.broken_barh([(span.start, span.duration)], (2, 0.8), color="#4477aa")
    ax.broken_barh([(s.start, s.duration) for s in model_speech(record, "server")], (1, 0.8), color="#ee6677")
    if record.model_speech is not None:
        ax.broken_barh([(s.start, s.duration) for s in record.model_speech], (0, 0.8), color="#aa3377")
    for event in record.events:
        if isinstance(event, ServerEvent) and event.kind in _MARKS:
            ax.axvline(event.t, color=_MARKS[event.kind][0], linewidth=0.7, alpha=0.8)
    ax.set_yticks([0.4, 1.4, 2.4], ["model (VAD)", "model", "user"], fontsize=7)
    ax.set_xlim(0, max(1.0, record.events[-1].t))
    ax.tick_params(axis="x", labelsize=7)
    end = record.events[-1]
    ax.set_title(f"{record.id} — {getattr(end, 'outcome', '')}", fontsize=7)
    return _png(fig)


def write_duplex_reports(run_dir: Path, sessions: Path) -> dict[str, Path]:
    """``report.md`` and ``report.html`` of a duplex run from its ``summary.json`` and its session records."""
    from voxeval.duplex import read_records
    from voxeval.report._html import esc, figure, page, table

    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    text = duplex_markdown(summary)
    md, html = run_dir / "report.md", run_dir / "report.html"
    atomic_write_text(md, "# voxeval — duplex\n\n" + text + "\n")
    head = ["system", "evidence", *_TITLES.values(), "WLCS after interruption"]
    sections = [f"<h2>Turn-taking figures (95% bootstrap intervals)</h2>{table(head, rows(summary))}"]
    records = [r for _, r in read_records(sessions)] if sessions.exists() else []
    legend = "user lane: planned speech; model: audio as played (server evidence); ticks: server events"
    sections.append("<h2>Timelines</h2><p>" + esc(legend) + "</p>")
    sections += [figure(timeline(r), r.id) for r in records]
    atomic_write_text(html, page("voxeval — duplex", sections))
    return {"markdown": md, "html": html}
