"""Dialogue-act metrics of the spec: Weighted LCS and the weighted edit distance (WED), as pure functions."""

from voxeval.metrics._aggregate import SampleScore, Summary, score_sample, summarise
from voxeval.metrics._wed import EditOp, EditResult, weighted_edit_distance
from voxeval.metrics._wlcs import weighted_lcs

__all__ = [
    "EditOp",
    "EditResult",
    "SampleScore",
    "Summary",
    "score_sample",
    "summarise",
    "weighted_edit_distance",
    "weighted_lcs",
]
