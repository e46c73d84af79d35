"""``voxeval compare`` of two duplex runs: paired differences (A − B) of each turn-taking figure over the
scenarios both runs streamed, per matching system (pure over the session records)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from voxeval.duplex import Evidence, SessionRecord, continuation, onset_latency, stop, takeover
from voxeval.report._stats import paired_test

Value = Callable[[SessionRecord, Evidence], float | None]
"""One session's value of a figure (``None``: the figure does not apply to it)."""


def _onset(r: SessionRecord, e: Evidence) -> float | None:
    return onset_latency(r, e).latency_s if r.scenario.kind == "end_of_turn" else None


def _took_over(r: SessionRecord, e: Evidence) -> float | None:
    status = takeover(r, e).status if r.scenario.kind == "pause" else None
    return None if status not in ("took_over", "waited") else float(status == "took_over")


def _stopped(r: SessionRecord, e: Evidence) -> float | None:
    status = stop(r, e).status if r.scenario.kind == "interruption" else None
    return None if status not in ("stopped", "kept_talking") else float(status == "stopped")


def _stop_latency(r: SessionRecord, e: Evidence) -> float | None:
    return stop(r, e).latency_s if r.scenario.kind == "interruption" else None


def _continued(r: SessionRecord, e: Evidence) -> float | None:
    status = continuation(r, e).status if r.scenario.kind == "backchannel" else None
    return None if status not in ("continued", "stopped", "restarted") else float(status == "continued")


FIGURES: dict[str, Value] = {
    "onset_latency": _onset,
    "takeover_rate": _took_over,
    "stop_rate": _stopped,
    "stop_latency": _stop_latency,
    "continuation_rate": _continued,
}
"""Each figure's per-session value; a rate's is 0 or 1 (its paired difference is the difference of rates)."""


def _system_pairs(a: Sequence[SessionRecord], b: Sequence[SessionRecord]) -> list[tuple[str, str]]:
    systems_a, systems_b = sorted({r.system for r in a}), sorted({r.system for r in b})
    if len(systems_a) == 1 and len(systems_b) == 1:
        return [(systems_a[0], systems_b[0])]
    return [(s, s) for s in systems_a if s in systems_b]


def compare_duplex(
    a: Sequence[SessionRecord], b: Sequence[SessionRecord], evidence: Evidence = "server"
) -> dict[str, Any]:
    """For each matching system pair and figure: the paired test over the scenarios where both runs have a value
    (``n`` pairs; ``None`` when there are none)."""
    out = []
    for sys_a, sys_b in _system_pairs(a, b):
        by_b = {r.scenario.id: r for r in b if r.system == sys_b}
        mine = [(r, by_b[r.scenario.id]) for r in a if r.system == sys_a and r.scenario.id in by_b]
        figures: dict[str, Any] = {}
        for name, value in FIGURES.items():
            pairs = [(value(x, evidence), value(y, evidence)) for x, y in mine]
            kept = [(x, y) for x, y in pairs if x is not None and y is not None]
            test = paired_test([x for x, _ in kept], [y for _, y in kept])
            figures[name] = None if test is None else {
                "n": test.n, "mean_diff": test.mean_diff, "low": test.ci.low, "high": test.ci.high,
                "p_value": test.p_value, "wins": test.wins, "losses": test.losses, "ties": test.ties,
            }  # fmt: skip
        out.append({"system_a": sys_a, "system_b": sys_b, "scenarios": len(mine), "figures": figures})
    return {"benchmark": "duplex", "evidence": evidence, "comparisons": out}


def duplex_compare_markdown(result: dict[str, Any]) -> str:
    """The paired differences as Markdown, one table per system pair."""
    lines = [f"# voxeval compare — duplex ({result['evidence']} evidence; differences are A − B)", ""]
    for c in result["comparisons"]:
        lines += [f"## {c['system_a']} vs {c['system_b']} ({c['scenarios']} scenarios in both)", ""]
        lines += [
            "| figure | pairs | mean A − B | 95% CI | p | A higher / lower / equal |",
            "|---|---|---|---|---|---|",
        ]
        for name, f in c["figures"].items():
            if f is None:
                lines.append(f"| {name} | 0 | – | – | – | – |")
                continue
            ci = f"[{f['low']:+.3f}, {f['high']:+.3f}]"
            record = f"{f['wins']} / {f['losses']} / {f['ties']}"
            lines.append(f"| {name} | {f['n']} | {f['mean_diff']:+.3f} | {ci} | {f['p_value']:.3g} | {record} |")
        lines.append("")
    if not result["comparisons"]:
        lines.append("No system is in both runs (name them the same with NAME=SPEC to pair them).")
    return "\n".join(lines) + "\n"
