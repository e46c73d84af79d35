"""Human labels out: the agreement figures as text, and the labels as a dataset in voxeval's own schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.label._study import read_judgements


def _fmt(ci: dict[str, Any] | None) -> str:
    return "—" if ci is None else f"{ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}] (n={ci['n']})"


def render_agreement(report: dict[str, Any]) -> str:
    """The figures of :func:`agreement_report` as indented lines."""
    lines = []
    if "da" in report:
        da = report["da"]
        lines.append(f"dialogue acts: labellers {', '.join(da['labellers'])}")
        for name, s in [
            *da["pairs"].items(),
            *(("annotator vs " + h, s) for h, s in da.get("annotator_vs_human", {}).items()),
        ]:
            figures = "; ".join(f"{m} {_fmt(s.get(m))}" for m in ("exact", "wed", "wlcs", "span_overlap") if m in s)
            lines.append(f"  {name}: {s['items']} items; {figures}")
    if "style" in report:
        st = report["style"]
        lines.append(f"style: raters {', '.join(st['raters'])}; Krippendorff's alpha (interval) {_fmt(st['alpha'])}")
        for name, s in [
            *st["pairs"].items(),
            *(("judge vs human mean", st[k]) for k in ["judge_vs_human_mean"] if k in st),
        ]:
            figures = "; ".join(f"{m} {_fmt(s[m])}" for m in ("spearman", "exact", "within_one"))
            lines.append(f"  {name}: {s['items']} items; {figures}")
    return "\n".join(lines) or "no human judgements"


def _only_labeller(judgements: dict[str, Any], labeller: str | None, folder: Path) -> str:
    if labeller is not None:
        if labeller not in judgements:
            raise InputError(Location(str(folder)), f"no judgements by {labeller!r}")
        return labeller
    if len(judgements) != 1:
        raise InputError(Location(str(folder)), f"{len(judgements)} labellers: name one with --labeller")
    return next(iter(judgements))


def gold_row(row: dict[str, Any], where: Location) -> dict[str, Any]:
    """A labelled reply as a gold row of the paper's schema (spans and importances as entered); the user's input
    and the scenario are those the labeller saw (a run's recorded dataset, or the items file's fields)."""
    if not row.get("input_text"):
        raise InputError(
            where.child("input_text"),
            f"{row['key']!r}: the user's input is not known, so the row cannot be gold (label a run directory whose "
            "config.json records its dataset, or give input_text in the items file)",
        )
    steps = [{"act": s["act"], "importance": s["importance"], "span": s["span"]} for s in row["steps"]]
    return {
        "id": row["key"],
        "scenario_context": {"background": row.get("background", "")},
        "input": {"text": row["input_text"], **({"locale": row["locale"]} if row.get("locale") else {})},
        "output": {"text": row["text"]},
        "output_dialogue_acts": {"steps": steps},
        "labeller": row["labeller"],
    }


def export_labels(root: Path, task: str, out: Path, labeller: str | None = None) -> int:
    """Write ``out``: da → one labeller's gold rows; style → every rater's ``{id, rater, score}`` rows."""
    from voxeval.data import atomic_write_jsonl

    judgements = read_judgements(root, task)  # type: ignore[arg-type]
    folder = root / "human" / task
    if not judgements:
        raise InputError(Location(str(folder)), "no judgements to export")
    if task == "style":
        rows = [
            {"id": k, "rater": h, "score": r["score"]}
            for h, by_key in sorted(judgements.items())
            for k, r in sorted(by_key.items())
            if r["status"] == "labelled"
        ]
    else:
        who = _only_labeller(judgements, labeller, folder)
        where = Location(str(folder / f"{who}.jsonl"))
        rows = [gold_row(r, where) for k, r in sorted(judgements[who].items()) if r["status"] == "labelled"]
    atomic_write_jsonl(out, rows)
    return len(rows)
