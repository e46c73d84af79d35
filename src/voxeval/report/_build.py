"""Markdown, HTML and CSV reports of a dialogue-act run, from the data its benchmark read from the run directory."""

from __future__ import annotations

import csv
import io
import itertools
from collections import Counter
from pathlib import Path
from typing import Any

from voxeval.report import _plots as plots
from voxeval.report._analysis import error_analysis, per_domain
from voxeval.report._echoes import echo_section
from voxeval.report._escape import csv_cell, fixed, markdown_table, md_cell
from voxeval.report._html import esc, figure, page, table
from voxeval.report._human import da_human_section
from voxeval.report._latency import LATENCY_HEAD, latency_rows, system_latency
from voxeval.report._load import RunData
from voxeval.report._ppi import PPI_HEAD, ppi_section
from voxeval.report._speech import channel_section, latency_section
from voxeval.report._stats import Interval, bootstrap_ci, paired_test
from voxeval.report._tables import CONTENT_NOTE, format_acts, render_markdown, representatives
from voxeval.report._trust import label_advice
from voxeval.report._usage import usage_section
from voxeval.report._validity import system_level_section


def _ci(iv: Interval | None) -> str:
    return "—" if iv is None else f"{fixed(iv.mean)} [{fixed(iv.low)}, {fixed(iv.high)}]"


def _f(x: float | None) -> str:
    return fixed(x)


def _has_content(sets: list[Any]) -> bool:
    return any(getattr(s, "content", None) is not None for s in sets)


def table1_head(sets: list[Any]) -> list[str]:
    """Table 1's columns: the content-aware ones are added when any set has them."""
    return TABLE1_HEAD + (CONTENT_HEAD if _has_content(sets) else [])


def _content_cells(s: Any) -> list[object]:
    if s.content is None:
        return ["—", "—"]
    scores = s.content.scores
    return [_ci(bootstrap_ci([x.wlcs_c for x in scores])), _ci(bootstrap_ci([x.wed_c for x in scores]))]


def table1_rows(sets: list[Any]) -> list[list[object]]:
    """Table 1 with bootstrap CIs and the failed/excluded count beside every mean (and WLCS-c / WED-c when any
    set has them)."""
    content = _has_content(sets)
    rows = []
    for s in sets:
        m = s.summary
        rows.append(
            [
                s.dataset,
                s.system,
                m.n,
                len(m.excluded),
                m.missing_predictions,
                _ci(bootstrap_ci([x.wlcs for x in s.scores])),
                _f(m.wlcs_std),
                _ci(bootstrap_ci([x.edit.total for x in s.scores])),
                _f(m.wed_std),
                _f(m.deletion_mean),
                _f(m.insertion_mean),
                _f(m.substitution_mean),
                *(_content_cells(s) if content else []),
            ]
        )
    return rows


TABLE1_HEAD = [
    "dataset",
    "system",
    "n",
    "excluded",
    "missing",
    "WLCS mean [95% CI] (↑)",
    "WLCS std",
    "WED mean [95% CI] (↓)",
    "WED std",
    "deletion",
    "insertion",
    "substitution",
]

CONTENT_HEAD = ["WLCS-c mean [95% CI] (↑)", "WED-c mean [95% CI] (↓)"]
"""voxeval's content-aware scores (docs/metrics.md), shown when the report was built with ``--content``."""


def paired_rows(sets: list[Any]) -> list[list[object]]:
    """Paired tests between every two systems on the same dataset (WED, a − b; negative favours a)."""
    rows = []
    by_dataset: dict[str, list[Any]] = {}
    for s in sets:
        by_dataset.setdefault(s.dataset, []).append(s)
    for dataset, group in by_dataset.items():
        for a, b in itertools.combinations(group, 2):
            wa, wb = {x.id: x.edit.total for x in a.scores}, {x.id: x.edit.total for x in b.scores}
            common = [i for i in wa if i in wb]
            test = paired_test([wa[i] for i in common], [wb[i] for i in common])
            if test is None:
                continue
            rows.append(
                [
                    dataset,
                    a.system,
                    b.system,
                    test.n,
                    f"{test.mean_diff:+.3f}",
                    f"[{test.ci.low:+.3f}, {test.ci.high:+.3f}]",
                    f"{test.p_value:.4f}",
                    "undefined" if test.effect_size is None else f"{test.effect_size:+.2f}",
                    f"{test.losses}/{test.wins}/{test.ties}",
                ]
            )
    return rows


PAIRED_HEAD = [
    "dataset",
    "system a",
    "system b",
    "paired n",
    "WED a − b",
    "95% CI",
    "p (permutation)",
    "effect d_z",
    "a better / worse / tie",
]


def _mean_of(scores: Any) -> float | None:
    return None if scores is None or scores.wed is None else float(scores.wed.mean)


def _domains_section(sets: list[Any]) -> str:
    tables = {f"{s.system} ({s.dataset})": per_domain(s) for s in sets}
    domains = sorted({d for t in tables.values() for d in t})
    rows: list[list[object]] = [[d, *(_ci(t[d].wed) if d in t else "—" for t in tables.values())] for d in domains]
    html = table(["domain", *(f"WED {k}" for k in tables)], rows)
    if len(domains) > 1:
        values = [[_mean_of(t.get(d)) for t in tables.values()] for d in domains]
        html += figure(plots.domain_heatmap(domains, list(tables), values), "Mean WED per domain × system")
    return html


def _errors_section(sets: list[Any]) -> str:
    parts = []
    for s in sets:
        e = error_analysis(s)
        confusion: Counter[tuple[str, str]] = Counter()
        gold = {g.id: g for g in s.gold}
        for x in s.scores:
            g, p = gold[x.id].acts, s.predictions[x.id].acts if x.id in s.predictions else ()
            for op in x.edit.ops:
                if op.gold_index is not None and op.pred_index is not None:
                    confusion[(g[op.gold_index].act, p[op.pred_index].act)] += 1
        rows = [
            [lbl, e.missing.get(lbl, 0), e.redundant.get(lbl, 0)]
            for lbl in sorted(set(e.missing) | set(e.redundant), key=lambda k: -(e.missing[k] + e.redundant[k]))
        ]
        top = ", ".join(f"{g}→{p} ({n})" for (g, p), n in e.confused.most_common(6)) or "none"
        parts.append(
            f"<h3>{esc(s.system)} on {esc(s.dataset)}</h3>"
            + (
                table(["label", "missing (inserted)", "redundant (deleted)"], rows, numeric=(1, 2))
                if rows
                else "<p>No missing or redundant acts.</p>"
            )
            + f"<p>Most confused (gold→predicted): {esc(top)}. Order errors (same acts, wrong order): "
            f"{e.order_errors} of {e.samples} samples.</p>"
            + figure(plots.confusion_heatmap(dict(confusion), f"Aligned steps: {s.system}"), "Label confusion")
        )
    return "".join(parts)


def _table2_section(data: RunData) -> str:
    parts = []
    for s in data.sets:
        reps = representatives(s.scores, {g.id: g for g in s.gold}, s.predictions, s.system)
        rows = [
            [
                r.kind,
                r.score.id,
                r.gold.input_text if r.gold else "",
                r.gold.output_text if r.gold else "",
                format_acts(r.gold.acts) if r.gold else "",
                r.pred.text if r.pred else "",
                format_acts(r.pred.acts) if r.pred else "(none)",
            ]
            for r in reps
        ]
        parts.append(
            f"<h3>{esc(s.system)} on {esc(s.dataset)}</h3>"
            + table(["what", "id", "input", "gold reply", "gold DA", "model reply", "model DA"], rows)
        )
    return "".join(parts)


def _failures_section(sets: list[Any]) -> str:
    rows = [[s.dataset, s.system, k, v] for s in sets for k, v in s.summary.excluded.items()]
    if not rows:
        return "<p>No failed or excluded samples.</p>"
    return '<p class="warn">These samples are excluded from every mean above.</p>' + table(
        ["dataset", "system", "id", "reason"], rows
    )


def build_da_reports(data: RunData, prices: dict[str, Any] | None = None) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` and ``tables.csv`` of a dialogue-act run; returns their paths."""
    from voxeval.io import atomic_write_text

    run_dir = data.run_dir
    usage_html, usage_md = usage_section(data.replies, prices)
    sets = data.sets
    t1 = table1_rows(sets)
    paired = paired_rows(sets)
    domain_html = _domains_section(sets)
    cfg = data.config
    meta = (
        f"run <code>{esc(run_dir)}</code> · voxeval {esc(cfg.get('voxeval_version'))} · annotator "
        f"<code>{esc(cfg['settings'].get('annotator', '—'))}</code> · updated {esc(cfg.get('updated', '—'))}"
    )
    scored = [s for s in sets if s.scores]
    trust_html, trust_md = _trust_section(data)
    echo_html, echo_md = echo_section(run_dir, sets)
    latency_html, latency_md = latency_section(data.replies)
    channel_html, channel_md = channel_section(
        data.replies, str(cfg["settings"].get("extra", {}).get("reply", {}).get("text", "model"))
    )
    languages = languages_line(data)
    human_html, human_md = da_human_section(data.run_dir)
    ppi_html, ppi_md, ppi_cells = ppi_section(run_dir, sets, data.human)
    advice_html, advice_md = label_advice()
    trust_html, trust_md = trust_html + advice_html + human_html, trust_md + advice_md + human_md
    sections = [
        f'<p class="meta">{esc(languages)}</p>',
        "<h2>Table 1: scores per dataset × system</h2>",
        table(table1_head(sets), t1, numeric=(2, 3, 4, 6, 8, 9, 10, 11)),
        '<p class="meta">95% CIs: percentile bootstrap, 2000 resamples, seed 0. Excluded = failed or unfinished '
        "samples, never scored. Breakdown columns follow one optimal edit path per sample.</p>",
        f'<p class="meta">{esc(CONTENT_NOTE.strip())}</p>' if _has_content(sets) else "",
        ppi_html,
        latency_html,
        trust_html,
        echo_html,
        channel_html,
    ]
    if scored:
        sections += [
            figure(plots.breakdown_bars(scored), "WED breakdown per system"),
            figure(plots.distributions(scored), "Per-sample WLCS and WED distributions"),
        ]
    sections += [
        "<h2>Paired comparisons</h2>",
        table(PAIRED_HEAD, paired) if paired else "<p>Only one system per dataset: nothing to compare.</p>",
        "<h2>Per domain</h2>",
        domain_html,
        "<h2>Missing, redundant and confused acts</h2>",
        _errors_section(scored),
        "<h2>Table 2: representative samples</h2>",
        _table2_section(data),
        "<h2>Failed and excluded samples</h2>",
        _failures_section(sets),
        usage_html,
    ]
    out = {"html": run_dir / "report.html", "md": run_dir / "report.md", "csv": run_dir / "tables.csv"}
    atomic_write_text(out["html"], page("voxeval dialogue-act report", sections, meta))
    title, _, rest = _markdown(sets, paired, ppi_md + latency_md).partition("\n\n")
    md = f"{title}\n\n{languages}\n\n{rest}" + trust_md + echo_md + channel_md + usage_md
    atomic_write_text(out["md"], md)
    latency = latency_rows(system_latency(data.replies))
    atomic_write_text(out["csv"], _csv(table1_head(sets), t1, paired, latency, ppi_cells))
    return out


def languages_line(data: RunData) -> str:
    """The language of each dataset, named in every report: scores are comparable only within one language."""
    names = list(dict.fromkeys(s.dataset for s in data.sets))
    return "Language of each dataset: " + ", ".join(
        f"{md_cell(n)} ({md_cell(data.languages.get(n, 'unknown'))})" for n in names
    )


def _trust_section(data: RunData) -> tuple[str, str]:
    """How far to trust the annotation (HTML, Markdown): the annotator's measured error on replies like these."""
    from voxeval.report._trust import TRUST_HEAD, measured_by_style, style_table, trust_rows

    title = "How far to trust the annotation"
    measured = measured_by_style(data.config)
    level_html, level_md = system_level_section(data.config)
    if measured is None and level_html:
        return f"<h3>{title}</h3>" + level_html, f"\n## {title}\n\n" + level_md
    if measured is None:
        text = (
            "This annotator records no measured error by reply style: check it on labelled replies like these "
            "with <code>voxeval annotator-check</code> (docs/annotators.md)."
        )
        return f"<h3>{title}</h3><p>{text}</p>", f"\n## {title}\n\n{text}\n"
    by_style, where = measured
    rows = [
        [r.dataset, r.system, r.replies, f"{r.chatty_share:.0%}", f"{r.expected_wed:.3f}", f"{r.flawed_wed:.3f}"]
        for r in trust_rows(data.replies, by_style)
    ]
    head, styles = style_table(by_style)
    note = (
        f"The annotator's mean WED to gold labels, measured on {where}, by reply style; a system's expected "
        "annotation error weights the concise and chatty figures by the share of its replies that look chatty "
        "(≥ 3 sentences or ≥ 60 characters). Where replies are flawed, expect the flawed figure. A "
        "difference between systems smaller than this error may come from the annotation, not from the systems."
    )
    html = f"<h3>{title}</h3>" + table(head, styles, numeric=(1, 2, 3))
    html += table(TRUST_HEAD, rows, numeric=(2, 3, 4, 5)) if rows else "<p>No text replies.</p>"
    md = f"\n## {title}\n\n" + markdown_table(head, styles) + "\n\n"
    md += (markdown_table(TRUST_HEAD, rows) + "\n\n" if rows else "") + note + "\n" + level_md
    return html + f'<p class="meta">{esc(note)}</p>' + level_html, md


def _content_summary(s: Any) -> Any:
    return s.content.summary if getattr(s, "content", None) is not None else None


def _markdown(sets: list[Any], paired: list[list[object]], latency_md: str = "") -> str:
    from voxeval.report._tables import TableRow

    reps = [r for s in sets for r in representatives(s.scores, {g.id: g for g in s.gold}, s.predictions, s.system)]
    rows = [TableRow(s.dataset, s.system, s.summary, _content_summary(s)) for s in sets]
    md = render_markdown(rows, reps, after_table1=latency_md)
    if paired:
        md += "\n## Paired comparisons (WED, a − b)\n\n" + markdown_table(PAIRED_HEAD, paired) + "\n"
    return md


def _csv(
    head: list[str],
    t1: list[list[object]],
    paired: list[list[object]],
    latency: list[list[object]],
    ppi: list[list[object]],
) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["table", *head])
    writer.writerows(["table1", *map(csv_cell, r)] for r in t1)
    writer.writerow(["table", *PAIRED_HEAD])
    writer.writerows(["paired", *map(csv_cell, r)] for r in paired)
    if ppi:
        writer.writerow(["table", *PPI_HEAD])
        writer.writerows(["ppi", *map(csv_cell, r)] for r in ppi)
    if latency:
        writer.writerow(["table", *LATENCY_HEAD])
        writer.writerows(["latency", *map(csv_cell, r)] for r in latency)
    return buf.getvalue()
