"""voxeval: evaluate spoken dialogue models — what they said (dialogue acts) and how they said it (voice style)."""

__version__ = "0.1.0"
