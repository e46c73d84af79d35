"""``gold`` annotator: looks replies up in gold data by exact text. A test double and an oracle baseline."""

from __future__ import annotations

from typing import Any

from voxeval.acts import Acts
from voxeval.annotate._protocol import Annotation, AnnotationFailed, AnnotationInput, annotators
from voxeval.data import resolve_dataset
from voxeval.errors import ConfigError


class GoldLookupAnnotator:
    """Returns the gold acts of a reply whose text equals a gold reply; fails otherwise.

    Useful to check a pipeline end to end (a ``replay`` of the gold replies must score WED 0) and as
    a deterministic stand-in in tests.
    """

    name = "gold"

    def __init__(self, by_text: dict[str, Acts], source: str) -> None:
        self._by_text = by_text
        self._source = source

    async def annotate(self, item: AnnotationInput) -> Annotation:
        """The gold acts for this exact reply text."""
        acts = self._by_text.get(item.reply.strip())
        if acts is None:
            raise AnnotationFailed("reply text is not a gold reply of " + self._source, raw=item.reply)
        return Annotation(acts)

    def describe(self) -> dict[str, Any]:
        """Where the gold acts come from."""
        return {"annotator": "gold", "source": self._source}


@annotators.register("gold")
def make_gold(arg: str, **options: Any) -> GoldLookupAnnotator:
    """``gold:DATASET`` (default ``ja-assistant``; a dialogue set ``ja-dialogues`` or ``NAME.dialogues.jsonl``: the
    reference replies of its assistant turns)."""
    if options:
        raise ConfigError(f"gold annotator takes no options, got {sorted(options)}")
    name = arg or "ja-assistant"
    if name.endswith("-dialogues") or name.endswith(".dialogues.jsonl"):  # a dialogue set: its assistant turns
        from voxeval.data import builtin_path, load_dialogues, turn_samples

        path = builtin_path(name) if not name.endswith(".jsonl") else name
        samples = [s for d in load_dialogues(path) for s in turn_samples(d)]
        return GoldLookupAnnotator({s.output_text.strip(): s.acts for s in samples}, name)
    dataset = resolve_dataset(name)
    return GoldLookupAnnotator({s.output_text.strip(): s.acts for s in dataset.samples}, dataset.name)
