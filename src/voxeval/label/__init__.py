"""Human judgements: the ``voxeval label`` browser app, its judgement files, agreement and export."""

from voxeval.label._items import LabelItem, Task, check_labeller, load_file_items, load_run_items, order_seed
from voxeval.label._study import Study, active_rows, read_judgements
from voxeval.label._submit import Submission, SubmissionError, check_submission

__all__ = [
    "LabelItem",
    "Study",
    "Submission",
    "SubmissionError",
    "Task",
    "active_rows",
    "check_labeller",
    "check_submission",
    "load_file_items",
    "load_run_items",
    "order_seed",
    "read_judgements",
]
