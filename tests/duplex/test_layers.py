"""The duplex core is transport-free: it imports no session, system, run or CLI code (lazy imports included)."""

from __future__ import annotations

from tests.run.test_benchmark_registry import imported


def test_duplex_imports_no_transport_and_nothing_above_report() -> None:
    upward = ("voxeval.llm", "voxeval.systems", "voxeval.run", "voxeval.benchmark", "voxeval.cli", "voxeval.label")
    assert not {m for m in imported("duplex") if m.startswith(upward)}
    # The one import of report: its seeded bootstrap, so the figures' intervals match every other table's.
    assert {m for m in imported("duplex") if m.startswith("voxeval.report")} == {"voxeval.report._stats"}
