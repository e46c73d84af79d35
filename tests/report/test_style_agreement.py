"""A style report judged by the acoustic judge states its measured agreement with the audio-LLM judge."""

from __future__ import annotations

import json
from pathlib import Path

from voxeval.report._style_report import build_style_reports


def _run(tmp_path: Path, judge: str) -> Path:
    run = tmp_path / judge
    run.mkdir()
    summary = {"systems": {"sys": {"overall": 3.0, "coverage": 1.0, "ok": 2, "failed": 0, "not_measured": 0}}}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    rows = [
        {"key": f"d/sys/{i}", "system": "sys", "dataset": "d", "id": str(i), "ability": "acoustic_attributes/speed",
         "status": "ok", "score": score, "judge": judge, "attributes": {}}
        for i, score in enumerate((2, 4))
    ]  # fmt: skip
    (run / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return run


def test_acoustic_report_carries_the_agreement_table(tmp_path: Path) -> None:
    out = build_style_reports(_run(tmp_path, "acoustic"))
    md = out["md"].read_text(encoding="utf-8")
    assert "How far the acoustic judge agrees with an audio-LLM judge" in md
    assert "vstyle-dev" in md and "leave one system out" in md and "| speed |" in md
    assert "How far the acoustic judge agrees" in out["html"].read_text(encoding="utf-8")


def test_other_judges_reports_do_not(tmp_path: Path) -> None:
    out = build_style_reports(_run(tmp_path, "lalm:gemini:gemini-2.5-pro"))
    assert "agrees with an audio-LLM judge" not in out["md"].read_text(encoding="utf-8")
