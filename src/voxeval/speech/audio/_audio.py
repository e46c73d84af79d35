"""In-memory audio and reading audio files of any common format into it, recording every conversion."""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.errors import InputError, Location, MissingDependencyError

_STREAMED_SIZE = 0x7FFF0000
"""RIFF/data sizes at or above this are placeholders written by streaming encoders (espeak-ng, HTTP TTS)."""


@dataclass(frozen=True, eq=False)
class Audio:
    """Mono audio: float32 samples, nominally in [-1, 1] (values beyond are clipped when quantised)."""

    samples: np.ndarray
    """1-D float32 array of samples."""
    sample_rate: int
    """Samples per second."""

    def __post_init__(self) -> None:
        if not isinstance(self.samples, np.ndarray) or self.samples.ndim != 1 or self.samples.dtype != np.float32:
            raise ValueError("Audio.samples must be a 1-D float32 numpy array (mono)")
        if not isinstance(self.sample_rate, int) or isinstance(self.sample_rate, bool) or self.sample_rate <= 0:
            raise ValueError(f"Audio.sample_rate must be a positive int, got {self.sample_rate!r}")
        if not np.all(np.isfinite(self.samples)):
            raise ValueError("Audio.samples contains NaN or infinity")

    @property
    def duration_s(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.sample_rate

    @classmethod
    def from_array(cls, samples: Any, sample_rate: int, *, scale: float = 1.0) -> Audio:
        """Audio from any 1-D numeric array, divided by ``scale`` (e.g. 32768 for int16-range floats)."""
        array = np.asarray(samples, dtype=np.float64).reshape(-1)
        return cls((array / scale).astype(np.float32), int(sample_rate))


@dataclass(frozen=True)
class LoadedAudio:
    """Audio read from a file, with the conversions that were needed to make it mono float32."""

    audio: Audio
    """The decoded, mono audio."""
    conversion: tuple[str, ...]
    """Conversions applied, in order (e.g. ``"stereo→mono"``, ``"44100→24000 Hz"``); empty when none."""
    source_format: str = ""
    """Container and encoding of the file as libsndfile names them (e.g. ``"WAV/PCM_U8"``, ``"MP3/MPEG_LAYER_III"``)."""


def _soundfile() -> Any:
    try:
        import soundfile
    except ImportError:  # pragma: no cover - soundfile is in the audio extra
        raise MissingDependencyError("reading audio files", "audio", "soundfile") from None
    return soundfile


def _declared_riff_shortfall(data: bytes) -> int | None:
    """For a RIFF/WAVE file: bytes the ``data`` chunk declares beyond the end of the file, else None."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(data):
        chunk_id, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        if chunk_id == b"data":
            if size >= _STREAMED_SIZE:
                return None
            missing = pos + 8 + size - len(data)
            return missing if missing > 0 else None
        pos += 8 + size + (size & 1)
    return None


def decode_audio(data: bytes, where: Location, *, sample_rate: int | None = None) -> LoadedAudio:
    """Decode an in-memory audio file (WAV of any width, float WAV, FLAC, MP3, …) to mono float32.

    Multi-channel audio is down-mixed by averaging; ``sample_rate`` resamples when given. Empty,
    zero-length, corrupt and truncated files raise :class:`InputError` at ``where``.
    """
    if not data:
        raise InputError(where, "empty file (0 bytes); expected audio (WAV, FLAC or MP3)")
    sf = _soundfile()
    shortfall = _declared_riff_shortfall(data)
    if shortfall is not None:
        raise InputError(where, f"truncated WAV: the data chunk is {shortfall} bytes shorter than its header says")
    try:
        with sf.SoundFile(io.BytesIO(data)) as handle:
            declared = handle.frames
            fmt = f"{handle.format}/{handle.subtype}"
            rate = int(handle.samplerate)
            frames = handle.read(dtype="float32", always_2d=True)
    except sf.LibsndfileError as exc:
        raise InputError(where, f"not a readable audio file ({exc.error_string}); expected WAV, FLAC or MP3") from None
    except (RuntimeError, ValueError, TypeError) as exc:
        raise InputError(where, f"not a readable audio file ({exc}); expected WAV, FLAC or MP3") from None
    if frames.shape[0] == 0:
        raise InputError(where, "audio file has no samples (zero length)")
    if 0 < declared < _STREAMED_SIZE and frames.shape[0] < declared:
        raise InputError(where, f"truncated audio: decoded {frames.shape[0]} of {declared} frames")
    return _normalise(frames, rate, fmt, sample_rate)


def _normalise(frames: np.ndarray, rate: int, fmt: str, sample_rate: int | None) -> LoadedAudio:
    from voxeval.speech.audio._dsp import resample

    conversion: list[str] = []
    channels = frames.shape[1]
    if channels > 1:
        conversion.append("stereo→mono" if channels == 2 else f"{channels} channels→mono")
        mono = frames.mean(axis=1, dtype=np.float64).astype(np.float32)
    else:
        mono = np.ascontiguousarray(frames[:, 0])
    if not np.all(np.isfinite(mono)):
        conversion.append("non-finite samples→0")
        mono = np.nan_to_num(mono, nan=0.0, posinf=0.0, neginf=0.0)
    over = int(np.count_nonzero(np.abs(mono) > 1.0))
    if over:
        conversion.append(f"clipped {over} samples to [-1, 1]")
        mono = np.clip(mono, -1.0, 1.0)
    audio = Audio(mono, rate)
    if sample_rate is not None and sample_rate != rate:
        conversion.append(f"{rate}→{sample_rate} Hz")
        audio = resample(audio, sample_rate)
    return LoadedAudio(audio, tuple(conversion), fmt)


def load_audio(path: str | Path, *, sample_rate: int | None = None) -> LoadedAudio:
    """Read an audio file as mono float32 (see :func:`decode_audio`); errors name the file."""
    where = Location(str(path))
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(where, "audio file not found") from None
    except IsADirectoryError:
        raise InputError(where, "is a directory, expected an audio file") from None
    except OSError as exc:
        raise InputError(where, f"cannot read audio file: {exc.strerror or exc}") from None
    return decode_audio(data, where, sample_rate=sample_rate)
