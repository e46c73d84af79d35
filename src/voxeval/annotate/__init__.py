"""Dialogue-act annotators: the protocol, the registry, and the built-in annotators."""

from voxeval.annotate import _gold  # noqa: F401  (registers "gold")
from voxeval.annotate._protocol import (
    Annotation,
    AnnotationFailed,
    AnnotationInput,
    Annotator,
    annotator_from_spec,
    annotators,
)

__all__ = ["Annotation", "AnnotationFailed", "AnnotationInput", "Annotator", "annotator_from_spec", "annotators"]
