"""Replies that say the wrong thing with the right acts: references whose Answer span answers another input.

Used by the WLCS-c test and ``benchmarks/content_calibration.py``: the act sequence is unchanged (WLCS 1), only the
Answer's content is another sample's, so a content-aware score must drop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from voxeval.data import GoldSample, Prediction


def swapped_answer_predictions(samples: Sequence[GoldSample], *, swap: bool = True) -> dict[str, Prediction]:
    """Each sample's reference acts as a prediction, its Answer spans replaced by the next sample's first Answer
    span (in order, wrapping; samples without an Answer keep theirs); ``swap=False`` keeps every span.

    The reply text is the reference text with the span replaced, so a step is never compared by a text it lacks.
    """
    answers = [next((a.span for a in s.acts if a.act == "Answer" and a.span), None) for s in samples]
    preds = {}
    for k, sample in enumerate(samples):
        other = next(
            (answers[(k + d) % len(samples)] for d in range(1, len(samples)) if answers[(k + d) % len(samples)]), None
        )
        acts, text = [], sample.output_text
        for step in sample.acts:
            if swap and step.act == "Answer" and step.span and other and other != step.span:
                text = text.replace(step.span, other)
                step = dataclasses.replace(step, span=other)
            acts.append(step)
        preds[sample.id] = Prediction(sample.id, tuple(acts), text)
    return preds
