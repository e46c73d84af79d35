"""Running the benchmarks: the stage runner, its executors, and the spine every benchmark's run follows."""

from voxeval.run._benchmark import Benchmark, Plan, RunRequest, Scorer
from voxeval.run._config import RunSettings
from voxeval.run._driver import RunOptions, build_components, run_benchmark
from voxeval.run._executor import AsyncExecutor, Executor, ProcessExecutor, Task, Worker, executor_from_name
from voxeval.run._lock import RunLock
from voxeval.run._scoring import ScoredSet, score_predictions, write_score_outputs
from voxeval.run._stage import Stage, StageRun, run_stage

__all__ = [
    "AsyncExecutor",
    "Benchmark",
    "Executor",
    "Plan",
    "ProcessExecutor",
    "RunLock",
    "RunOptions",
    "RunRequest",
    "RunSettings",
    "ScoredSet",
    "Scorer",
    "Stage",
    "StageRun",
    "Task",
    "Worker",
    "build_components",
    "executor_from_name",
    "run_benchmark",
    "run_stage",
    "score_predictions",
    "write_score_outputs",
]
