"""The acoustic judge: registry, rubric wiring, batches, failures, and one real end-to-end judgement."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from voxeval.errors import ConfigError
from voxeval.judge import StyleItem, judge_from_spec
from voxeval.judge._acoustic import AcousticJudge
from voxeval.speech.acoustics import THRESHOLDS, naturalness_model
from voxeval.speech.asr import Transcript
from voxeval.speech.audio import apply_gain, encode_wav, quantize_int16, to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec

TEXT = "今日は天気が良いので、公園を散歩しましょう。"


class FakeASR:
    """Always hears the same text; language ID as given."""

    name = "fake"

    def __init__(self, text: str = TEXT, language: str = "ja", probability: float = 0.99) -> None:
        self.text, self.language, self.probability = text, language, probability
        self.calls: list[str | None] = []
        self.batches: list[tuple[int, str | None]] = []
        """(clips, language) of each ``transcribe_batch`` call."""

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        self.calls.append(language)
        return Transcript(self.text, language or self.language, None if language else self.probability, 3.0)

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        self.batches.append((len(wavs), language))
        return [self.transcribe(w, language) for w in wavs]

    def describe(self) -> dict[str, Any]:
        return {"asr": self.name}


@pytest.fixture(scope="module")
def clip() -> bytes:
    return to_input_format(engine_from_spec("pyopenjtalk").synthesize(TEXT, VoiceStyle()))


def _item(**kw: Any) -> StyleItem:
    base: dict[str, Any] = {
        "id": "r1",
        "ability": "acoustic_attributes/gender",
        "instruction": "用女声说",
        "language": "ja",
        "content": TEXT,
        "content_check": "exact",
        "requirements": {"gender": "female"},
        "model_name": "sys",
    }
    return StyleItem(**(base | kw))


def _judge(item: StyleItem, audio: bytes, asr: Any = None) -> Any:
    return asyncio.run(AcousticJudge(asr or FakeASR()).judge(item, audio))


def test_registered_as_acoustic() -> None:
    judge = judge_from_spec("acoustic", asr=FakeASR())
    assert isinstance(judge, AcousticJudge) and judge.concurrency == 1 and judge.pitch_reference == "absolute"
    assert judge_from_spec("acoustic:gender", asr=FakeASR()).pitch_reference == "gender"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError):
        judge_from_spec("acoustic:semitones")
    with pytest.raises(ConfigError, match="unknown option"):
        judge_from_spec("acoustic", temperature=0)


def test_met_requirement_reaches_the_naturalness_step(clip: bytes) -> None:
    j = _judge(_item(), clip)
    assert j.status == "ok" and j.score in (4, 5), j.reason
    assert j.attributes["requirements"]["gender"] == {"required": "female", "measured": "female", "verdict": "met"}
    assert j.attributes["content"]["verdict"] == "compliant"
    assert "step 6" in j.reason and j.judge == "acoustic"


def test_wrong_language_scores_1(clip: bytes) -> None:
    asr = FakeASR("The weather is nice today.", language="en", probability=0.97)
    j = _judge(_item(), clip, asr)
    assert (j.score, j.attributes["step"]) == (1, "language")
    assert asr.calls == [None, "ja"]  # language ID first, then decoded in the expected language


def test_content_not_spoken_scores_1(clip: bytes) -> None:
    j = _judge(_item(), clip, FakeASR("明日は雨が降ります。"))
    assert j.score == 1 and "step 4" in j.reason


def test_open_task_is_not_checked_and_says_so(clip: bytes) -> None:
    j = _judge(_item(content_check="open", content=""), clip)
    assert j.attributes["content"]["verdict"] == "not_checked"
    assert "content not checked" in j.reason


@pytest.mark.parametrize(
    ("requirements", "verdict"),
    [({"emotion": "happy"}, "not_measured"), ({"age": "elderly"}, "not_measured"), ({"age": "child"}, "not_met")],
)
def test_unmeasurable_requirements(clip: bytes, requirements: dict[str, str], verdict: str) -> None:
    j = _judge(_item(requirements=requirements), clip)
    attribute = next(iter(requirements))
    assert j.attributes["requirements"][attribute]["verdict"] == verdict
    if verdict == "not_measured":
        assert (j.score, j.status) == (None, "not_measured")
        assert attribute in j.reason


@pytest.mark.parametrize(
    ("ability", "requirements", "key", "words"),
    [
        ("acoustic_attributes/pitch", {}, "pitch", "could not be read"),  # the parser found no pitch level
        ("acoustic_attributes/composite_properties", {"gender": "female"}, "composite", "fewer than two"),
        ("role_play/character", {"gender": "female"}, "role_play", "not measurable offline"),
        ("empathy/anger", {}, "empathy", "not measurable offline"),
        ("instruction/style", {}, "instruction", "not measurable offline"),
    ],
)  # fmt: skip
def test_requirements_the_ability_implies_but_were_not_read_are_not_guessed(
    clip: bytes, ability: str, requirements: dict[str, str], key: str, words: str
) -> None:
    """Scoring such an item on the requirements read (here: met) would be a guess: it is not measured."""
    j = _judge(_item(ability=ability, requirements=requirements), clip)
    assert (j.score, j.status) == (None, "not_measured"), j.reason
    assert words in j.attributes["requirements"][key]["note"]


def test_an_unmeasurable_category_still_fails_on_content(clip: bytes) -> None:
    j = _judge(_item(ability="role_play/character", requirements={}, content="全然違う文です。"), clip)
    assert (j.score, j.attributes["step"]) == (1, "content")


def test_opposite_gender_scores_2(clip: bytes) -> None:
    j = _judge(_item(requirements={"gender": "male"}), clip)
    assert j.score == 2 and j.attributes["measured"]["gender"]["level"] == "female"


def test_silent_reply_does_not_address_the_instruction() -> None:
    silent = encode_wav(np.zeros(24_000, dtype="<i2"), 24_000)
    j = _judge(_item(), silent)
    assert (j.score, j.status) == (1, "ok") and "silent" in j.reason


def test_unreadable_audio_is_a_failed_judgement() -> None:
    j = _judge(_item(), b"not audio at all")
    assert (j.score, j.status) == (None, "failed") and "not analysable" in j.reason


def test_batch_judges_volume_relative_to_the_models_median(clip: bytes) -> None:
    audio = engine_from_spec("pyopenjtalk").synthesize(TEXT, VoiceStyle())
    replies = [(_item(id=f"n{i}", requirements={"volume": "normal"}), clip) for i in range(5)]
    soft = to_input_format(apply_gain(audio, -15.0))
    replies.append((_item(id="soft", requirements={"volume": "quiet"}), soft))
    judgements = asyncio.run(AcousticJudge(FakeASR()).judge_batch(replies))
    by_id = {j.id: j for j in judgements}
    assert "median" in by_id["soft"].attributes["volume_reference"]
    assert by_id["soft"].attributes["measured"]["volume"]["level"] in ("quiet", "very_quiet")
    assert all(by_id[f"n{i}"].attributes["measured"]["volume"]["level"] == "normal" for i in range(5))
    alone = _judge(_item(requirements={"volume": "quiet"}), soft)
    assert "absolute" in alone.attributes["volume_reference"]


def test_batch_pitch_relative_to_the_models_own_voice(clip: bytes) -> None:
    higher = to_input_format(engine_from_spec("pyopenjtalk").synthesize(TEXT, VoiceStyle(pitch_semitones=8.0)))
    replies = [(_item(id=f"n{i}", requirements={"pitch": "normal"}), clip) for i in range(5)]
    replies.append((_item(id="high", requirements={"pitch": "very_high"}), higher))
    judge = AcousticJudge(FakeASR(), pitch_reference="model")
    by_id = {j.id: j for j in asyncio.run(judge.judge_batch(replies))}
    assert by_id["high"].attributes["measured"]["pitch"]["level"] == "very_high"
    assert by_id["n0"].attributes["measured"]["pitch"]["level"] == "normal"
    assert "model median" in by_id["high"].attributes["measured"]["pitch"]["basis"]


def test_describe_records_thresholds_and_asr() -> None:
    info = AcousticJudge(FakeASR()).describe()
    assert info["judge"] == "acoustic" and info["asr"] == {"asr": "fake"}
    assert info["thresholds"]["gender_f0_cut_hz"] == THRESHOLDS.gender_f0_cut_hz
    calibration = info["calibration"]
    assert len(calibration["real_speech_data_sha256"]) == 64 and len(calibration["naturalness_data_sha256"]) == 64
    assert calibration["naturalness_threshold"] == naturalness_model().threshold


def test_end_to_end_with_offline_asr() -> None:
    """A clip synthesised fast and high: real Whisper, real measurements, one judgement."""
    audio = engine_from_spec("pyopenjtalk").synthesize(TEXT, VoiceStyle(rate=1.6))
    wav = encode_wav(quantize_int16(audio.samples), audio.sample_rate)
    item = _item(requirements={"speed": "very_fast", "gender": "female"})
    j = asyncio.run(judge_from_spec("acoustic").judge(item, wav))
    assert j.status == "ok", j.reason
    assert j.attributes["detected_language"] == "ja"
    assert j.attributes["content"]["verdict"] == "compliant", j.attributes["transcript"]
    # ×1.6 in Open JTalk is about ×1.3 measured: above the norm, but "fast" starts at ×1.33 on the real-speech cuts.
    assert j.attributes["measured"]["speed"]["intensity"] > 55
    assert j.attributes["measured"]["speed"]["level"] in ("normal", "fast", "very_fast")
    assert j.score is not None and j.score >= 2


def test_asr_failure_is_a_failed_judgement(clip: bytes) -> None:
    class BrokenASR(FakeASR):
        def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
            raise RuntimeError("decoder crashed")

    j = _judge(_item(), clip, BrokenASR())
    assert (j.score, j.status) == (None, "failed") and "decoder crashed" in j.reason


def test_batch_transcribes_in_batches_and_forces_only_the_disagreeing_language(clip: bytes) -> None:
    asr = FakeASR("The weather is nice today.", language="en")
    replies = [(_item(id=f"r{i}"), clip) for i in range(3)]
    replies.append((_item(id="en", language="en", content="The weather is nice today."), clip))
    replies.append((_item(id="bad"), b"not audio at all"))  # fails before the ASR: not in the batch
    by_id = {j.id: j for j in asyncio.run(AcousticJudge(asr).judge_batch(replies))}
    assert asr.batches == [(4, None), (3, "ja")]  # one language-ID pass, one forced pass for the ja items
    assert [by_id[f"r{i}"].attributes["asr_forced_language"] for i in range(3)] == [True] * 3
    assert by_id["en"].attributes["asr_forced_language"] is False
    assert by_id["bad"].status == "failed" and "not analysable" in by_id["bad"].reason


def test_batch_and_one_by_one_agree(clip: bytes) -> None:
    replies = [(_item(id=f"r{i}", requirements={"speed": "normal"}), clip) for i in range(2)]
    batch = asyncio.run(AcousticJudge(FakeASR()).judge_batch(replies))
    alone = [_judge(item, audio) for item, audio in replies]
    drop = {"analysis_s"}
    assert [(j.score, j.status, j.attributes) for j in batch] == [(j.score, j.status, j.attributes) for j in alone]
    assert all(set(j.meta) - drop == set(a.meta) - drop for j, a in zip(batch, alone, strict=True))


def test_a_failing_batch_fails_only_the_reply_that_breaks_the_asr(clip: bytes) -> None:
    broken = to_input_format(engine_from_spec("pyopenjtalk").synthesize(TEXT, VoiceStyle(rate=1.2)))

    class PickyASR(FakeASR):
        def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
            if wav == broken:
                raise RuntimeError("decoder crashed")
            return super().transcribe(wav, language)

    replies = [(_item(id="ok"), clip), (_item(id="broken"), broken)]
    by_id = {j.id: j for j in asyncio.run(AcousticJudge(PickyASR()).judge_batch(replies))}
    assert by_id["ok"].status == "ok"
    assert by_id["broken"].status == "failed" and "decoder crashed" in by_id["broken"].reason
