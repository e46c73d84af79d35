"""Usage and cost of a run's replies: token counts per system as the providers reported them, and the cost from a
prices file (``voxeval report --prices``; also the leaderboard's cost column)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.llm._types import token_count
from voxeval.report._escape import markdown_table
from voxeval.report._html import table


def _price(value: object) -> bool:
    """A price: a finite, non-negative number of at most 10^9 USD per million tokens (NaN, -5, 10**400 are not)."""
    import math

    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1e9
    )


def read_prices(path: Path | None) -> dict[str, Any] | None:
    """The prices file of ``voxeval report --prices`` (USD per million tokens per system), checked."""
    if path is None:
        return None
    import json

    from voxeval.errors import InputError, Location

    try:
        prices = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(Location(str(path)), f"cannot read prices: {exc}") from None
    if not isinstance(prices, dict):
        raise InputError(Location(str(path)), f"must be a JSON object of systems, got {type(prices).__name__}")
    for system, entry in prices.items():
        for key in ("input_per_million", "output_per_million"):
            value = entry.get(key) if isinstance(entry, dict) else entry
            if not isinstance(entry, dict) or not _price(value):
                raise InputError(
                    Location(str(path), field=f"{system}.{key}"),
                    f"must be a finite number ≥ 0 (USD per 1M tokens), got {str(value)[:40]}",
                )
    return dict(prices)


def usage_warnings(replies: dict[str, dict[str, Any]]) -> int:
    """Replies whose provider reported token counts that are no counts (ignored; see ``meta.usage_warnings``)."""
    return sum(
        1
        for row in replies.values()
        if (meta := row.get("meta") or {}).get("usage_warnings")
        or any(token_count(meta.get(k), k)[1] for k in ("input_tokens", "output_tokens"))
    )


def usage_rows(replies: dict[str, dict[str, Any]], prices: dict[str, Any] | None = None) -> list[list[object]]:
    """Calls and tokens per system from the recorded replies; cost when ``prices`` names the system.

    ``prices`` maps a system name to ``{"input_per_million": USD, "output_per_million": USD}``.
    """
    totals: dict[str, list[int]] = {}
    for row in replies.values():
        meta = row.get("meta") or {}
        t = totals.setdefault(row["system"], [0, 0, 0, 0])
        t[0] += 1
        # Counts as logged are checked again: a log is a file, and a count that is no count is left out.
        tokens_in, tokens_out = (token_count(meta.get(k), k)[0] for k in ("input_tokens", "output_tokens"))
        if tokens_in is not None or tokens_out is not None:
            t[1] += 1
            t[2] += tokens_in or 0
            t[3] += tokens_out or 0
    rows: list[list[object]] = []
    for system, (calls, reported, tokens_in, tokens_out) in sorted(totals.items()):
        price = (prices or {}).get(system)
        cost = "—"
        if price and reported:
            cost = f"${(tokens_in * price['input_per_million'] + tokens_out * price['output_per_million']) / 1e6:.4f}"
        rows.append([system, calls, reported, tokens_in, tokens_out, cost])
    return rows


USAGE_HEAD = ["system", "replies", "with usage reported", "input tokens", "output tokens", "cost"]


def usage_section(replies: dict[str, dict[str, Any]], prices: dict[str, Any] | None) -> tuple[str, str]:
    """The usage-and-cost table as (HTML, Markdown); empty when the run has no replies."""
    if not replies:
        return "", ""
    rows = usage_rows(replies, prices)
    note = "" if prices else " Pass <code>--prices FILE</code> to <code>voxeval report</code> for the cost column."
    ignored = usage_warnings(replies)
    warning = (
        f"{ignored} repl{'y' if ignored == 1 else 'ies'} reported token counts that are not integers from 0 to 2^53;"
        " they are left out of these sums (the reply rows keep the reason in meta.usage_warnings)."
        if ignored
        else ""
    )
    note += f" {warning}" if warning else ""
    html = (
        "<h2>Usage and cost</h2>"
        + table(USAGE_HEAD, rows, numeric=(1, 2, 3, 4))
        + f'<p class="meta">Tokens as reported by the providers; cost from the prices file.{note}</p>'
    )
    md = "\n## Usage and cost\n\n" + markdown_table(USAGE_HEAD, rows) + "\n" + (f"\n{warning}\n" if warning else "")
    return html, md
