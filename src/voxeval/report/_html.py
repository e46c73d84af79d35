"""A self-contained HTML page: inline CSS, figures embedded as data URIs, no external fetches."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence

CSS = """
body{font-family:-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK JP",sans-serif;margin:2rem auto;max-width:72rem;
color:#222;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;
margin-top:2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}th,td{border:1px solid #ccc;padding:.25rem .45rem;
vertical-align:top}th{background:#f3f3f3;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#555;font-size:.85rem}.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.4rem .8rem}
figure{margin:1rem 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.8rem;color:#555}
code{background:#f5f5f5;padding:0 .2rem}
"""


def esc(value: object) -> str:
    """HTML-escaped text."""
    return html.escape("" if value is None else str(value))


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], numeric: Sequence[int] = ()) -> str:
    """An HTML table; cells are escaped; columns in ``numeric`` are right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(f'<td class="num">{esc(c)}</td>' if i in numeric else f"<td>{esc(c)}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure(png: bytes, caption: str) -> str:
    """An embedded PNG figure."""
    data = base64.b64encode(png).decode("ascii")
    img = f'<img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
    return f"<figure>{img}<figcaption>{esc(caption)}</figcaption></figure>"


def page(title: str, sections: Sequence[str], meta: str = "") -> str:
    """The whole document."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><title>{esc(title)}</title><style>{CSS}</style></head>'
        f'<body><h1>{esc(title)}</h1><p class="meta">{meta}</p>{"".join(sections)}</body></html>'
    )
