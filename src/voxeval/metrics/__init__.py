"""Dialogue-act metrics of the spec (Weighted LCS, the weighted edit distance) and voxeval's gold coverage.

Every metric takes ``(gold, pred)`` in that order; the batch versions give bit-identical numbers over arrays.
"""

from voxeval.metrics._aggregate import SampleScore, Summary, score_sample, summarise, summary_of
from voxeval.metrics._batch import BatchScores, PaddedActs, pad, score_batch
from voxeval.metrics._content import (
    ContentScore,
    ContentSummary,
    content_wed,
    content_wlcs,
    score_content,
    summarise_content,
)
from voxeval.metrics._ppi import PPIEstimate, ppi_from_scores, ppi_mean, ppi_paired
from voxeval.metrics._rows import BatchRows, batch_rows
from voxeval.metrics._wed import EditOp, EditResult, weighted_edit_distance
from voxeval.metrics._wlcs import gold_coverage, weighted_lcs

__all__ = [
    "BatchRows",
    "BatchScores",
    "ContentScore",
    "ContentSummary",
    "EditOp",
    "EditResult",
    "PPIEstimate",
    "PaddedActs",
    "SampleScore",
    "Summary",
    "batch_rows",
    "content_wed",
    "content_wlcs",
    "gold_coverage",
    "pad",
    "ppi_from_scores",
    "ppi_mean",
    "ppi_paired",
    "score_batch",
    "score_content",
    "score_sample",
    "summarise",
    "summarise_content",
    "summary_of",
    "weighted_edit_distance",
    "weighted_lcs",
]
