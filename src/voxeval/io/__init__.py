"""Files voxeval writes: JSONL reading, atomic writes and append-only result logs (the lowest layer but errors)."""

from voxeval.io._files import check_size, read_bounded
from voxeval.io._jsonl import (
    MAX_LINE_BYTES,
    AppendLog,
    RowTooLong,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_jsonl,
    atomic_write_text,
    dumps,
    dumps_str,
    finite_or_none,
    read_json_object,
    read_jsonl,
    read_log,
)

__all__ = [
    "MAX_LINE_BYTES",
    "AppendLog",
    "RowTooLong",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_jsonl",
    "atomic_write_text",
    "check_size",
    "dumps",
    "dumps_str",
    "finite_or_none",
    "read_bounded",
    "read_json_object",
    "read_jsonl",
    "read_log",
]
