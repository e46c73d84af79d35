"""Reports of a style run: VStyle-weighted scores, per-ability means with CIs, distributions, paired tests."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_text, read_jsonl, read_log
from voxeval.errors import InputError, Location
from voxeval.io import read_json_object
from voxeval.io._keys import read_run_log
from voxeval.report import _plots as plots
from voxeval.report._html import esc, figure, page, table
from voxeval.report._human import style_human
from voxeval.report._ppi import PPI_HEAD, style_ppi_section
from voxeval.report._stats import bootstrap_ci, paired_test


def _ci(values: list[float]) -> str:
    iv = bootstrap_ci(values)
    return "—" if iv is None else f"{iv.mean:.2f} [{iv.low:.2f}, {iv.high:.2f}]"


def load_judgements(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Judgement rows per system.

    A style run keys its rows by ``key`` and names the ``system``; a ``voxeval judge`` folder keys them by the
    VStyle ``id`` and names the ``model_name`` (with no dataset: one metadata file).
    """
    path = run_dir / "judgements.jsonl"
    first = next((row for _, row in read_jsonl(path, complete_only=True)), {})
    vstyle = "key" not in first
    by_system: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows = read_log(path, "id") if vstyle else read_run_log(path)
    for row in rows.values():
        if vstyle:
            row = {"dataset": "", "system": row.get("model_name") or "", **row}
        by_system[row["system"]].append(row)
    # Systems by name, rows by id: a report does not depend on the order judgements finished in.
    return {s: sorted(rows, key=lambda r: (r["dataset"], r["id"])) for s, rows in sorted(by_system.items())}


def _ability_table(
    summary: dict[str, Any], judged: dict[str, list[dict[str, Any]]]
) -> tuple[list[str], list[list[object]]]:
    abilities = sorted({r["ability"] for rows in judged.values() for r in rows})
    head = ["ability", *(f"{s} mean [95% CI] (n ok / failed / not measured)" for s in judged)]
    rows: list[list[object]] = []
    for ability in abilities:
        cells: list[object] = [ability]
        for rows_ in judged.values():
            mine = [r for r in rows_ if r["ability"] == ability]
            ok = [float(r["score"]) for r in mine if r["status"] == "ok" and r["score"] is not None]
            counts = Counter(r["status"] for r in mine)
            cells.append(f"{_ci(ok)} ({counts['ok']} / {counts['failed']} / {counts['not_measured']})")
        rows.append(cells)
    return head, rows


def _paired(judged: dict[str, list[dict[str, Any]]]) -> list[list[object]]:
    out: list[list[object]] = []
    for a, b in itertools.combinations(judged, 2):
        sa = {(r["dataset"], r["id"]): r["score"] for r in judged[a] if r["status"] == "ok"}
        sb = {(r["dataset"], r["id"]): r["score"] for r in judged[b] if r["status"] == "ok"}
        common = [k for k in sa if k in sb]
        test = paired_test([sa[k] for k in common], [sb[k] for k in common])
        if test is None:
            continue
        effect = "undefined" if test.effect_size is None else f"{test.effect_size:+.2f}"
        out.append(
            [
                a,
                b,
                test.n,
                f"{test.mean_diff:+.3f}",
                f"[{test.ci.low:+.3f}, {test.ci.high:+.3f}]",
                f"{test.p_value:.4f}",
                effect,
                f"{test.wins}/{test.losses}/{test.ties}",
            ]
        )
    return out


PAIRED_HEAD = [
    "system a",
    "system b",
    "paired n",
    "score a − b",
    "95% CI",
    "p (permutation)",
    "effect d_z",
    "a higher / lower / tie",
]


def _requirements_table(judged: dict[str, list[dict[str, Any]]]) -> list[list[object]]:
    # How often each requested attribute level was met, per system (from the judge's per-requirement verdicts).
    tally: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for system, rows in judged.items():
        for r in rows:
            for attribute, verdict in ((r.get("attributes") or {}).get("requirements") or {}).items():
                if isinstance(verdict, dict):
                    tally[(system, attribute, str(verdict.get("required")))][str(verdict.get("verdict"))] += 1
    return [
        [s, a, lvl, ", ".join(f"{k} {v}" for k, v in sorted(c.items()))] for (s, a, lvl), c in sorted(tally.items())
    ]


OVERALL_HEAD = ["system", "overall (VStyle-weighted)", "coverage", "ok", "failed", "not measured"]


def _overall_rows(systems: dict[str, Any]) -> list[list[object]]:
    return [
        [
            s,
            "—" if b.get("overall") is None else f"{b['overall']:.3f}",
            f"{b.get('coverage', 0):.2f}",
            b.get("ok"),
            b.get("failed"),
            b.get("not_measured"),
        ]
        for s, b in systems.items()
    ]


@dataclass(frozen=True)
class AbilityChart:
    """One chart of a style report: the systems side by side on each ability of one VStyle category."""

    category: str
    """The category (``acoustic_attributes``, ``instruction``, …)."""
    abilities: list[str]
    """Its abilities that were judged, in VStyle's order."""
    series: list[tuple[str, list[float | None], list[tuple[float, float] | None]]]
    """Per system: its mean score on each ability (``None``: none judged ok) and the 95% bootstrap interval."""


def ability_charts(judged: dict[str, list[dict[str, Any]]]) -> list[AbilityChart]:
    """One chart per category that has ok judgements, with every system that has some in it (pure)."""
    from voxeval.metrics._vstyle import TAXONOMY

    scores: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for system, rows in judged.items():
        for r in rows:
            if r["status"] == "ok" and r["score"] is not None:
                category, _, sub = r["ability"].rpartition("/")
                scores[category][sub][system].append(float(r["score"]))
    order = [*(c for c in TAXONOMY if c in scores), *sorted(c for c in scores if c not in TAXONOMY)]
    charts = []
    for category in order:
        known = TAXONOMY.get(category, ())
        subs = [s for s in known if s in scores[category]] + sorted(s for s in scores[category] if s not in known)
        series = []
        for system in (s for s in judged if any(s in scores[category][sub] for sub in subs)):
            intervals = [bootstrap_ci(scores[category][sub][system]) for sub in subs]
            means = [None if iv is None else iv.mean for iv in intervals]
            series.append((system, means, [None if iv is None else (iv.low, iv.high) for iv in intervals]))
        charts.append(AbilityChart(category, subs, series))
    return charts


def _ability_figures(judged: dict[str, list[dict[str, Any]]]) -> list[str]:
    figures = []
    for chart in ability_charts(judged):
        name = chart.category or "abilities"
        title = f"{name}: mean score per ability (95% CI)"
        png = plots.grouped_bars(chart.abilities, chart.series, title, "score (1–5)")
        figures.append(figure(png, f"{name}: the systems side by side on each ability"))
    return figures


def _spread_and_requirements(judged: dict[str, list[dict[str, Any]]]) -> list[str]:
    sections = []
    spreads = [
        r["meta"]["std"] for rows in judged.values() for r in rows if (r.get("meta") or {}).get("std") is not None
    ]
    if spreads:
        sections.append(
            f"<p>Judge variance over repeated judgements: mean per-item std {sum(spreads) / len(spreads):.3f} "
            f"over {len(spreads)} items.</p>"
        )
    req = _requirements_table(judged)
    if req:
        sections += [
            "<h2>Requested levels and what was measured</h2>",
            table(["system", "attribute", "requested level", "verdicts"], req),
        ]
    failures = [
        [s, r["id"], r["status"], r.get("reason", "")]
        for s, rows in judged.items()
        for r in rows
        if r["status"] != "ok"
    ]
    failed_table = table(["system", "id", "status", "reason"], failures) if failures else "<p>None.</p>"
    return [*sections, "<h2>Failed and not-measured items</h2>", failed_table]


def _agreement(judged: dict[str, list[dict[str, Any]]], human: Path | None) -> tuple[list[str], str]:
    if human is None:
        return [], ""
    from voxeval.report._agreement import agreement, read_human_ratings

    ratings = read_human_ratings(human)
    # ratings exported by `voxeval agreement --export` name the run's reply keys; VStyle-style files the sample id
    result = {
        s: agreement(
            {(r["key"] if r.get("key") in ratings else r["id"]): r["score"] for r in rows if r["status"] == "ok"},
            ratings,
        )
        for s, rows in judged.items()
    }
    html = ["<h2>Judge–human agreement</h2>", f"<pre>{esc(json.dumps(result, indent=2))}</pre>"]
    return html, "\n## Judge–human agreement\n\n```json\n" + json.dumps(result, indent=2) + "\n```\n"


def _rated(row: dict[str, Any]) -> bool:
    return row.get("status") == "ok" and "key" in row


def _distribution(judged: dict[str, list[dict[str, Any]]]) -> list[list[object]]:
    """How many ok judgements gave each score 1–5, per system."""
    return [
        [s, *(Counter(r["score"] for r in rows if r["status"] == "ok")[k] for k in range(1, 6))]
        for s, rows in judged.items()
    ]


_AGREEMENT_TITLE = "How far the acoustic judge agrees with an audio-LLM judge"


def _acoustic_agreement(
    judged: dict[str, list[dict[str, Any]]], human: dict[str, Any] | None
) -> tuple[list[str], list[str]]:
    """The acoustic judge's measured agreement with the audio-LLM judge (HTML and Markdown), when it judged here:
    where it was measured, how far it fell on other systems, and the run's own human figure beside it."""
    if not any(r.get("judge") == "acoustic" for rows in judged.values() for r in rows):
        return [], []
    from voxeval.judge._acoustic_agreement import AGREEMENT_HEAD, agreement_note, agreement_rows, carry_note
    from voxeval.report._escape import markdown_table

    rows: list[list[object]] = [list(r) for r in agreement_rows()]
    notes = [agreement_note(), carry_note(), _human_line(human)]
    html = [f"<h2>{_AGREEMENT_TITLE}</h2>", table(AGREEMENT_HEAD, rows)]
    html += [f'<p class="meta">{esc(n)}</p>' for n in notes if n]
    return html, [f"## {_AGREEMENT_TITLE}", markdown_table(AGREEMENT_HEAD, rows), *(n for n in notes if n)]


def _human_line(human: dict[str, Any] | None) -> str:
    """The judge's agreement with this run's human raters, and theirs with each other (the ceiling)."""
    if not human or not human.get("judge_vs_human_mean"):
        return "No human ratings in this run (human/style/): the figures above are the only evidence."
    from voxeval.report._human import ci_text

    vs = human["judge_vs_human_mean"]
    pairs = [p["spearman"] for p in human["pairs"].values() if p["spearman"]]
    ceiling = ", ".join(ci_text(p, 2) for p in pairs) or "— (one rater)"
    return (
        f"On this run's replies, rated by {len(human['raters'])} people (human/style/): judge vs mean human rating "
        f"Spearman {ci_text(vs['spearman'], 2)} over {vs['items']} items; human vs human Spearman {ceiling}; "
        f"Krippendorff's alpha (interval) {ci_text(human['alpha'], 2)}."
    )


def _write_csv(path: Path, tables: list[tuple[str, list[str], list[list[object]]]]) -> None:
    import csv
    import io

    from voxeval.report._escape import csv_cell

    buf = io.StringIO()
    writer = csv.writer(buf)
    for name, head, rows in tables:
        writer.writerows([["table", *head], *([name, *map(csv_cell, r)] for r in rows)])
    atomic_write_text(path, buf.getvalue())


def build_style_reports(
    run_dir: Path, human: Path | None = None, prices: dict[str, Any] | None = None
) -> dict[str, Path]:
    """``report.md``, ``report.html`` and ``tables.csv`` of a style run (or a ``voxeval judge`` output folder)."""
    from voxeval.report._escape import markdown_table
    from voxeval.report._speech import latency_section
    from voxeval.report._usage import usage_section

    summary = read_json_object(run_dir / "summary.json")
    block = "systems" if summary is not None and "systems" in summary else "models"  # a `voxeval judge` summary
    if summary is None or not isinstance(summary.get(block), dict):
        where = Location(str(run_dir / "summary.json"), field=block)
        raise InputError(where, "missing, or not an object of systems; rerun the run (or voxeval judge) to rewrite it")
    systems = summary[block]
    judged = load_judgements(run_dir)
    replies = read_run_log(run_dir / "replies.jsonl")
    usage_html, usage_md = usage_section(replies, prices)
    latency_html, latency_md = latency_section(replies)
    overall_rows, paired, dist = _overall_rows(systems), _paired(judged), _distribution(judged)
    ability_head, ability_rows = _ability_table(summary, judged)
    agreement_html, agreement_md = _agreement(judged, human)
    human_here = style_human(run_dir, {r["key"]: r["score"] for rs in judged.values() for r in rs if _rated(r)})
    acoustic_html, acoustic_md = _acoustic_agreement(judged, human_here)
    ppi_html, ppi_md, ppi_cells = style_ppi_section(run_dir, judged)
    sections = [
        "<h2>Style scores</h2>",
        table(OVERALL_HEAD, overall_rows),
        '<p class="meta">Weights: each VStyle category 0.25; inside acoustic attributes, composite 0.125 and '
        "the other six 0.125/6, renormalised over what was evaluated. Failed and not-measured items are "
        "excluded from means and counted in coverage.</p>",
        ppi_html,
        latency_html,
        "<h2>Per ability</h2>",
        table(ability_head, ability_rows),
        *acoustic_html,
        *_ability_figures(judged),
        "<h2>Score distribution</h2>",
        table(["system", "1", "2", "3", "4", "5"], dist, numeric=(1, 2, 3, 4, 5)),
        "<h2>Paired comparisons</h2>",
        table(PAIRED_HEAD, paired) if paired else "<p>One system only: nothing to compare.</p>",
        *_spread_and_requirements(judged),
        *agreement_html,
        usage_html,
    ]
    out = {"html": run_dir / "report.html", "md": run_dir / "report.md", "csv": run_dir / "tables.csv"}
    atomic_write_text(out["html"], page("voxeval style report", sections, f"run <code>{esc(run_dir)}</code>"))
    md = "\n\n".join(
        [
            "# voxeval style report",
            markdown_table(OVERALL_HEAD, overall_rows) + ppi_md.rstrip("\n"),
            "## Per ability",
            markdown_table(ability_head, ability_rows),
            *acoustic_md,
            "## Paired comparisons",
            markdown_table(PAIRED_HEAD, paired),
        ]
    )
    atomic_write_text(out["md"], md + "\n" + latency_md + agreement_md + usage_md)
    tables = [("overall", OVERALL_HEAD, overall_rows), ("ability", ability_head, ability_rows)]
    _write_csv(out["csv"], tables + ([("ppi", PPI_HEAD, ppi_cells)] if ppi_cells else []))
    return out
