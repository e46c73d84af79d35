"""People's dialogue-act labels of a run, scored as the annotator's are: the human side of prediction-powered
scores (:mod:`voxeval.report._ppi`).

One :class:`~voxeval.run.ScoredSet` per dataset × system × labeller, over the replies the labeller labelled (rows
with status ``labelled`` in ``human/da/<labeller>.jsonl``), against the same gold sequences as the annotator's
set, with WLCS-c / WED-c when the annotator's set has them (the same span similarity).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.acts import Acts, parse_acts
from voxeval.annotate._similarity import SpanSimilarity
from voxeval.data import Prediction
from voxeval.errors import Location
from voxeval.io._keys import reply_key
from voxeval.run._scoring import ScoredSet, score_predictions

HumanSets = dict[tuple[str, str, str], ScoredSet]
"""(dataset, system, labeller) → the labeller's labels scored against gold."""


def human_acts(row: dict[str, Any], where: Location) -> Acts:
    """A labeller's steps (spans kept, for the content scores) as a normalised sequence; ``[]`` is no act. A row
    whose steps are not acts (an edited file) is refused naming ``where``."""
    raw = row.get("steps") or []
    steps = [
        {k: v for k, v in s.items() if k in ("act", "importance", "span")} if isinstance(s, dict) else s for s in raw
    ]
    return parse_acts(steps, where.child("steps"), allow_empty=True)


def human_sets(run_dir: Path, sets: list[ScoredSet], similarity: SpanSimilarity | None = None) -> HumanSets:
    """Every labeller's labelled replies of each set, scored (empty when the run has no dialogue-act labels)."""
    from voxeval.label._study import read_judgements

    out: HumanSets = {}
    for labeller, rows in read_judgements(run_dir, "da").items():
        path = str(run_dir / "human" / "da" / f"{labeller}.jsonl")
        for scored in sets:
            preds = {}
            for sample in scored.gold:
                key = reply_key(scored.dataset, scored.system, sample.id)
                row = rows.get(key)
                if row is None or row.get("status") != "labelled":
                    continue
                text = row.get("text") if isinstance(row.get("text"), str) else None
                preds[sample.id] = Prediction(sample.id, human_acts(row, Location(path, None, key)), text)
            if preds:
                gold = [g for g in scored.gold if g.id in preds]
                out[(scored.dataset, scored.system, labeller)] = score_predictions(
                    gold, preds, dataset=scored.dataset, system=scored.system
                )
    if similarity is not None and out:
        from voxeval.run._content import with_content

        out = dict(zip(out, with_content(list(out.values()), similarity), strict=True))
    return out
