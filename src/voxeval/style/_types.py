"""Style attributes and levels (spec 002's attribute set), style items, and judgements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

Attribute = Literal["gender", "age", "pitch", "speed", "volume", "emotion"]
"""An acoustic attribute of the spec's attribute set (``speed`` = speaking rate)."""

ATTRIBUTES: tuple[Attribute, ...] = get_args(Attribute)

LEVELS: dict[str, tuple[str, ...]] = {
    "gender": ("male", "female"),
    "age": ("child", "teenager", "young_adult", "middle_aged", "elderly"),
    "pitch": ("very_low", "low", "normal", "high", "very_high"),
    "speed": ("very_slow", "slow", "normal", "fast", "very_fast"),
    "volume": ("very_quiet", "quiet", "normal", "loud", "very_loud"),
    "emotion": ("neutral", "happy", "sad", "angry", "surprised", "fearful", "disgusted"),
}
"""Canonical level keys per attribute; ordinal attributes are listed from low to high."""

ORDINAL = ("pitch", "speed", "volume", "age")
"""Attributes whose levels are ordered (a one-level miss is "partly" met)."""

SEED_VALUES_ZH: dict[str, dict[str, str]] = {
    "gender": {"male": "男", "female": "女"},
    "age": {"child": "儿童", "teenager": "青少年", "young_adult": "青年", "middle_aged": "中年", "elderly": "老年"},
    "pitch": {"very_low": "非常低", "low": "低", "normal": "正常", "high": "高", "very_high": "非常高"},
    "speed": {"very_slow": "非常慢", "slow": "慢", "normal": "正常", "fast": "快", "very_fast": "非常快"},
    "volume": {"very_quiet": "非常轻", "quiet": "轻声", "normal": "正常", "loud": "大声", "very_loud": "洪亮"},
    "emotion": {"neutral": "中性", "happy": "开心", "sad": "伤心", "angry": "生气", "surprised": "惊讶",
                "fearful": "害怕", "disgusted": "厌恶"},
}  # fmt: skip
"""The seed prompt's (Chinese) value for each canonical level."""

ABILITY_WEIGHTS_ACOUSTIC: dict[str, float] = {
    "composite_properties": 0.125,
    **{a: 0.125 / 6 for a in ("age", "gender", "pitch", "speed", "volume", "emotion")},
}
"""VStyle's weights inside the acoustic-attributes category (the category itself weighs 0.25)."""

Status = Literal["ok", "failed", "not_measured"]


@dataclass(frozen=True)
class StyleItem:
    """One style task and, when judged, the response to it (VStyle's result row, plus structured requirements)."""

    id: str
    """Response id (VStyle ``id``) or instruction id for built-in sets."""
    ability: str
    """``category/sub``, e.g. ``acoustic_attributes/pitch``."""
    instruction: str
    """The instruction text (VStyle ``instruct_text``)."""
    language: str = "en"
    """``en``, ``zh`` or ``ja``."""
    content: str = ""
    """The exact content the reply must speak (empty when only the instruction text is known)."""
    content_check: Literal["exact", "open", "unknown"] = "unknown"
    """``exact``: the reply must speak ``content``; ``open``: free content; ``unknown``: not stated."""
    requirements: dict[str, str] = field(default_factory=dict)
    """Attribute → canonical level (parsed from the instruction when the data has only text)."""
    instruct_id: str | None = None
    """VStyle ``instruct_id``: the instruction shared by several models' responses."""
    model_name: str | None = None
    """VStyle ``model_name``: the system that produced the response."""
    response_audio: str | None = None
    """Path of the response audio relative to the data root."""
    response_text: str | None = None
    """The response's text, when the system reported one."""

    @property
    def category(self) -> str:
        """``acoustic_attributes``, ``instruction``, ``role_play`` or ``empathy``."""
        return self.ability.split("/", 1)[0]

    @property
    def sub_ability(self) -> str:
        """The part after the slash, e.g. ``pitch``."""
        return self.ability.split("/", 1)[-1]


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict on one response."""

    id: str
    """Response id."""
    ability: str
    """Ability of the item."""
    score: int | None
    """1–5, or None when the judge failed or could not measure the requirement."""
    status: Status
    """``ok``, ``failed`` (excluded from means, listed) or ``not_measured`` (counts against coverage)."""
    judge: str
    """Judge name (spec)."""
    model_name: str | None = None
    """System that produced the response."""
    attributes: dict[str, Any] = field(default_factory=dict)
    """Measured (acoustic) or stated (LLM judge) attribute values and 0–100 intensities."""
    raw: str | None = None
    """The judge's raw text (LLM judge), kept for audit."""
    reason: str = ""
    """Why this score: the rubric step that decided it, or why it failed / was not measured."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Model version, prompt hash, repeats, timings."""

    def to_json(self) -> dict[str, Any]:
        """The row written to ``judgements.jsonl``."""
        return {
            "id": self.id,
            "model_name": self.model_name,
            "ability": self.ability,
            "score": self.score,
            "status": self.status,
            "attributes": self.attributes,
            "raw": self.raw,
            "reason": self.reason,
            "judge": self.judge,
            **({"meta": self.meta} if self.meta else {}),
        }
