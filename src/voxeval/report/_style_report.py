"""Reports of a style run: VStyle-weighted scores, per-ability means with CIs, distributions, paired tests."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_text, read_log
from voxeval.report import _plots as plots
from voxeval.report._html import esc, figure, page, table
from voxeval.report._stats import bootstrap_ci, paired_test


def _ci(values: list[float]) -> str:
    iv = bootstrap_ci(values)
    return "—" if iv is None else f"{iv.mean:.2f} [{iv.low:.2f}, {iv.high:.2f}]"


def load_judgements(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Judgement rows per system."""
    by_system: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in read_log(run_dir / "judgements.jsonl", "key").values():
        by_system[row["system"]].append(row)
    return dict(by_system)


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


_AGREEMENT_TITLE = "## How far the acoustic judge agrees with an audio-LLM judge"


def _acoustic_agreement(
    judged: dict[str, list[dict[str, Any]]],
) -> tuple[list[str], list[list[object]], str] | None:
    """The acoustic judge's measured agreement with the audio-LLM judge, when it judged this run."""
    if not any(r.get("judge") == "acoustic" for rows in judged.values() for r in rows):
        return None
    from voxeval.judge._acoustic_agreement import AGREEMENT_HEAD, agreement_note, agreement_rows

    return AGREEMENT_HEAD, [list(r) for r in agreement_rows()], agreement_note()


def build_style_reports(run_dir: Path, human: Path | None = None) -> dict[str, Path]:
    """``report.md``, ``report.html`` and ``tables.csv`` of a style run (or a ``voxeval judge`` output folder)."""
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    judged = load_judgements(run_dir)
    overall_rows = [
        [
            s,
            "—" if b.get("overall") is None else f"{b['overall']:.3f}",
            f"{b.get('coverage', 0):.2f}",
            b.get("ok"),
            b.get("failed"),
            b.get("not_measured"),
        ]
        for s, b in summary["systems"].items()
    ]
    overall_head = ["system", "overall (VStyle-weighted)", "coverage", "ok", "failed", "not measured"]
    ability_head, ability_rows = _ability_table(summary, judged)
    paired = _paired(judged)
    acoustic = _acoustic_agreement(judged)
    sections = [
        "<h2>Style scores</h2>",
        table(overall_head, overall_rows),
        '<p class="meta">Weights: each VStyle category 0.25; inside acoustic attributes, composite 0.125 and '
        "the other six 0.125/6, renormalised over what was evaluated. Failed and not-measured items are "
        "excluded from means and counted in coverage.</p>",
        "<h2>Per ability</h2>",
        table(ability_head, ability_rows),
    ]
    if acoustic is not None:
        agreement_head, agreement_body, agreement_text = acoustic
        sections += [f"<h2>{_AGREEMENT_TITLE.removeprefix('## ')}</h2>", table(agreement_head, agreement_body)]
        sections.append(f'<p class="meta">{esc(agreement_text)}</p>')
    for system, rows in judged.items():
        means = defaultdict(list)
        for r in rows:
            if r["status"] == "ok" and r["score"] is not None:
                means[r["ability"].split("/")[-1]].append(r["score"])
        if means:
            labels = sorted(means)
            sections.append(
                figure(
                    plots.bars(
                        labels,
                        [sum(means[k]) / len(means[k]) for k in labels],
                        f"{system}: mean score per ability",
                        "score (1–5)",
                    ),
                    f"{system} per ability",
                )
            )
    dist = [
        [s, *(Counter(r["score"] for r in rows if r["status"] == "ok")[k] for k in range(1, 6))]
        for s, rows in judged.items()
    ]
    sections += [
        "<h2>Score distribution</h2>",
        table(["system", "1", "2", "3", "4", "5"], dist, numeric=(1, 2, 3, 4, 5)),
        "<h2>Paired comparisons</h2>",
        table(PAIRED_HEAD, paired) if paired else "<p>One system only: nothing to compare.</p>",
    ]
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
    sections += [
        "<h2>Failed and not-measured items</h2>",
        table(["system", "id", "status", "reason"], failures) if failures else "<p>None.</p>",
    ]
    agreement_md = ""
    if human is not None:
        from voxeval.report._agreement import agreement, read_human_ratings

        ratings = read_human_ratings(human)
        result = {
            s: agreement({r["id"]: r["score"] for r in rows if r["status"] == "ok"}, ratings)
            for s, rows in judged.items()
        }
        sections += ["<h2>Judge–human agreement</h2>", f"<pre>{esc(json.dumps(result, indent=2))}</pre>"]
        agreement_md = "\n## Judge–human agreement\n\n```json\n" + json.dumps(result, indent=2) + "\n```\n"
    out = {"html": run_dir / "report.html", "md": run_dir / "report.md", "csv": run_dir / "tables.csv"}
    atomic_write_text(out["html"], page("voxeval style report", sections, f"run <code>{esc(run_dir)}</code>"))

    def md_table(head: list[str], rows: list[list[object]]) -> str:
        return "\n".join(
            [
                "| " + " | ".join(head) + " |",
                "|" + "---|" * len(head),
                *("| " + " | ".join(str(c) for c in r) + " |" for r in rows),
            ]
        )

    md = "\n\n".join(
        [
            "# voxeval style report",
            md_table(overall_head, overall_rows),
            "## Per ability",
            md_table(ability_head, ability_rows),
            *(
                [
                    "## How far the acoustic judge agrees with an audio-LLM judge",
                    md_table(acoustic[0], acoustic[1]),
                    acoustic[2],
                ]
                if acoustic is not None
                else []
            ),
            "## Paired comparisons",
            md_table(PAIRED_HEAD, paired),
        ]
    )
    atomic_write_text(out["md"], md + "\n" + agreement_md)
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerows(
        [
            ["table", *overall_head],
            *(["overall", *r] for r in overall_rows),
            ["table", *ability_head],
            *(["ability", *r] for r in ability_rows),
        ]
    )
    atomic_write_text(out["csv"], buf.getvalue())
    return out
