"""Running the benchmarks: scoring predictions and (later) the resumable evaluation pipeline."""

from voxeval.run._scoring import ScoredSet, score_predictions, write_score_outputs

__all__ = ["ScoredSet", "score_predictions", "write_score_outputs"]
