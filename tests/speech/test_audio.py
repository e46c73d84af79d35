"""Audio loading of odd formats, corrupt-file errors, trimming, quantising and the input format on synthetic audio."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tests.speech.helpers import parse_header, pcm, tone
from voxeval.errors import InputError, Location
from voxeval.speech.audio import (
    PAD_SAMPLES,
    Audio,
    SilentAudioError,
    apply_gain,
    change_rate,
    decode_audio,
    frame_rms,
    load_audio,
    quantize_int16,
    resample,
    shift_pitch,
    to_input_format,
    trim_silence,
    write_wav_atomic,
)
from voxeval.speech.audio._dsp import SILENCE_FLOOR

RATE = 16000
SIGNAL = tone(0.5, RATE, freq=440.0, amplitude=0.5).samples


def _write(path: Path, data: np.ndarray, rate: int, fmt: str, subtype: str) -> Path:
    sf.write(path, data, rate, format=fmt, subtype=subtype)
    return path


@pytest.mark.parametrize(
    ("name", "fmt", "subtype", "tolerance"),
    [
        ("u8.wav", "WAV", "PCM_U8", 1 / 64),
        ("s16.wav", "WAV", "PCM_16", 1e-4),
        ("s24.wav", "WAV", "PCM_24", 1e-6),
        ("s32.wav", "WAV", "PCM_32", 1e-6),
        ("f32.wav", "WAV", "FLOAT", 0.0),
        ("f64.wav", "WAV", "DOUBLE", 1e-7),
        ("x.flac", "FLAC", "PCM_16", 1e-4),
    ],
)
def test_lossless_formats_load_as_mono_float32(tmp_path, name, fmt, subtype, tolerance) -> None:
    loaded = load_audio(_write(tmp_path / name, SIGNAL, RATE, fmt, subtype))
    assert loaded.audio.sample_rate == RATE and loaded.audio.samples.dtype == np.float32
    assert loaded.conversion == ()
    assert np.max(np.abs(loaded.audio.samples - SIGNAL)) <= tolerance
    assert loaded.source_format == f"{fmt}/{subtype}"


def test_mp3_decodes_to_the_same_tone(tmp_path) -> None:
    loaded = load_audio(_write(tmp_path / "x.mp3", SIGNAL, RATE, "MP3", "MPEG_LAYER_III"))
    samples = loaded.audio.samples
    assert loaded.audio.sample_rate == RATE and abs(len(samples) - len(SIGNAL)) < RATE // 10
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.argmax(spectrum) * RATE / len(samples) == pytest.approx(440.0, abs=5.0)


def test_stereo_44k_is_downmixed_and_resampled_with_both_recorded(tmp_path) -> None:
    left = tone(0.5, 44100, amplitude=0.8).samples
    stereo = np.stack([left, np.zeros_like(left)], axis=1)
    loaded = load_audio(_write(tmp_path / "st.wav", stereo, 44100, "WAV", "PCM_16"), sample_rate=24000)
    assert loaded.conversion == ("stereo→mono", "44100→24000 Hz")
    assert loaded.audio.sample_rate == 24000
    assert len(loaded.audio.samples) == 12000
    assert np.max(np.abs(loaded.audio.samples)) == pytest.approx(0.4, abs=0.01)


def test_float_wav_beyond_full_scale_is_clipped_and_recorded(tmp_path) -> None:
    data = np.array([0.0, 1.5, -2.0, 0.25], dtype=np.float32)
    loaded = load_audio(_write(tmp_path / "hot.wav", data, 8000, "WAV", "FLOAT"))
    assert loaded.conversion == ("clipped 2 samples to [-1, 1]",)
    assert loaded.audio.samples.tolist() == [0.0, 1.0, -1.0, 0.25]


def test_streamed_wav_header_with_placeholder_sizes_is_read(tmp_path) -> None:
    data = bytearray(to_input_format(tone(0.3, 24000)))
    data[4:8] = struct.pack("<I", 0xFFFFFFFF)
    data[40:44] = struct.pack("<I", 0x7FFFF000)  # what espeak-ng --stdout writes
    loaded = decode_audio(bytes(data), Location("<memory>"))
    assert loaded.audio.sample_rate == 24000 and len(loaded.audio.samples) == (len(data) - 44) // 2


def _file(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def _truncated(tmp_path: Path, name: str, fmt: str, subtype: str) -> Path:
    path = _write(tmp_path / f"full-{name}", SIGNAL, RATE, fmt, subtype)
    cut = tmp_path / name
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return cut


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: _file(d / "empty.wav", b""), "empty file (0 bytes)"),
        (lambda d: _file(d / "junk.wav", b"RIFF" + bytes(60)), "not a readable"),
        (lambda d: _file(d / "text.mp3", b"hello"), "not a readable"),
        (lambda d: _write(d / "zero.wav", np.zeros(0, np.float32), RATE, "WAV", "PCM_16"), "zero length"),
        (lambda d: _truncated(d, "cut.wav", "WAV", "PCM_16"), "truncated WAV"),
        (lambda d: _truncated(d, "cut8.wav", "WAV", "PCM_U8"), "truncated WAV"),
        (lambda d: _truncated(d, "cut.mp3", "MP3", "MPEG_LAYER_III"), "truncated audio"),
        (lambda d: _truncated(d, "cut.flac", "FLAC", "PCM_16"), "not a readable"),
        (lambda d: d / "missing.wav", "audio file not found"),
        (lambda d: d, "is a directory"),
    ],
)
def test_bad_files_raise_input_errors_naming_the_file(tmp_path, make, message) -> None:
    path = make(tmp_path)
    with pytest.raises(InputError) as caught:
        load_audio(path)
    assert caught.value.where.path == str(path)
    assert message in caught.value.message
    assert str(path) in str(caught.value)


def test_audio_rejects_non_mono_or_non_float32() -> None:
    with pytest.raises(ValueError, match="1-D float32"):
        Audio(np.zeros((10, 2), np.float32), 16000)
    with pytest.raises(ValueError, match="1-D float32"):
        Audio(np.zeros(10, np.float64), 16000)
    with pytest.raises(ValueError, match="sample_rate"):
        Audio(np.zeros(10, np.float32), 0)
    with pytest.raises(ValueError, match="NaN"):
        Audio(np.array([0.0, np.nan], np.float32), 16000)


def test_trim_silence_cuts_to_the_sound_frames() -> None:
    audio = tone(0.2, RATE, silence=0.3)
    trimmed = trim_silence(audio)
    assert trimmed.duration_s == pytest.approx(0.2, abs=0.011)
    start = round(0.3 * RATE)
    assert np.array_equal(trimmed.samples, audio.samples[start : start + len(trimmed.samples)])


def test_trim_silence_ignores_noise_50_db_below_the_peak() -> None:
    audio = tone(0.2, RATE, amplitude=0.5, silence=0.2)
    noise = np.random.default_rng(0).normal(0, 0.5 * 10 ** (-60 / 20), len(audio.samples)).astype(np.float32)
    trimmed = trim_silence(Audio(audio.samples + noise, RATE))
    assert trimmed.duration_s == pytest.approx(0.2, abs=0.011)


def test_all_silent_audio_is_an_error() -> None:
    with pytest.raises(SilentAudioError, match="engine produced no speech"):
        trim_silence(Audio(np.zeros(4800, np.float32), 24000))
    with pytest.raises(SilentAudioError):
        to_input_format(Audio(np.zeros(0, np.float32), 24000))


@settings(max_examples=30, deadline=None)
@given(gain=st.floats(-40, 20), lead=st.integers(0, 2000), body=st.integers(200, 3000))
@example(gain=-34.0, lead=1753, body=968)  # an edge frame that the absolute floor silences only after the gain
def test_trimming_does_not_depend_on_gain(gain, lead, body) -> None:
    rng = np.random.default_rng(lead)
    samples = np.concatenate([np.zeros(lead), rng.uniform(-0.4, 0.4, body), np.zeros(700)]).astype(np.float32)
    audio = Audio(samples, 16000)
    # The cut is relative to the loudest frame, but a frame under one 16-bit step (SILENCE_FLOOR) is silent whatever
    # the gain: the invariant holds while every frame that counts as sound stays above that floor after the gain.
    rms = frame_rms(audio.samples, 160)
    sound = rms[rms >= rms.max() * 10 ** (-50 / 20)]
    assume(float(sound.min()) * 10 ** (gain / 20) > SILENCE_FLOOR * 1.01)
    plain, louder = trim_silence(audio), trim_silence(apply_gain(audio, gain))
    assert len(plain.samples) == len(louder.samples)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-4.0, 4.0, allow_nan=False), min_size=1, max_size=200))
def test_quantize_clips_and_is_monotonic(values) -> None:
    samples = np.sort(np.array(values, dtype=np.float32))
    out = quantize_int16(samples)
    assert out.dtype == np.dtype("<i2")
    assert np.all(np.diff(out.astype(np.int32)) >= 0)
    assert np.all(out[samples >= 1.0] == 32767) and np.all(out[samples <= -1.0] == -32768)


def test_input_format_on_a_synthetic_48k_tone() -> None:
    data = to_input_format(tone(0.5, 48000, amplitude=0.5, silence=0.25))
    header = parse_header(data)
    assert (header.sample_rate, header.bits, header.channels, header.audio_format) == (24000, 16, 1, 1)
    samples = pcm(data)
    assert header.data_size == 2 * len(samples) == len(data) - 44
    assert not samples[:PAD_SAMPLES].any() and not samples[-PAD_SAMPLES:].any()
    assert samples[PAD_SAMPLES] != 0 and samples[-PAD_SAMPLES - 1] != 0
    assert len(samples) - 2 * PAD_SAMPLES == pytest.approx(12000, abs=250)


def test_input_format_clips_instead_of_wrapping() -> None:
    samples = pcm(to_input_format(tone(0.2, 24000, amplitude=3.0)))
    assert samples.max() == 32767 and samples.min() == -32768
    assert np.count_nonzero(samples == 32767) > 100


def test_resample_changes_length_by_the_rate_ratio() -> None:
    audio = tone(1.0, 44100)
    assert len(resample(audio, 24000).samples) == 24000
    assert resample(audio, 44100) is audio


def test_write_wav_atomic_leaves_no_temporary_file(tmp_path) -> None:
    target = tmp_path / "sub" / "x.wav"
    write_wav_atomic(target, b"RIFF1234")
    write_wav_atomic(target, b"RIFF5678")
    assert target.read_bytes() == b"RIFF5678"
    assert [p.name for p in target.parent.iterdir()] == ["x.wav"]


@pytest.mark.parametrize("semitones", [-8.0, -4.0, 4.0, 8.0])
def test_shift_pitch_moves_f0_and_keeps_duration_level_and_formants(semitones: float) -> None:
    """A PSOLA shift of real speech: F0 by the asked ratio, the same length, RMS and vocal tract (F3/F4)."""
    pytest.importorskip("parselmouth", reason="praat-parselmouth is in the acoustics extra")
    from voxeval.speech.acoustics import measure
    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    speech = engine_from_spec("pyopenjtalk").synthesize("今日は天気が良いので、公園を散歩しましょう。", VoiceStyle())
    speech = resample(speech, 24000)
    shifted = shift_pitch(speech, semitones)
    assert len(shifted.samples) == len(speech.samples) and shifted.sample_rate == speech.sample_rate
    rms = [float(np.sqrt(np.mean(np.square(a.samples.astype(np.float64))))) for a in (speech, shifted)]
    assert rms[1] == pytest.approx(rms[0], rel=1e-3)
    before, after = measure(speech), measure(shifted)
    assert before.f0_median_hz is not None and after.f0_median_hz is not None
    assert 12 * np.log2(after.f0_median_hz / before.f0_median_hz) == pytest.approx(semitones, abs=1.0)
    upper = [float(np.mean(m.formants_hz[2:])) for m in (before, after)]
    assert upper[1] == pytest.approx(upper[0], rel=0.08)


def test_shift_pitch_by_zero_is_the_same_audio_and_rejects_nan() -> None:
    tone = Audio(np.zeros(100, np.float32), 24000)
    assert shift_pitch(tone, 0.0) is tone
    with pytest.raises(ValueError, match="finite"):
        shift_pitch(tone, float("nan"))


@pytest.mark.parametrize("rate", [0.7, 1.4])
def test_change_rate_changes_duration_and_keeps_pitch_and_level(rate: float) -> None:
    """A PSOLA lengthening of real speech: duration by 1/rate, the same F0 and RMS."""
    pytest.importorskip("parselmouth", reason="praat-parselmouth is in the acoustics extra")
    from voxeval.speech.acoustics import measure
    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    speech = resample(engine_from_spec("pyopenjtalk").synthesize("今日は天気が良いですね。", VoiceStyle()), 24000)
    changed = change_rate(speech, rate)
    assert changed.duration_s == pytest.approx(speech.duration_s / rate, rel=0.03)
    rms = [float(np.sqrt(np.mean(np.square(a.samples.astype(np.float64))))) for a in (speech, changed)]
    assert rms[1] == pytest.approx(rms[0], rel=1e-3)
    before, after = measure(speech), measure(changed)
    assert before.f0_median_hz is not None and after.f0_median_hz is not None
    assert 12 * np.log2(after.f0_median_hz / before.f0_median_hz) == pytest.approx(0.0, abs=1.0)


def test_change_rate_of_one_is_the_same_audio_and_rejects_odd_rates() -> None:
    silence = Audio(np.zeros(100, np.float32), 24000)
    assert change_rate(silence, 1.0) is silence
    for bad in (float("nan"), 0.0, -1.0, 10.0):
        with pytest.raises(ValueError, match="rate must be within"):
            change_rate(silence, bad)
