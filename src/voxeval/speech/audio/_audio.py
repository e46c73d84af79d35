"""In-memory audio and reading audio files of any common format into it, recording every conversion."""

from __future__ import annotations

import io
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.errors import InputError, Location, MissingDependencyError

MAX_SECONDS_ENV = "VOXEVAL_MAX_AUDIO_SECONDS"
"""Environment variable that raises (or lowers) the longest audio voxeval decodes."""


@dataclass(frozen=True)
class AudioLimits:
    """What voxeval agrees to decode: checked on the header, before any sample is read or resampled.

    Without these, a 40 KB WAV that declares 8 Hz became 1.3 GB when resampled to 24 kHz, and a 2-hour silent
    file took 5 GB in the acoustic judge. Spoken replies and inputs are seconds long; the defaults leave room.
    """

    min_sample_rate: int = 8_000
    """Below telephone quality nothing is intelligible (and upsampling such a file explodes its size)."""
    max_sample_rate: int = 384_000
    """The highest rate audio interfaces record."""
    max_channels: int = 16
    """More channels than this is not a recording of a voice."""
    max_seconds: float = 600.0
    """Longest audio decoded (10 minutes); ``$VOXEVAL_MAX_AUDIO_SECONDS`` overrides."""
    max_bytes: int = 256 * 2**20
    """Largest audio file read (256 MiB: 10 minutes of 48 kHz float stereo fit); checked before reading."""


def audio_limits() -> AudioLimits:
    """The limits in force (the defaults, with ``$VOXEVAL_MAX_AUDIO_SECONDS`` applied)."""
    raw = os.environ.get(MAX_SECONDS_ENV)
    if raw is None:
        return AudioLimits()
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise InputError(Location(MAX_SECONDS_ENV), f"must be a positive number of seconds, got {raw!r}")
    return AudioLimits(max_seconds=seconds)


def read_audio_file(path: str | Path, where: Location, limits: AudioLimits | None = None) -> bytes:
    """The bytes of an audio file: a regular file (not a FIFO or a device) of at most ``limits.max_bytes``."""
    from voxeval.io import read_bounded

    return read_bounded(path, where, (limits or audio_limits()).max_bytes, "audio file")


def _check_header(rate: int, channels: int, where: Location, limits: AudioLimits) -> None:
    if not limits.min_sample_rate <= rate <= limits.max_sample_rate:
        raise InputError(
            where,
            f"sample rate {rate} Hz is outside {limits.min_sample_rate}–{limits.max_sample_rate} Hz; "
            "resample the file (e.g. sox in.wav -r 24000 out.wav)",
        )
    if not 1 <= channels <= limits.max_channels:
        raise InputError(where, f"{channels} channels; at most {limits.max_channels} are accepted")


def _too_long(seconds: float, where: Location, limits: AudioLimits) -> InputError:
    return InputError(
        where,
        f"audio is longer than {seconds:.1f} s, above the limit of {limits.max_seconds:g} s "
        f"(set {MAX_SECONDS_ENV} to change it)",
    )


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


def decode_audio(
    data: bytes, where: Location, *, sample_rate: int | None = None, limits: AudioLimits | None = None
) -> LoadedAudio:
    """Decode an in-memory audio file (WAV of any width, float WAV, FLAC, MP3, …) to mono float32.

    Multi-channel audio is down-mixed by averaging; ``sample_rate`` resamples when given. Empty,
    zero-length, corrupt and truncated files, and files beyond ``limits`` (default :func:`audio_limits`: rate,
    channels, duration, checked on the header and by a capped read) raise :class:`InputError` at ``where``.
    """
    limits = limits or audio_limits()
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
            _check_header(rate, int(handle.channels), where, limits)
            cap = int(limits.max_seconds * rate)
            if 0 < declared < _STREAMED_SIZE and declared > cap:
                raise _too_long(declared / rate, where, limits)
            # A streamed header does not say how long the file is: read at most one frame past the cap.
            frames = handle.read(frames=cap + 1, dtype="float32", always_2d=True)
            if frames.shape[0] > cap:
                raise _too_long(limits.max_seconds, where, limits)
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


def load_audio(path: str | Path, *, sample_rate: int | None = None, limits: AudioLimits | None = None) -> LoadedAudio:
    """Read an audio file as mono float32 (see :func:`decode_audio`); errors name the file.

    The header is checked against ``limits`` before the file is read into memory.
    """
    from voxeval.io import check_size

    where = Location(str(path))
    limits = limits or audio_limits()
    # Type and size first (a FIFO would block the header read, /dev/zero would never end), then the header.
    check_size(path, where, limits.max_bytes, "audio file")
    _check_file_header(Path(path), where, limits)
    data = read_audio_file(path, where, limits)
    return decode_audio(data, where, sample_rate=sample_rate, limits=limits)


def _check_file_header(path: Path, where: Location, limits: AudioLimits) -> None:
    """Rate, channels and declared duration from the file's header alone (unreadable files are left to decode)."""
    sf = _soundfile()
    try:
        info = sf.info(str(path))
    except (sf.LibsndfileError, RuntimeError, ValueError, TypeError, OSError):
        return  # decode_audio names the problem precisely
    _check_header(int(info.samplerate), int(info.channels), where, limits)
    if 0 < info.frames < _STREAMED_SIZE and info.frames > limits.max_seconds * info.samplerate:
        raise _too_long(info.frames / info.samplerate, where, limits)
