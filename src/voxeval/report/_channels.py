"""Spoken versus text channel: how often and how much what a system said differs from the text it gave (pure).

Built from reply rows as a dialogue-act run scores them (:func:`voxeval.run._reply_asr.scored_reply`): the model's
own text (``model_text``) against voxeval's ASR transcript of the reply audio (``asr_text``), by character error
rate with the model's text as the reference. The CER includes the reply ASR's own errors, so a small CER is what
an honest speaker gets; a large one means the channels say different things.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from voxeval.report._stats import Interval, bootstrap_ci
from voxeval.speech.asr import character_error_rate

DIFFER_CER = 0.2
"""A pair whose CER is above this counts as the channels saying different things."""
MAX_CHARS = 2000
"""Texts are compared on their first this many characters (CER is quadratic in the length)."""
EXAMPLES = 3
"""Pairs shown per system, the largest CER first."""


@dataclass(frozen=True)
class ChannelPair:
    """One reply with both channels."""

    dataset: str
    """Dataset name."""
    id: str
    """Sample id."""
    model_text: str
    """The model's own text."""
    asr_text: str
    """What voxeval's ASR heard in the reply audio."""
    cer: float
    """CER of ``asr_text`` against ``model_text`` (punctuation ignored)."""


@dataclass(frozen=True)
class ChannelSummary:
    """One system's channel agreement."""

    system: str
    """System name."""
    pairs: int
    """Replies with model text and transcribed audio."""
    speech_only: int
    """Replies with transcribed audio and no model text."""
    cer: Interval | None
    """Mean CER with its bootstrap CI (``None``: no pairs)."""
    differing: int
    """Pairs with CER > 0 (any difference)."""
    far: int
    """Pairs with CER > :data:`DIFFER_CER`."""
    examples: tuple[ChannelPair, ...]
    """The pairs with the largest CER."""
    looped: int = 0
    """Replies whose transcript still loops after the reply ASR's recovery: left out of the pairs, counted here."""


def looped_replies(replies: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """Replies per system whose reply ASR transcript still loops (``asr_looped``)."""
    counts: dict[str, int] = {}
    for row in replies.values():
        if row.get("asr_looped"):
            counts[str(row.get("system"))] = counts.get(str(row.get("system")), 0) + 1
    return counts


def channel_pairs(replies: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[list[ChannelPair], int]]:
    """Pairs and speech-only counts per system (rows of failed replies, untranscribed audio and looped transcripts
    left out: a loop is the ASR's failure, not a difference between the channels)."""
    found: dict[str, tuple[list[ChannelPair], int]] = {}
    for row in sorted(replies.values(), key=lambda r: (str(r.get("dataset")), str(r.get("id")))):
        if not isinstance(row.get("asr_text"), str) or row.get("asr_looped"):
            continue
        pairs, speech_only = found.get(str(row.get("system")), ([], 0))
        model = str(row.get("model_text") or "").strip()
        if not model:
            speech_only += 1
        else:
            cer = character_error_rate(model[:MAX_CHARS], row["asr_text"][:MAX_CHARS])
            pairs.append(ChannelPair(str(row.get("dataset")), str(row.get("id")), model, row["asr_text"], cer))
        found[str(row.get("system"))] = (pairs, speech_only)
    return found


def channel_summaries(replies: Mapping[str, Mapping[str, Any]]) -> list[ChannelSummary]:
    """One summary per system whose replies had audio transcribed, by name."""
    out = []
    looped = looped_replies(replies)
    found = channel_pairs(replies)
    for system in sorted(set(found) | set(looped)):
        pairs, speech_only = found.get(system, ([], 0))
        cers = [p.cer for p in pairs]
        worst = sorted(pairs, key=lambda p: -p.cer)[:EXAMPLES]
        out.append(
            ChannelSummary(
                system,
                len(pairs),
                speech_only,
                bootstrap_ci(cers),
                sum(c > 0 for c in cers),
                sum(c > DIFFER_CER for c in cers),
                tuple(p for p in worst if p.cer > 0),
                looped.get(system, 0),
            )
        )
    return out


CHANNEL_HEAD = [
    "system", "pairs", "speech only", "mean CER [95% CI]", "differ (CER > 0)", f"far (CER > {DIFFER_CER})",
    "ASR looped",
]  # fmt: skip
"""Columns of the channel table."""


def channel_rows(summaries: list[ChannelSummary]) -> list[list[object]]:
    """The channel table's rows."""
    rows: list[list[object]] = []
    for s in summaries:
        cer = "—" if s.cer is None else f"{s.cer.mean:.3f} [{s.cer.low:.3f}, {s.cer.high:.3f}]"
        differ, far = _share(s.differing, s.pairs), _share(s.far, s.pairs)
        rows.append([s.system, s.pairs, s.speech_only, cer, differ, far, s.looped])
    return rows


def _share(count: int, total: int) -> str:
    return "—" if not total else f"{count} ({count / total:.0%})"


def example_rows(summaries: list[ChannelSummary]) -> list[list[object]]:
    """The examples: system, sample, CER, the two texts (cut to 120 characters)."""
    cut = lambda t: t if len(t) <= 120 else t[:119] + "…"  # noqa: E731
    return [[s.system, f"{p.dataset}/{p.id}", f"{p.cer:.2f}", cut(p.model_text), cut(p.asr_text)]
            for s in summaries for p in s.examples]  # fmt: skip


EXAMPLE_HEAD = ["system", "sample", "CER", "model text", "heard (reply ASR)"]
"""Columns of the example table."""

CHANNEL_NOTE = (
    "Model text = the text the system returned; heard = voxeval's ASR transcript of its reply audio. CER of the "
    f"heard text against the model text, punctuation ignored, on the first {MAX_CHARS} characters; it includes the "
    "reply ASR's own errors. Speech only = replies with audio and no text (scored through ASR with --reply-text "
    "speech, as empty with --reply-text model). ASR looped = replies whose transcript still loops after the reply "
    "ASR's recovery (Whisper's repetition loop, docs/speech.md): left out of the pairs and, with --reply-text speech, "
    "excluded from the scores and listed with the failures."
)
"""What the channel table means (shown under it)."""
