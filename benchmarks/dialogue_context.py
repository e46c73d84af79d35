"""Does the offline annotator label a dialogue turn better when it is given the dialogue so far?

The dialogue benchmark hands every annotator the scenario followed by the earlier turns as the background
(:func:`voxeval.benchmark._dialogues.annotation_background`). This script annotates every reference reply of a
built-in dialogue set twice — with the scenario alone and with the dialogue so far — and scores both against the
reference acts, split by context-needed and context-free turns (docs/dialogues.md records the figures).

    PYTHONPATH=src python benchmarks/dialogue_context.py ja [en zh]
"""

from __future__ import annotations

import asyncio
import sys
import time

from voxeval.annotate import AnnotationInput, Reference, annotator_from_spec
from voxeval.benchmark._dialogues import annotation_background
from voxeval.data import builtin_path, load_dialogues
from voxeval.metrics import weighted_edit_distance


def measure(language: str) -> list[str]:
    """One line per (background, context) of the language's set."""
    annotator = annotator_from_spec("offline", language=language)
    items: dict[str, list[AnnotationInput]] = {"scenario": [], "dialogue so far": []}
    golds, contexts = [], []
    for dialogue in load_dialogues(builtin_path(f"{language}-dialogues")):
        for k, (user, reference) in enumerate(dialogue.exchanges, start=1):
            golds.append(reference.acts)
            contexts.append(reference.context)
            for mode, background in (
                ("scenario", dialogue.background),
                ("dialogue so far", annotation_background(dialogue, k, None)),
            ):
                ref = Reference(reference.text, reference.acts)
                items[mode].append(AnnotationInput(reference.text, user.text, background, ref, dialogue.language))

    async def annotate(batch: list[AnnotationInput]) -> list:
        return await asyncio.gather(*(annotator.annotate(x) for x in batch))

    lines = []
    for mode, batch in items.items():
        started = time.perf_counter()
        out = asyncio.run(annotate(batch))
        exact = [[s.act for s in o.acts] == [s.act for s in g] for o, g in zip(out, golds, strict=True)]
        wed = [weighted_edit_distance(g, o.acts).total for o, g in zip(out, golds, strict=True)]
        for context in ("needed", "free", None):
            idx = [i for i, c in enumerate(contexts) if context is None or c == context]
            lines.append(
                f"{language}  {mode:<16} {context or 'all':<7} exact {sum(exact[i] for i in idx) / len(idx):.3f}  "
                f"WED {sum(wed[i] for i in idx) / len(idx):.3f}  n={len(idx)}"
            )
        lines.append(f"{language}  {mode:<16} ({time.perf_counter() - started:.1f} s)")
    return lines


if __name__ == "__main__":
    for lang in sys.argv[1:] or ["ja"]:
        print("\n".join(measure(lang)))
