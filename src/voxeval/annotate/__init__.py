"""Dialogue-act annotators: the protocol, the registry, and the built-in annotators."""

from voxeval.annotate import (  # noqa: F401  (register "gold", "llm", "offline")
    _gold,
    _llm,
    _offline,
)
from voxeval.annotate._echo import Echo, annotate_guarded, detect_echo
from voxeval.annotate._protocol import (
    Annotation,
    AnnotationFailed,
    AnnotationInput,
    Annotator,
    Reference,
    annotator_from_spec,
    annotators,
)

__all__ = [
    "Annotation",
    "AnnotationFailed",
    "AnnotationInput",
    "Annotator",
    "Echo",
    "Reference",
    "annotate_guarded",
    "annotator_from_spec",
    "annotators",
    "detect_echo",
]
