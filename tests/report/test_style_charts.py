"""A style report draws one chart per VStyle category with the systems side by side on each ability."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from voxeval.report import _plots as plots
from voxeval.report._style_report import ability_charts, build_style_reports, load_judgements

ABILITIES = ("acoustic_attributes/speed", "acoustic_attributes/gender", "empathy/anger", "instruction/emotion")


def _row(system: str, i: int, ability: str, score: int | None, status: str = "ok") -> dict[str, Any]:
    return {"key": f"d/{system}/{i}", "system": system, "dataset": "d", "id": str(i), "ability": ability,
            "status": status, "score": score, "judge": "acoustic", "attributes": {}}  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("style")
    block = {"overall": 3.0, "coverage": 1.0, "ok": 8, "failed": 0, "not_measured": 0}
    (run / "summary.json").write_text(json.dumps({"systems": {"plain": block, "aware": block}}), encoding="utf-8")
    rows = [_row("plain", i, ABILITIES[i % 4], 2 + i // 4) for i in range(8)]
    rows += [_row("aware", i, ABILITIES[i % 4], 4 + i // 4) for i in range(8) if i % 4 != 3]
    rows += [_row("aware", i, ABILITIES[3], None, "not_measured") for i in (3, 7)]  # aware: nothing ok there
    (run / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return run


def test_one_chart_per_category_with_every_system_that_was_judged_in_it(run: Path) -> None:
    charts = {c.category: c for c in ability_charts(load_judgements(run))}
    assert list(charts) == ["acoustic_attributes", "instruction", "empathy"]  # VStyle's order
    acoustic = charts["acoustic_attributes"]
    assert acoustic.abilities == ["gender", "speed"]  # taxonomy order; emotion of two categories kept apart
    assert [name for name, _, _ in acoustic.series] == ["aware", "plain"]
    aware = dict((n, (m, ci)) for n, m, ci in acoustic.series)["aware"]
    assert aware[0] == [4.5, 4.5] and aware[1][0] == (4.0, 5.0)
    assert [name for name, _, _ in charts["instruction"].series] == ["plain"]


def test_the_html_embeds_those_charts_with_both_systems_drawn(run: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    drawn: list[tuple[str, list[str], int]] = []

    def record(fig: Any) -> bytes:
        ax = fig.axes[0]
        drawn.append((ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()], len(ax.containers)))
        plots._plt().close(fig)
        return b"png"

    monkeypatch.setattr(plots, "_png", record)
    html = build_style_reports(run)["html"].read_text(encoding="utf-8")
    assert html.count("the systems side by side on each ability</figcaption>") == 3
    assert drawn[0] == ("acoustic_attributes: mean score per ability (95% CI)", ["aware", "plain"], 4)  # 2 bars, 2 CIs
    assert [legend for _, legend, _ in drawn] == [["aware", "plain"], ["plain"], ["aware", "plain"]]
