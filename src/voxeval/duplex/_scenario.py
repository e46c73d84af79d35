"""Scenarios: typed plans of what the user says and when, generated deterministically from a seed and the samples.

A plan names audio (a sample's own input audio, or text to synthesise) and places each segment's *speech onset*
(not the clip's first sample: input clips carry 120 ms of silence at both ends) relative to an anchor, so that a
planned pause is the silence between the two stretches of speech, exactly.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from voxeval.duplex._split import Boundary, split_request
from voxeval.io._keys import key_part, sample_key

if TYPE_CHECKING:
    from voxeval.data import Dataset

ScenarioKind = Literal["end_of_turn", "pause", "interruption", "backchannel"]
"""The four scenarios of issue 42."""
SegmentRole = Literal["request", "request_head", "request_tail", "interruption", "backchannel"]
"""What a segment is in its scenario."""
Anchor = Literal["start", "previous_offset", "reply_onset"]
"""What a segment's send time is counted from: the session's t0; the end of the previous segment's speech; the
model's first audio after the previous segment's speech ended (the segment is not sent if no reply comes)."""

KINDS: tuple[ScenarioKind, ...] = ("end_of_turn", "pause", "interruption", "backchannel")
"""Every scenario, in the order reports list them."""
LEAD_IN_S = 0.5
"""Silence streamed before the first speech, so server-side VAD has heard the (digital) noise floor."""
PAUSE_S = (1.0, 2.5)
"""The range a pause's length is drawn from (uniform, 10 ms steps), as in Full-Duplex-Bench."""
INTERRUPT_AFTER_S = (1.0, 2.0)
"""How far into the model's reply the interrupting request starts (uniform, 10 ms steps)."""
BACKCHANNEL_AFTER_S = (1.0, 2.0)
"""How far into the model's reply the backchannel starts (uniform, 10 ms steps): early, so that the reply is still
going when it ends (a reply that ends on its own right after a backchannel is hard to tell from one that stopped)."""
BACKCHANNELS: dict[str, tuple[str, ...]] = {
    "ja": ("うん", "はい"),
    "en": ("uh-huh", "mm-hmm"),
    "zh": ("嗯", "对"),
}
"""Backchannel clips per language (synthesised with the language's input voice)."""


@dataclass(frozen=True)
class ScenarioSource:
    """One dataset sample a scenario can be built from."""

    dataset: str
    """Dataset name."""
    sample_id: str
    """Sample id."""
    language: str
    """ISO 639-1 code (``ja``, ``en``, ``zh``)."""
    text: str
    """The request's text (what its input audio says)."""


def scenario_sources(datasets: Sequence[Dataset]) -> list[ScenarioSource]:
    """Every sample of the datasets as a scenario source (the language from each sample's ``input.locale``)."""
    return [ScenarioSource(d.name, s.id, s.language, s.input_text) for d in datasets for s in d.samples]


@dataclass(frozen=True)
class InputAudio:
    """A sample's own input audio, as the run's inputs stage made it (``inputs.jsonl``)."""

    dataset: str
    """Dataset name."""
    sample_id: str
    """Sample id."""


@dataclass(frozen=True)
class SpokenText:
    """Text to synthesise with the language's input voice, into the input format (24 kHz mono 16-bit WAV)."""

    text: str
    """What to say."""
    language: str
    """ISO 639-1 code; chooses the engine as the inputs stage does."""


@dataclass(frozen=True)
class SendAt:
    """When a segment's speech starts: ``offset_s`` after ``anchor``."""

    anchor: Anchor
    """What the offset counts from."""
    offset_s: float
    """Seconds after the anchor (≥ 0)."""


@dataclass(frozen=True)
class Segment:
    """One stretch of user audio and when its speech starts."""

    role: SegmentRole
    """What it is."""
    audio: InputAudio | SpokenText
    """Where its audio comes from."""
    send: SendAt
    """When its speech starts."""


@dataclass(frozen=True)
class Scenario:
    """A typed plan of one streamed session."""

    id: str
    """Stable id: ``kind/dataset/sample_id/seed``, names escaped as run keys are (``/`` → ``%2F``)."""
    kind: ScenarioKind
    """Which scenario."""
    dataset: str
    """Dataset of the sample."""
    sample_id: str
    """The sample the scenario is built on."""
    language: str
    """Its language."""
    seed: int
    """The seed it was drawn with."""
    segments: tuple[Segment, ...]
    """What the user says, in order."""
    reference_id: str
    """The sample whose reference the scored reply is compared with (the second request's, for an interruption)."""
    boundary: Boundary | None = None
    """For a pause: what kind of boundary the request was cut at."""


def session_key(system: str, scenario: Scenario) -> str:
    """The key of a session record: the system, then the scenario's id (one file may hold several systems).

    >>> session_key("realtime:openai:gpt-realtime", end_of_turn(ScenarioSource("ja", "v1/t-1", "ja", "x"), 0))
    'realtime:openai:gpt-realtime/end_of_turn/ja/v1%2Ft-1/0'
    """
    return f"{key_part(system)}/{scenario.id}"


def _rng(seed: int, kind: str, source: ScenarioSource) -> random.Random:
    # Seeded per scenario, not per run: adding or removing samples never changes another sample's draw.
    return random.Random(f"{seed}/{kind}/{sample_key(source.dataset, source.sample_id)}")


def _draw(rng: random.Random, bounds: tuple[float, float]) -> float:
    low, high = bounds
    return round(rng.randint(0, round((high - low) * 100)) / 100 + low, 2)


def _scenario(
    kind: ScenarioKind,
    source: ScenarioSource,
    seed: int,
    segments: list[Segment],
    reference_id: str | None = None,
    boundary: Boundary | None = None,
) -> Scenario:
    ident = f"{kind}/{sample_key(source.dataset, source.sample_id)}/{seed}"
    reference = reference_id or source.sample_id
    return Scenario(
        ident, kind, source.dataset, source.sample_id, source.language, seed, tuple(segments), reference, boundary
    )


def _request(source: ScenarioSource) -> Segment:
    return Segment("request", InputAudio(source.dataset, source.sample_id), SendAt("start", LEAD_IN_S))


def end_of_turn(source: ScenarioSource, seed: int) -> Scenario:
    """The whole request, then silence until the model answers (or the timeout)."""
    return _scenario("end_of_turn", source, seed, [_request(source)])


def pause(source: ScenarioSource, seed: int) -> Scenario | None:
    """The request cut at a clause boundary, both halves synthesised, with a 1.0–2.5 s silence between their
    speech; ``None`` when the text has no boundary to cut at (see :func:`~voxeval.duplex.split_request`)."""
    split = split_request(source.text, source.language)
    if split is None:
        return None
    silence = _draw(_rng(seed, "pause", source), PAUSE_S)
    head = Segment("request_head", SpokenText(split.head, source.language), SendAt("start", LEAD_IN_S))
    tail = Segment("request_tail", SpokenText(split.tail, source.language), SendAt("previous_offset", silence))
    return _scenario("pause", source, seed, [head, tail], boundary=split.boundary)


def interruption(source: ScenarioSource, second: ScenarioSource, seed: int) -> Scenario:
    """The request; then, 1.0–2.0 s into the model's reply, another sample's request, whose reference the final
    reply is scored against."""
    after = _draw(_rng(seed, "interruption", source), INTERRUPT_AFTER_S)
    cut_in = Segment("interruption", InputAudio(second.dataset, second.sample_id), SendAt("reply_onset", after))
    return _scenario("interruption", source, seed, [_request(source), cut_in], reference_id=second.sample_id)


def backchannel(source: ScenarioSource, seed: int) -> Scenario | None:
    """The request; then, 1.0–2.0 s into the model's reply, a backchannel (「うん」, "uh-huh", 「嗯」…);
    ``None`` for a language without backchannel clips."""
    clips = BACKCHANNELS.get(source.language)
    if not clips:
        return None
    rng = _rng(seed, "backchannel", source)
    after, clip = _draw(rng, BACKCHANNEL_AFTER_S), rng.choice(clips)
    nod = Segment("backchannel", SpokenText(clip, source.language), SendAt("reply_onset", after))
    return _scenario("backchannel", source, seed, [_request(source), nod])


@dataclass(frozen=True)
class Skipped:
    """A sample a scenario could not be built from, and why (listed in the report, never silently dropped)."""

    kind: ScenarioKind
    """The scenario."""
    dataset: str
    """Dataset name."""
    sample_id: str
    """Sample id."""
    reason: str
    """Why."""


def _second_request(source: ScenarioSource, sources: Sequence[ScenarioSource], seed: int) -> ScenarioSource | None:
    """The interrupting request: the other sample of the same dataset and language with the lowest hash of
    (seed, this sample, that sample). Rendezvous hashing: adding a sample changes a pick only to that sample."""
    others = [
        s
        for s in sources
        if (s.dataset, s.language) == (source.dataset, source.language) and s.sample_id != source.sample_id
    ]
    mine = sample_key(source.dataset, source.sample_id)

    def weight(other: ScenarioSource) -> str:
        return hashlib.sha256(f"{seed}/{mine}/{sample_key(other.dataset, other.sample_id)}".encode()).hexdigest()

    return min(others, key=weight, default=None)


def generate(
    sources: Sequence[ScenarioSource], kinds: Sequence[ScenarioKind], seed: int
) -> tuple[list[Scenario], list[Skipped]]:
    """Every scenario of ``kinds`` for every source; the same inputs and seed always give the same plans.

    The interrupting request is another sample of the same dataset and language, drawn by the seed.
    """
    scenarios: list[Scenario] = []
    skipped: list[Skipped] = []
    for kind in kinds:
        for source in sources:
            made: Scenario | None
            reason = ""
            if kind == "end_of_turn":
                made = end_of_turn(source, seed)
            elif kind == "pause":
                made, reason = pause(source, seed), "no clause or phrase boundary to pause at"
            elif kind == "backchannel":
                made, reason = backchannel(source, seed), f"no backchannel clips for language {source.language!r}"
            else:
                pick = _second_request(source, sources, seed)
                made = interruption(source, pick, seed) if pick else None
                reason = "no other sample of the same dataset and language to interrupt with"
            if made is None:
                skipped.append(Skipped(kind, source.dataset, source.sample_id, reason))
            else:
                scenarios.append(made)
    return scenarios, skipped
