"""Shared fixtures."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def gold_row(sample_id: str, steps: list[tuple[str, float]], *, inp: str = "入力", out: str = "出力") -> dict[str, Any]:
    return {
        "id": sample_id,
        "scenario_context": {"background": "テスト"},
        "input": {"role": "USER", "text": inp, "locale": "ja-JP"},
        "output": {"role": "ASSISTANT", "text": out},
        "output_dialogue_acts": {"steps": [{"act": a, "importance": w} for a, w in steps]},
    }


def pred_row(sample_id: str, steps: list[tuple[str, float]], **extra: Any) -> dict[str, Any]:
    return {"id": sample_id, "steps": [{"act": a, "importance": w} for a, w in steps], **extra}


@pytest.fixture
def paper_files(tmp_path: Path) -> tuple[Path, Path]:
    """Gold and predictions of the paper's worked examples (WLCS example + Table 2 IDs 1–4)."""
    gold = [
        gold_row("wlcs", [("Question", 0.7), ("Suggestion", 0.1), ("Inform", 0.2)]),
        gold_row("t2-1", [("Commissive", 0.6), ("Question", 0.25), ("Inform", 0.15)], inp="10分のタイマーをセットして"),
        gold_row("t2-2", [("Question", 0.65), ("Inform", 0.15), ("Commissive", 0.2)]),
        gold_row("t2-3", [("Commissive", 0.6), ("Question", 0.2), ("Question", 0.2)]),
        gold_row("t2-4", [("Inform", 0.65), ("Question", 0.35)]),
    ]
    preds = [
        pred_row("wlcs", [("Question", 0.7), ("Suggestion", 0.15), ("Answer", 0.05)]),
        pred_row("t2-1", [("Inform", 1.0)], text="はい、10分のタイマーをセットしました。"),
        pred_row("t2-2", [("Request", 0.7), ("Question", 0.3)]),
        pred_row("t2-3", [("Check-Question", 0.3), ("Inform", 0.5), ("Inform", 0.2)]),
        pred_row("t2-4", [("Inform", 0.75), ("Question", 0.25)]),
    ]
    return write_jsonl(tmp_path / "gold.jsonl", gold), write_jsonl(tmp_path / "pred.jsonl", preds)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``optional`` (LLM runtime, large models) run only with VOXEVAL_OPTIONAL=1."""
    import os

    if os.environ.get("VOXEVAL_OPTIONAL") == "1":
        return
    skip = pytest.mark.skip(reason="optional (heavy): set VOXEVAL_OPTIONAL=1")
    for item in items:
        if "optional" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_request_cache(tmp_path_factory: pytest.TempPathFactory):
    """Each test gets its own provider request cache, so no test sees another's cached replies."""
    from voxeval.llm import request_cache, set_request_cache

    previous = request_cache()
    set_request_cache(tmp_path_factory.mktemp("requests"))
    yield
    set_request_cache(previous)


_SPOKEN: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
"""pyopenjtalk waveforms already made in this process, newest last (at most ``_SPOKEN_MAX``, ~1 MB each)."""
_SPOKEN_MAX = 64
_SPOKEN_LOCK = threading.Lock()
"""The async executor speaks on threads."""


@pytest.fixture(autouse=True)
def _pyopenjtalk_said_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside tests/speech/, ``pyopenjtalk.tts`` of a text and settings it already spoke in this process returns a
    copy of the same waveform instead of synthesising it again (~0.25 s a clip on a loaded machine; the suite's
    runs speak the same first samples of ja-assistant hundreds of times). pyopenjtalk is deterministic (tested,
    without this memo, by tests/speech/test_tts.py), so the bytes are the engine's own. Only patched once some
    test has imported pyopenjtalk: nothing is imported for tests that do not speak."""
    import sys

    module = sys.modules.get("pyopenjtalk")
    if module is None or request.node.path.is_relative_to(Path(__file__).parent / "speech"):
        return
    original = getattr(module.tts, "__wrapped__", module.tts)

    def tts(text: str, *args: Any, **kwargs: Any) -> tuple[Any, int]:
        key = (text, args, tuple(sorted(kwargs.items())))
        with _SPOKEN_LOCK:
            said = _SPOKEN.get(key)
            if said is not None:
                _SPOKEN.move_to_end(key)
        if said is None:
            said = original(text, *args, **kwargs)
            with _SPOKEN_LOCK:
                _SPOKEN[key] = said
                if len(_SPOKEN) > _SPOKEN_MAX:
                    _SPOKEN.popitem(last=False)
        wave, rate = said
        return wave.copy(), rate

    tts.__wrapped__ = original  # type: ignore[attr-defined]
    monkeypatch.setattr(module, "tts", tts)


def _png_lean(fig: Any) -> bytes:
    """``voxeval.report._plots._png`` at 20 dpi without the tight bounding box: one draw of every artist instead of
    two at 110 dpi (report figures were half the time of a ``voxeval run`` in the suite)."""
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=20)
    plt.close(fig)
    return buf.getvalue()


@pytest.fixture(autouse=True)
def _lean_report_figures(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside tests/report/ (whose tests look at the figures, at the real resolution), report figures are built by
    the real plotting code and drawn once at low resolution: no test elsewhere reads their pixels."""
    if request.node.path.is_relative_to(Path(__file__).parent / "report"):
        return
    from voxeval.report import _plots

    monkeypatch.setattr(_plots, "_png", _png_lean)
