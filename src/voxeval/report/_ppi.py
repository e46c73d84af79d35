"""Prediction-powered scores in reports: the annotator's scores on every reply, corrected by human labels on the
run's drawn sample (``voxeval label --sample``; PPI++, :mod:`voxeval.metrics._ppi`, docs/metrics.md).

Per dataset × system and metric: f = the metric with the annotator's acts on every reply of the recorded
population that is scored now; y = the metric with a labeller's acts (``human/da/<labeller>.jsonl``, rows with
status ``labelled``, scored by the benchmark: :func:`voxeval.benchmark._human.human_sets`, ``RunData.human``),
averaged over the labellers of the reply, on the drawn replies. Labels outside the drawn sample are not used. A run
without a recorded sample gets no section. The style report's figures (judge score vs human ratings) are here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.metrics import PPIEstimate, ppi_from_scores

Scores = dict[str, dict[str, float]]
"""Metric name → sample id → score."""

METRICS = ("WLCS", "WED", "deletion", "insertion", "substitution")
"""The paper's metrics and WED's breakdown, always estimated."""

CONTENT_METRICS = ("WLCS-c", "WED-c")
"""voxeval's content-aware scores, estimated when the report has them (``--content``)."""

PPI_HEAD = [
    "dataset",
    "system",
    "metric",
    "PPI++ estimate [95% CI]",
    "annotator (plain)",
    "human only [95% CI]",
    "labelled / drawn",
    "N",
    "λ",
    "gain",
]
"""Columns of the prediction-powered table."""

PPI_TITLE = "Prediction-powered scores (annotator corrected by human labels on a random sample)"

PPI_NOTE = (
    "Per system and metric: the annotator's score on all N replies, corrected by the human labels on the uniform "
    "random sample drawn by `voxeval label --sample` (human/da/sample.json); PPI++ with power tuning λ (0: human "
    "labels only, 1: classic PPI), 95% t intervals. 'annotator (plain)' is the uncorrected mean over the same N "
    "replies; 'human only' uses the labels alone; gain = how many times more human labels the human-only figure "
    "would need for the same interval. Several labellers: the score is averaged per reply. Definition: "
    "docs/metrics.md."
)


@dataclass(frozen=True)
class PPIRow:
    """One dataset × system × metric of the prediction-powered table."""

    dataset: str
    """Dataset name."""
    system: str
    """System name."""
    metric: str
    """One of :data:`METRICS` or :data:`CONTENT_METRICS`."""
    drawn: int
    """Drawn replies still in the scored population."""
    estimate: PPIEstimate | None
    """The estimate, or ``None`` when fewer than two drawn replies are labelled."""


def _by_metric(scores: Any, content: Any = None) -> Scores:
    """Every metric by sample id, from :class:`~voxeval.metrics.SampleScore` (and content scores, when given)."""
    out: Scores = {
        "WLCS": {x.id: x.wlcs for x in scores},
        "WED": {x.id: x.edit.total for x in scores},
        "deletion": {x.id: x.edit.deletion for x in scores},
        "insertion": {x.id: x.edit.insertion for x in scores},
        "substitution": {x.id: x.edit.substitution for x in scores},
    }
    if content is not None:
        out["WLCS-c"] = {c.id: c.wlcs_c for c in content}
        out["WED-c"] = {c.id: c.wed_c for c in content}
    return out


def annotator_scores(scored: Any) -> Scores:
    """f: every metric of every scored reply of a :class:`~voxeval.run.ScoredSet`, with the annotator's acts."""
    content = getattr(scored, "content", None)
    return _by_metric(scored.scores, content.scores if content is not None else None)


def human_scores(human: dict[tuple[str, str, str], Any], dataset: str, system: str, ids: set[str]) -> Scores:
    """y per metric and sample id over ``ids``: each labeller's score of the reply (``human``: their labels scored
    as sets, :func:`voxeval.benchmark._human.human_sets`), averaged over the labellers who labelled it."""
    totals: dict[str, dict[str, list[float]]] = {}
    for (d, s, _), labelled in sorted(human.items()):
        if (d, s) != (dataset, system):
            continue
        for metric, values in annotator_scores(labelled).items():
            for i in ids & set(values):
                totals.setdefault(metric, {}).setdefault(i, []).append(values[i])
    return {m: {i: sum(v) / len(v) for i, v in by_id.items()} for m, by_id in totals.items()}


def ppi_inputs(scored: Any, draw: Any, human: dict[tuple[str, str, str], Any]) -> tuple[Scores, Scores, int] | None:
    """f on the set's population, y on its labelled drawn replies, and the number drawn (``None``: not drawn)."""
    stratum = draw.stratum(scored.dataset, scored.system)
    if stratum is None:
        return None
    f = annotator_scores(scored)
    population = set(stratum.population) & set(f["WLCS"])  # replies excluded since the draw drop out
    drawn = set(stratum.sample) & population
    y = human_scores(human, scored.dataset, scored.system, drawn)
    return {m: {i: v for i, v in by_id.items() if i in population} for m, by_id in f.items()}, y, len(drawn)


def ppi_rows(run_dir: Path, sets: list[Any], human: dict[tuple[str, str, str], Any]) -> list[PPIRow]:
    """The prediction-powered rows of a dialogue-act run (empty without a recorded sample or human labels)."""
    from voxeval.label._sample import read_draw

    draw = read_draw(run_dir, "da")
    if draw is None or not human:
        return []
    rows = []
    for scored in sets:
        inputs = ppi_inputs(scored, draw, human)
        if inputs is None:
            continue
        f, y, drawn = inputs
        for metric in (m for m in (*METRICS, *CONTENT_METRICS) if m in f):
            labelled = y.get(metric, {})
            estimate = ppi_from_scores(f[metric], labelled) if len(labelled) >= 2 else None
            rows.append(PPIRow(scored.dataset, scored.system, metric, drawn, estimate))
    return rows


def _iv(mean: float, low: float, high: float) -> str:
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def table_rows(rows: list[PPIRow]) -> list[list[object]]:
    """The rows as table cells (a dash where fewer than two drawn replies are labelled)."""
    out: list[list[object]] = []
    for r in rows:
        e = r.estimate
        if e is None:
            out.append([r.dataset, r.system, r.metric, "— (label ≥ 2 drawn replies)", "—", "—", f"0-1 / {r.drawn}"])
            out[-1] += ["—", "—", "—"]
            continue
        out.append(
            [
                r.dataset,
                r.system,
                r.metric,
                _iv(e.estimate, e.low, e.high),
                f"{e.annotator_mean:.3f}",
                _iv(e.human_mean, e.human_low, e.human_high),
                f"{e.n} / {r.drawn}",
                e.N,
                f"{e.lam:.2f}",
                f"{e.gain:.2f}×",
            ]
        )
    return out


def ppi_section(
    run_dir: Path, sets: list[Any], human: dict[tuple[str, str, str], Any]
) -> tuple[str, str, list[list[object]]]:
    """(HTML, Markdown, table cells) of the prediction-powered table; empty without a drawn, labelled sample."""
    return _render(ppi_rows(run_dir, sets, human), PPI_NOTE)


def _render(rows: list[PPIRow], note: str) -> tuple[str, str, list[list[object]]]:
    from voxeval.report._escape import markdown_table
    from voxeval.report._html import esc, table

    cells = table_rows(rows)
    if not cells:
        return "", "", []
    html = f"<h3>{esc(PPI_TITLE)}</h3>" + table(PPI_HEAD, cells, numeric=(7,)) + f'<p class="meta">{esc(note)}</p>'
    md = f"\n## {PPI_TITLE}\n\n" + markdown_table(PPI_HEAD, cells) + "\n\n" + note + "\n"
    return html, md, cells


STYLE_NOTE = (
    "Per system: the judge's 1-5 score on all N judged replies, corrected by the human ratings (human/style/, "
    "`voxeval label --task style`) on the uniform random sample drawn by `voxeval label --sample` "
    "(human/style/sample.json); several raters: their ratings averaged per reply. A plain, unweighted mean over "
    "replies (not the VStyle-weighted overall). PPI++ as for dialogue acts: docs/metrics.md."
)


def style_ppi_rows(run_dir: Path, judged: dict[str, list[dict[str, Any]]]) -> list[PPIRow]:
    """The judge's mean score per dataset × system corrected by human ratings on the run's drawn style sample."""
    from voxeval.label._sample import read_draw
    from voxeval.label._study import read_judgements

    draw = read_draw(run_dir, "style")
    humans = read_judgements(run_dir, "style") if draw is not None else {}
    if draw is None or not humans:
        return []
    ratings: dict[str, list[float]] = {}
    for labeller, rows in humans.items():
        for key, row in rows.items():
            if row.get("status") != "labelled":
                continue
            if isinstance(row.get("score"), bool) or row.get("score") not in (1, 2, 3, 4, 5):
                where = Location(str(run_dir / "human" / "style" / f"{labeller}.jsonl"), None, f"{key}.score")
                raise InputError(where, f"must be a rating 1-5, got {row.get('score')!r}")
            ratings.setdefault(key, []).append(float(row["score"]))
    out = []
    for stratum in draw.strata:
        scored = {
            r["id"]: (r["key"], float(r["score"]))
            for r in judged.get(stratum.system, [])
            if r.get("dataset") == stratum.dataset and r.get("status") == "ok" and r.get("score") is not None
        }
        population = set(stratum.population) & set(scored)
        f = {i: scored[i][1] for i in population}
        drawn = [i for i in stratum.sample if i in population]
        y = {i: sum(ratings[k]) / len(ratings[k]) for i in drawn if (k := scored[i][0]) in ratings}
        estimate = ppi_from_scores(f, y) if len(y) >= 2 else None
        out.append(PPIRow(stratum.dataset, stratum.system, "judge score (1-5)", len(drawn), estimate))
    return out


def style_ppi_section(run_dir: Path, judged: dict[str, list[dict[str, Any]]]) -> tuple[str, str, list[list[object]]]:
    """(HTML, Markdown, cells) of the style run's prediction-powered table; empty without a drawn, rated sample."""
    return _render(style_ppi_rows(run_dir, judged), STYLE_NOTE)


COMPARED = ("WLCS", "WED")
"""Metrics ``voxeval compare`` estimates per side and as a paired difference."""


def compare_ppi(run_a: Any, run_b: Any, a: Any, b: Any) -> dict[str, Any]:
    """``{"ppi": {metric: {"a", "b", "b_minus_a"}}}`` for a compared pair of sets (of the runs ``run_a``,
    ``run_b``: :class:`~voxeval.report.RunData`) when both runs have labels on a drawn sample (each an estimate's
    JSON, or ``None`` with fewer than two labelled replies); else ``{}``.

    The difference is the estimator on per-reply differences over the replies both runs have, labelled in both.
    """
    from voxeval.label._sample import read_draw
    from voxeval.metrics import ppi_paired

    draw_a, draw_b = read_draw(run_a.run_dir, "da"), read_draw(run_b.run_dir, "da")
    if draw_a is None or draw_b is None or not run_a.human or not run_b.human:
        return {}
    inputs_a, inputs_b = ppi_inputs(a, draw_a, run_a.human), ppi_inputs(b, draw_b, run_b.human)
    if inputs_a is None or inputs_b is None:
        return {}
    (f_a, y_a, _), (f_b, y_b, _) = inputs_a, inputs_b
    out: dict[str, Any] = {}
    for m in COMPARED:
        side_a, side_b = y_a.get(m, {}), y_b.get(m, {})
        paired = set(side_a) & set(side_b) & set(f_a[m]) & set(f_b[m])
        out[m] = {
            "a": ppi_from_scores(f_a[m], side_a).to_json() if len(side_a) >= 2 else None,
            "b": ppi_from_scores(f_b[m], side_b).to_json() if len(side_b) >= 2 else None,
            "b_minus_a": ppi_paired(f_a[m], f_b[m], side_a, side_b).to_json() if len(paired) >= 2 else None,
        }
    return {"ppi": out}


def _json_iv(e: dict[str, Any] | None, sign: str = "") -> str:
    if e is None:
        return "—"
    interval = f"{e['estimate']:{sign}.3f} [{e['low']:{sign}.3f}, {e['high']:{sign}.3f}]"
    return f"{interval} (plain {e['annotator_mean']:{sign}.3f}, n={e['n']})"


def compare_ppi_lines(comparisons: list[dict[str, Any]]) -> list[str]:
    """The Markdown table of ``voxeval compare``'s prediction-powered figures (none without labels)."""
    from voxeval.report._escape import md_cell

    rows = []
    for c in comparisons:
        for metric, x in (c.get("ppi") or {}).items():
            cells = (md_cell(c["dataset"]), md_cell(c["a"]), md_cell(c["b"]), metric)
            rows.append(
                f"| {' | '.join(cells)} | {_json_iv(x['a'])} | {_json_iv(x['b'])} | {_json_iv(x['b_minus_a'], '+')} |"
            )
    if not rows:
        return []
    return [
        "\nPrediction-powered figures (annotator corrected by each run's human labels on its drawn sample; "
        "PPI++, 95% t intervals, docs/metrics.md; plain = the annotator's uncorrected mean):\n",
        "| dataset | A | B | metric | A: PPI++ [95% CI] | B: PPI++ [95% CI] | B − A paired PPI++ [95% CI] |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]
