"""Human labels out: the agreement figures as text, and the labels as a dataset in voxeval's own schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.label._study import read_judgements


def _fmt(ci: dict[str, Any] | None) -> str:
    return "—" if ci is None else f"{ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}] (n={ci['n']})"


KEY = (
    "key: mean [95% bootstrap interval over items] (n items). exact = share of items with the same act sequence "
    "(higher is better); wed = weighted edit distance, 0 = identical (lower is better); wlcs = weighted longest "
    "common subsequence, 1 = identical (higher is better); span_overlap = characters given the same act / characters "
    "in either's spans (higher is better); spearman, exact, within_one: higher is better; Krippendorff's alpha: 1 = "
    "perfect, 0 = chance (higher is better)."
)
"""The legend printed under ``voxeval agreement``'s figures."""


def _annotation(setting: dict[str, Any] | None) -> str:
    if setting is None:
        return "annotations.jsonl"
    context = "with" if setting["reference_context"] else "without"
    return f"{setting['annotator']} as this run annotated, {context} the reference reply as context"


def _da_lines(da: dict[str, Any]) -> list[str]:
    lines = [f"dialogue acts: labellers {', '.join(da['labellers'])}"]
    for name, s in da["pairs"].items():
        figures = "; ".join(f"{m} {_fmt(s.get(m))}" for m in ("exact", "wed", "wlcs", "span_overlap"))
        lines.append(f"  {name}: {s['items']} items; {figures}")
    if da.get("annotator_vs_human"):
        lines.append(f"  annotator ({_annotation(da.get('annotation'))}), the labeller as gold, items with acts:")
    for who, s in da.get("annotator_vs_human", {}).items():
        figures = "; ".join(f"{m} {_fmt(s.get(m))}" for m in ("exact", "wed", "wlcs"))
        lines.append(f"    vs {who}: {s['items']} items; {figures}")
        if s["no_act"]["items"]:
            lines.append(f"      'no act' labels: {s['no_act']['items']}; annotator gave no act too on "
                         f"{_fmt(s['no_act']['annotator_no_act'])}")  # fmt: skip
        if s["left_out"]:
            lines.append(f"      left out: {_reasons(s['left_out'])}")
    return lines


def _reasons(left: dict[str, str]) -> str:
    """``reason: key, key; reason: key`` (at most five keys per reason)."""
    by: dict[str, list[str]] = {}
    for key, why in left.items():
        by.setdefault(why, []).append(key)
    more = lambda keys: ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")  # noqa: E731
    return "; ".join(f"{len(keys)} {why} ({more(keys)})" for why, keys in sorted(by.items()))


def _left_out_lines(task: dict[str, Any]) -> list[str]:
    return [f"  left out for {who}: {_reasons(left)}" for who, left in task.get("left_out", {}).items() if left]


def render_agreement(report: dict[str, Any]) -> str:
    """The figures of :func:`agreement_report` as indented lines, what was left out and why, and the key."""
    lines = []
    if "da" in report:
        lines += _da_lines(report["da"]) + _left_out_lines(report["da"])
    if "style" in report:
        st = report["style"]
        lines.append(f"style: raters {', '.join(st['raters'])}; Krippendorff's alpha (interval) {_fmt(st['alpha'])}")
        for name, s in [
            *st["pairs"].items(),
            *(("judge vs human mean", st[k]) for k in ["judge_vs_human_mean"] if k in st),
        ]:
            figures = "; ".join(f"{m} {_fmt(s[m])}" for m in ("spearman", "exact", "within_one"))
            lines.append(f"  {name}: {s['items']} items; {figures}")
        lines += _left_out_lines(st)
    return "\n".join([*lines, KEY]) if lines else "no human judgements"


def _only_labeller(judgements: dict[str, Any], labeller: str | None, folder: Path) -> str:
    if labeller is not None:
        if labeller not in judgements:
            raise InputError(Location(str(folder)), f"no judgements by {labeller!r}")
        return labeller
    if len(judgements) != 1:
        raise InputError(Location(str(folder)), f"{len(judgements)} labellers: name one with --labeller")
    return next(iter(judgements))


def gold_row(row: dict[str, Any], where: Location, reference: dict[str, Any] | None = None) -> dict[str, Any]:
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
        **({"annotator_context": {"reference": reference}} if reference is not None else {}),
    }


def run_references(root: Path) -> dict[str, dict[str, Any]]:
    """Sample key → ``{text, steps}`` of its reference reply, when the run annotated with the reference as context
    (so ``annotator-check`` on the export re-annotates as the run did); empty otherwise."""
    from voxeval.acts import acts_to_json
    from voxeval.io._keys import sample_key
    from voxeval.label._agreement import annotation_setting
    from voxeval.run._config import read_config, settings_of
    from voxeval.run._read import recorded_datasets

    setting = annotation_setting(root)
    config = read_config(root)
    if setting is None or not setting["reference_context"] or config is None:
        return {}
    datasets = recorded_datasets(root, config, settings_of(config, root))
    return {
        sample_key(d.name, s.id): {"text": s.output_text, "steps": acts_to_json(s.acts)}
        for d in datasets
        for s in d.samples
    }


def export_labels(root: Path, task: str, out: Path, labeller: str | None = None) -> tuple[int, int]:
    """Write ``out``: da → one labeller's gold rows; style → every rater's ``{id, rater, score}`` rows.

    Returns (rows written, "no act" labels left out: a gold row of the paper's schema needs at least one act)."""
    from voxeval.data import atomic_write_jsonl
    from voxeval.io._keys import sample_key

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
        labelled = [r for _, r in sorted(judgements[who].items()) if r["status"] == "labelled"]
        references = run_references(root)
        rows = [
            gold_row(r, where, references.get(sample_key(r["dataset"], r["id"])) if r.get("dataset") else None)
            for r in labelled
            if r["steps"]
        ]
        atomic_write_jsonl(out, rows)
        return len(rows), len(labelled) - len(rows)
    atomic_write_jsonl(out, rows)
    return len(rows), 0
