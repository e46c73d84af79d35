"""Intelligibility of synthesised dataset inputs: Whisper base's error rate on each candidate voice.

Run: ``python benchmarks/intelligibility.py DATASET ENGINE [ENGINE …] [--n 20]``, e.g.
``python benchmarks/intelligibility.py en-assistant piper:joe espeak-ng:en-us``; ``dir:FOLDER`` as an engine
scores clips rendered elsewhere (``FOLDER/0.wav`` … for the texts ``--list-texts`` prints). The inputs are ``n`` user
utterances spread evenly over the dataset (every k-th row, so every domain is heard), rendered in the input format
(24 kHz / 16-bit / mono) and transcribed by the offline Whisper base in the dataset's language. English is scored
by word error rate, Mandarin and Japanese by character error rate, both over the whole set (errors / reference
length). Both sides are normalised first: case and punctuation dropped; English number words under a hundred
become digits, "a.m."/"p.m." become "am"/"pm", times lose their colon, "$85"/"30%" become "85 dollars"/"30
percent" and common contractions are expanded; Mandarin digits become hanzi numerals and traditional characters
(which Whisper often writes) become simplified ones (``zhconv``). A voice is judged on what a listener hears, not on
how Whisper spells a number. A transcript that still loops after Whisper's loop recovery (docs/speech.md) is left out
of the error rate and listed in ``asr_looped`` (``scored`` counts the rest). Prints one JSON line per engine and the
worst transcripts.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from voxeval.data import resolve_dataset
from voxeval.speech.asr import WhisperASR
from voxeval.speech.asr._cer import levenshtein
from voxeval.speech.audio import to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
_UNITS += "seventeen eighteen nineteen"
_WORDS = {w: i for i, w in enumerate(_UNITS.split())}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}
_CONTRACTIONS = {
    "what's": "what is", "it's": "it is", "i'm": "i am", "that's": "that is", "where's": "where is",
    "who's": "who is", "how's": "how is", "i'll": "i will", "you're": "you are", "don't": "do not",
}  # fmt: skip
_HANZI_DIGITS = "零一二三四五六七八九"


def normalise_en(text: str) -> list[str]:
    """Lower-case words without punctuation, number words under a hundred as digits."""
    text = text.lower().replace("a.m.", "am").replace("p.m.", "pm").replace("-", " ")
    text = re.sub(r"(\d):(\d\d)", r"\1\2", text)  # 6:30 and Whisper's 630 are the same time
    text = re.sub(r"\$([0-9][0-9,.]*)", r"\1 dollars", text).replace("%", " percent")
    for short, full in _CONTRACTIONS.items():
        text = re.sub(rf"\b{short}\b", full, text)
    text = re.sub(r"(\d) ?(am|pm)\b", r"\1 \2", text)  # "6am" and "6 am" are the same words
    words = re.findall(r"[a-z0-9']+(?:\.[0-9]+)?", text.replace(",", ""))
    out: list[str] = []
    for w in words:
        if w in _TENS:
            out.append(str(_TENS[w]))
        elif w in _WORDS:
            if out and out[-1].isdigit() and int(out[-1]) in _TENS.values() and _WORDS[w] < 10:
                out[-1] = str(int(out[-1]) + _WORDS[w])
            else:
                out.append(str(_WORDS[w]))
        else:
            out.append(w)
    return out


def _hanzi_number(match: re.Match[str]) -> str:
    digits = match.group(0)
    if len(digits) > 2:
        return "".join(_HANZI_DIGITS[int(d)] for d in digits)
    n = int(digits)
    if n < 10:
        return _HANZI_DIGITS[n]
    tens, units = divmod(n, 10)
    return ("" if tens == 1 else _HANZI_DIGITS[tens]) + "十" + (_HANZI_DIGITS[units] if units else "")


def normalise_zh(text: str) -> list[str]:
    """Characters without punctuation or spaces, digits as hanzi numerals, traditional forms simplified."""
    from zhconv import convert  # the asr extra; Whisper often writes traditional characters

    text = re.sub(r"[0-9]+", _hanzi_number, convert(text, "zh-cn"))
    return [c for c in text if c.isalnum()]


def chosen_texts(dataset: str, n: int) -> tuple[str, list[str]]:
    """The dataset's language and ``n`` inputs spread evenly over it (every k-th row)."""
    data = resolve_dataset(dataset)
    step = max(1, len(data.samples) // n)
    return data.language, [s.input_text for s in data.samples[::step][:n]]


def _rendered(spec: str, texts: list[str], rate: float) -> list[bytes]:
    """``texts`` spoken by ``spec``, or read from ``dir:FOLDER/`` (``0.wav``, ``1.wav``, … rendered elsewhere, e.g.
    by a voice that needs an environment of its own: ``--list-texts`` prints the texts to render)."""
    from voxeval.speech.audio import load_audio

    if spec.startswith("dir:"):
        folder = Path(spec[4:])
        return [to_input_format(load_audio(folder / f"{i}.wav").audio) for i in range(len(texts))]
    engine = engine_from_spec(spec)
    return [to_input_format(engine.synthesize(t, VoiceStyle(rate=rate))) for t in texts]


def measure(dataset: str, spec: str, n: int, asr: WhisperASR, rate: float = 1.0) -> dict[str, object]:
    """Synthesise ``n`` inputs with ``spec``, transcribe them, and score the transcripts."""
    language, texts = chosen_texts(dataset, n)
    started = time.perf_counter()
    wavs = _rendered(spec, texts, rate)
    synth_s = time.perf_counter() - started
    transcripts = asr.transcribe_batch(wavs, language)
    # A transcript that still loops after Whisper's recovery says nothing about the voice: left out, listed.
    looped = [{"text": t, "heard": h.text, "symptom": h.looped} for t, h in zip(texts, transcripts, strict=True)
              if h.looped]  # fmt: skip
    pairs = [(t, h.text) for t, h in zip(texts, transcripts, strict=True) if not h.looped]
    norm = normalise_en if language == "en" else normalise_zh
    errors = [levenshtein(norm(t), norm(h)) for t, h in pairs]
    length = sum(len(norm(t)) for t, _ in pairs)
    worst = sorted(zip(errors, pairs, strict=True), key=lambda x: -x[0])[:3]
    return {
        "dataset": dataset,
        "engine": spec,
        "rate": rate,
        "inputs": len(texts),
        "scored": len(pairs),
        "metric": "WER" if language == "en" else "CER",
        "error_rate": round(sum(errors) / max(1, length), 4),
        "synth_s_per_input": round(synth_s / len(texts), 3),
        "worst": [{"errors": e, "text": t, "heard": h} for e, (t, h) in worst if e],
        "asr_looped": looped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset")
    parser.add_argument("engines", nargs="+")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1.0, help="speaking rate (1.0: the voice's own)")
    parser.add_argument("--list-texts", action="store_true", help="print the chosen inputs as JSON and stop")
    args = parser.parse_args()
    if args.list_texts:
        print(json.dumps(chosen_texts(args.dataset, args.n)[1], ensure_ascii=False))
        return
    asr = WhisperASR()
    for spec in args.engines:
        print(json.dumps(measure(args.dataset, spec, args.n, asr, args.rate), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
