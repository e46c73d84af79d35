"""Fitting the reply gate: real training replies (kept) against garbage made from them (rejected).

Each real reply yields one garbage reply, its kind dealt round-robin (random characters, shuffled characters,
mojibake, another domain's reply, a short constant). Every fourth real reply and its garbage are also seen
with no context at all (without the ``other`` kind, which no context cannot tell from a real reply), and
every fourth (offset by two) with the user's input but no background, as ``voxeval annotate`` passes them.
Each real reply's input and background are also paired with another domain's training reply (``mismatch``,
full context only: trained without the background too, such pairs cost more real replies given no background
than they catch). The topic anchors are the mean input embeddings of each domain of the fitted replies.
The garbage is salted differently from the garbage check, so the check never replays training garbage. Out of
fold, :data:`MEASURED_ONLY` kinds are measured but never trained on. The pairwise relevance column
(``training.annotator.relevance``) of the gate's own training rows is cross-fitted, and every fold here groups
replies by the input they answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from training.annotator.examples import Embedded, ReplyExample
from training.annotator.fit import Settings, training_table
from training.annotator.relevance import cross_fitted, fit_relevance, group_fold
from voxeval.annotate._encoder import Encoder
from voxeval.annotate._garbage import garbage_reply
from voxeval.annotate._gate import Gate, gate_row
from voxeval.annotate._segment import segment

SALT = "training"
"""Seed salt of the training garbage (the check uses ``check``)."""

KINDS = ("random", "shuffled", "mojibake", "other", "constant")
"""Garbage kinds dealt round-robin."""

MISMATCHES = 1
"""Other-domain replies each real reply's context is paired with (``mismatch`` garbage)."""

MEASURED_ONLY = ("mismatch_input_only", "same_domain")
"""Kinds built for the out-of-fold figures only, never fitted: a ``mismatch`` given the input but no background
(as ``voxeval annotate`` passes replies), and another input's reply of the same domain."""

CONSTANTS = ("x", "a", "ok", "あ", "ｘｘ", "test", "...", "？？", "nan", "null", "ー", "ん", "w", "1", "hello")
"""Short constants a broken system might return."""


def _garbage_texts(
    examples: Sequence[ReplyExample], idx: Sequence[int], measured: bool
) -> list[tuple[int, str, str, str]]:
    pool = [examples[i].sample for i in idx]
    out = []
    for n, i in enumerate(idx):
        kind = KINDS[n % len(KINDS)]
        sample = examples[i].sample
        text = CONSTANTS[n % len(CONSTANTS)] if kind == "constant" else garbage_reply(kind, sample, pool, SALT)
        for blank in _blanks(n):
            if blank != "all" or kind != "other":
                out.append((i, kind, text, blank))
        mismatches = [garbage_reply("other", sample, pool, f"{SALT}-mismatch{k or ''}") for k in range(MISMATCHES)]
        out += [(i, "mismatch", text, "none") for text in mismatches]
        if measured:
            out.append((i, "mismatch_input_only", mismatches[0], "background"))
            out.append((i, "same_domain", garbage_reply("same_domain", sample, pool, SALT), "none"))
    return out


def topic_anchors(examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int]) -> np.ndarray:
    """Per domain of the examples at ``idx`` (sorted by name): the unit mean of their inputs' unit embeddings."""
    by_domain: dict[str, list[np.ndarray]] = {}
    for i in idx:
        norm = float(np.linalg.norm(emb.users[i]))
        if norm > 0:
            by_domain.setdefault(examples[i].sample.domain or "", []).append(emb.users[i] / norm)
    rows = [np.mean(by_domain[d], axis=0) for d in sorted(by_domain)]
    return np.array([r / np.linalg.norm(r) for r in rows], dtype=np.float64).reshape(len(rows), -1)


@dataclass(frozen=True)
class GateData:
    """Rows for fitting or checking the gate."""

    x: np.ndarray
    """Feature rows."""
    y: np.ndarray
    """1 for a real reply, 0 for garbage."""
    owner: np.ndarray
    """Index of the example each row was made from."""
    kind: np.ndarray
    """``real`` or the garbage kind."""
    blank: np.ndarray
    """Which context the row was given: ``none`` (all of it), ``background`` (input only) or ``all`` (none)."""


def _context(ex: ReplyExample, emb: Embedded, i: int, blank: str) -> tuple[str, np.ndarray, str, np.ndarray]:
    zero = np.zeros_like(emb.users[i])
    if blank == "all":
        return "", zero, "", zero
    if blank == "background":
        return ex.sample.input_text, emb.users[i], "", zero
    return ex.sample.input_text, emb.users[i], ex.sample.background, emb.backgrounds[i]


def _blanks(n: int) -> tuple[str, ...]:
    """Context variants of the ``n``-th reply: full, plus no context at all (every 4th) or no background (every
    4th, offset by 2; ``voxeval annotate`` passes the input but no background)."""
    return ("none", "all") if n % 4 == 0 else ("none", "background") if n % 4 == 2 else ("none",)


def gate_rows(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    idx: Sequence[int],
    encoder: Encoder,
    table: np.ndarray,
    anchors: np.ndarray,
    relevance: dict[int, np.ndarray],
    measured: bool = False,
) -> GateData:
    """Feature rows of the real replies at ``idx`` and of garbage made from them, with blank-context copies
    (and, when ``measured``, the :data:`MEASURED_ONLY` kinds); ``relevance``: per example, the relevance weights
    its rows are scored with."""
    rows, labels, owner, kinds, blanks = [], [], [], [], []
    for n, i in enumerate(idx):
        ex = examples[i]
        for blank in _blanks(n):
            user, user_emb, bg, bg_emb = _context(ex, emb, i, blank)
            rows.append(
                gate_row(
                    ex.sample.output_text,
                    ex.segments,
                    emb.segments[i],
                    user,
                    user_emb,
                    bg,
                    bg_emb,
                    table,
                    anchors,
                    relevance[i],
                    language=ex.sample.language,
                )
            )
            labels.append(1)
            owner.append(i)
            kinds.append("real")
            blanks.append(blank)
    cut_all = [(g, segment(g[2], examples[g[0]].sample.language)) for g in _garbage_texts(examples, idx, measured)]
    garbage = [g for g, segs in cut_all if segs]
    cut = [segs for _, segs in cut_all if segs]
    vectors = encoder.encode([s.text for segs in cut for s in segs])
    cursor = 0
    for (i, kind, text, blank), segs in zip(garbage, cut, strict=True):
        seg_emb = vectors[cursor : cursor + len(segs)]
        cursor += len(segs)
        user, user_emb, bg, bg_emb = _context(examples[i], emb, i, blank)
        language = examples[i].sample.language
        rows.append(
            gate_row(text, segs, seg_emb, user, user_emb, bg, bg_emb, table, anchors, relevance[i], language=language)
        )
        labels.append(0)
        owner.append(i)
        kinds.append(kind)
        blanks.append(blank)
    return GateData(np.vstack(rows), np.array(labels), np.array(owner), np.array(kinds), np.array(blanks))


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def _fit(data: GateData, c: float) -> tuple[np.ndarray, np.ndarray, Any]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = _standardise(data.x)
    return mean, scale, LogisticRegression(C=c, max_iter=3000, tol=1e-6).fit((data.x - mean) / scale, data.y)


def _rejected_by_style(examples: Sequence[ReplyExample], data: GateData, p: np.ndarray, threshold: float) -> dict:
    """Real replies given their full context that the threshold rejects, counted by style (out of fold)."""
    real = (data.kind == "real") & (data.blank == "none")
    out: dict[str, int] = {}
    for i, prob in zip(data.owner[real], p[real], strict=True):
        style = examples[int(i)].reply.style
        out[style] = out.get(style, 0) + int(prob < threshold)
    return dict(sorted(out.items()))


def fit_gate(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    idx: Sequence[int],
    encoder: Encoder,
    c: float,
    keep: float,
    relevance_c: float = 1.0,
    relevance_same: int = 0,
    table: np.ndarray | None = None,
) -> tuple[Gate, dict[str, Any]]:
    """The gate fitted on ``idx``, its threshold keeping ``keep`` of real replies out of fold (3 folds grouped by
    input, each with its own bigram table, anchors and relevance model), and the out-of-fold share of each kind
    that the threshold lets through. The final gate's bigram columns use ``table`` (default: the table of ``idx``):
    at run time the gate reads the label model's table, which is fitted on every training row."""
    probs, held_data = [], []
    for f in range(3):
        train = [i for i in idx if group_fold(examples[i].reply.group, 3) != f]
        held = [i for i in idx if group_fold(examples[i].reply.group, 3) == f]
        fold_table, anchors = training_table(examples, train), topic_anchors(examples, emb, train)
        rel = cross_fitted(examples, emb, train, relevance_c, relevance_same)
        mean, scale, clf = _fit(gate_rows(examples, emb, train, encoder, fold_table, anchors, rel), c)
        weights = fit_relevance(examples, emb, train, relevance_c, relevance_same)
        rel_held = dict.fromkeys(held, weights)
        test = gate_rows(examples, emb, held, encoder, fold_table, anchors, rel_held, measured=True)
        probs.append(clf.predict_proba((test.x - mean) / scale)[:, 1])
        held_data.append(test)
    p = np.concatenate(probs)
    data = GateData(*(np.concatenate([getattr(d, k) for d in held_data]) for k in GateData.__dataclass_fields__))
    kind = data.kind
    threshold = float(min(np.quantile(p[kind == "real"], 1.0 - keep), 0.5))
    passed = {str(k): round(float((p[kind == k] >= threshold).mean()), 4) for k in sorted(set(kind.tolist()))}
    anchors = topic_anchors(examples, emb, idx)
    rel = cross_fitted(examples, emb, idx, relevance_c, relevance_same)
    if table is None:
        table = training_table(examples, idx)
    mean, scale, clf = _fit(gate_rows(examples, emb, idx, encoder, table, anchors, rel), c)
    weights = fit_relevance(examples, emb, idx, relevance_c, relevance_same)
    gate = Gate(mean, scale, clf.coef_[0].astype(np.float64), float(clf.intercept_[0]), threshold, anchors, weights)
    report = {
        "threshold": round(threshold, 4),
        "out_of_fold_passed": passed,
        "out_of_fold_real_rejected_by_style": _rejected_by_style(examples, data, p, threshold),
    }
    return gate, report


def fit_settings_gate(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    idx: Sequence[int],
    encoder: Encoder,
    settings: Settings,
    table: np.ndarray,
) -> tuple[Gate, dict[str, Any]]:
    """:func:`fit_gate` as ``settings`` configure it for a model trained on ``idx``: fitted on
    ``settings.gate_rows`` of them, its bigram columns reading ``table``, the label model's table of ``idx``."""
    return fit_gate(
        examples,
        emb,
        settings.gate_rows(examples, idx),
        encoder,
        settings.gate_c,
        settings.gate_keep,
        *settings.relevance(),
        table=table,
    )
