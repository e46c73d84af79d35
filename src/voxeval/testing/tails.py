"""What follows a reply's speech in real audio, made up: silence, noise or music (16 kHz float32, pure numpy).

Whisper tends to loop on such tails (docs/speech.md); tests and ``benchmarks/bench_asr_loops.py`` append them to
synthetic speech.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Tail = Literal["silence", "noise", "music"]
"""Kinds of tail."""
TAILS: tuple[Tail, ...] = ("silence", "noise", "music")
"""Every kind, in a fixed order."""
RATE = 16_000
"""Sample rate of the tails (Whisper's)."""
CHORDS = ((220.0, 277.2, 329.6), (246.9, 311.1, 370.0))
"""Two major triads (A, B) that alternate every half second, with a 4 Hz tremolo: music without words."""


def tail(kind: Tail, seconds: float, seed: int = 0) -> np.ndarray:
    """``seconds`` of ``kind``: digital silence, white noise at -40 dBFS RMS, or alternating chords.

    >>> [round(float(np.abs(tail(k, 1.0)).max()), 2) for k in TAILS]
    [0.0, 0.04, 0.19]
    """
    n = int(seconds * RATE)
    if kind == "silence":
        return np.zeros(n, dtype=np.float32)
    if kind == "noise":
        return np.random.default_rng(seed).normal(0.0, 0.01, n).astype(np.float32)
    t = np.arange(n) / RATE
    chord = np.array(CHORDS)[(np.arange(n) // (RATE // 2)) % 2]  # (n, 3): the chord sounding at each sample
    tones = np.sin(2 * np.pi * chord * t[:, None]).sum(axis=1)
    return (0.05 * tones * (1 + 0.3 * np.sin(2 * np.pi * 4 * t))).astype(np.float32)


def with_tail(speech: np.ndarray, kind: Tail, seconds: float, seed: int = 0) -> np.ndarray:
    """``speech`` (16 kHz float32) followed by a tail."""
    return np.concatenate([speech.astype(np.float32), tail(kind, seconds, seed)])
