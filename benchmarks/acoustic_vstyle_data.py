"""The vstyle-dev replies (real speech of three systems, scored by Gemini 2.5 Pro) and their cached measurements.

The data stay outside the repository (third-party audio without a licence): ``VOXEVAL_VSTYLE_DEV`` names the
folder, else ``../shared/data/vstyle-dev`` beside the repository (or beside the main checkout of a worktree), else
``/work/shared/data/vstyle-dev``. Measurements (Praat, loudness, voice quality) and ASR (Whisper base with word
times) are cached per audio sha256 under the voxeval cache (``acoustic-vstyle``), so later runs only fit and judge.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import Location
from voxeval.paths import cache_dir
from voxeval.speech.acoustics import Analysis, Heard, Measurements, analysis_of, listen, measure
from voxeval.speech.acoustics._voice import VoiceQuality
from voxeval.speech.asr import ASREngine, Word
from voxeval.speech.audio import decode_audio
from voxeval.style._types import StyleItem
from voxeval.style._vstyle import parse_vstyle_row

REPO = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "zh")
SYSTEMS = ("Kimi", "Qwen2.5-Omni", "gpt-4o-mini-audio-preview-2024-12-17")
"""The three systems of vstyle-dev (leave-one-system-out folds)."""
MEASURE_VERSION = "2"
"""Bumped when what is cached per reply changes."""


def data_dir() -> Path | None:
    """The vstyle-dev folder, or None when it is not on this machine."""
    candidates = [os.environ.get("VOXEVAL_VSTYLE_DEV", "")]
    candidates += [str(REPO.parent / "shared/data/vstyle-dev"), "/work/shared/data/vstyle-dev"]
    if (REPO / ".git").is_file():  # a worktree: also beside the main checkout
        gitdir = (REPO / ".git").read_text().split("gitdir:", 1)[-1].strip()
        main = Path(gitdir).resolve().parents[2]
        candidates.append(str(main.parent / "shared/data/vstyle-dev"))
    for c in candidates:
        if c and (Path(c) / "en" / "metadata_sample.jsonl").is_file():
            return Path(c)
    return None


@dataclass(frozen=True)
class GeminiView:
    """What Gemini 2.5 Pro recognised in a reply (its step 1), read from its raw judgement."""

    gender: str | None
    """``male`` / ``female``."""
    age: str | None
    """``child``, ``teenager``, ``young_adult``, ``middle_aged``, ``elderly``."""
    pitch: float | None
    """0–100 intensity."""
    speed: float | None
    """0–100 intensity."""
    volume: float | None
    """0–100 intensity."""


@dataclass(frozen=True)
class Reply:
    """One vstyle-dev reply with Gemini's score and recognised attributes."""

    key: str
    """``{language}-{id}``."""
    language: str
    """``en`` or ``zh``."""
    system: str
    """The system that spoke it."""
    item: StyleItem
    """The reply as the judge sees it (requirements parsed from the instruction)."""
    path: Path
    """The MP3."""
    gemini_score: int | None
    """Gemini's 1–5 score; None when its call failed (the README's ``API失败``)."""
    gemini: GeminiView
    """Gemini's recognised attributes."""


_FIELD = {
    name: re.compile(rf"(?:^|\n)[\s>*#\-]*\**{label}\**\s*[:：]\s*([^\n]*)", re.I)
    for name, label in (
        ("gender", "Gender"),
        ("age", "Age"),
        ("pitch", "Pitch"),
        ("speed", "Speaking rate"),
        ("volume", "Volume"),
    )
}
_AGES = (
    ("child", ("child", "儿童", "孩子", "童")),
    ("teenager", ("teen", "少年")),
    ("elderly", ("elder", "old", "老")),
    ("middle_aged", ("middle", "中年")),
    ("young_adult", ("young", "adult", "青年", "成年")),
)
_LEVEL_WORDS = (  # when Gemini named a level without a number: the middle of that level's band
    (95.0, ("very high", "very fast", "very loud", "非常高", "非常快", "很快", "极快", "非常大", "很大")),
    (5.0, ("very low", "very slow", "very quiet", "非常低", "非常慢", "很慢", "极慢", "非常小", "很小")),
    (77.0, ("high", "fast", "loud", "高", "快", "大")),
    (22.0, ("low", "slow", "quiet", "soft", "低", "慢", "小", "轻")),
    (50.0, ("normal", "medium", "moderate", "正常", "中等", "适中")),
)


def _intensity(line: str) -> float | None:
    number = re.search(r"(\d+(?:\.\d+)?)\s*(?:/\s*100)?", line)
    if number and float(number.group(1)) <= 100:
        return float(number.group(1))
    low = line.lower()
    return next((value for value, words in _LEVEL_WORDS if any(w in low for w in words)), None)


def gemini_view(raw: str) -> GeminiView:
    """Gemini's step-1 attributes from its raw judgement (None where it did not state one)."""
    head = raw.split("2.", 1)[0] if "2." in raw else raw  # step 1 only: later steps restate the requirements
    lines = {k: (m.group(1).strip().lower() if (m := p.search(head)) else "") for k, p in _FIELD.items()}
    gender = "female" if ("female" in lines["gender"] or "女" in lines["gender"]) else None
    if gender is None and ("male" in lines["gender"] or "男" in lines["gender"]):
        gender = "male"
    age = next((a for a, keys in _AGES if any(k in lines["age"] for k in keys)), None)
    value = {a: (_intensity(lines[a]) if lines[a] else None) for a in ("pitch", "speed", "volume")}
    return GeminiView(gender, age, value["pitch"], value["speed"], value["volume"])


ABILITY_NAMES = {
    "Instruction/conversion": "instruction/variation",
    "Instruction/emotion": "instruction/emotion",
    "Instruction/style": "instruction/style",
    "Role-Playing/character": "role_play/character",
    "Role-Playing/scenario": "role_play/scenario",
}
"""The published examples' ability names that differ from VStyle's result format."""


def _score(value: Any) -> int | None:
    text = str(value).strip()
    return int(text) if text in {"1", "2", "3", "4", "5"} else None


def replies(root: Path) -> Iterator[Reply]:
    """Every reply of vstyle-dev, in file order."""
    for language in LANGUAGES:
        path = root / language / "metadata_sample.jsonl"
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            row = json.loads(line)
            for response in row["responses"]:
                flat = {k: v for k, v in row.items() if k != "responses"} | response
                flat["ability"] = ABILITY_NAMES.get(row["ability"], row["ability"])
                item = parse_vstyle_row(flat, root / language, Location(str(path), line_no))
                yield Reply(
                    key=f"{language}-{item.id}",
                    language=language,
                    system=response["model_name"],
                    item=item,
                    path=root / language / response["response_audio_path"],
                    gemini_score=_score(response.get("gemini_score")),
                    gemini=gemini_view(response.get("gemini_raw") or ""),
                )


def data_sha256(root: Path) -> str:
    """sha256 over the metadata files and every audio file (name and bytes), in a fixed order."""
    digest = hashlib.sha256()
    for language in LANGUAGES:
        folder = root / language
        for f in sorted(folder.iterdir()):
            if f.suffix in {".jsonl", ".mp3"}:
                digest.update(f"{language}/{f.name}\0".encode())
                digest.update(f.read_bytes())
    return digest.hexdigest()


def _measurements_from(d: dict[str, Any]) -> Measurements:
    voice = d.pop("voice", None)
    formants = d.pop("formants_hz", None)
    return Measurements(
        **d,
        formants_hz=None if formants is None else tuple(formants),
        voice=None if voice is None else VoiceQuality(**voice),
    )


def _heard_from(d: dict[str, Any]) -> Heard:
    words = tuple(Word(**w) for w in d.pop("words", ()))
    return Heard(**d, words=words)


class MeasureCache:
    """Measurements and transcripts of audio files, cached by content hash."""

    def __init__(self, asr: ASREngine | None, root: Path | None = None) -> None:
        self.root = root or cache_dir("acoustic-vstyle")
        self._asr = asr

    def measurements(self, path: Path) -> Measurements:
        """The acoustic measurements only (no ASR), cached apart from the analyses."""
        data = path.read_bytes()
        digest = hashlib.sha256(data + f"\0m\0{MEASURE_VERSION}".encode()).hexdigest()[:24]
        cached = self.root / f"{digest}.m.json"
        if cached.exists():
            return _measurements_from(json.loads(cached.read_text(encoding="utf-8")))
        m = measure(decode_audio(data, Location(str(path))).audio)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(m)), encoding="utf-8")
        tmp.replace(cached)
        return m

    def analysis(self, path: Path, language: str) -> Analysis:
        """The analysis of one file (ASR with the expected language's fallback; units from the transcript)."""
        data = path.read_bytes()
        digest = hashlib.sha256(data + f"\0{language}\0{MEASURE_VERSION}".encode()).hexdigest()[:24]
        cached = self.root / f"{digest}.json"
        if cached.exists():
            payload = json.loads(cached.read_text(encoding="utf-8"))
            m, heard = _measurements_from(payload["measurements"]), _heard_from(payload["heard"])
        else:
            if self._asr is None:
                raise RuntimeError(f"{path}: not in the measurement cache and no ASR was given")
            m = measure(decode_audio(data, Location(str(path))).audio)
            heard = listen(self._asr, data, language)
            payload = {"file": path.name, "measurements": asdict(m), "heard": asdict(heard)}
            tmp = cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
            tmp.replace(cached)
        return analysis_of(m, heard, language)


def main() -> None:
    """Fill the cache for the acoustic-attribute replies (``python benchmarks/acoustic_vstyle_data.py [--reverse]``).

    The other replies are only measured (no ASR), by ``acoustic_vstyle.py`` and ``acoustic_naturalness.py``.
    """
    from voxeval.speech.asr import WhisperASR

    root = data_dir()
    if root is None:
        sys.exit("vstyle-dev not found: set VOXEVAL_VSTYLE_DEV")
    cache = MeasureCache(WhisperASR())
    ordered = [r for r in replies(root) if r.item.ability.startswith("acoustic_attributes/")]
    if "--reverse" in sys.argv:  # a second worker, from the other end
        ordered.reverse()
    for n, reply in enumerate(ordered, 1):
        cache.analysis(reply.path, reply.language)
        if n % 20 == 0:
            print(f"  {n} replies measured", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
