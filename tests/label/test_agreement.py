"""``voxeval agreement`` on a small fixture whose figures were computed by hand (two labellers who disagree)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.cli import main
from voxeval.data import read_jsonl
from voxeval.label import Study, check_submission, load_file_items
from voxeval.label._agreement import krippendorff_interval

TEXTS = {"k1": "abcde", "k2": "abcdefgh", "k3": "xyz"}


def _steps(key: str, *parts: tuple[str, float, int, int]) -> list[dict[str, object]]:
    text = TEXTS[key]
    return [{"act": a, "importance": w, "start": s, "end": e, "text": text[s:e]} for a, w, s, e in parts]


def _do(study: Study, body: dict[str, object]) -> None:
    study.submit(check_submission(body, study.task, study.by_key))


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    rows = [{"id": k, "text": t, "input_text": f"q-{k}", "background": f"b-{k}"} for k, t in TEXTS.items()]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ann, bob = (Study(tmp_path, load_file_items(items), "da", who) for who in ("ann", "bob"))
    _do(ann, {"action": "label", "key": "k1", "steps": _steps("k1", ("Commissive", 1, 0, 5))})
    _do(ann, {"action": "label", "key": "k2", "steps": _steps("k2", ("Answer", 0.7, 0, 4), ("Inform", 0.3, 4, 8))})
    _do(ann, {"action": "label", "key": "k3", "steps": _steps("k3", ("Inform", 1, 0, 3))})
    _do(bob, {"action": "label", "key": "k1", "steps": _steps("k1", ("Commissive", 1, 0, 5))})
    _do(bob, {"action": "label", "key": "k2", "steps": _steps("k2", ("Answer", 1, 0, 4))})
    _do(bob, {"action": "skip", "key": "k3"})
    annotations = [
        {"key": "k1", "status": "ok", "steps": [{"act": "Commissive", "importance": 1.0}]},
        {"key": "k2", "status": "ok", "steps": [{"act": "Inform", "importance": 1.0}]},
        {"key": "k3", "status": "failed", "steps": []},
    ]
    (tmp_path / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in annotations), encoding="utf-8")
    ann_s, bob_s = (Study(tmp_path, load_file_items(items), "style", who) for who in ("ann", "bob"))
    for study, scores in ((ann_s, [1, 2, 5]), (bob_s, [1, 3, 3])):
        for key, score in zip(TEXTS, scores, strict=True):
            _do(study, {"action": "label", "key": key, "score": score})
    _do(ann_s, {"action": "undo"})  # ann's 5 on k3 is retracted and replaced by a 3
    _do(ann_s, {"action": "label", "key": "k3", "score": 3})
    judged = [{"key": k, "status": "ok", "score": s} for k, s in zip(TEXTS, [1, 3, 2], strict=True)]
    (tmp_path / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in judged), encoding="utf-8")
    return tmp_path


def test_agreement_reproduces_the_hand_computed_figures(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", str(run)]) == 0
    report = json.loads((run / "human" / "agreement.json").read_text(encoding="utf-8"))
    mean = lambda block: {k: v["mean"] for k, v in block.items() if isinstance(v, dict) and "mean" in v}  # noqa: E731
    # k1 identical; k2: ann [Answer .7, Inform .3] vs bob [Answer 1]: WED .3 both ways, WLCS (1 + .7) / 2,
    # span overlap 4 of 8 characters; k3 skipped by bob, so not shared.
    assert mean(report["da"]["pairs"]["ann vs bob"]) == pytest.approx(
        {"exact": 0.5, "wed": 0.15, "wlcs": 0.925, "span_overlap": 0.75}
    )
    # the annotator against ann: k1 right; k2 [Inform 1] misses Answer .7 (WED .7), WLCS 1; k3 failed: excluded
    assert mean(report["da"]["annotator_vs_human"]["ann"]) == pytest.approx({"exact": 0.5, "wed": 0.35, "wlcs": 1.0})
    assert report["da"]["annotator_vs_human"]["bob"]["items"] == 2
    style = report["style"]
    # ann [1, 2, 3] (after undo), bob [1, 3, 3]: Do = 2/6, De = 58/30, alpha = 1 - 10/58
    assert style["alpha_metric"] == "interval"
    assert style["alpha"]["mean"] == pytest.approx(48 / 58)
    pair = style["pairs"]["ann vs bob"]
    assert mean(pair) == pytest.approx({"spearman": 1.5 / 3**0.5, "exact": 2 / 3, "within_one": 1.0})
    # judge [1, 3, 2] vs human means [1, 2.5, 3]: rho 0.5; rounded half up [1, 3, 3]: exact 2/3
    assert mean(style["judge_vs_human_mean"]) == pytest.approx({"spearman": 0.5, "exact": 2 / 3, "within_one": 1.0})
    assert "Krippendorff's alpha (interval) 0.828" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("units", "alpha"),
    [([[1, 1], [2, 2]], 1.0), ([[1, 2], [2, 1]], 1 - (4 / 4) / (8 / 12)), ([[3, 3], [3, 3]], None), ([[1]], None)],
)
def test_krippendorff_interval_edge_cases(units: list[list[float]], alpha: float | None) -> None:
    assert krippendorff_interval(units) == (None if alpha is None else pytest.approx(alpha))


def test_export_gives_gold_rows_and_ratings(run: Path) -> None:
    assert main(["agreement", str(run), "--task", "da", "--export", str(run / "x.jsonl")]) == 2  # two labellers
    assert main(["agreement", str(run), "--task", "da", "--labeller", "bob", "--export", str(run / "g.jsonl")]) == 0
    rows = [r for _, r in read_jsonl(run / "g.jsonl")]
    assert [r["id"] for r in rows] == ["k1", "k2"]
    assert rows[1]["output"]["text"] == "abcdefgh"
    assert (rows[1]["input"]["text"], rows[1]["scenario_context"]["background"]) == ("q-k2", "b-k2")
    assert rows[1]["output_dialogue_acts"]["steps"] == [{"act": "Answer", "importance": 1.0, "span": "abcd"}]
    from voxeval.data import parse_gold
    from voxeval.errors import Location

    assert [parse_gold(r, Location("g")).acts[0].act for r in rows] == ["Commissive", "Answer"]
    assert main(["agreement", str(run), "--task", "style", "--export", str(run / "r.jsonl")]) == 0
    from voxeval.report._agreement import read_human_ratings

    assert read_human_ratings(run / "r.jsonl") == {
        "k1": {"ann": 1.0, "bob": 1.0},
        "k2": {"ann": 2.0, "bob": 3.0},
        "k3": {"ann": 3.0, "bob": 3.0},
    }


def test_the_da_report_section_shows_the_human_ceiling_beside_the_annotator(run: Path) -> None:
    from voxeval.report._human import da_human_rows, da_human_section

    rows = da_human_rows(run)
    assert [r[0] for r in rows] == ["human vs human (ceiling)", "annotator vs ann", "annotator vs bob"]
    assert rows[0][1] == 2 and rows[0][3].startswith("0.150 [")
    assert "Agreement with human labellers" in da_human_section(run)[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, 5), min_size=2, max_size=4), min_size=2, max_size=8), st.integers(-3, 3))
def test_alpha_is_shift_invariant_and_at_most_one(units: list[list[int]], shift: int) -> None:
    alpha = krippendorff_interval(units)
    shifted = krippendorff_interval([[v + shift for v in u] for u in units])
    assert (alpha is None) == (shifted is None)
    if alpha is not None:
        assert alpha == pytest.approx(shifted) and alpha <= 1 + 1e-12


@given(st.lists(st.integers(1, 5), min_size=2, max_size=10).filter(lambda v: len(set(v)) > 1))
def test_alpha_of_raters_who_always_agree_is_one(values: list[int]) -> None:
    assert krippendorff_interval([[v, v] for v in values]) == pytest.approx(1.0)


def test_two_no_act_labels_agree_and_one_against_acts_does_not() -> None:
    from voxeval.acts import Step
    from voxeval.label._agreement import da_pair

    assert da_pair((), ()) == {"exact": 1.0, "wed": 0.0, "wlcs": 1.0}
    assert da_pair((), (Step("Inform", 1.0),)) == {"exact": 0.0, "wed": 1.0, "wlcs": 0.0}


def test_a_no_act_label_is_counted_apart_from_the_annotator_figure(run: Path) -> None:
    from voxeval.label._agreement import agreement_report

    cat = Study(run, load_file_items(run / "items.jsonl"), "da", "cat")
    _do(cat, {"action": "label", "key": "k1", "steps": [], "no_act": True})
    _do(cat, {"action": "label", "key": "k2", "steps": [], "no_act": True})
    report = agreement_report(run, ["da"])["da"]
    vs = report["annotator_vs_human"]["cat"]  # the annotator gave acts to both: it missed both "no act" labels
    assert (vs["items"], vs["no_act"]["items"], vs["no_act"]["annotator_no_act"]["mean"]) == (0, 2, 0.0)
    assert report["pairs"]["ann vs cat"]["exact"]["mean"] == 0.0
    assert report["left_out"] == {"ann": {}, "bob": {"k3": "skipped"}, "cat": {}}
