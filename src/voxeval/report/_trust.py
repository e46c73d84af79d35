"""How far to trust a run's annotation: the annotator's measured error on replies like the run's, next to Table 1.

An annotator that recorded a measured error by reply style (the offline annotator's artefact does: WED and exact
label sequences on its validation split, per style) is read from ``config.json``. Each system's replies are sorted
into the two styles a reply's surface shows — *concise* or *chatty* — by :func:`looks_chatty`; the expected
annotation error of the system's replies is the validation WED of each style weighted by their shares. Whether a
reply is *flawed* is what the benchmark measures, so the flawed figure is shown beside it as the error to expect
where replies are flawed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHATTY_SENTENCES = 3
"""A reply of at least this many sentences looks chatty."""
CHATTY_CHARACTERS = 60
"""A reply of at least this many characters looks chatty."""
# Both thresholds were read off training/data/da-replies-validation.jsonl: they put 96.4% of its concise and
# chatty replies on their own side (concise median 29 characters / 1 sentence, chatty 94 / 4). They are for
# Japanese text, the offline annotator's language; docs/annotators.md ("How far to trust a run").

_SENTENCE_END = re.compile(r"[。．？！?!]+")


def looks_chatty(text: str) -> bool:
    """Whether a reply's surface looks like the chatty style (many sentences or many characters).

    >>> looks_chatty("3分のタイマーをスタートしました。")
    False
    >>> looks_chatty("おはようございます！今日もいい天気ですね。3分のタイマーをスタートしました。楽しんでください。")
    True
    """
    sentences = len(_SENTENCE_END.findall(text.strip().rstrip("。．？！?!"))) + 1
    return sentences >= CHATTY_SENTENCES or len(text.strip()) >= CHATTY_CHARACTERS


@dataclass(frozen=True)
class TrustRow:
    """The expected annotation error of one system's replies on one dataset."""

    dataset: str
    """Dataset name."""
    system: str
    """System name."""
    replies: int
    """Replies with text."""
    chatty_share: float
    """Share of them that look chatty."""
    expected_wed: float
    """Validation WED of concise and chatty replies, weighted by the replies' shares."""
    flawed_wed: float
    """Validation WED on flawed replies."""


def trust_rows(replies: dict[str, dict[str, Any]], by_style: dict[str, dict[str, Any]]) -> list[TrustRow]:
    """One row per dataset × system with text replies, from ``replies.jsonl`` rows and the measured error."""
    texts: dict[tuple[str, str], list[str]] = {}
    for row in replies.values():
        if row.get("status") == "ok" and isinstance(row.get("text"), str) and row["text"].strip():
            texts.setdefault((str(row.get("dataset")), str(row.get("system"))), []).append(row["text"])
    concise, chatty = by_style["concise"]["wed_mean"], by_style["chatty"]["wed_mean"]
    rows = []
    for (dataset, system), group in sorted(texts.items()):
        share = sum(map(looks_chatty, group)) / len(group)
        expected = (1 - share) * concise + share * chatty
        rows.append(TrustRow(dataset, system, len(group), share, expected, by_style["flawed"]["wed_mean"]))
    return rows


TRUST_HEAD = ["dataset", "system", "replies", "look chatty", "expected annotation WED", "on flawed replies"]


def measured_by_style(config: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The annotator's measured error by style and where it was measured, if its description records them."""
    measured = (config.get("components") or {}).get("annotator", {}).get("measured_error") or {}
    by_style = measured.get("by_style") or {}
    styles = ("concise", "chatty", "flawed")
    if not all(isinstance(by_style.get(s), dict) and "wed_mean" in by_style[s] for s in styles):
        return None
    return by_style, str(measured.get("split", "its validation split"))


def style_table(by_style: dict[str, Any]) -> tuple[list[str], list[list[object]]]:
    """The measured error per style as a table."""
    head = ["reply style", "validation replies", "mean WED", "exact label sequence"]
    rows: list[list[object]] = [
        [s, by_style[s].get("n", "—"), f"{by_style[s]['wed_mean']:.3f}", _pct(by_style[s].get("exact_sequence_rate"))]
        for s in ("concise", "chatty", "flawed")
    ]
    return head, rows


def _pct(x: object) -> str:
    return f"{x:.1%}" if isinstance(x, float) else "—"


RECORDED = Path(__file__).with_name("measured") / "system-level.json"
"""System-level figures measured for exact annotator builds (written by ``benchmarks/record_system_level.py``)."""


def recorded_system_level(described: dict[str, Any], path: Path = RECORDED) -> tuple[dict[str, Any], str] | None:
    """The recorded figures of this exact annotator build (same name and artefact sha256), and where measured."""
    if not described.get("sha256") or not path.is_file():
        return None
    for record in json.loads(path.read_text(encoding="utf-8")):
        if (record.get("annotator"), record.get("sha256")) == (described.get("annotator"), described["sha256"]):
            figures = record["system_level"]
            scored = figures.get("all", {}).get("n", record["samples"])  # replies with a reference
            return figures, f"{record['dataset']} ({scored} replies with a reference, {record['measured']})"
    return None


def measured_system_level(config: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The annotator's system-level bias by reply group (``style=…``, ``flaw=…``) and where it was measured: what
    ``voxeval annotator-check`` reports as ``system_level`` (annotator − gold benchmark score per group), from the
    annotator's description (``measured_error.system_level``) or else the record of this exact build."""
    described = (config.get("components") or {}).get("annotator") or {}
    measured = described.get("measured_error") or {}
    found = (
        (measured["system_level"], str(measured.get("split", "its validation split")))
        if isinstance(measured.get("system_level"), dict)
        else recorded_system_level(described)
    )
    if found is None:
        return None
    figures = {k: v for k, v in found[0].items() if isinstance(v, dict) and {"n", "wlcs", "wed"} <= set(v)}
    return (figures, found[1]) if figures else None


LABEL_ADVICE = (
    "Label 40 replies per system to remove the annotator's bias; expected interval ±0.07 (WLCS and WED). "
    "Draw them with `voxeval label RUN --task da --sample 40`; the report then adds prediction-powered scores. "
    "Measured on the annotator's validation splits (ja, en, zh; 9 reply styles as systems; "
    "benchmarks/ppi_budget.py, docs/annotators.md): with 40 labelled replies per system the corrected WLCS had a "
    "mean |bias| of 0.001 (the plain annotator's 0.065), a mean error of 0.016, and its 95% interval covered the "
    "gold figure in at least 94.8% of draws; with 20, only 82% for a system whose replies are almost all perfect."
)
"""The trust section's labelling recommendation, from ``benchmarks/ppi_budget.py`` (recorded in docs/annotators.md)."""


def label_advice() -> tuple[str, str]:
    """The labelling recommendation as (HTML, Markdown)."""
    from voxeval.report._html import esc

    return f'<p class="meta">{esc(LABEL_ADVICE)}</p>', f"\n{LABEL_ADVICE}\n"
