"""The style benchmark's data: style items and judgements, built-in style sets, VStyle files, instruction parsing.

Judges (:mod:`voxeval.judge`) score a reply to a :class:`StyleItem`; VStyle's weighting of their judgements is a
metric (:mod:`voxeval.metrics._vstyle`).
"""

from voxeval.style._requirements import parse_requirements
from voxeval.style._sets import StyleSet, builtin_style_sets, load_style_set, parse_style_row
from voxeval.style._task import Task, read_task, style_text
from voxeval.style._types import (
    ABILITY_WEIGHTS_ACOUSTIC,
    ATTRIBUTES,
    LEVELS,
    ORDINAL,
    SEED_VALUES_ZH,
    Attribute,
    Judgement,
    Status,
    StyleItem,
)
from voxeval.style._vstyle import detect_language, parse_vstyle_row, read_response_audio, read_vstyle

__all__ = [
    "ABILITY_WEIGHTS_ACOUSTIC",
    "ATTRIBUTES",
    "LEVELS",
    "ORDINAL",
    "SEED_VALUES_ZH",
    "Attribute",
    "Judgement",
    "Status",
    "StyleItem",
    "StyleSet",
    "Task",
    "builtin_style_sets",
    "detect_language",
    "load_style_set",
    "parse_requirements",
    "parse_style_row",
    "parse_vstyle_row",
    "read_response_audio",
    "read_task",
    "read_vstyle",
    "style_text",
]
