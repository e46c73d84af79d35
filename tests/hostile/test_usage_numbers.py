"""Token counts from servers and prices from files are numbers voxeval checks (issue 31, group 13).

A count is an integer from 0 to 2^53 (``voxeval.llm._types.token_count``); anything else (-5, 10**400, 1.5, "7",
true) is ignored with a warning kept in the reply's ``meta.usage_warnings`` and counted in the report's usage
note. A price is a finite number ≥ 0; a prices file with another is refused naming the field. Nothing prints
``$nan``, ``$inf`` or a negative cost, and nothing crashes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from tests.hostile.raw_server import BodyServer, gemini_body, no_wait_model, openai_body
from voxeval.cli import main
from voxeval.llm import ChatMessage, ChatRequest
from voxeval.llm.chat._gemini import parse_gemini
from voxeval.llm.chat._openai import parse_openai_chat

ASK = ChatRequest(messages=(ChatMessage("user", "hi"),), max_tokens=16)
BAD_COUNTS = [10**400, -5, 1.5, "7", True, 2**60, [3]]
IDS = ["10**400", "-5", "1.5", "string", "true", "2**60", "list"]


@pytest.mark.parametrize("value", BAD_COUNTS, ids=IDS)
@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens"])
def test_openai_counts_that_are_no_counts_are_ignored_with_a_warning(field: str, value: Any) -> None:
    usage = {"prompt_tokens": 11, "completion_tokens": 7, field: value}
    parsed = parse_openai_chat(openai_body(usage=usage))
    counts = {"prompt_tokens": parsed.usage.input_tokens, "completion_tokens": parsed.usage.output_tokens}
    assert counts[field] is None and all(v is not None and v >= 0 for k, v in counts.items() if k != field)
    assert len(parsed.usage.warnings) == 1 and parsed.usage.warnings[0].startswith(f"{field}: ")


@pytest.mark.parametrize("value", [-1, 10**400, 0.5], ids=["-1", "10**400", "0.5"])
@pytest.mark.parametrize("field", ["promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"])
def test_gemini_counts_that_are_no_counts_are_ignored_with_a_warning(field: str, value: Any) -> None:
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 3, "thoughtsTokenCount": 2, field: value}
    parsed = parse_gemini(gemini_body(usage=usage))
    assert field in parsed.usage.warnings[0]
    expected_output = None if field != "promptTokenCount" else 5
    assert parsed.usage.output_tokens == expected_output
    assert parsed.usage.input_tokens == (None if field == "promptTokenCount" else 5)


def test_a_cached_response_keeps_its_warnings_and_its_counts_are_checked_again(tmp_path) -> None:
    from voxeval.llm import RequestCache, cached

    with BodyServer(lambda: openai_body(usage={"prompt_tokens": -5, "completion_tokens": 3})) as srv:
        model = cached(no_wait_model(f"openai-compat:m@{srv.openai_base_url}"), RequestCache(tmp_path))
        first = asyncio.run(model.complete(ASK))
        again = asyncio.run(model.complete(ASK))
        assert srv.calls == 1
    assert first.usage == again.usage and again.usage.input_tokens is None and again.usage.warnings
    # A cache file edited by hand is checked like a server's answer.
    entry = next(tmp_path.rglob("*.json"))
    data = json.loads(entry.read_text())
    data["response"]["usage"]["output_tokens"] = -9
    entry.write_text(json.dumps(data))
    tampered = asyncio.run(model.complete(ASK))
    assert tampered.usage.output_tokens is None and any("output_tokens: -9" in w for w in tampered.usage.warnings)


def _run(tmp: Path, url: str) -> Path:
    write_jsonl(tmp / "set.jsonl", [gold_row("a", [("Answer", 1.0)]), gold_row("b", [("Answer", 1.0)])])
    out = tmp / "run"
    args = ["run", "--dataset", str(tmp / "set.jsonl"), "--system", f"mine=openai-compat:m@{url}"]
    assert main([*args, "--annotator", "gold:paper-examples", "--out", str(out), "--quiet"]) == 0
    return out


def test_a_run_and_its_report_survive_absurd_counts_and_say_so(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    usage = iter([{"prompt_tokens": 10**400, "completion_tokens": -5}, {"prompt_tokens": 10, "completion_tokens": 4}])
    with BodyServer(lambda: openai_body(usage=next(usage))) as srv:
        out = _run(tmp_path, srv.openai_base_url)
    metas = [json.loads(x)["meta"] for x in (out / "replies.jsonl").read_text().splitlines()]
    warned = [m for m in metas if m.get("usage_warnings")]
    assert len(warned) == 1 and warned[0]["input_tokens"] is None and warned[0]["output_tokens"] is None
    assert len(warned[0]["usage_warnings"]) == 2
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"mine": {"input_per_million": 2.5, "output_per_million": 10}}))
    assert main(["report", str(out), "--prices", str(prices)]) == 0, capsys.readouterr().err
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "$nan" not in md and "$inf" not in md and "$-" not in md
    assert "| mine | 2 | 1 | 10 | 4 | $0.0001 |" in md, md[md.index("## Usage") :]
    assert "1 reply reported token counts that are not integers" in md


def test_a_tampered_log_count_is_left_out_of_the_sums(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    with BodyServer(lambda: openai_body(usage={"prompt_tokens": 10, "completion_tokens": 4})) as srv:
        out = _run(tmp_path, srv.openai_base_url)
    rows = [json.loads(x) for x in (out / "replies.jsonl").read_text().splitlines()]
    rows[0]["meta"]["output_tokens"] = -10
    (out / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| mine | 2 | 2 | 20 | 4 |" in md and "1 reply reported token counts" in md


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('{"S": {"input_per_million": NaN, "output_per_million": 1}}', "nan"),
        ('{"S": {"input_per_million": 1, "output_per_million": Infinity}}', "inf"),
        ('{"S": {"input_per_million": -5, "output_per_million": 1}}', "-5"),
        ('{"S": {"input_per_million": 1e400, "output_per_million": 1}}', "inf"),
        ('{"S": {"input_per_million": 1, "output_per_million": true}}', "True"),
    ],
    ids=["nan", "infinity", "negative", "overflowing-literal", "bool"],
)
def test_a_price_that_is_no_price_is_refused_naming_the_field(tmp_path, monkeypatch, capsys, text, shown) -> None:
    monkeypatch.delenv("VOXEVAL_COMPAT_API_KEY", raising=False)
    with BodyServer(lambda: openai_body(usage={"prompt_tokens": 10, "completion_tokens": 4})) as srv:
        out = _run(tmp_path, srv.openai_base_url)
    before = (out / "report.md").read_bytes()
    prices = tmp_path / "prices.json"
    prices.write_text(text)
    assert main(["report", str(out), "--prices", str(prices)]) == 2
    err = capsys.readouterr().err
    assert "prices.json, field S." in err and "finite number ≥ 0" in err and shown in err, err
    assert (out / "report.md").read_bytes() == before, "the report already written is kept"
