"""Off-topic copies: a training reply that answers one request, paired with another domain's request.

The labelling guide calls content that directly answers the user's question an Answer, and extra facts an Inform.
A reply that answers a *different* request than the one asked (the ``off_topic`` flaw) therefore holds Informs,
not Answers; the label model, which mostly sees replies answering their own input, called such content Answer
(on the twelve later authors' rows, never trained on, the shipped model gave 49 of 109 off_topic replies a lone
Answer where gold has a lone Inform; mean WED 0.86 on that flaw). An off-topic copy is a concise or chatty
training reply with an Answer, given the input and background of a reply of another domain, its Answers
relabelled Inform (spans, importances and every other act unchanged). Copies are training rows of the label
models only: never of the gate, never evaluated, and they keep the group of the reply they copy, so grouped
folds keep a copy with its original.

Which replies are copied (a share of them, by sha256 of the id) and their partners are deterministic.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

import numpy as np

from training.annotator.examples import Embedded, ReplyExample

SOURCE_STYLES = ("concise", "chatty")
"""Styles of the replies that are copied (a flawed reply's flaw would no longer be the one named)."""


def _unit(key: str) -> float:
    return int.from_bytes(hashlib.sha256(("off-topic:" + key).encode("utf-8")).digest()[:8], "big") / 2.0**64


def _copy(ex: ReplyExample, partner: ReplyExample) -> ReplyExample:
    sample = ex.sample
    acts = tuple(dataclasses.replace(s, act="Inform") if s.act == "Answer" else s for s in sample.acts)
    copied = dataclasses.replace(
        sample,
        id=f"{sample.id}~off-topic",
        input_text=partner.sample.input_text,
        background=partner.sample.background,
        acts=acts,
    )
    reply = dataclasses.replace(ex.reply, sample=copied, style="flawed", flaw="off_topic")
    labels = tuple("Inform" if label == "Answer" else label for label in ex.labels)
    return dataclasses.replace(ex, reply=reply, labels=labels, variant="off-topic")


def off_topic_copies(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], share: float
) -> tuple[list[ReplyExample], Embedded, list[int]]:
    """The examples and embeddings with off-topic copies of about ``share`` of the eligible examples at ``idx``
    appended, and ``idx`` with the copies' positions added. ``share`` 0 returns the inputs unchanged."""
    if share <= 0:
        return list(examples), emb, list(idx)
    eligible = [
        i
        for i in idx
        if examples[i].variant == "original"
        and examples[i].reply.style in SOURCE_STYLES
        and "Answer" in examples[i].labels
    ]
    partners = sorted(
        (i for i in idx if examples[i].sample.input_text.strip() and examples[i].variant == "original"),
        key=lambda i: examples[i].sample.id,
    )
    out, segs = list(examples), list(emb.segments)
    users, backgrounds = [emb.users], [emb.backgrounds]
    added: list[int] = []
    for i in eligible:
        ex = examples[i]
        if _unit(ex.sample.id) >= share:
            continue
        start = int(_unit(ex.sample.id + "#partner") * len(partners))
        ring = partners[start:] + partners[:start]
        j = next((j for j in ring if examples[j].sample.domain != ex.sample.domain), None)
        if j is None:
            continue
        added.append(len(out))
        out.append(_copy(ex, examples[j]))
        segs.append(emb.segments[i])
        users.append(emb.users[j : j + 1])
        backgrounds.append(emb.backgrounds[j : j + 1])
    grown = Embedded(segs, np.vstack(users), np.vstack(backgrounds))
    return out, grown, [*idx, *added]
