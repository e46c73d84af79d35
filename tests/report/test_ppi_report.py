"""Prediction-powered scores end to end: a drawn sample, human labels on it, a deliberately biased annotator.

The run's annotations are rewritten so that the annotator gives every reply the labeller's act at weight 0.7 plus
an act absent from the gold at 0.3: its WLCS is 0.7 × the human WLCS, a plain figure far below the truth.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from voxeval.acts import LABELS
from voxeval.benchmark._da import DialogueActsBenchmark, load_run
from voxeval.cli import main
from voxeval.label import Study, check_submission, load_run_items
from voxeval.label._sample import draw_sample, drawn_keys, read_draw, record_draw
from voxeval.report._build import build_da_reports
from voxeval.report._compare import compare_markdown, compare_runs
from voxeval.report._ppi import ppi_rows

SYSTEM = "python:tests.run.doubles:echo_gold"


def _absent(acts: set[str]) -> str:
    return next(a for a in LABELS if a not in acts)


@pytest.fixture(scope="module")
def biased_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], float]:
    """A run of 24 replies with a biased annotator; returns it, the act a person gives each reply, and the truth
    (mean human WLCS over all 24: a reply labelled with its gold's top act scores 1, one labelled otherwise 0)."""
    import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)

    out = tmp_path_factory.mktemp("ppi") / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "24", "--system", SYSTEM, "--annotator", "gold"]
    args += ["--tts", "tone-tts"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    data = load_run(out)
    gold = {g.id: g for g in data.sets[0].gold}
    human_act, rows = {}, []
    for n, sample_id in enumerate(sorted(gold)):
        acts = {s.act for s in gold[sample_id].acts}
        top = max(gold[sample_id].acts, key=lambda s: s.importance).act
        human_act[sample_id] = top if n % 3 else _absent(acts)  # a third of the replies miss their gold act
        wrong = _absent(acts | {human_act[sample_id]})
        steps = [{"act": human_act[sample_id], "importance": 0.7}, {"act": wrong, "importance": 0.3}]
        key = f"ja-assistant/{SYSTEM}/{sample_id}"
        rows.append({"key": key, "dataset": "ja-assistant", "system": SYSTEM, "id": sample_id, "status": "ok"})
        rows[-1]["steps"] = steps
    (out / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    truth = sum(1.0 for n in range(len(gold)) if n % 3) / len(gold)
    return out, human_act, truth


def _label(run: Path, labeller: str, keys: set[str], act_of: dict[str, str]) -> None:
    study = Study(run, load_run_items(run, "da"), "da", labeller)
    for key in sorted(keys):
        text = study.by_key[key].text
        step = {"act": act_of[study.by_key[key].id], "importance": 1, "start": 0, "end": len(text), "text": text}
        study.submit(check_submission({"action": "label", "key": key, "steps": [step]}, "da", study.by_key))


@pytest.fixture()
def labelled(biased_run: tuple[Path, dict[str, str], float], tmp_path: Path) -> tuple[Path, dict[str, str], float]:
    """A copy of the run with 12 of its 24 replies drawn (seed 7) and labelled by one person."""
    src, act_of, truth = biased_run
    run = Path(shutil.copytree(src, tmp_path / "run"))
    items = load_run_items(run, "da")
    draw, new = record_draw(run, draw_sample(items, "da", 12, per_system=False, seed=7))
    assert new
    _label(run, "ann", set(drawn_keys(draw, items)), act_of)
    return run, act_of, truth


def test_plain_figure_is_off_and_the_corrected_one_on_target(labelled) -> None:
    run, act_of, truth = labelled
    data = load_run(run)
    wlcs = next(r for r in ppi_rows(run, data.sets, data.human) if r.metric == "WLCS")
    e = wlcs.estimate
    assert e is not None and (e.n, e.N, wlcs.drawn) == (12, 24, 12)
    assert e.annotator_mean == pytest.approx(0.7 * truth)  # the plain figure is off by 0.2
    assert e.low <= truth <= e.high and abs(e.estimate - truth) < 0.05
    assert e.human_low <= truth <= e.human_high and e.high - e.low < e.human_high - e.human_low
    # Labels outside the drawn sample are never used; a second labeller's scores are averaged per reply.
    items = load_run_items(run, "da")
    rest = {i.key for i in items} - set(drawn_keys(read_draw(run, "da"), items))
    _label(run, "bob", set(sorted(rest)[:5]), {k: _absent(set()) for k in act_of})
    data = load_run(run)
    assert next(r for r in ppi_rows(run, data.sets, data.human) if r.metric == "WLCS").estimate == e


def test_report_table1_html_csv_terminal_and_compare_show_it(labelled) -> None:
    run, _, _ = labelled
    out = build_da_reports(load_run(run))
    md, html = out["md"].read_text(encoding="utf-8"), out["html"].read_text(encoding="utf-8")
    for text in (md, html):
        assert "Prediction-powered scores" in text and "12 / 12" in text
    assert md.index("Prediction-powered") < md.index("Table 2")
    assert "Label 40 replies per system to remove the annotator's bias; expected interval ±0.07" in md  # trust
    rows = [r for r in csv.reader(out["csv"].read_text(encoding="utf-8").splitlines()) if r[0] == "ppi"]
    assert {r[3] for r in rows} == {"WLCS", "WED", "deletion", "insertion", "substitution"}
    assert "Prediction-powered" in DialogueActsBenchmark().table(load_run(run).sets, run)
    result = compare_runs(load_run(run), load_run(run))
    paired = result["comparisons"][0]["ppi"]["WLCS"]["b_minus_a"]
    assert paired["estimate"] == pytest.approx(0.0) and paired["n"] == 12
    assert "B − A paired PPI++" in compare_markdown(result)


def test_without_a_drawn_sample_nothing_changes(biased_run, tmp_path: Path) -> None:
    run = Path(shutil.copytree(biased_run[0], tmp_path / "run"))
    _label(run, "ann", {i.key for i in load_run_items(run, "da")[:4]}, biased_run[1])
    data = load_run(run)
    assert data.human and ppi_rows(run, data.sets, data.human) == []  # labels without a draw: no random sample


def test_the_draw_is_recorded_reused_and_never_silently_replaced(biased_run, tmp_path: Path) -> None:
    run = Path(shutil.copytree(biased_run[0], tmp_path / "run"))
    items = load_run_items(run, "da")
    first = draw_sample(items, "da", 5, per_system=True, seed=3)
    assert first == draw_sample(list(reversed(items)), "da", 5, per_system=True, seed=3)  # order-free
    assert record_draw(run, first) == (first, True)
    recorded = json.loads((run / "human" / "da" / "sample.json").read_text(encoding="utf-8"))
    assert recorded["seed"] == 3 and len(recorded["strata"][0]["population"]) == 24 and "drawn_at" in recorded
    assert record_draw(run, draw_sample(items, "da", 5, per_system=True, seed=3)) == (first, False)
    with pytest.raises(Exception, match="already records a different sample"):
        record_draw(run, draw_sample(items, "da", 5, per_system=True, seed=4))
    study = Study(run, items, "da", "ann", first=drawn_keys(first, items))
    assert {i.key for i in study.items[:5]} == set(drawn_keys(first, items))  # served first
    assert study.state()["item"]["key"] in drawn_keys(first, items)


def test_the_cli_draws_then_resumes_and_refuses_bad_options(biased_run, tmp_path, monkeypatch, capsys) -> None:
    from voxeval.label._server import LabelServer

    run = Path(shutil.copytree(biased_run[0], tmp_path / "run"))
    monkeypatch.setattr(LabelServer, "serve_forever", lambda self: None)
    base = ["label", str(run), "--task", "da", "--labeller", "ann", "--port", "0"]
    assert main([*base, "--sample", "6", "--seed", "11"]) == 0
    assert "drew 6 replies (seed 11)" in capsys.readouterr().out
    assert main([*base, "--sample", "6"]) == 0  # the same request again resumes the recorded draw
    assert "using the recorded sample: 6 replies (seed 11)" in capsys.readouterr().out
    assert main([*base, "--sample", "6", "--sample-seed", "12"]) != 0
    assert "different sample" in capsys.readouterr().err
    assert main([*base, "--per-system"]) != 0 and "only with --sample" in capsys.readouterr().err
    assert main([*base, "--sample", "0"]) != 0 and "positive number" in capsys.readouterr().err
    (run / "human" / "da" / "sample.json").write_text('{"task": "da", "size": 2}', encoding="utf-8")
    assert main([*base]) != 0 and "sample.json" in capsys.readouterr().err


def test_style_judge_scores_corrected_by_ratings_on_the_drawn_sample(tmp_path: Path) -> None:
    from voxeval.label import LabelItem
    from voxeval.report._style_report import build_style_reports

    run = tmp_path / "style"
    run.mkdir()
    truth = [1 + (i * 7) % 5 for i in range(30)]  # a person's rating of each reply
    judge = [max(1, t - 1) for t in truth]  # a judge that rates one level too low
    summary = {"systems": {"sys": {"overall": 3.0, "coverage": 1.0, "ok": 30, "failed": 0, "not_measured": 0}}}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    rows = [
        {"key": f"d/sys/{i}", "system": "sys", "dataset": "d", "id": str(i), "ability": "a/b", "status": "ok",
         "score": s, "judge": "j", "attributes": {}}
        for i, s in enumerate(judge)
    ]  # fmt: skip
    (run / "judgements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = [LabelItem(key=f"d/sys/{i}", id=str(i), text="", system="sys", dataset="d") for i in range(30)]
    draw, _ = record_draw(run, draw_sample(items, "style", 15, per_system=True, seed=1))
    for who, shift in (("ann", 0), ("bob", 0)):
        study = Study(run, items, "style", who)
        for key in sorted(drawn_keys(draw, items)):
            score = truth[int(key.rsplit("/", 1)[1])] + shift
            study.submit(check_submission({"action": "label", "key": key, "score": score}, "style", study.by_key))
    md = build_style_reports(run)["md"].read_text(encoding="utf-8")
    assert "Prediction-powered scores" in md and "judge score (1-5)" in md and "15 / 15" in md
    from voxeval.report._ppi import style_ppi_rows
    from voxeval.report._style_report import load_judgements

    (row,) = style_ppi_rows(run, load_judgements(run))
    e, mean = row.estimate, sum(truth) / 30
    assert e is not None and e.annotator_mean < mean - 0.5 and e.low <= mean <= e.high


def test_an_edited_label_row_is_refused_naming_file_and_field(labelled) -> None:
    from voxeval.errors import InputError

    run, _, _ = labelled
    path = run / "human" / "da" / "ann.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    bad = {**rows[0], "n": len(rows) + 1, "steps": [{"act": "Bogus", "importance": 1.0, "span": "x"}]}
    path.write_text(path.read_text(encoding="utf-8") + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"ann\.jsonl.*steps\[0\]"):
        load_run(run)


class _SameText:
    """A span similarity for tests: 1 for identical spans, else 0 (no encoder)."""

    name = "ppi-same-text"

    def similarities(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [float(a == b) for a, b in pairs]

    def describe(self) -> dict[str, str]:
        return {"similarity": self.name}


def test_content_scores_and_a_second_labeller_are_estimated_too(labelled) -> None:
    from voxeval.annotate._similarity import similarities
    from voxeval.report._ppi import human_scores

    if "ppi-same-text" not in similarities.names():
        similarities.register("ppi-same-text")(_SameText)
    run, _, _ = labelled
    drawn = sorted(drawn_keys(read_draw(run, "da"), load_run_items(run, "da")))
    gold = {g.id: g for g in load_run(run).sets[0].gold}
    off = {i: _absent({s.act for s in g.acts}) for i, g in gold.items()}  # an act the gold lacks: WLCS 0
    _label(run, "bob", set(drawn[:3]), off)  # bob disagrees on three replies
    data = load_run(run, "ppi-same-text")
    rows = {r.metric: r for r in ppi_rows(run, data.sets, data.human)}
    assert rows["WLCS-c"].estimate is not None and rows["WED-c"].estimate is not None
    assert rows["WLCS-c"].estimate.n == 12 and rows["WLCS-c"].estimate.human_mean <= rows["WLCS"].estimate.human_mean
    ann = data.human[("ja-assistant", SYSTEM, "ann")]
    assert ann.content is not None and len(ann.content.scores) == 12
    ids = {k.rsplit("/", 1)[1] for k in drawn[:3]}
    y = human_scores(data.human, "ja-assistant", SYSTEM, ids)["WLCS"]
    ann_wlcs = {x.id: x.wlcs for x in ann.scores}
    assert y == {i: ann_wlcs[i] / 2 for i in ids}  # bob's scores 0: the mean halves ann's score
