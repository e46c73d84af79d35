"""Reports carry the human figures: the acoustic judge's caveat beside the run's own ratings; the DA ceiling."""

from __future__ import annotations

import json
from pathlib import Path

from voxeval.label import Study, check_submission, load_file_items
from voxeval.report._style_report import build_style_reports


def _run(tmp_path: Path, scores: tuple[int, ...]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    summary = {"systems": {"sys": {"overall": 3.0, "coverage": 1.0, "ok": 4, "failed": 0, "not_measured": 0}}}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    rows = [
        {"key": f"d/sys/{i}", "system": "sys", "dataset": "d", "id": str(i), "ability": "acoustic_attributes/pitch",
         "status": "ok", "score": score, "judge": "acoustic", "attributes": {}}
        for i, score in enumerate(scores)
    ]  # fmt: skip
    (run / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return run


def test_acoustic_report_names_its_three_systems_and_the_fall_on_others(tmp_path: Path) -> None:
    md = build_style_reports(_run(tmp_path, (1, 2, 3, 4)))["md"].read_text(encoding="utf-8")
    assert "three systems only" in md and "Kimi, Qwen2.5-Omni" in md
    for figure in (
        "Spearman 0.51",
        "79% coverage",
        "pitch 0.31",
        "speed 0.30",
        "volume 0.32",
        "age 0.31",
        "gender 0.98",
    ):
        assert figure in md, figure
    assert "No human ratings in this run" in md


def test_the_runs_own_human_ratings_appear_beside_it(tmp_path: Path) -> None:
    run = _run(tmp_path, (1, 2, 3, 4))
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"d/sys/{i}", "text": ""}) + "\n" for i in range(4)), encoding="utf-8")
    for who, scores in (("ann", (1, 2, 3, 4)), ("bob", (2, 1, 3, 4))):
        study = Study(run, load_file_items(items), "style", who)
        for i, score in enumerate(scores):
            body = {"action": "label", "key": f"d/sys/{i}", "score": score}
            study.submit(check_submission(body, "style", study.by_key))
    md = build_style_reports(run)["md"].read_text(encoding="utf-8")
    # judge [1, 2, 3, 4] vs human means [1.5, 1.5, 3, 4]: rho = 0.949; ann vs bob: rho 0.8
    assert "rated by 2 people" in md and "Spearman 0.95 [" in md and "human vs human Spearman 0.80 [" in md
