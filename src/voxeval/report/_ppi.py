"""Prediction-powered scores in reports: the annotator's scores on every reply, corrected by human labels on the
run's drawn sample (``voxeval label --sample``; PPI++, :mod:`voxeval.metrics._ppi`, docs/metrics.md).

Per dataset × system and metric: f = the metric with the annotator's acts on every reply of the recorded
population that is scored now; y = the metric with a labeller's acts (``human/da/<labeller>.jsonl``, rows with
status ``labelled``), averaged over the labellers of the reply, on the drawn replies. Labels outside the drawn
sample are not used. A run without a recorded sample gets no section.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.acts import Acts, Step, normalise
from voxeval.metrics import PPIEstimate, ppi_from_scores, score_sample

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


def human_acts(row: dict[str, Any]) -> Acts:
    """A labeller's steps (spans kept, for the content scores) as a normalised sequence; ``[]`` is no act."""
    return normalise([Step(s["act"], float(s["importance"]), span=s.get("span")) for s in row.get("steps") or []])


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


def _one_labeller(scored: Any, labelled: dict[str, Acts], similarity: Any) -> Scores:
    """The metrics of one labeller's acts on the replies they labelled (against the same gold as the annotator)."""
    gold = {g.id: g for g in scored.gold}
    per = [score_sample(i, gold[i].acts, acts) for i, acts in labelled.items()]
    if similarity is None or not labelled:
        return _by_metric(per)
    import dataclasses

    from voxeval.data import Prediction
    from voxeval.run._content import content_set

    texts = {i: (scored.predictions[i].text if i in scored.predictions else None) for i in labelled}
    preds = {i: Prediction(i, acts, texts[i]) for i, acts in labelled.items()}
    subset = dataclasses.replace(scored, gold=tuple(gold[i] for i in labelled), predictions=preds, scores=tuple(per))
    return _by_metric(per, content_set(subset, similarity).scores)


def human_scores(
    scored: Any, humans: dict[str, dict[str, dict[str, Any]]], keys: dict[str, str], similarity: Any
) -> Scores:
    """y per metric and sample id: each labeller's score of the reply, averaged over the labellers who labelled it.

    ``keys`` maps the drawn sample ids to their reply keys (the labellers' rows are keyed by them).
    """
    totals: dict[str, dict[str, list[float]]] = {}
    for rows in humans.values():
        labelled = {i: human_acts(rows[k]) for i, k in keys.items() if rows.get(k, {}).get("status") == "labelled"}
        for metric, values in _one_labeller(scored, labelled, similarity).items():
            for i, v in values.items():
                totals.setdefault(metric, {}).setdefault(i, []).append(v)
    return {m: {i: sum(v) / len(v) for i, v in by_id.items()} for m, by_id in totals.items()}


Labels = tuple[Any, dict[str, dict[str, dict[str, Any]]]]
"""A run's recorded draw (:class:`~voxeval.label._sample.Draw`) and its labellers' current da judgements."""


def run_labels(run_dir: Path) -> Labels | None:
    """The run's drawn sample and human labels, or ``None`` when it has not both."""
    from voxeval.label._sample import read_draw
    from voxeval.label._study import read_judgements

    draw = read_draw(run_dir, "da")
    humans = read_judgements(run_dir, "da") if draw is not None else {}
    return (draw, humans) if draw is not None and humans else None


def ppi_inputs(scored: Any, labels: Labels) -> tuple[Scores, Scores, int] | None:
    """f on the set's population, y on its labelled drawn replies, and the number drawn (``None``: not drawn)."""
    from voxeval.io._keys import reply_key

    draw, humans = labels
    stratum = draw.stratum(scored.dataset, scored.system)
    if stratum is None:
        return None
    f = annotator_scores(scored)
    population = set(stratum.population) & set(f["WLCS"])  # replies excluded since the draw drop out
    keys = {i: reply_key(scored.dataset, scored.system, i) for i in stratum.sample if i in population}
    y = human_scores(scored, humans, keys, _similarity(scored))
    return {m: {i: v for i, v in by_id.items() if i in population} for m, by_id in f.items()}, y, len(keys)


def ppi_rows(run_dir: Path, sets: list[Any]) -> list[PPIRow]:
    """The prediction-powered rows of a dialogue-act run (empty without a recorded sample or human labels)."""
    labels = run_labels(run_dir)
    if labels is None:
        return []
    rows = []
    for scored in sets:
        inputs = ppi_inputs(scored, labels)
        if inputs is None:
            continue
        f, y, drawn = inputs
        for metric in (m for m in (*METRICS, *CONTENT_METRICS) if m in f):
            labelled = y.get(metric, {})
            estimate = ppi_from_scores(f[metric], labelled) if len(labelled) >= 2 else None
            rows.append(PPIRow(scored.dataset, scored.system, metric, drawn, estimate))
    return rows


def _similarity(scored: Any) -> Any:
    """The span similarity the set's content scores were made with (``None`` without content scores)."""
    if getattr(scored, "content", None) is None:
        return None
    from voxeval.annotate._similarity import similarity_from_name

    return similarity_from_name(scored.content.summary.similarity["similarity"])


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


def ppi_section(run_dir: Path, sets: list[Any]) -> tuple[str, str, list[list[object]]]:
    """(HTML, Markdown, table cells) of the prediction-powered table; empty without a drawn, labelled sample."""
    return _render(ppi_rows(run_dir, sets), PPI_NOTE)


def _render(rows: list[PPIRow], note: str) -> tuple[str, str, list[list[object]]]:
    from voxeval.report._build import markdown_table
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
    for rows in humans.values():
        for key, row in rows.items():
            if row.get("status") == "labelled":
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


def compare_ppi(labels_a: Labels | None, labels_b: Labels | None, a: Any, b: Any) -> dict[str, Any]:
    """``{"ppi": {metric: {"a", "b", "b_minus_a"}}}`` for a compared pair of sets whose runs both have labels on a
    drawn sample (each an estimate's JSON, or ``None`` with fewer than two labelled replies); else ``{}``.

    The difference is the estimator on per-reply differences over the replies both runs have, labelled in both.
    """
    from voxeval.metrics import ppi_paired

    inputs_a = ppi_inputs(a, labels_a) if labels_a is not None else None
    inputs_b = ppi_inputs(b, labels_b) if labels_b is not None else None
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
