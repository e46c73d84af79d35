"""Reading judge replies: the final score over many wrappers, refusals, stated attributes, and invariants."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from voxeval.judge import JudgeParseError, parse_attributes, parse_judgement

REASONING = "1. Attributes: the voice is female, fast.\n2. The content is correct.\n"


@pytest.mark.parametrize(
    ("reply", "score", "source"),
    [
        ("Final score: [[3]]", 3, "final"),
        ("final score: [[3]]", 3, "final"),
        ("FINAL SCORE: [[1]]", 1, "final"),
        ("**Final score:** [[3]]", 3, "final"),
        ("**Final score**: [[2]]", 2, "final"),
        ("Final score: **[[5]]**", 5, "final"),
        ("Final Score = [[4]]", 4, "final"),
        ("Final score is [[4]].", 4, "final"),
        ("Final score:[[ 4 ]]", 4, "final"),
        ("Final score: [[**4**]]", 4, "final"),
        ("## Final Score\n[[4]]", 4, "final"),
        ("## Final Score\n\n[[4]]\n", 4, "final"),
        ("### **Final Score**\n\n**[[2]]**", 2, "final"),
        ("Final rating: [[5]]", 5, "final"),
        ("最终得分：[[2]]", 2, "final"),
        ("最终得分: [[2]]", 2, "final"),
        ("**最终得分：** [[2]]", 2, "final"),
        ("## 最终评分\n\n[[3]]", 3, "final"),
        ("最终分数为[[4]]", 4, "final"),
        ("最终打分：[[1]]", 1, "final"),
        ("最終スコア：[[5]]", 5, "final"),
        ("最终得分：［［３］］", 3, "final"),  # full-width brackets and digit
        (REASONING + "Final score: [[3]]", 3, "final"),
        # The rubric's own wording echoed before the verdict: the last labelled score wins.
        ("Step 3 says: use the format Final score: [[1]].\nLanguage matches.\nFinal score: [[4]]", 4, "final"),
        # A labelled score wins over later unlabelled brackets.
        ("Final score: [[3]]\n(For reference, a perfect reply would get [[5]].)", 3, "final"),
        ("Score: [[4]]", 4, "last"),
        ("I give it [[2]].", 2, "last"),
        ("Maybe [[2]], but on reflection [[3]]", 3, "last"),
        ("[[0]] is impossible; my score is [[4]]", 4, "last"),
        ("Scores: [[3.5]] no, [[3]]", 3, "last"),
    ],
)
def test_score_is_read_from_the_final_score(reply: str, score: int, source: str) -> None:
    parsed = parse_judgement(reply)
    assert (parsed.score, parsed.source) == (score, source)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("", "no score"),
        ("The response is good. Score: 4", "no score"),
        ("Final score: 4", "no score"),
        ("Final score: [4]", "no score"),
        ("[[0]]", r"found \[\[0\]\]"),
        ("[[6]]", r"found \[\[6\]\]"),
        ("Final score: [[3.5]]", "not an integer from 1 to 5"),
        ("Final score: [[6]]\nearlier I thought [[3]]", "not an integer from 1 to 5"),
        ("Final score: [[N]]", "not an integer"),
        ("Final score: [[-1]]", "not an integer"),
        ("Final score: [[10]]", "not an integer"),
        ("[[ ]]", "found"),
        ("[[1]", "no score"),
    ],
)
def test_reply_without_a_valid_score_is_refused_with_the_raw_text(reply: str, message: str) -> None:
    with pytest.raises(JudgeParseError, match=message) as info:
        parse_judgement(reply)
    assert info.value.raw == reply
    assert isinstance(info.value, ValueError)  # so retry helpers treat it as invalid content


FINAL_LABELS = ["Final score: ", "**Final score:** ", "## Final Score\n\n", "最终得分：", "最终评分\n"]
# Random text without brackets or final-score labels: it cannot carry a (competing) labelled score.
noise = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="[]［］"), max_size=200)
noise_with_brackets = st.text(alphabet=st.sampled_from(list("ab 12345[]\n:*#.")), max_size=80)


@given(
    before=noise_with_brackets, after=noise_with_brackets, score=st.integers(1, 5), label=st.sampled_from(FINAL_LABELS)
)
def test_surrounding_text_never_changes_a_clearly_introduced_final_score(
    before: str, after: str, score: int, label: str
) -> None:
    assume("final" not in (before + after).lower())
    parsed = parse_judgement(f"{before}\n{label}[[{score}]]\n{after}")
    assert parsed.score == score and parsed.source == "final"


@given(text=noise)
def test_text_without_a_bracketed_score_always_raises(text: str) -> None:
    with pytest.raises(JudgeParseError):
        parse_judgement(text)


@given(
    text=st.text(alphabet=st.sampled_from(list("ab 0678[].9\n:Final score")), max_size=120),
)
def test_brackets_without_1_to_5_always_raise(text: str) -> None:
    assume(not any(f"[[{n}]]" in text for n in "12345"))
    with pytest.raises(JudgeParseError):
        parse_judgement(text)


def test_attributes_in_english_and_chinese_lines() -> None:
    reply = (
        "## Step 1\n"
        "- Gender: 女\n"
        "- **Age**: 青年 (35)\n"
        "- Pitch: 60 (正常)\n"
        "- Speaking rate: 80 (快)\n"
        "- Volume: loud, 75\n"
        "- Emotion: 开心 85，中性 10\n"
        "Speaking rate: 20 (slow)\n"  # a later restatement does not overwrite the first
        "Final score: [[3]]"
    )
    attributes = parse_judgement(reply).attributes
    assert attributes["gender"] == {"value": "female", "stated": "女", "intensity": None}
    assert attributes["age"]["value"] == "young_adult"
    assert attributes["pitch"] == {"value": "normal", "stated": "60 (正常)", "intensity": 60}
    assert attributes["speed"] == {"value": "fast", "stated": "80 (快)", "intensity": 80}
    assert attributes["volume"]["value"] == "loud" and attributes["volume"]["intensity"] == 75
    assert attributes["emotion"]["value"] == "happy"
    assert attributes["emotion"]["intensities"] == {"happy": 85, "neutral": 10}


@pytest.mark.parametrize(
    ("line", "attribute", "value", "intensity"),
    [
        ("语速：85，快", "speed", "fast", 85),
        ("语速：非常快（95）", "speed", "very_fast", 95),
        ("- Speaking rate: 5 (非常慢)", "speed", "very_slow", 5),
        ("* **Speech rate:** Very fast (92)", "speed", "very_fast", 92),
        ("音高：低，30", "pitch", "low", 30),
        ("1. Pitch: very high (95)", "pitch", "very_high", 95),
        ("音量：洪亮 90", "volume", "very_loud", 90),
        ("- Volume: 轻声 (25)", "volume", "quiet", 25),
        ("性别：男", "gender", "male", None),
        ("- Gender: Male", "gender", "male", None),
        ("年龄：老年", "age", "elderly", None),
        ("- Age: middle-aged", "age", "middle_aged", None),
        ("情感：伤心 90", "emotion", "sad", 90),
        ("Speaking rate: 150", "speed", None, None),  # out of the 0–100 scale: no intensity
    ],
)
def test_attribute_lines(line: str, attribute: str, value: str | None, intensity: int | None) -> None:
    record = parse_attributes(line)[attribute]
    assert (record["value"], record["intensity"]) == (value, intensity)


def test_emotion_intensities_on_their_own_lines() -> None:
    reply = "- Emotion:\n  - 开心: 20\n  - 伤心: 85\n  - Angry: 5\n## Step 2\n- 开心: 99\n"
    emotion = parse_attributes(reply)["emotion"]
    assert emotion["intensities"] == {"happy": 20, "sad": 85, "angry": 5}
    assert emotion["value"] == "sad" and emotion["intensity"] == 85


def test_no_attribute_lines_give_an_empty_record() -> None:
    assert parse_judgement("Final score: [[4]]").attributes == {}
    assert parse_attributes("Agent: hello\nPitch accuracy is fine") == {}
