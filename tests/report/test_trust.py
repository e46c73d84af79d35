"""The report's "how far to trust the annotation" section: styles of replies and the annotator's measured error."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from voxeval.cli import main
from voxeval.report._trust import CHATTY_CHARACTERS, looks_chatty, measured_by_style, trust_rows

BY_STYLE = {
    "concise": {"n": 10, "wed_mean": 0.1, "exact_sequence_rate": 0.8},
    "chatty": {"n": 10, "wed_mean": 0.3, "exact_sequence_rate": 0.5},
    "flawed": {"n": 10, "wed_mean": 0.4, "exact_sequence_rate": 0.6},
}


def _reply(key: str, system: str, text: str | None, status: str = "ok") -> dict[str, object]:
    return {"key": key, "dataset": "d", "system": system, "status": status, "text": text}


def test_expected_error_weights_the_styles_by_the_replies_that_look_like_them() -> None:
    chatty = "こんにちは！いい天気ですね。タイマーを3分にセットしました。"
    replies = {
        "1": _reply("1", "a", "3分のタイマーをセットしました。"),
        "2": _reply("2", "a", chatty),
        "3": _reply("3", "b", "了解です。"),
        "4": _reply("4", "b", None, status="failed"),
        "5": _reply("5", "b", "   "),
    }
    rows = {r.system: r for r in trust_rows(replies, BY_STYLE)}
    assert rows["a"].replies == 2 and rows["a"].chatty_share == 0.5
    assert abs(rows["a"].expected_wed - 0.2) < 1e-12 and rows["a"].flawed_wed == 0.4
    assert rows["b"].replies == 1 and rows["b"].chatty_share == 0 and abs(rows["b"].expected_wed - 0.1) < 1e-12


@given(st.text(max_size=200))
def test_long_text_always_looks_chatty_and_the_rule_ignores_surrounding_space(text: str) -> None:
    assert looks_chatty(text) == looks_chatty(f"  {text}\n")
    if len(text.strip()) >= CHATTY_CHARACTERS:
        assert looks_chatty(text)


def test_an_annotator_without_measured_error_gets_no_invented_figure() -> None:
    assert measured_by_style({"components": {"annotator": {"annotator": "gold"}}}) is None
    partial = {"components": {"annotator": {"measured_error": {"by_style": {"concise": BY_STYLE["concise"]}}}}}
    assert measured_by_style(partial) is None
    full = {"components": {"annotator": {"measured_error": {"by_style": BY_STYLE, "split": "v"}}}}
    assert measured_by_style(full) == (BY_STYLE, "v")


def test_the_report_shows_the_offline_annotators_measured_error_next_to_table_1(tmp_path) -> None:
    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "3", "--system", "python:tests.run.doubles:echo_gold"]
    assert main([*args, "--annotator", "offline", "--out", str(out), "--quiet"]) == 0
    measured = json.loads((out / "config.json").read_text())["components"]["annotator"]["measured_error"]
    html = (out / "report.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert html.index("Table 1") < html.index("How far to trust the annotation") < html.index("Paired comparisons")
    chatty = f"{measured['by_style']['chatty']['wed_mean']:.3f}"
    assert chatty in html and f"| chatty | {measured['by_style']['chatty']['n']} | {chatty} |" in md
    # The shipped build's system-level validity is recorded (report/measured): the section shows it.
    assert "System-level validity, measured on da-replies-validation" in md and "| style=flawed |" in md


def test_an_annotator_without_measured_error_says_how_to_check_it(tmp_path) -> None:
    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "3", "--system", "python:tests.run.doubles:echo_gold"]
    assert main([*args, "--annotator", "gold", "--out", str(out), "--quiet"]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "records no measured error by reply style" in md and "voxeval annotator-check" in md
