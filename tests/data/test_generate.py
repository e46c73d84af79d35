"""``voxeval generate`` end to end against a mock OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxeval.cli import main
from voxeval.testing.mockserver import MockServer

SECRET = "sk-gen-SECRET-77"


def sample(user: str, acts=(("Commissive", 0.7), ("Question", 0.3))) -> str:
    return json.dumps(
        {
            "scenario_context": {"background": "ユーザーは台所で料理をしている。"},
            "input": {"role": "USER", "text": user, "locale": "ja-JP"},
            "output": {"role": "ASSISTANT", "text": "3分のタイマーをセットしました。名前を付けますか？"},
            "output_dialogue_acts": {"steps": [{"act": a, "importance": w, "rationale": "r"} for a, w in acts]},
        },
        ensure_ascii=False,
    )


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def test_generate_validates_retries_dedupes_and_records_failures(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VOXEVAL_COMPAT_API_KEY", SECRET)
    script = {
        # sample 0: invalid JSON first, then valid after the error is fed back
        0: ["これはJSONではありません", "```json\n" + sample("3分タイマーかけて") + "\n```"],
        # sample 1: a near-duplicate of sample 0's input → dropped and recorded
        1: [sample("3分タイマーかけて！")],
        # sample 2: schema violations every time (unknown act, then weights not summing to 1) → failure recorded
        2: [
            sample("アラームを止めて", acts=(("Greeting", 1.0),)),
            sample("アラームを止めて", acts=(("Answer", 0.3),)),
            sample("アラームを止めて", acts=(("Answer", 0.3),)),
        ],
        # sample 3: valid at once
        3: [sample("明日の天気は？")],
    }
    calls: dict[int, int] = {}

    def responder(endpoint: str, request: dict) -> str:
        index = int(request["messages"][0]["content"].split("サンプル番号 ")[1].split("）")[0])
        n = calls.get(index, 0)
        calls[index] = n + 1
        return script[index][min(n, len(script[index]) - 1)]

    out = tmp_path / "gen.jsonl"
    with MockServer(responder, require_key=SECRET) as srv:
        code = main(
            [
                "generate",
                "--llm",
                f"openai-compat:gen@{srv.openai_base_url}",
                "--n",
                "4",
                "--domains",
                "timer",
                "--out",
                str(out),
                "--concurrency",
                "1",
            ]
        )
        first_prompt = srv.requests[0].json["messages"][0]["content"]
        assert code == 0
        kept, failures = rows(out), rows(tmp_path / "gen.failures.jsonl")
        assert [r["id"] for r in kept] == ["gen-timer-0000", "gen-timer-0003"]
        assert kept[0]["attempts"] == 2 and kept[0]["output_dialogue_acts"]["steps"][0]["act"] == "Commissive"
        by_id = {r["id"]: r for r in failures}
        assert by_id["gen-timer-0001"]["status"] == "duplicate" and "gen-timer-0000" in by_id["gen-timer-0001"]["error"]
        assert by_id["gen-timer-0002"]["status"] == "failed" and "sum to 0.300" in by_id["gen-timer-0002"]["error"]
        assert by_id["gen-timer-0002"]["raw"]  # the raw reply is kept for inspection
        # The Appendix A prompt with the instruction slot filled.
        assert "対話行為の分類" in first_prompt and "{USER_INSTRUCTION}" not in first_prompt
        # Rerun resumes: nothing new is requested.
        before = srv.count()
        assert (
            main(
                [
                    "generate",
                    "--llm",
                    f"openai-compat:gen@{srv.openai_base_url}",
                    "--n",
                    "4",
                    "--domains",
                    "timer",
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
        assert srv.count() == before
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()
    # Kept rows are valid gold data.
    assert main(["dataset", "validate", str(out)]) == 0


def _localised(user: str, locale: str, reply: str) -> str:
    return json.dumps(
        {
            "scenario_context": {"background": "b"},
            "input": {"role": "USER", "text": user, "locale": locale},
            "output": {"role": "ASSISTANT", "text": reply},
            "output_dialogue_acts": {"steps": [{"act": "Commissive", "importance": 1.0, "rationale": "r"}]},
        },
        ensure_ascii=False,
    )


@pytest.mark.parametrize(
    ("language", "locale", "marker", "user", "reply"),
    [
        ("en", "en-US", "Dialogue-act taxonomy", "Set a timer for ten minutes", "Ten-minute timer started."),
        ("zh", "zh-CN", "对话行为分类", "定一个十分钟的计时器", "好的，十分钟计时器已开始。"),
    ],
)
def test_generate_in_english_and_mandarin(tmp_path, monkeypatch, language, locale, marker, user, reply) -> None:
    monkeypatch.setenv("VOXEVAL_COMPAT_API_KEY", SECRET)
    # First a row in the wrong locale (the Japanese default): refused with the locale named, then a right one.
    answers = [_localised(user, "ja-JP", reply), _localised(user, locale, reply)]
    out = tmp_path / f"{language}.jsonl"
    served: list[str] = []

    def responder(endpoint: str, request: dict) -> str:
        served.append(answers[min(len(served), 1)])
        return served[-1]

    with MockServer(responder, require_key=SECRET) as srv:
        argv = ["generate", "--llm", f"openai-compat:gen@{srv.openai_base_url}", "--n", "1", "--domains", "timer"]
        assert main([*argv, "--out", str(out), "--language", language]) == 0
        prompts = [r.json["messages"][0]["content"] for r in srv.requests]
    assert marker in prompts[0] and "対話行為の分類" not in prompts[0] and "{USER_INSTRUCTION}" not in prompts[0]
    assert "timer" in prompts[0] and len(prompts) == 2
    assert f'input.locale must be \\"{locale}\\"' in json.dumps(srv.requests[1].json)
    (kept,) = rows(out)
    assert kept["input"]["locale"] == locale and kept["attempts"] == 2
    assert main(["dataset", "validate", str(out)]) == 0


def test_generate_rejects_an_unknown_language(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["generate", "--llm", "openai-compat:m@http://127.0.0.1:9/v1", "--n", "1", "--out", str(tmp_path / "x"),
              "--language", "fr"])  # fmt: skip
    assert "invalid choice" in capsys.readouterr().err


def test_generated_rows_need_a_unique_central_act() -> None:
    from voxeval.data._generate import validate_generated

    with pytest.raises(ValueError, match="unique maximum"):
        validate_generated(sample("明日の天気は？", acts=(("Answer", 0.5), ("Suggestion", 0.5))))
    assert validate_generated(sample("明日の天気は？", acts=(("Answer", 0.6), ("Suggestion", 0.4))))
