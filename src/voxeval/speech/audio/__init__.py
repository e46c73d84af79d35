"""Audio I/O and the benchmark's input format (24 kHz, 16-bit, mono WAV with 120 ms of exact zeros)."""

from voxeval.speech.audio._audio import (
    Audio,
    AudioLimits,
    LoadedAudio,
    audio_limits,
    decode_audio,
    load_audio,
    read_audio_file,
)
from voxeval.speech.audio._dsp import (
    SilentAudioError,
    apply_gain,
    change_rate,
    frame_rms,
    resample,
    shift_pitch,
    trim_silence,
)
from voxeval.speech.audio._wav import (
    FORMAT_VERSION,
    INPUT_SAMPLE_RATE,
    PAD_MS,
    PAD_SAMPLES,
    encode_wav,
    input_format_pcm,
    quantize_int16,
    to_input_format,
    wav_duration_s,
    write_wav_atomic,
)

__all__ = [
    "FORMAT_VERSION",
    "INPUT_SAMPLE_RATE",
    "PAD_MS",
    "PAD_SAMPLES",
    "Audio",
    "AudioLimits",
    "LoadedAudio",
    "SilentAudioError",
    "apply_gain",
    "audio_limits",
    "change_rate",
    "decode_audio",
    "encode_wav",
    "frame_rms",
    "input_format_pcm",
    "load_audio",
    "quantize_int16",
    "read_audio_file",
    "resample",
    "shift_pitch",
    "to_input_format",
    "trim_silence",
    "wav_duration_s",
    "write_wav_atomic",
]
