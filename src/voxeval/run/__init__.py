"""Running the benchmarks: scoring predictions and the resumable evaluation pipeline."""

from voxeval.run._config import RunSettings
from voxeval.run._pipeline import RunOptions, run_da, score_run
from voxeval.run._scoring import ScoredSet, score_predictions, write_score_outputs

__all__ = ["RunOptions", "RunSettings", "ScoredSet", "run_da", "score_predictions", "score_run", "write_score_outputs"]
