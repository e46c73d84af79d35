"""The latency table shows one ``reply s`` for systems timed by call, and what a terminal prints fits 120 columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_jsonl
from voxeval.io._keys import reply_key
from voxeval.report._latency import latency_table, system_latency
from voxeval.report._terminal import display_width, shorten, text_table

LONG = "my-speech-model-with-a-very-long-name-" * 3 + "v2"


def _row(system: str, sample: str, by: str, total: float, *, audio: float | None, text: float | None) -> dict[str, Any]:
    rtf = None if audio is None else round(total / 4.0, 4)
    latency = {"first_audio_s": audio, "first_text_s": text, "total_s": total, "audio_s": 4.0, "rtf": rtf}
    key = reply_key("d", system, sample)
    return {
        "key": key,
        "dataset": "d",
        "system": system,
        "id": sample,
        "status": "ok",
        "latency": {**latency, "timed_by": by},
    }


def _called(system: str, n: int = 3, audio: bool = True) -> list[dict[str, Any]]:
    """A system timed by call: first audio = first text = total."""
    return [_row(system, str(i), "call", 1.0 + i, audio=1.0 + i if audio else None, text=1.0 + i) for i in range(n)]


def _streamed(system: str, n: int = 3) -> list[dict[str, Any]]:
    return [_row(system, str(i), "system", 2.0 + i, audio=0.3 + i / 10, text=0.2 + i / 10) for i in range(n)]


def _table(rows: list[dict[str, Any]], compact: bool = False) -> tuple[list[str], list[list[object]]]:
    return latency_table(system_latency({r["key"]: r for r in rows}), compact=compact)


def test_systems_timed_by_call_get_one_reply_column() -> None:
    head, rows = _table(_called("a") + _called("b", audio=False))
    assert head == ["system", "replies", "timed by", "reply s median [95% CI]", "reply s p90 [95% CI]",
                    "RTF median [95% CI]", "RTF p90 [95% CI]"]  # fmt: skip
    assert rows[0][3] == "2.000 [1.000, 3.000]" and rows[1][5:] == ["—", "—"]  # b has no audio: no RTF
    head, rows = _table(_called("a", audio=False), compact=True)
    assert head == ["system", "replies", "timed by", "reply s"] and rows == [["a", 3, "call", "2.000 / 2.800"]]


def test_a_mixed_set_keeps_the_streamed_timings_and_marks_the_called_ones() -> None:
    head, rows = _table(_called("a", audio=False) + _streamed("s"), compact=True)
    assert head == ["system", "replies", "timed by", "first audio s", "first text s", "total s", "RTF"]
    by = {r[0]: r for r in rows}
    assert by["a"][3:] == ["—", "= total", "2.000 / 2.800", "—"]  # no audio; its first text is its total
    assert by["s"][3:] == ["0.400 / 0.480", "0.300 / 0.380", "3.000 / 3.800", "0.750 / 0.950"]


def test_every_line_a_run_prints_fits_120_columns(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)
    from tests.conftest import _png_lean
    from voxeval.cli import main
    from voxeval.report import _plots

    monkeypatch.setattr(_plots, "_png", _png_lean)  # the figures are not what is tested here
    args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--annotator", "gold", "--tts", "tone-tts"]
    args += ["--out", str(tmp_path / "r")]
    systems = ["--system", "python:tests.run.doubles:echo_gold", "--system", f"{LONG}=python:tests.run.doubles:parrot"]
    assert main([*args, *systems, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert max(map(display_width, out.splitlines())) <= 120, out
    table1 = [line for line in out.splitlines() if line.startswith("ja-assistant")]
    assert len(table1) == 2 and any(
        LONG[:6] in line and "…" in line and line.split()[1].endswith("-v2") for line in table1
    )
    assert "reply s" in out and "first audio" not in out


def test_the_style_summary_fits_120_columns_with_a_mixed_latency_table(tmp_path: Path) -> None:
    from voxeval.benchmark._style import StyleBenchmark

    write_jsonl(tmp_path / "replies.jsonl", _called(LONG) + _streamed("realtime"))
    block = {"overall": 3.5, "ok": 3, "failed": 0, "not_measured": 0}
    text = StyleBenchmark().table({"systems": {LONG: block, "realtime": {**block, "overall": None}}}, tmp_path)
    assert max(map(display_width, text.splitlines())) <= 120, text
    assert "first audio s" in text and "= total" in text and "3.500" in text


def test_text_tables_cut_names_in_the_middle_never_figures() -> None:
    wide = "応答" * 40
    text = text_table(["system", "score"], [[wide, "0.123"], ["b", "1.000"]], numeric=(1,), width=40)
    assert max(map(display_width, text.splitlines())) <= 40 and "0.123" in text
    assert shorten("abcdefghij", 5) == "ab…ij" and shorten("abc", 5) == "abc"
    with pytest.raises(ValueError, match="does not fit 20 columns"):
        text_table(["name", *("figure" for _ in range(5))], [["x", *("0.000" for _ in range(5))]], width=20)
