"""One outcome taxonomy for every system kind: the same answer is recorded and scored the same way whether it
came from an API model, a ``python:`` callable, a ``replay:`` file or a cascade (docs/reliability.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from tests.hostile.outcome_doubles import HUGE, OK_TEXT
from voxeval.cli import main
from voxeval.testing.mockserver import MockServer, sine_wav

KINDS = ("ok", "empty", "null", "blank", "refused", "truncated", "undecodable", "surrogate", "oversized")
"""Sample ids, each answered with that outcome by every system kind."""
EXPECTED = {
    "ok": ("ok", "ok", OK_TEXT),
    "empty": ("empty", "empty", ""),
    "null": ("empty", "empty", ""),
    "blank": ("empty", "empty", ""),
    "refused": ("empty", "refused", ""),
    "truncated": ("failed", "truncated", ""),
    "undecodable": ("failed", "undecodable", ""),
    "surrogate": ("failed", "undecodable", ""),
    "oversized": ("failed", "oversized", ""),
}
"""Sample id → (status, outcome, stored text)."""


def _message(kind: str) -> tuple[dict[str, Any], str]:
    """The chat message and finish reason an API answers for each outcome."""
    if kind == "refused":
        return {"role": "assistant", "content": None, "refusal": "I cannot help with that"}, "stop"
    if kind == "truncated":
        return {"role": "assistant", "content": ""}, "length"
    content = {"ok": OK_TEXT, "empty": "", "null": None, "blank": " \n\t ", "oversized": HUGE, "surrogate": "abc\udcff"}
    return {"role": "assistant", "content": content.get(kind, "こんにちは")}, "stop"


class OutcomeServer(MockServer):
    """An OpenAI-compatible server answering each sample (found by its audio or its transcript) with its outcome."""

    def __init__(self, audio: dict[str, bytes]) -> None:
        super().__init__()
        import base64

        self.markers = {base64.b64encode(data).decode(): kind for kind, data in audio.items()}

    def handle(self, request: Any, raw: bytes) -> None:
        text = raw.decode()
        kind = next((k for marker, k in self.markers.items() if marker in text), None)
        kind = kind or next(k for k in KINDS if f"ask-{k}." in text)
        message, finish = _message(kind)
        choices = [{"index": 0, "message": message, "finish_reason": finish}]
        body = json.dumps({"choices": choices}, ensure_ascii=kind == "surrogate")  # a lone surrogate travels escaped
        data = body.encode()
        if kind == "undecodable":
            data = data.replace("こんにちは".encode(), "こんにちは".encode("shift_jis"))
        request._send(200, data)


def _dataset(root: Path) -> tuple[Path, dict[str, bytes]]:
    audio = {}
    rows = []
    for number, kind in enumerate(KINDS):
        audio[kind] = sine_wav(0.3, frequency=200.0 + 40 * number)
        (root / f"{kind}.wav").write_bytes(audio[kind])
        row = gold_row(kind, [("Commissive", 1.0)], inp=f"ask-{kind}.", out=OK_TEXT if kind == "ok" else f"gold {kind}")
        row["input"]["audio"] = f"{kind}.wav"
        rows.append(row)
    return write_jsonl(root / "set.jsonl", rows), audio


def _replay(root: Path) -> Path:
    rows: list[dict[str, Any]] = [
        {"id": "ok", "text": OK_TEXT},
        {"id": "empty", "text": ""},
        {"id": "null", "text": None},
        {"id": "blank", "text": " \n\t "},
        {"id": "refused", "outcome": "refused", "error": "I cannot help with that"},
        {"id": "truncated", "outcome": "truncated"},
        {"id": "undecodable", "text": "abc\ufffd"},
        {"id": "surrogate", "text": "abc\udcff"},
        {"id": "oversized", "text": HUGE},
    ]
    path = root / "replies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # "\udcff" stays escaped
    return path


SYSTEM_KINDS = ("python", "replay", "api", "cascade")


def _spec(kind: str, root: Path, server: MockServer) -> str:
    return {
        "python": "python:tests.hostile.outcome_doubles:answer",
        "replay": f"replay:{_replay(root)}",
        "api": f"openai-compat:m@{server.openai_base_url}?max_retries=0",
        "cascade": f"cascade:asr=oracle,llm=openai-compat:m@{server.openai_base_url}?max_retries=0,tts=none",
    }[kind]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], str, dict[str, Any]]]:
    """Per system kind: reply rows by id, scores.jsonl, summary.json of one run."""
    root = tmp_path_factory.mktemp("outcomes")
    data, audio = _dataset(root)
    results = {}
    with pytest.MonkeyPatch.context() as patch, OutcomeServer(audio) as server:
        patch.setenv("VOXEVAL_MAX_REPLY_BYTES", "4096")
        for kind in SYSTEM_KINDS:
            out = root / f"run-{kind}"
            args = ["run", "--dataset", str(data), "--system", _spec(kind, root, server), "--annotator"]
            code = main([*args, f"gold:{data}", "--out", str(out), "--quiet", "--no-cache"])
            assert code == 0
            rows = {r["id"]: r for r in map(json.loads, (out / "replies.jsonl").read_text("utf-8").splitlines())}
            summary = json.loads((out / "summary.json").read_text("utf-8"))
            results[kind] = (rows, (out / "scores.jsonl").read_text("utf-8"), summary)
    return results


@pytest.mark.parametrize("system_kind", SYSTEM_KINDS)
@pytest.mark.parametrize("sample", KINDS)
def test_every_outcome_is_recorded_the_same_by_every_system_kind(recorded, system_kind: str, sample: str) -> None:
    row = recorded[system_kind][0][sample]
    assert (row["status"], row["outcome"], row["text"]) == EXPECTED[sample], row
    if EXPECTED[sample][1] not in ("ok", "empty"):
        assert row["error"], "a refusal, truncation, undecodable or oversized reply keeps its reason"


@pytest.mark.parametrize("system_kind", SYSTEM_KINDS[1:])
def test_every_system_kind_scores_the_outcomes_identically(recorded, system_kind: str) -> None:
    _, scores, summary = recorded[system_kind]
    reference_scores, reference_summary = recorded["python"][1], recorded["python"][2]
    assert scores == reference_scores
    assert summary["excluded"] == reference_summary["excluded"]
    assert {k: v.split(":")[0] for k, v in summary["excluded_ids"].items()} == {
        k: v.split(":")[0] for k, v in reference_summary["excluded_ids"].items()
    }
    assert (summary["n"], summary["wlcs_mean"], summary["wed_mean"]) == (
        reference_summary["n"], reference_summary["wlcs_mean"], reference_summary["wed_mean"]
    )  # fmt: skip


def test_empty_and_refused_score_as_empty_and_the_rest_are_excluded(recorded) -> None:
    _, scores, summary = recorded["api"]
    by_id = {r["id"]: r for r in map(json.loads, scores.splitlines())}
    assert set(by_id) == {"ok", "empty", "null", "blank", "refused"}
    assert (by_id["ok"]["wlcs"], by_id["ok"]["wed"]) == (1.0, 0.0)
    for sample in ("empty", "null", "blank", "refused"):
        assert (by_id[sample]["wlcs"], by_id[sample]["wed"]) == (0.0, 1.0)
    reasons = {k: v.split(":")[0] for k, v in summary["excluded_ids"].items()}
    assert reasons == {
        "oversized": "reply oversized",
        "truncated": "reply truncated",
        "undecodable": "reply undecodable",
        "surrogate": "reply undecodable",
    }
