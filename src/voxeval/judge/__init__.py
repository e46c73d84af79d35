"""Style judges: the spec's audio-LLM judge and the offline acoustic judge.

The style items they judge live in :mod:`voxeval.style` and VStyle's weighting in :mod:`voxeval.metrics._vstyle`;
both are re-exported here for existing callers.
"""

from voxeval.judge._acoustic import AcousticJudge as AcousticJudge  # importing registers ``acoustic``
from voxeval.judge._judging import INSTRUCTION_TYPES, combine_repeats, instruction_type, prompt_for
from voxeval.judge._lalm import LalmJudge, audio_mime  # importing registers the ``lalm`` judge
from voxeval.judge._parse import JudgeParseError, ParsedJudgement, parse_attributes, parse_judgement
from voxeval.judge._protocol import EachReply, StyleJudge, judge_from_spec, judges
from voxeval.metrics._vstyle import (
    ABILITIES,
    ABILITY_WEIGHTS,
    TAXONOMY,
    Counts,
    GroupScore,
    VStyleScores,
    scores_by_model,
    vstyle_scores,
)
from voxeval.style import (
    ABILITY_WEIGHTS_ACOUSTIC,
    ATTRIBUTES,
    LEVELS,
    ORDINAL,
    SEED_VALUES_ZH,
    Attribute,
    Judgement,
    StyleItem,
    Task,
    detect_language,
    parse_requirements,
    parse_vstyle_row,
    read_response_audio,
    read_task,
    read_vstyle,
    style_text,
)

__all__ = [
    "ABILITIES",
    "ABILITY_WEIGHTS",
    "ABILITY_WEIGHTS_ACOUSTIC",
    "ATTRIBUTES",
    "INSTRUCTION_TYPES",
    "LEVELS",
    "ORDINAL",
    "SEED_VALUES_ZH",
    "TAXONOMY",
    "AcousticJudge",
    "Attribute",
    "Counts",
    "EachReply",
    "GroupScore",
    "JudgeParseError",
    "Judgement",
    "LalmJudge",
    "ParsedJudgement",
    "StyleItem",
    "StyleJudge",
    "Task",
    "VStyleScores",
    "audio_mime",
    "combine_repeats",
    "detect_language",
    "instruction_type",
    "judge_from_spec",
    "judges",
    "parse_attributes",
    "parse_judgement",
    "parse_requirements",
    "parse_vstyle_row",
    "prompt_for",
    "read_response_audio",
    "read_task",
    "read_vstyle",
    "scores_by_model",
    "style_text",
    "vstyle_scores",
]
