"""A poisoned LLM-annotator answer (issue 31, group 12): re-asked, recorded failed with its raw text, evicted from
the request cache, and asked again by ``--retry-failed``, as docs/reliability.md promises, for every invalid answer.

Before, an answer holding numbers or nesting that the parser could not survive (``OverflowError``,
``RecursionError``) escaped the re-ask loop: recorded failed with no raw text, never re-asked, and kept in the
cache, so ``--retry-failed`` sent nothing.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.testing.mockserver import MockServer

GOOD = '{"steps": [{"act": "Answer", "importance": 1}]}'
POISONS = {
    "400-digit-importance": '{"steps": [{"act": "Answer", "importance": ' + "9" * 400 + "}]}",
    "nested-50000": '{"steps": [], "x": ' + "[" * 50_000 + "]" * 50_000 + "}",
    "sum-overflows": '{"steps": [{"act": "Answer", "importance": 1e308}, {"act": "Inform", "importance": 1e308}]}',
    "5000-digit-integer": '{"steps": [{"act": "Answer", "importance": ' + "7" * 5000 + "}]}",
    "too-many-steps": json.dumps({"steps": [{"act": "Answer", "importance": 1}] * 300}),
    "steps-not-objects": '{"steps": [1, 2]}',
}


class _Answers:
    """The mock's answer to every chat call: the poison until ``cured``."""

    def __init__(self, poison: str) -> None:
        self.poison, self.cured = poison, False

    def __call__(self, endpoint: str, request: dict[str, Any]) -> str:
        return GOOD if self.cured else self.poison


def _run(tmp: Path, url: str, *extra: str) -> int:
    out = tmp / "run"
    args = ["run", "--dataset", str(tmp / "set.jsonl"), "--system", f"replay:{tmp / 'replies.jsonl'}"]
    return main([*args, "--annotator", f"llm:openai-compat:m@{url}", "--out", str(out), "--quiet", *extra])


def _notes(tmp: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (tmp / "run" / "annotations.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("poison", list(POISONS), ids=list(POISONS))
def test_every_poisoned_answer_is_reasked_with_its_error_and_never_cached(tmp_path, poison) -> None:
    """The annotator's parse through ``complete_validated`` and the request cache, without a run around it."""
    from voxeval.annotate import AnnotationFailed, AnnotationInput, annotator_from_spec

    answers = _Answers(POISONS[poison])
    with MockServer(answers) as srv:
        annotator = annotator_from_spec(f"llm:openai-compat:m@{srv.openai_base_url}")
        item = AnnotationInput(reply="はい、そうです。")
        with pytest.raises(AnnotationFailed) as failed:
            asyncio.run(annotator.annotate(item))
        assert failed.value.raw == POISONS[poison] and srv.count() == 3
        # The feedback the model got names the problem (the second request carries the first answer's error).
        assert "Your previous reply was not valid" in json.dumps(srv.requests[1].json, ensure_ascii=False)
        answers.cured = True
        assert asyncio.run(annotator.annotate(item)).acts[0].act == "Answer"
        assert srv.count() == 4, "nothing poisoned was answered from the cache"


@pytest.mark.parametrize("poison", ["nested-50000", "sum-overflows"])
def test_a_poisoned_answer_is_reasked_kept_raw_evicted_and_retried(tmp_path, monkeypatch, poison) -> None:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    write_jsonl(tmp_path / "set.jsonl", [gold_row("a", [("Answer", 1.0)])])
    write_jsonl(tmp_path / "replies.jsonl", [{"id": "a", "text": "はい、そうです。"}])
    answers = _Answers(POISONS[poison])
    with MockServer(answers) as srv:
        assert _run(tmp_path, srv.openai_base_url) == 0
        assert srv.count() == 3, "re-asked with the error until the attempts ran out"
        [note] = _notes(tmp_path)
        assert note["status"] == "failed" and note["raw"] == POISONS[poison], "failed, with the raw answer kept"
        assert note["attempts"] == 3 and "invalid output after 3 attempt(s)" in note["error"]
        # A plain rerun does not ask again (the failure is recorded); --retry-failed does, past the cache.
        assert _run(tmp_path, srv.openai_base_url) == 0 and srv.count() == 3
        answers.cured = True
        assert _run(tmp_path, srv.openai_base_url, "--retry-failed") == 0
        assert srv.count() == 4, "the poisoned answer was evicted from the cache, so the retry asked again"
    assert _notes(tmp_path)[-1]["status"] == "ok"
    assert "| 1 | 1.000 |" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8"), "scored once answered"
