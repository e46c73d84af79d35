"""The labelling-guide conformance checker: each rule fires on a minimal bad reply and not on its fixed form, and
the shipped training rows pass it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.annotator.conformance import RULES, Reply, check, default_replies, main, reply_from_row

Seg = tuple[str, str | None]


def reply(segments: list[Seg], input_text: str = "天気教えて", flaw: str | None = None) -> Reply:
    row = {
        "id": "t-0001",
        "input_text": input_text,
        "flaw": flaw,
        "segments": [{"text": t, "act": a} for t, a in segments],
    }
    return reply_from_row(Path("t.jsonl"), 1, row)


def rules_hit(segments: list[Seg], input_text: str = "天気教えて", flaw: str | None = None) -> list[str]:
    return [f.rule for f in check(reply(segments, input_text, flaw))]


CASES: list[tuple[str, list[Seg], list[Seg], str, str | None]] = [
    (
        "acceptance-outside",
        [("いいですよ！", None), ("パンはパンでも食べられないパンは？", "Answer")],
        [("いいですよ！", "Commissive"), ("パンはパンでも食べられないパンは？", "Answer")],
        "なぞなぞ出して",
        None,
    ),
    (
        "chatter-in-span",
        [("1、2、3。お疲れさまでした！", "Commissive")],
        [("1、2、3。", "Commissive"), ("お疲れさまでした！", None)],
        "3回数えて",
        None,
    ),
    (
        "apology-outside-refusal",
        [("ごめんなさい。", None), ("リマインダーを保存できませんでした。", "Commissive")],
        [("ごめんなさい。リマインダーを保存できませんでした。", "Commissive")],
        "リマインダー追加",
        None,
    ),
    (
        "filler-alone",
        [("はい、", None), ("明日は晴れです。", "Answer")],
        [("はい、明日は晴れです。", "Answer")],
        "明日晴れる？",
        None,
    ),
    (
        "reason-clause-split",
        [("雨が降るので、", "Inform"), ("傘をお持ちください。", "Suggestion")],
        [("雨が降るので、傘をお持ちください。", "Suggestion")],
        "天気教えて",
        None,
    ),
    (
        "polite-request-question",
        [("借入金額を教えていただけますか？", "Question")],
        [("借入金額を教えていただけますか？", "Request")],
        "ローンの返済額は？",
        None,
    ),
    (
        "confirmation-as-question",
        [("明日の7時でよろしいですか？", "Question")],
        [("明日の7時でよろしいですか？", "Check-Question")],
        "アラームかけて",
        None,
    ),
    (
        "offer-kind",
        [("今日のニュースは3件です。", "Answer"), ("ほかのニュースもお伝えしましょうか？", "Suggestion")],
        [("今日のニュースは3件です。", "Answer"), ("ほかのニュースもお伝えしましょうか？", "Question")],
        "ニュース教えて",
        None,
    ),
    (
        "offer-kind",
        [("どちらを予約しましょうか？", "Suggestion")],
        [("どちらを予約しましょうか？", "Question")],
        "レストラン予約して",
        None,
    ),
    (
        "own-action-as-inform",
        [("時間になったらお知らせします。", "Inform")],
        [("時間になったらお知らせします。", "Commissive")],
        "10分測って",
        None,
    ),
    (
        "own-action-as-inform",
        [("リマインダーを作りました。", "Commissive"), ("住所がないので、到着時のお知らせができません。", "Inform")],
        [
            ("リマインダーを作りました。", "Commissive"),
            ("住所がないので、到着時のお知らせができません。", "Commissive"),
        ],
        "帰ったら言って",
        None,
    ),
    (
        "joke-not-answer",
        [("布団が吹っ飛んだ。", "Inform")],
        [("布団が吹っ飛んだ。", "Answer")],
        "ダジャレ言って",
        None,
    ),
    (
        "off-topic-answer",
        [("明日は晴れです。", "Answer")],
        [("明日は晴れです。", "Inform")],
        "お風呂沸かして",
        "off_topic",
    ),
    (
        "advice-asked",
        [("お湯を少しずつ足して、薄めてみてください。", "Suggestion")],
        [("お湯を少しずつ足して、薄めてみてください。", "Answer")],
        "しょっぱくなっちゃった、どうしよう",
        None,
    ),
    (
        "info-command",
        [("6人分に換算しました。", "Commissive"), ("豚肉は600グラムです。", "Inform")],
        [("6人分に換算しました。", "Commissive"), ("豚肉は600グラムです。", "Answer")],
        "このレシピ、6人分にして",
        None,
    ),
    (
        "request-after-failure",
        [("接続できず、注文できませんでした。", "Commissive"), ("Wi-Fiルーターを確認してください。", "Request")],
        [("接続できず、注文できませんでした。", "Commissive"), ("Wi-Fiルーターを確認してください。", "Suggestion")],
        "トイレットペーパー注文して",
        None,
    ),
    (
        "general-offer-chatter",
        [("水は100度で沸騰します。", "Answer"), ("ほかにも何かあれば、いつでも聞いてくださいね。", "Suggestion")],
        [("水は100度で沸騰します。", "Answer"), ("ほかにも何かあれば、いつでも聞いてくださいね。", None)],
        "水って何度で沸騰する？",
        None,
    ),
    (
        "echo-acknowledgement",
        [("はい、乗り換え案内ですね！", "Commissive"), ("どちらの駅までですか？", "Question")],
        [("はい、乗り換え案内ですね！", None), ("どちらの駅までですか？", "Question")],
        "乗り換え案内して",
        None,
    ),
    (
        "capability-offer",
        [("どちらを消しましょうか？", "Question"), ("両方まとめて消すこともできますよ。", "Inform")],
        [("どちらを消しましょうか？", "Question"), ("両方まとめて消すこともできますよ。", "Suggestion")],
        "それ消して",
        None,
    ),
]


@pytest.mark.parametrize(
    ("rule", "bad", "good", "input_text", "flaw"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_rule_fires_on_the_bad_reply_only(
    rule: str, bad: list[Seg], good: list[Seg], input_text: str, flaw: str | None
) -> None:
    assert rules_hit(bad, input_text, flaw) == [rule]
    assert rules_hit(good, input_text, flaw) == []


def test_every_rule_has_a_case() -> None:
    assert {c[0] for c in CASES} == set(RULES)


@pytest.mark.parametrize(
    "segments",
    [
        [("削除したリマインダーは元に戻せません。", "Inform")],  # a warning, not the assistant's own inability
        [("残りは3件です。", "Inform"), ("残りのリマインダーも読み上げましょうか？", "Suggestion")],  # nothing read out
        [("どれか再生しましょうか？", "Suggestion")],  # an offer, not a choice the task needs
        [("いつものプレイリストを再生しましょうか？", "Suggestion")],  # いつも (usual), not いつ (when)
        [("お役に立てずすみません。", None)],  # an apology after, not before, a refusal
        [("980円の3割は294円なので、", "Answer")],  # a truncated reply: no main clause follows
        [("失礼しました！", None), ("音量を下げました。", "Commissive")],  # an apology before a done action
        [("それは大変でしたね。", None), ("中央線は止まっています。", "Inform")],
        [("今のペースは1キロ5分です。", "Answer"), ("目標より8秒速いですね。", "Inform")],  # not an echo of the input
    ],
)
def test_near_misses_stay_silent(segments: list[Seg]) -> None:
    assert rules_hit(segments) == []


@pytest.mark.parametrize(
    ("segments", "input_text"),
    [
        # advice asked for, but the reply refused first: the pointer after a refusal stays Suggestion
        (
            [("申し訳ありませんが、判断できません。", "Commissive"), ("天気予報をご確認ください。", "Suggestion")],
            "傘いる？",
        ),
        # an offer of the assistant's own action is not the advice itself
        ([("作り方をお伝えしましょうか？", "Suggestion")], "夜食何がいいかな"),
        # a Request while the task still runs (a Commissive follows): 「設定してください。そのあと送信します。」
        (
            [
                ("連携が切れていて、送信できませんでした。", "Commissive"),
                ("LINEの連携を設定してください。", "Request"),
                ("そのあと送信します。", "Commissive"),
            ],
            "LINEで送って",
        ),
        # a polite request phrased as a question after a failure stays Request (first round's rule)
        ([("起動できませんでした。", "Commissive"), ("充電台に戻していただけますか？", "Request")], "掃除機動かして"),
        # an information command whose reply asks for the text first
        ([("翻訳しますね。", "Commissive"), ("訳したい文章をどうぞ。", "Request")], "英語に翻訳して"),
        # a specific tip, not a general offer of help
        (
            [("再生しました。", "Commissive"), ("音量を変えたいときは、いつでも言ってください。", "Suggestion")],
            "音楽かけて",
        ),
        # a capability asked about is the Answer
        ([("はい、できますよ！", "Answer")], "朝だけにできる？"),
    ],
)
def test_second_round_near_misses_stay_silent(segments: list[Seg], input_text: str) -> None:
    assert rules_hit(segments, input_text) == []


def test_a_finding_names_file_line_id_field_rule_and_section() -> None:
    (finding,) = check(reply([("明日は晴れです。", "Answer")], "お風呂沸かして", "off_topic"))
    text = str(finding)
    assert text.startswith("t.jsonl:1: t-0001 [")
    assert "segments[0]: off-topic-answer (Labels: Answer / Inform" in text


def test_dataset_schema_rows_are_checked_with_the_gaps_between_spans() -> None:
    row = {
        "id": "x-1",
        "split": "dev",
        "input": {"text": "3分測って"},
        "output": {"text": "いいですよ！3分のタイマーをスタートしました。"},
        "output_dialogue_acts": {
            "steps": [{"act": "Commissive", "importance": 1.0, "span": "3分のタイマーをスタートしました。"}]
        },
    }
    (finding,) = check(reply_from_row(Path("d.jsonl"), 3, row))
    assert (finding.rule, finding.field) == ("acceptance-outside", "output.text[0:6]")


def test_the_shipped_training_rows_follow_the_guide() -> None:
    findings = [str(f) for r in default_replies(everything=False) for f in check(r)]
    assert findings == [], "\n".join(findings)


def test_command_line_exit_code_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {
        "id": "t-1",
        "input_text": "お風呂沸かして",
        "flaw": "off_topic",
        "segments": [{"text": "晴れです。", "act": "Answer"}],
    }
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["--json", str(path)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (out["id"], out["line"], out["field"], out["rule"]) == ("t-1", 1, "segments[0]", "off-topic-answer")
    bad["flaw"] = None
    path.write_text(json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main([str(path)]) == 0
