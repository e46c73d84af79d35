"""Decoding plans for short clips: trim to speech, size the encoder window, bound the tokens, spot loops.

Whisper's encoder is trained on a fixed 30 s window and faster-whisper pads every clip to it, so a 2 s reply
costs as much as a 30 s one (plus a second encoder pass for language ID). CTranslate2's encoder accepts
shorter inputs, so for a short clip voxeval encodes only the speech in a shorter window, detects the language on
that same encoder output, and decodes from it. Whisper was trained on 30 s windows and degrades on very short ones:
it loops, stops early or invents words. Measured with ``benchmarks/bench_asr.py``-style clips (ja-assistant
requests spoken by pyopenjtalk, ≤ 3 s, language forced), character error rate against the spoken text:

- a 1 s margin after the speech: 0.66 on 40 clips (full 30 s window: 0.24);
- a 3 s margin alone (windows of 4–6 s): 0.232 on the first 12 clips against 0.154 for the full window (one clip
  repeated half its text: "卵をゆけるから中に粉で卵をゆけるから"), while on 40 clips 0.288 against 0.289;
- a 6 s or 8 s minimum window: 0.195 / 0.197 on the 12; a 10 s minimum: 0.159 on the 12 and 0.241 on the 40
  (better than the full window's 0.289 there); VAD padding of 0.5 s instead of 0.2 s or faster-whisper's suppressed
  tokens changed nothing.

So the window is the speech plus :data:`WINDOW_MARGIN_S`, at least :data:`MIN_WINDOW_S` (still a third of the
encoder's 30 s cost), and any decode that still looks like a loop (:mod:`voxeval.speech.asr._loop`) is redone on
the full window by the caller.
Everything here is pure (numpy in, numbers out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16_000
"""Whisper's input rate."""
FRAMES_PER_SECOND = 100
"""Mel frames per second (hop of 160 samples at 16 kHz)."""
HOP = SAMPLE_RATE // FRAMES_PER_SECOND
"""Samples per mel frame."""
FULL_WINDOW_S = 30
"""Whisper's native window."""
SHORT_MAX_S = 24.0
"""Clips whose speech is longer than this take the regular full-window path."""
WINDOW_MARGIN_S = 3.0
"""Silence added after the speech in a short window (see the module docstring for the measurement)."""
MIN_WINDOW_S = 10.0
"""Shortest encoder window (see the module docstring for the measurement)."""
WINDOW_STEP_S = 1.0
"""Windows are rounded up to whole seconds, so clips of similar length share a batch shape."""
SPEECH_PAD_S = 0.2
"""Audio kept before the first and after the last detected speech."""
TOKENS_PER_SECOND = 15
"""Token budget per second of speech (Japanese runs at ~6–9 tokens/s, English ~3–4): loops hit the cap fast."""
MIN_TOKENS = 24
"""Token budget floor for very short clips."""


@dataclass(frozen=True)
class ClipPlan:
    """How one clip is decoded."""

    start: int
    """First sample kept (16 kHz)."""
    end: int
    """One past the last sample kept."""
    window_frames: int
    """Encoder input length in mel frames; 3000 (the full path) for long clips and clips where VAD heard nothing."""
    max_tokens: int
    """Upper bound on generated tokens."""

    @property
    def speech_seconds(self) -> float:
        """Duration of the kept audio."""
        return (self.end - self.start) / SAMPLE_RATE

    @property
    def is_short(self) -> bool:
        """Whether the clip takes the short path."""
        return self.window_frames < FULL_WINDOW_S * FRAMES_PER_SECOND


def plan_clip(n_samples: int, speech: list[tuple[int, int]]) -> ClipPlan:
    """Plan the decode of a clip of ``n_samples`` whose VAD found ``speech`` (sample ranges, in order).

    >>> plan_clip(48_000, [(8_000, 40_000)]).window_frames  # 2 s of speech + pads + 3 s margin, at least 10 s
    1000
    >>> plan_clip(16 * 16_000, [(0, 16 * 16_000)]).window_frames  # 16 s of speech + 3 s margin → 19 s
    1900
    >>> plan_clip(48_000, []).is_short  # VAD heard nothing: the full path decides (it has a no-speech test)
    False
    """
    if not speech:
        return ClipPlan(0, n_samples, FULL_WINDOW_S * FRAMES_PER_SECOND, 0)
    pad = int(SPEECH_PAD_S * SAMPLE_RATE)
    start, end = max(0, speech[0][0] - pad), min(n_samples, speech[-1][1] + pad)
    seconds = (end - start) / SAMPLE_RATE
    if seconds > SHORT_MAX_S:
        return ClipPlan(0, n_samples, FULL_WINDOW_S * FRAMES_PER_SECOND, 0)
    fitted = math.ceil((seconds + WINDOW_MARGIN_S) / WINDOW_STEP_S) * WINDOW_STEP_S
    window_s = min(FULL_WINDOW_S, max(MIN_WINDOW_S, fitted))
    tokens = max(MIN_TOKENS, math.ceil(seconds * TOKENS_PER_SECOND))
    return ClipPlan(start, end, int(window_s * FRAMES_PER_SECOND), tokens)


def window_features(features: np.ndarray, frames: int) -> np.ndarray:
    """Mel features (n_mels × T) cut or zero-padded to ``frames`` (Whisper's log-mel of silence is not 0,
    but faster-whisper pads with zeros too, so this matches what the model sees on the full path)."""
    out = np.zeros((features.shape[0], frames), dtype=np.float32)
    keep = min(frames, features.shape[1])
    out[:, :keep] = features[:, :keep]
    return out


def batches_by_window(plans: list[ClipPlan], size: int) -> list[list[int]]:
    """Indices of short clips grouped by window length (one encoder shape per batch), at most ``size`` each.

    >>> batches_by_window([plan_clip(32_000, [(0, 32_000)])] * 3, 2)
    [[0, 1], [2]]
    """
    by_window: dict[int, list[int]] = {}
    for i, plan in enumerate(plans):
        if plan.is_short:
            by_window.setdefault(plan.window_frames, []).append(i)
    groups: list[list[int]] = []
    for window in sorted(by_window):
        members = by_window[window]
        groups.extend(members[k : k + size] for k in range(0, len(members), size))
    return groups
