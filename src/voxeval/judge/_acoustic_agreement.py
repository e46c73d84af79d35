"""The acoustic judge's measured agreement with an audio-LLM judge, shipped beside its thresholds.

``voxeval/speech/acoustics/calibration/agreement.json`` is written by ``benchmarks/acoustic_vstyle.py --write``
(leave one system out on vstyle-dev: the thresholds and the naturalness classifier were fitted without the system
whose replies were compared). Style reports print it next to the acoustic judge's scores, so a reader knows how far
those scores track Gemini 2.5 Pro's, on which data.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

AGREEMENT_FILE = "agreement.json"
"""The file, in ``voxeval/speech/acoustics/calibration/``."""
AGREEMENT_HEAD = ["ability", "Spearman ρ", "coverage", "exact", "replies (Gemini scored / judge scored)"]
"""Columns of :func:`agreement_rows`."""


@cache
def acoustic_agreement() -> dict[str, Any]:
    """The shipped agreement record (data, its sha256, method, overall and per-ability figures, command)."""
    text = resources.files("voxeval.speech.acoustics").joinpath("calibration", AGREEMENT_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _cell(value: Any) -> str:
    return "—" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def agreement_rows(record: dict[str, Any] | None = None) -> list[list[str]]:
    """One row per ability, then per language and overall: Spearman, coverage, exact agreement, counts."""
    record = record or acoustic_agreement()
    rows = []
    named = [*record.get("by_ability", {}).items(), *(("language " + k, v) for k, v in record["by_language"].items())]
    for name, v in [*named, ("all", record["overall"])]:
        counts = f"{v['n']} / {v['scored']}"
        rows.append([name, _cell(v["spearman"]), _cell(v["coverage"]), _cell(v["exact"]), counts])
    return rows


def agreement_note(record: dict[str, Any] | None = None) -> str:
    """What the figures were measured on, in one sentence."""
    record = record or acoustic_agreement()
    return (
        f"Agreement of the acoustic judge's scores with {record['reference']}, measured on {record['data']} "
        f"(sha256 {record['data_sha256'][:12]}…); {record['method']}. Reproduce: `{record['command']}`."
    )


OTHER_SYSTEMS = {
    "systems": 4,
    "spearman": 0.51,
    "coverage": 0.79,
    "by_ability": {"gender": 0.98, "pitch": 0.31, "speed": 0.30, "volume": 0.32, "age": 0.31},
}
"""The same comparison on four other real systems' replies (kept private, issue 33): ``acoustic`` and
``acoustic:model`` alike. Figures as measured there; they cannot be reproduced from shipped data."""


def carry_note(record: dict[str, Any] | None = None) -> str:
    """Where the printed agreement was measured, and how far it fell on other systems."""
    record = record or acoustic_agreement()
    abilities = ", ".join(f"{k} {v:.2f}" for k, v in OTHER_SYSTEMS["by_ability"].items())  # type: ignore[attr-defined]
    return (
        f"These figures were measured on the replies of three systems only ({record['data']}). On four other "
        f"systems' replies the same judge's agreement fell to Spearman {OTHER_SYSTEMS['spearman']:.2f} at "
        f"{OTHER_SYSTEMS['coverage']:.0%} coverage ({abilities}), for `acoustic` and `acoustic:model` alike: "
        "the printed figure may not carry to your systems. Human ratings of your own replies (`voxeval label "
        "--task style`, then `voxeval agreement`) tell you which judge to trust."
    )
