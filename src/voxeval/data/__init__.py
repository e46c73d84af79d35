"""Datasets: the paper's row schema and the built-in data (JSONL files and logs: :mod:`voxeval.io`, re-exported)."""

from voxeval.data._builtin import Dataset, builtin_names, builtin_path, dataset_language, resolve_dataset
from voxeval.data._dialogue import (
    PHENOMENA,
    AssistantTurn,
    Dialogue,
    UserTurn,
    load_dialogues,
    parse_dialogue,
    turn_samples,
)
from voxeval.data._load import load_gold, load_predictions
from voxeval.data._paths import resolve_inside
from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_id, parse_prediction
from voxeval.io import (
    AppendLog,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_jsonl,
    atomic_write_text,
    dumps,
    read_jsonl,
    read_log,
)

__all__ = [
    "PHENOMENA",
    "AppendLog",
    "AssistantTurn",
    "Dataset",
    "Dialogue",
    "GoldSample",
    "Prediction",
    "UserTurn",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_jsonl",
    "atomic_write_text",
    "builtin_names",
    "builtin_path",
    "dataset_language",
    "dumps",
    "load_dialogues",
    "load_gold",
    "load_predictions",
    "parse_dialogue",
    "parse_gold",
    "parse_id",
    "parse_prediction",
    "read_jsonl",
    "read_log",
    "resolve_dataset",
    "resolve_inside",
    "turn_samples",
]
