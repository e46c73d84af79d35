"""The ``llm`` annotator's prompt follows the reply's language (issue 34): en/zh prompts, ja unchanged."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest

from voxeval.acts import Step
from voxeval.annotate import AnnotationInput, Reference, annotator_from_spec
from voxeval.errors import ConfigError
from voxeval.prompts import load_prompt, slots
from voxeval.testing.mockserver import MockServer

JA = AnnotationInput(
    "3分のタイマーを<セット>しました。",
    "3分タイマー",
    "台所で & 料理中",
    Reference("セットしました。", (Step("Commissive", 1.0, None, "セットしました。"),)),
)


def _spec(url: str = "http://127.0.0.1:9/v1") -> str:
    return f"llm:openai-compat:m@{url}"


def _text(item: AnnotationInput) -> str:
    return annotator_from_spec(_spec()).request(item).messages[0].text


@pytest.mark.parametrize(
    ("item", "sha256"),
    [
        (JA, "1eaf80075b7bcbf6a37054824965511269f3d8647ca45bd55fa89cfe33f7dd16"),
        (AnnotationInput("はい。"), "723323db10f4f4ce43dfe92e2c3bbfdea7b5f08240975e206a9d6f90db8b56ff"),
    ],
)
def test_the_japanese_request_is_byte_identical_to_before(item, sha256) -> None:
    # The hashes are of the requests the annotator built before issue 34 (da/annotate.v3), computed then.
    assert hashlib.sha256(_text(item).encode("utf-8")).hexdigest() == sha256


def test_the_new_prompts_keep_v3s_slots_and_give_examples_in_their_language() -> None:
    v3 = slots(load_prompt("da/annotate.v3").text)
    en, zh = load_prompt("da/annotate.en.v1").text, load_prompt("da/annotate.zh.v1").text
    assert slots(en) == v3 and slots(zh) == v3
    assert "Could you say it again?" in en and "Polite requests phrased as questions" in en
    assert "能再说一遍吗？" in zh and "了 表示完成的行动" in zh
    assert "タイマー" not in en and "タイマー" not in zh


@pytest.mark.parametrize(
    ("language", "reply", "expected"),
    [
        (
            "en",
            "I've set a 3-minute timer. Want to name it?",
            ["You are an expert who annotates", "(no reference reply)"],
        ),
        ("zh", "已经定好三分钟的计时器了。要起个名字吗？", ["你是为语音助手的回复标注对话行为", "（无参考回复）"]),
    ],
)
def test_a_reply_is_sent_with_the_prompt_of_its_language(language, reply, expected) -> None:
    answer = json.dumps({"steps": [{"act": "Commissive", "importance": 1.0}]})
    with MockServer(lambda endpoint, request: answer) as srv:
        annotator = annotator_from_spec(_spec(srv.openai_base_url), language=language)
        result = asyncio.run(annotator.annotate(AnnotationInput(reply, "", "", None, language)))
        sent = srv.requests[0].json["messages"][-1]["content"]
    assert [s.act for s in result.acts] == ["Commissive"]
    assert all(part in sent for part in expected) and f"<reply>\n{reply}\n</reply>" in sent
    assert "注釈対象" not in sent  # nothing of the Japanese prompt
    described = annotator.describe()
    assert described["prompt"] == f"da/annotate.{language}.v1" and described["language"] == language
    assert described["prompt_sha256"] == load_prompt(f"da/annotate.{language}.v1").sha256
    assert described["prompt_sha256"] != annotator_from_spec(_spec()).describe()["prompt_sha256"]


@pytest.mark.parametrize(
    ("language", "block"),
    [
        ("en", 'Reference reply: "It\'s &lt;sunny&gt;."\nAnnotation: Answer "It\'s &lt;sunny&gt;."'),
        ("zh", "参考回复：“晴天&lt;多云&gt;。”\n标注：Answer“晴天&lt;多云&gt;。”"),
    ],
)
def test_the_reference_block_is_worded_in_the_language_and_escaped(language, block) -> None:
    text = {"en": "It's <sunny>.", "zh": "晴天<多云>。"}[language]
    item = AnnotationInput("x", "q", "", Reference(text, (Step("Answer", 1.0, None, text),)), language)
    assert block in _text(item)


@pytest.mark.parametrize("language", ["fr", "", "EN"])
def test_a_language_without_a_prompt_is_a_config_error(language) -> None:
    with pytest.raises(ConfigError, match="no annotation prompt"):
        _text(AnnotationInput("x", language=language))
    with pytest.raises(ConfigError, match="has ja, en, zh"):
        annotator_from_spec(_spec(), language=language)


def _english_copy(tmp_path):
    """One row of ja-assistant relabelled en-US: a stand-in English dataset."""
    from voxeval.data import builtin_path

    row = json.loads(builtin_path("ja-assistant").read_text(encoding="utf-8").splitlines()[0])
    row["input"]["locale"] = "en-US"
    path = tmp_path / "en-copy.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_a_run_on_english_data_records_and_sends_the_english_prompt(tmp_path, capsys) -> None:
    from voxeval.cli import main

    dataset, out = _english_copy(tmp_path), tmp_path / "run"
    argv = ["run", "--dataset", str(dataset), "--system", "python:tests.run.doubles:echo_gold", "--tts", "espeak-ng"]
    assert main([*argv, "--annotator", "offline:offline-v3", "--out", str(out)]) == 2
    assert "trained on 'ja' replies and cannot label 'en' data" in capsys.readouterr().err
    answer = json.dumps({"steps": [{"act": "Answer", "importance": 1.0}]})
    with MockServer(lambda endpoint, request: answer) as srv:
        assert main([*argv, "--annotator", _spec(srv.openai_base_url), "--out", str(out), "--quiet"]) == 0
        sent = [r.json["messages"][-1]["content"] for r in srv.requests if r.json and "messages" in r.json]
    assert sent and all(s.startswith("You are an expert who annotates") for s in sent)
    assert "Reference reply: " in sent[0]  # voxeval run gives the reference by default
    annotator = json.loads((out / "config.json").read_text(encoding="utf-8"))["components"]["annotator"]
    assert (annotator["prompt"], annotator["language"]) == ("da/annotate.en.v1", "en")


@pytest.mark.parametrize(
    ("locale", "start"),
    [("zh-CN", "你是为语音助手"), ("en_US", "You are an expert"), (None, "あなたは音声アシスタント")],
)
def test_voxeval_annotate_uses_each_rows_locale(tmp_path, locale, start) -> None:
    from voxeval.cli import main

    user = {"text": "q"} if locale is None else {"text": "q", "locale": locale}
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "Done.", "input": user}) + "\n", encoding="utf-8")
    answer = json.dumps({"steps": [{"act": "Commissive", "importance": 1.0}]})
    with MockServer(lambda endpoint, request: answer) as srv:
        argv = ["annotate", "--annotator", _spec(srv.openai_base_url), "--in", str(src), "--out", str(out)]
        assert main(argv) == 0
        assert srv.requests[0].json["messages"][-1]["content"].startswith(start)


@pytest.mark.parametrize("locale", ["fr-FR", "", 7])
def test_voxeval_annotate_refuses_a_locale_without_a_prompt(tmp_path, capsys, locale) -> None:
    from voxeval.cli import main

    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "Oui.", "input": {"locale": locale}}) + "\n", encoding="utf-8")
    assert main(["annotate", "--annotator", _spec(), "--in", str(src), "--out", str(out)]) == 2
    assert "input.locale" in capsys.readouterr().err and not out.exists()
