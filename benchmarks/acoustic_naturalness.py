"""Train and check the naturalness classifier: real replies of speech models against the project's own TTS.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/acoustic_naturalness.py [--write] [--json FILE]``
(renders ~200 synthetic clips once, cached under the voxeval cache ``acoustic-naturalness``; the real replies come
from vstyle-dev, see ``acoustic_vstyle_data.py``).

- **natural**: every vstyle-dev reply (three systems, en + zh, all four VStyle categories);
- **synthetic**: the flat voices, pyopenjtalk (HTS, ja) and espeak-ng (formant, en and zh), at their normal
  settings and with rate and PSOLA pitch shifts, each clip both as rendered and after an MP3 round trip (the real
  replies are MP3s: the classifier must not learn the codec).
- **reported, not trained on**: the neural engines Piper (en) and Kokoro (ja), rendered the same way. Trained as
  synthetic they cut the held-out systems' natural recall from about 97 % to about 60-75 % (measured with this
  script; these neural voices measure like the real systems, which are neural TTS themselves), so the model
  separates the flat voices only, and the report says how often it calls the neural ones natural.

Validation, printed and stored in the model's ``meta``: leave-one-system-out for the natural side (fit without the
system, rate its replies natural), leave-one-engine-out for the flat engines (fit without the engine, rate its clips
not natural), and the neural engines' share rated natural. ``--write`` fits on everything and writes
``src/voxeval/speech/acoustics/calibration/naturalness.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acoustic_vstyle_data import REPO, SYSTEMS, MeasureCache, _measurements_from, data_dir, data_sha256, replies

from voxeval.errors import Location
from voxeval.paths import cache_dir
from voxeval.speech.acoustics import Measurements, measure
from voxeval.speech.acoustics._naturalness import MODEL_FILE, NaturalnessModel, features
from voxeval.speech.audio import Audio, decode_audio, shift_pitch, to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec

MODEL_PATH = REPO / "src/voxeval/speech/acoustics/calibration" / MODEL_FILE
COMMAND = "PYTHONPATH=src .venv/bin/python benchmarks/acoustic_naturalness.py --write"

TEXTS = {
    "ja": (
        "今日は天気が良いので、公園を散歩しましょう。",
        "明日の会議は午後三時から第二会議室で始まります。",
        "週末は家族と一緒に海へ出かける予定です。",
    ),
    "en": (
        "The weather is nice today, so let's take a walk in the park.",
        "Tomorrow's meeting starts at three in the afternoon in the second conference room.",
        "Sure! Here is the sentence you asked for. I hope you have a wonderful day.",
    ),
    "zh": (
        "今天天气很好，我们去公园散步吧。",
        "明天的会议下午三点在第二会议室开始。",
        "好的，这句话是这样说的。如果你还有别的需要，随时告诉我。",
    ),
}
"""What the synthetic voices read."""

ENGINES = (
    ("pyopenjtalk", "pyopenjtalk", "ja"),
    ("espeak-ng", "espeak-ng:en-us", "en"),
    ("espeak-ng", "espeak-ng:en-us+f3", "en"),
    ("espeak-ng", "espeak-ng:cmn-latn-pinyin+m2", "zh"),
    ("espeak-ng", "espeak-ng:cmn-latn-pinyin+f3", "zh"),
    ("piper", "piper", "en"),
    ("kokoro", "kokoro:jf_alpha", "ja"),
    ("kokoro", "kokoro:jm_kumo", "ja"),
)
"""(engine family, spec, language): the leave-one-engine-out folds are the families."""
TRAINED = ("pyopenjtalk", "espeak-ng")
"""The synthetic families the classifier is trained on (the flat voices); the others are only reported."""

STYLES = ((1.0, 0.0), (0.8, 4.0), (1.25, -4.0))
"""(rate, PSOLA semitones) per text: normal; slower and higher; faster and lower."""


@dataclass(frozen=True)
class Sample:
    """One training example."""

    group: str
    """The real system, or the synthetic engine family."""
    natural: bool
    """Label."""
    m: Measurements
    """Its measurements."""
    name: str
    """File or clip description."""


def _mp3_round_trip(wav: bytes) -> bytes:
    import soundfile

    audio = decode_audio(wav, Location("clip")).audio
    buffer = io.BytesIO()
    soundfile.write(buffer, audio.samples, audio.sample_rate, format="MP3")
    return buffer.getvalue()


def _speakable(text: str, spec: str) -> str:
    if spec.startswith("espeak-ng:cmn"):
        from pypinyin import Style, lazy_pinyin

        return " ".join(lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True))
    return text


def _render(spec: str, text: str, rate: float, semitones: float, engines: dict[str, Any]) -> bytes:
    engine = engines.get(spec) or engine_from_spec(spec)
    engines[spec] = engine
    audio: Audio = engine.synthesize(_speakable(text, spec), VoiceStyle(rate=rate))
    return to_input_format(shift_pitch(audio, semitones))


def synthetic_samples(root: Path) -> list[Sample]:
    """Render (cached) and measure every synthetic clip, as rendered and after an MP3 round trip."""
    out: list[Sample] = []
    engines: dict[str, Any] = {}
    for family, spec, language in ENGINES:
        for text in TEXTS[language]:
            for rate, semitones in STYLES:
                key = hashlib.sha256(json.dumps([spec, text, rate, semitones]).encode()).hexdigest()[:20]
                for variant in ("wav", "mp3"):
                    path = root / f"{key}.{variant}.json"
                    if not path.exists():
                        wav_path = root / f"{key}.wav"
                        if not wav_path.exists():
                            try:
                                wav_path.write_bytes(_render(spec, text, rate, semitones, engines))
                            except Exception as exc:  # an engine not installed: reported, left out
                                print(f"  {spec}: not rendered ({type(exc).__name__}: {exc})", file=sys.stderr)
                                break
                        data = wav_path.read_bytes()
                        data = data if variant == "wav" else _mp3_round_trip(data)
                        m = measure(decode_audio(data, Location(str(wav_path))).audio)
                        path.write_text(json.dumps(asdict(m)), encoding="utf-8")
                    m = _measurements_from(json.loads(path.read_text(encoding="utf-8")))
                    out.append(Sample(family, False, m, f"{spec} {rate} {semitones:+g} {variant}: {text[:20]}"))
    return out


def natural_samples(root: Path, cache: MeasureCache) -> list[Sample]:
    """Every vstyle-dev reply, measured (cached)."""
    return [Sample(r.system, True, cache.measurements(r.path), r.key) for r in replies(root)]


def _matrix(samples: list[Sample], names: tuple[str, ...]) -> np.ndarray:
    rows = [[features(s.m).get(n) for n in names] for s in samples]
    return np.array([[np.nan if v is None else float(v) for v in row] for row in rows])


def fit(samples: list[Sample], c: float = 0.1) -> NaturalnessModel:
    """A standardised, class-balanced L2 logistic regression; the threshold keeps every flat training clip out.

    Only the natural samples and the synthetic samples of the ``TRAINED`` families are used.
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        sys.exit("training the naturalness classifier needs scikit-learn (pip install 'voxeval[annotator]')")

    samples = [s for s in samples if s.natural or s.group in TRAINED]
    names = tuple(features(samples[0].m))
    x = _matrix(samples, names)
    mean = np.nanmean(x, axis=0)
    scale = np.nanstd(x, axis=0) + 1e-9
    z = np.nan_to_num((x - mean) / scale, nan=0.0)
    y = np.array([s.natural for s in samples])
    lr = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(z, y)
    model = NaturalnessModel(
        names,
        tuple(mean.tolist()),
        tuple(scale.tolist()),
        tuple(lr.coef_[0].tolist()),
        float(lr.intercept_[0]),
        0.5,
        {},
    )
    worst_synthetic = max((model.probability(s.m) or 0.0 for s in samples if not s.natural), default=0.0)
    threshold = min(0.95, max(0.5, worst_synthetic + 0.02))
    return NaturalnessModel(model.features, model.mean, model.scale, model.weights, model.intercept, threshold, {})


def validate(samples: list[Sample]) -> dict[str, Any]:
    """Leave one group out: natural recall per held-out system, rejection per held-out flat engine; and in-sample
    rejection of every synthetic family by the model fitted on everything."""
    report: dict[str, Any] = {}
    everything = fit(samples)
    for group in sorted({s.group for s in samples}):
        held = [s for s in samples if s.group == group]
        trained = held[0].natural or group in TRAINED
        model = fit([s for s in samples if s.group != group]) if trained else everything
        right = sum((model.probability(s.m) or 0.0) >= model.threshold for s in held if s.natural)
        right += sum((model.probability(s.m) or 0.0) < model.threshold for s in held if not s.natural)
        kind = "natural, rated natural" if held[0].natural else "synthetic, rated not natural"
        row = {"held_out": kind if trained else f"{kind} (not trained on)", "right": right, "n": len(held)}
        if not held[0].natural:
            inside = sum((everything.probability(s.m) or 0.0) < everything.threshold for s in held)
            row["in_sample_right"] = inside
        report[group] = row | {"threshold": round(model.threshold, 3)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {MODEL_PATH.relative_to(REPO)}")
    parser.add_argument("--json", type=Path, help="write the validation report here")
    args = parser.parse_args()
    root = data_dir()
    if root is None:
        sys.exit("vstyle-dev not found: set VOXEVAL_VSTYLE_DEV (see benchmarks/acoustic_vstyle_data.py)")
    natural = natural_samples(root, MeasureCache(None))
    synthetic = synthetic_samples(cache_dir("acoustic-naturalness"))
    samples = natural + synthetic
    report = validate(samples)
    for group, row in report.items():
        inside = f", in-sample {row['in_sample_right']}/{row['n']}" if "in_sample_right" in row else ""
        print(f"{group:38s} {row['held_out']:48s} {row['right']}/{row['n']}{inside} (threshold {row['threshold']})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    if args.write:
        model = fit(samples)
        counts: dict[str, int] = {}
        for s in samples:
            counts[s.group] = counts.get(s.group, 0) + 1
        meta = {
            "natural": f"vstyle-dev replies of {', '.join(SYSTEMS)} (all categories, en + zh)",
            "natural_sha256": data_sha256(root),
            "synthetic": "; ".join(f"{spec} ({lang})" for family, spec, lang in ENGINES if family in TRAINED)
            + f"; styles (rate, PSOLA semitones) {list(STYLES)}; each as rendered and after an MP3 round trip",
            "reported_only": "; ".join(f"{spec} ({lang})" for family, spec, lang in ENGINES if family not in TRAINED),
            "counts": counts,
            "validation": report,
            "command": COMMAND,
        }
        final = NaturalnessModel(
            model.features, model.mean, model.scale, model.weights, model.intercept, model.threshold, meta
        )
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(final.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH} (threshold {final.threshold:.3f})")
    if os.environ.get("VOXEVAL_NATURALNESS_DUMP"):
        for s in samples:
            print(s.group, s.natural, round(fit(samples).probability(s.m) or 0, 3), s.name)


if __name__ == "__main__":
    main()
