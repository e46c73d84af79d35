"""The acoustic judge against Gemini 2.5 Pro on real replies (vstyle-dev), leave one system out.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/acoustic_vstyle.py [--mode loso|shipped|synthetic] [--write]
[--json FILE]`` (the first run transcribes the 84 acoustic-attribute replies, ~15 min on 2 busy cores; later runs
read the cache and take seconds).

- ``loso`` (default): for each of the three systems, the thresholds (``fit_table``) and the naturalness
  classifier are fitted on the other two systems' replies (and the synthetic clips), and the held-out system's
  acoustic-attribute replies are judged with them. Nothing is tuned on the system reported.
- ``shipped``: the shipped table and classifier on all replies (in-sample for the real-speech values).
- ``synthetic``: the table fitted on synthesised clips only (before real-speech calibration), shipped classifier.

Reported: Spearman between the judge's score and Gemini's, coverage (share of the replies Gemini scored that the
judge scored), exact agreement, per ability and language, plus each attribute's agreement with what Gemini
recognised (its step 1). ``--write`` fits on all three systems and writes ``calibration/real-speech.json`` and,
from the leave-one-system-out results, ``calibration/agreement.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


from acoustic_fit import FIT_METHOD, Case, fit_table, load, naturalness_for, references
from acoustic_naturalness import Sample, synthetic_samples
from acoustic_vstyle_data import REPO, SYSTEMS, data_dir, data_sha256

from voxeval.judge._acoustic_decide import decide
from voxeval.paths import cache_dir
from voxeval.speech.acoustics import (
    THRESHOLDS,
    NaturalnessModel,
    Thresholds,
    naturalness_model,
)
from voxeval.speech.acoustics._thresholds import CALIBRATION_FILE, SYNTHETIC_THRESHOLDS, calibrated

CALIBRATION_DIR = REPO / "src/voxeval/speech/acoustics/calibration"
COMMAND = "PYTHONPATH=src .venv/bin/python benchmarks/acoustic_vstyle.py --write"


# ---------------------------------------------------------------- judging and agreement


@dataclass(frozen=True)
class Scored:
    """The judge's result on one reply next to Gemini's."""

    case: Case
    """The reply."""
    score: int | None
    """The judge's score (None: not measured)."""
    step: str
    """The deciding rubric step."""
    attributes: dict[str, Any]
    """The judgement's attributes."""


def judge(cases: list[Case], held: str, table: Thresholds, nat: NaturalnessModel) -> list[Scored]:
    """The held-out system's acoustic-attribute replies, judged in one batch with all its replies as reference."""
    refs = references([c for c in cases if c.reply.system == held], table)
    out = []
    for c in cases:
        if c.reply.system != held or c.analysis is None:
            continue
        result, attributes = decide(c.reply.item, c.analysis, model=refs[held], table=table, naturalness=nat)
        out.append(Scored(c, result.score, result.step, attributes))
    return out


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rho (average ranks for ties); None when either side is constant or n < 3."""
    if len(xs) < 3:
        return None

    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    if statistics.pstdev(rx) == 0 or statistics.pstdev(ry) == 0:
        return None
    return statistics.correlation(rx, ry)


def agreement(rows: list[Scored]) -> dict[str, Any]:
    """Spearman, coverage and exact agreement over the replies Gemini scored."""
    gemini = [r for r in rows if r.case.reply.gemini_score is not None]
    both = [r for r in gemini if r.score is not None]
    xs = [float(r.score) for r in both if r.score is not None]
    ys = [float(r.case.reply.gemini_score) for r in both if r.case.reply.gemini_score is not None]
    rho = spearman(xs, ys)
    return {
        "n": len(gemini),
        "scored": len(both),
        "coverage": round(len(both) / len(gemini), 3) if gemini else None,
        "spearman": None if rho is None else round(rho, 3),
        "exact": round(sum(x == y for x, y in zip(xs, ys, strict=True)) / len(both), 3) if both else None,
    }


def groups(rows: list[Scored]) -> dict[str, dict[str, Any]]:
    """Agreement overall, per language, per ability, per ability and language, per held-out system."""
    keyed: dict[str, list[Scored]] = defaultdict(list)
    for r in rows:
        rep = r.case.reply
        ability = rep.item.ability.split("/")[1]
        for key in ("all", f"lang {rep.language}", f"ability {ability}", f"{ability} {rep.language}", rep.system):
            keyed[key].append(r)
    return {k: agreement(v) for k, v in sorted(keyed.items(), key=lambda kv: (kv[0] != "all", kv[0]))}


def attribute_agreement(rows: list[Scored]) -> dict[str, Any]:
    """Per attribute and language: Spearman of the judge's intensity with Gemini's, gender accuracy."""
    out: dict[str, Any] = {}
    for language in ("en", "zh"):
        mine = [r for r in rows if r.case.reply.language == language]
        for attribute in ("pitch", "speed", "volume"):
            pairs = [
                (r.attributes["measured"][attribute]["intensity"], getattr(r.case.reply.gemini, attribute))
                for r in mine
                if r.attributes["measured"][attribute]["intensity"] is not None
                and getattr(r.case.reply.gemini, attribute) is not None
            ]
            rho = spearman([p[0] for p in pairs], [p[1] for p in pairs])
            out[f"{attribute} {language}"] = {"n": len(pairs), "spearman": None if rho is None else round(rho, 3)}
        sexed = [
            (r.attributes["measured"]["gender"]["level"], r.case.reply.gemini.gender)
            for r in mine
            if r.case.reply.gemini.gender
        ]
        out[f"gender {language}"] = {"n": len(sexed), "accuracy": _ratio(sum(a == b for a, b in sexed), len(sexed))}
    return out


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def run(cases: list[Case], mode: str, synthetic: list[Sample]) -> tuple[list[Scored], dict[str, Any]]:
    """Judge every system's acoustic replies in ``mode``; the fitted values per fold (loso)."""
    rows: list[Scored] = []
    fitted: dict[str, Any] = {}
    for held in SYSTEMS:
        if mode == "loso":
            train = [c for c in cases if c.reply.system != held]
            values = fit_table(train)
            fitted[held] = values
            table, nat = calibrated(SYNTHETIC_THRESHOLDS, values), naturalness_for(train, synthetic)
        elif mode == "shipped":
            table, nat = THRESHOLDS, naturalness_model()
        else:
            table, nat = SYNTHETIC_THRESHOLDS, naturalness_model()
        rows += judge(cases, held, table, nat)
    return rows, fitted


def _print(title: str, table: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    for key, row in table.items():
        print(f"  {key:28s} " + "  ".join(f"{k} {v}" for k, v in row.items()))


def markdown(table: dict[str, dict[str, Any]], attributes: dict[str, Any]) -> str:
    """The agreement tables as Markdown (pasted into docs/acoustic-judge.md)."""
    lines = ["| replies | Gemini scored | judge scored | coverage | Spearman | exact |", "|---|---|---|---|---|---|"]
    for key, v in table.items():
        cells = [v["n"], v["scored"], v["coverage"], v["spearman"], v["exact"]]
        lines.append(f"| {key} | " + " | ".join("—" if c is None else str(c) for c in cells) + " |")
    lines += ["", "| attribute | replies | Spearman with Gemini's intensity / gender accuracy |", "|---|---|---|"]
    for key, v in attributes.items():
        lines.append(f"| {key} | {v['n']} | {v.get('spearman', v.get('accuracy'))} |")
    return "\n".join(lines)


def agreement_file(rows: list[Scored], root: Path) -> dict[str, Any]:
    """The measured agreement shipped with the judge (rendered next to every style report's scores)."""
    by = groups(rows)
    return {
        "judge": "acoustic",
        "reference": "Gemini 2.5 Pro (VStyle's published judgements)",
        "data": f"vstyle-dev: acoustic-attribute replies of {len(SYSTEMS)} systems ({', '.join(SYSTEMS)}), en + zh",
        "data_sha256": data_sha256(root),
        "method": "leave one system out: thresholds and naturalness classifier fitted on the other two systems",
        "overall": by["all"],
        "by_ability": {k.split(" ", 1)[1]: v for k, v in by.items() if k.startswith("ability ")},
        "by_language": {k.split(" ", 1)[1]: v for k, v in by.items() if k.startswith("lang ")},
        "command": COMMAND,
    }


def write_files(cases: list[Case], rows: list[Scored], root: Path) -> None:
    """Fit on all three systems and write ``real-speech.json``; write the held-out ``agreement.json``."""
    calibration = {
        "values": fit_table(cases),
        "meta": {
            "data": f"vstyle-dev, all replies of {', '.join(SYSTEMS)}, with Gemini 2.5 Pro's recognised attributes",
            "data_sha256": data_sha256(root),
            "method": FIT_METHOD,
            "command": COMMAND,
        },
    }
    (CALIBRATION_DIR / CALIBRATION_FILE).write_text(json.dumps(calibration, indent=1) + "\n", encoding="utf-8")
    (CALIBRATION_DIR / "agreement.json").write_text(
        json.dumps(agreement_file(rows, root), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {CALIBRATION_DIR / CALIBRATION_FILE} and agreement.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("loso", "shipped", "synthetic"), default="loso")
    parser.add_argument("--write", action="store_true", help="write calibration/real-speech.json and agreement.json")
    parser.add_argument("--json", type=Path, help="write the per-reply results and tables here")
    parser.add_argument("--verbose", action="store_true", help="print every reply's scores and reason")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--cached-only", action="store_true", help="development: skip replies not transcribed yet")
    args = parser.parse_args()
    root = data_dir()
    if root is None:
        sys.exit("vstyle-dev not found: set VOXEVAL_VSTYLE_DEV (see benchmarks/acoustic_vstyle_data.py)")
    cases = load(root, args.cached_only)
    print(f"{sum(c.analysis is not None for c in cases)} acoustic-attribute replies, {len(cases)} replies in all")
    synthetic = synthetic_samples(cache_dir("acoustic-naturalness"))
    rows, fitted = run(cases, args.mode, synthetic)
    table = groups(rows)
    _print(f"score agreement with Gemini ({args.mode})", table)
    _print("attribute agreement with Gemini's step 1", attribute_agreement(rows))
    if args.markdown:
        print("\n" + markdown(table, attribute_agreement(rows)))
    if args.verbose:
        for r in rows:
            rep = r.case.reply
            reason = r.attributes.get("step")
            print(
                f"{rep.key:8s} {rep.system[:6]:6s} {rep.item.ability:40s} gemini {rep.gemini_score} judge {r.score} "
                f"({reason}) {rep.item.requirements}"
            )
    if args.json:
        payload = {"mode": args.mode, "agreement": table, "attributes": attribute_agreement(rows), "fitted": fitted}
        args.json.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.write:
        if args.mode != "loso":
            sys.exit("--write needs --mode loso (the agreement file reports held-out systems only)")
        write_files(cases, rows, root)


if __name__ == "__main__":
    main()
