"""The offline annotator's segmenter: a table of cases, and invariants on arbitrary text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.annotate._segment import has_content, is_filler, segment

CASES = [
    ("", []),
    ("   \n\t ", []),
    ("。。！？", []),
    ("3分のタイマーをスタートしました。", ["3分のタイマーをスタートしました。"]),
    ("かしこまりました。何分にセットしますか？", ["かしこまりました。", "何分にセットしますか？"]),
    # a run of final punctuation ends one sentence; a newline ends one too
    ("本当ですか？！はい\n次です", ["本当ですか？！", "はい\n次です"]),
    # no split inside quotes, even at a question mark
    ("ママから「夕飯いる？」ってLINEです。返事する？", ["ママから「夕飯いる？」ってLINEです。", "返事する？"]),
    # clause boundary: 、 after a polite clause-final form (ASR-style joins)
    (
        "十五分のタイマーをセットしました、タイマーの名前は何にしますか",
        ["十五分のタイマーをセットしました、", "タイマーの名前は何にしますか"],
    ),
    ("申し訳ありません、再生できませんでした。", ["申し訳ありません、", "再生できませんでした。"]),
    # 、 after other forms is not a boundary
    ("東京は、曇りで、最高気温は27度です。", ["東京は、曇りで、最高気温は27度です。"]),
    ("できますが、試してみますか？", ["できますが、試してみますか？"]),
    # a space after a clause-final form is a boundary; other spaces are not
    ("設定しました 風量はautoです", ["設定しました", "風量はautoです"]),
    ("単三電池 二十本入りです。", ["単三電池 二十本入りです。"]),
    # leading fillers belong to what follows, even when they end in 。
    ("はい。タイマーを止めました。", ["はい。タイマーを止めました。"]),
    ("はい、アラームを変更できます。", ["はい、アラームを変更できます。"]),
    ("うん！いいよ。", ["うん！いいよ。"]),
    # a filler-only reply is one segment; a trailing filler joins the last segment
    ("はい。", ["はい。"]),
    ("止めました。はい。", ["止めました。はい。"]),
    # ASCII periods end a sentence only before whitespace or the end
    ("評価は4.3です. 次は10 a.m.です", ["評価は4.3です.", "次は10 a.m.です"]),
    # punctuation-only pieces join the segment before them
    ("止めました。…。", ["止めました。…。"]),
    # unbalanced brackets do not swallow the rest of the reply
    ("「閉じない引用です。次の文です。", ["「閉じない引用です。", "次の文です。"]),
]


@pytest.mark.parametrize(("reply", "expected"), CASES)
def test_segment_table(reply: str, expected: list[str]) -> None:
    assert [s.text for s in segment(reply)] == expected


def test_offsets_are_exact_and_whitespace_is_stripped() -> None:
    reply = "  おはようございます。\n 3分のタイマーをセットしました。  "
    segments = segment(reply)
    assert [(s.start, s.end) for s in segments] == [(2, 12), (14, 30)]
    assert all(reply[s.start : s.end] == s.text for s in segments)


def test_filler_and_content_predicates() -> None:
    assert is_filler("はい、") and is_filler("いいえ。") and is_filler("ちなみに、")
    assert not is_filler("はい、できます。")
    assert has_content("a") and not has_content("。、！？ \n「」")


JAPANESE = st.text(
    alphabet=st.sampled_from(
        list("あいかすたしでまねよはんーアイタ一二時分。、？！?!.「」『』（）() \n\t\u3000ABz09…")
    ),
    max_size=60,
)


@given(st.one_of(JAPANESE, st.text(max_size=60)))
def test_segments_are_in_order_disjoint_substrings_with_content(reply: str) -> None:
    segments = segment(reply)
    cursor = 0
    for s in segments:
        assert s.start >= cursor and s.start < s.end
        assert reply[s.start : s.end] == s.text
        assert s.text == s.text.strip()
        assert has_content(s.text)
        cursor = s.end
    # every word character of the reply is covered by some segment
    covered = "".join(s.text for s in segments)
    assert has_content(covered) == has_content(reply)
