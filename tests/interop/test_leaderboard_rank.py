"""The leaderboard's pure core: which runs compare, the order, cost; and the page's escaping."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from voxeval.errors import ConfigError
from voxeval.interop._leaderboard import rank
from voxeval.interop._page import leaderboard_html
from voxeval.interop._results import RunResults, Score, SystemFacts


def _run(name: str, wlcs: float | None, **changes: object) -> RunResults:
    base = RunResults(
        run_dir=Path(f"/runs/{name}"),
        benchmark="da",
        fingerprint=f"fp-{name}",
        created="2026-12-02T03:00:00+0000",
        version="0.1.0",
        command=("voxeval", "run", "--out", f"/runs/{name}"),
        scorer="offline",
        validity="WLCS bias -0.059 vs gold",
        datasets={"ja-assistant": "aaa"},
        prompts={"system": "s1", "user": "u1"},
        split=None,
        limit=None,
        scores=(
            Score("ja-assistant", name, "wlcs", wlcs, None if wlcs is None else wlcs - 0.1, wlcs, 10, 0),
            Score("ja-assistant", name, "wed", None if wlcs is None else 1 - wlcs, None, None, 10, 0),
        ),
        systems={name: SystemFacts({"first_audio_s": 0.5, "total_s": 1.5}, 10, (1_000_000, 2_000_000))},
    )
    return dataclasses.replace(base, **changes)


def test_rows_are_ranked_by_the_metric_with_unscored_last_and_cost_from_prices() -> None:
    board = rank(
        [_run("mid", 0.5), _run("none", None), _run("best", 0.9)],
        allow_mixed=False,
        prices={"best": {"input_per_million": 1.0, "output_per_million": 4.0}},
    )
    assert [(r["rank"], r["system"]) for r in board["rows"]] == [(1, "best"), (2, "mid"), (3, "none")]
    assert board["rows"][0]["cost_usd"] == pytest.approx(9.0) and board["rows"][1]["cost_usd"] is None
    assert board["rows"][0]["reproduce"] == "voxeval run --out /runs/best"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"datasets": {"ja-assistant": "bbb"}}, "datasets"),
        ({"prompts": {"system": "s2", "user": "u1"}}, "prompts"),
        ({"scorer": "llm:openai:gpt"}, "annotator / judge 'llm:openai:gpt' ≠ 'offline'"),
        ({"split": "test"}, "split 'test' ≠ None"),
        ({"benchmark": "style"}, "benchmark 'style' ≠ 'da'"),
    ],
)
def test_runs_that_differ_are_refused_with_the_difference(change: dict, said: str) -> None:
    runs = [_run("a", 0.5), _run("b", 0.6, **change)]
    with pytest.raises(ConfigError, match="cannot be ranked together") as caught:
        rank(runs, allow_mixed=False)
    assert said in str(caught.value) and "/runs/b" in str(caught.value)
    board = rank(runs, allow_mixed=True)
    assert not board["comparable"] and said in board["differences"][0]


def test_the_page_escapes_what_comes_from_runs() -> None:
    hostile = "<img src=x onerror=alert(1)>"
    run = _run(hostile, 0.7, command=("voxeval", "run", "--system", hostile))
    page = leaderboard_html(rank([run], allow_mixed=False), "t")
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
