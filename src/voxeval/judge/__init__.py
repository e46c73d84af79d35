"""Style judges: the spec's audio-LLM judge and the offline acoustic judge."""

from voxeval.judge._protocol import StyleJudge, judge_from_spec, judges
from voxeval.judge._types import (
    ABILITY_WEIGHTS_ACOUSTIC,
    ATTRIBUTES,
    LEVELS,
    ORDINAL,
    SEED_VALUES_ZH,
    Attribute,
    Judgement,
    StyleItem,
)

__all__ = [
    "ABILITY_WEIGHTS_ACOUSTIC",
    "ATTRIBUTES",
    "LEVELS",
    "ORDINAL",
    "SEED_VALUES_ZH",
    "Attribute",
    "Judgement",
    "StyleItem",
    "StyleJudge",
    "judge_from_spec",
    "judges",
]
