"""Reference-aware relabelling: an Answer whose content matches nothing in the reference reply is an aside.

In a benchmark run every sample has a reference reply. The offline annotator labels a reply without knowing what
was asked for, so an off-topic statement reads as the Answer the user asked for (issue 32). With the reference,
each predicted Answer step is compared (sentence-embedding cosine) with every span of the reference reply: when
its best match is below :data:`REFERENCE_THRESHOLD`, the step talks about something the reference does not, and
is relabelled Inform (the guide: off-topic content is Inform, never Answer). Nothing else changes: the reference
can only take an Answer away, never add an act, so a reply cannot be pulled towards the reference's sequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from voxeval.acts import Step
from voxeval.annotate._protocol import Reference

REFERENCE_THRESHOLD = 0.28
"""Cosine below which a predicted Answer matches no reference span. Fitted on the train split only (authored
replies to ja-assistant dev inputs, gold spans against the reference's spans): the largest value of a 0.01 grid
keeping >= 99% of gold Answer steps (305 of 308 kept; 12 of 39 off-topic Inform spans and 30 of 295 other Inform
spans fall below it). ``python -m training.annotator.reference_check --fit`` recomputes it."""


def reference_texts(reference: Reference) -> list[str]:
    """The texts an Answer is compared with: the reference's spans, or its whole text when it has none."""
    spans = [step.span for step in reference.acts if step.span and step.span.strip()]
    return spans or ([reference.text] if reference.text.strip() else [])


def off_reference(
    steps: Sequence[Step], answer_vectors: np.ndarray, reference_vectors: np.ndarray, threshold: float
) -> tuple[tuple[Step, ...], int]:
    """The steps with each Answer whose best cosine to the reference is below ``threshold`` relabelled Inform,
    and how many were relabelled. ``answer_vectors`` holds one unit vector per Answer step, in order.

    Without reference vectors (a reference without text) nothing changes.

    >>> a, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> steps = (Step("Answer", 1.0, None, "x"),)
    >>> off_reference(steps, a, b, 0.28)[0][0].act, off_reference(steps, a, a, 0.28)[1]
    ('Inform', 0)
    """
    if not len(reference_vectors):
        return tuple(steps), 0
    best = (answer_vectors @ reference_vectors.T).max(axis=1) if len(answer_vectors) else np.zeros(0)
    out, k, changed = [], 0, 0
    for step in steps:
        if step.act == "Answer":
            if best[k] < threshold:
                step, changed = replace(step, act="Inform"), changed + 1
            k += 1
        out.append(step)
    return tuple(out), changed
