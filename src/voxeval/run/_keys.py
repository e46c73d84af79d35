"""Result keys of a run's logs (the scheme lives in :mod:`voxeval.io._keys`, so reports can read logs too)."""

from voxeval.io._keys import FIX, check_run_row, key_part, read_run_log, reply_key, sample_key

__all__ = ["FIX", "check_run_row", "key_part", "read_run_log", "reply_key", "sample_key"]
