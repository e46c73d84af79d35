"""The leaderboard as a static HTML page (self-contained: inline CSS, no script, no external fetch)."""

from __future__ import annotations

from typing import Any

from voxeval import __version__
from voxeval.interop._leaderboard import format_score
from voxeval.interop._results import METRICS
from voxeval.report._html import CSS, esc

PAGE_CSS = """
body{max-width:110rem}td.num{white-space:nowrap}td.cmd{min-width:22rem}
.bar{position:relative;display:inline-block;width:7rem;height:.7rem;background:#eee;margin-left:.4rem;
vertical-align:middle}.bar span{position:absolute;top:0;bottom:0;background:#7aa6d8}.bar i{position:absolute;
top:-2px;bottom:-2px;width:2px;background:#1d4f91}td.cmd code{font-size:.75rem;word-break:break-all}
td.rank{font-weight:bold;text-align:center}
"""


def _bar(cell: dict[str, Any] | None, metric: str) -> str:
    """The interval as a bar on the metric's range, the point estimate as a tick."""
    if not cell or cell.get("value") is None:
        return ""
    lo, hi = METRICS[metric]["min"], METRICS[metric]["max"]

    def pos(x: float) -> float:
        return max(0.0, min(100.0, 100.0 * (x - lo) / (hi - lo)))

    low = pos(cell["low"] if cell.get("low") is not None else cell["value"])
    high = pos(cell["high"] if cell.get("high") is not None else cell["value"])
    return (
        f'<span class="bar" title="95% interval"><span style="left:{low:.1f}%;width:{max(high - low, 0.5):.1f}%">'
        f'</span><i style="left:{pos(cell["value"]):.1f}%"></i></span>'
    )


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _row_html(row: dict[str, Any], metrics: list[str], primary: str) -> str:
    cells = [
        f'<td class="rank">{row["rank"]}</td>',
        f"<td>{esc(row['system'])}</td>",
        f"<td>{esc(row['dataset'])}</td>",
    ]
    for metric in metrics:
        cell = row["scores"].get(metric)
        bar = _bar(cell, metric) if metric == primary else ""
        cells.append(f'<td class="num">{esc(format_score(cell))}{bar}</td>')
    first = row["scores"].get(primary) or {}
    tokens, cost = row["tokens"], row["cost_usd"]
    cost_text = "—" if cost is None else f"${cost:.4f}"
    cells += [
        f'<td class="num">{esc(first.get("n", 0))} / {esc(first.get("excluded", 0))}</td>',
        f'<td class="num">{_seconds(row["latency"].get("first_audio_s"))}</td>',
        f'<td class="num">{_seconds(row["latency"].get("total_s"))}</td>',
        f'<td class="num">{esc(f"{tokens[0]} / {tokens[1]}" if tokens else "—")}</td>',
        f'<td class="num">{esc(cost_text)}</td>',
        f"<td>{esc(row['scorer'])}<br><span class='meta'>{esc(row['validity'])}</span></td>",
        f"<td><code>{esc(row['fingerprint'])}</code></td>",
        f'<td class="cmd"><code>{esc(row["reproduce"])}</code></td>',
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def leaderboard_html(board: dict[str, Any], title: str) -> str:
    """The page of a :func:`~voxeval.interop._leaderboard.rank` result."""
    metrics, primary = board["metrics"], board["metric"]
    arrows = {m: "↓" if METRICS[m]["lower_is_better"] else "↑" for m in metrics}
    head = ["#", "system", "dataset", *(f"{m.upper()}{arrows[m]} [95% CI]" for m in metrics)]
    head += ["n / excluded", "first audio s (median)", "total s (median)", "tokens in / out", "cost", "scored by",
             "config fingerprint", "reproduce"]  # fmt: skip
    warning = ""
    if board["differences"]:
        items = "".join(f"<li>{esc(d)}</li>" for d in board["differences"])
        warning = f'<div class="warn"><b>Mixed runs</b> (ranked with --allow-mixed): these differ<ul>{items}</ul></div>'
    settings = board["settings"]
    about = ("Settings of the first run: " if board["differences"] else "") + (
        f"Benchmark <b>{esc(board['benchmark'])}</b>, ranked by {esc(primary.upper())}; datasets "
        f"{esc(', '.join(settings['datasets']))}; split {esc(settings['split'] or 'all')}; "
        f"limit {esc(settings['limit'] or 'none')}"
        + (
            f"; history conditions {esc(', '.join(settings['history conditions']))}"
            if "history conditions" in settings
            else ""
        )
        + "."
    )
    body = "".join(_row_html(r, metrics, primary) for r in board["rows"])
    table = (
        "<table id='board'><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + f"</tr></thead><tbody>{body}"
        "</tbody></table>"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{CSS}{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1><p class='meta'>{about}</p>{warning}"
        f"{table}<p class='meta'>Intervals: 95% percentile bootstrap over samples. Latency: medians of the recorded "
        "replies. Cost: from the prices file, when given. Each run is reproduced by its command (run it with the same "
        f"voxeval version and dataset files). Built by voxeval {esc(__version__)}.</p></body></html>\n"
    )
