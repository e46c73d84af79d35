"""Interoperability: datasets and results in the formats the field shares (docs/interop.md).

Hugging Face dataset folders in and out (:func:`export_hf`, ``--dataset hf:DIR``), VStyle's own layout for the
style benchmark, results as the Hub's ``.eval_results`` YAML and Every Eval Ever records, and a leaderboard page
over several runs.
"""

from voxeval.interop._columns import ColumnMapping, parse_source
from voxeval.interop._datasets import hf_dialogue_file, hf_gold_file, is_hf_spec
from voxeval.interop._export import Exported, export_hf
from voxeval.interop._vstyle import vstyle_set

__all__ = [
    "ColumnMapping",
    "Exported",
    "export_hf",
    "hf_dialogue_file",
    "hf_gold_file",
    "is_hf_spec",
    "parse_source",
    "vstyle_set",
]
