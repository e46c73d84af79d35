"""Run ``voxeval score``, ``judge``, ``annotate`` and two small ``run``s on fixed inputs; normalise their outputs.

Used by ``test_equivalence.py`` to show that a refactor leaves every output file unchanged (apart from
timestamps, machine details and documented bug fixes). ``before.json`` was captured from commit 7dcbe03, the
code before the benchmark spine, with::

    PYTHONPATH=src python -m tests.equivalence.capture tests/equivalence/before.json
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

VOLATILE = {
    "created",
    "updated",
    "command",
    "python",
    "platform",
    "elapsed_s",
    "voxeval_version",
    "trace",
    "fingerprint",
}
"""Fields that differ between two identical runs (times, machine, version, the hash of settings holding temporary
paths) and are left out of the comparison."""


PACKAGE = str(Path(__file__).resolve().parents[2] / "src" / "voxeval")
"""Where the package is installed from (built-in datasets' paths): differs between clones."""


def _scrub(value: Any, root: str) -> Any:
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else _scrub(v, root)) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_scrub(v, root) for v in value]
    if isinstance(value, str):
        return value.replace(root, "<tmp>").replace(PACKAGE, "<package>")
    return value


def _text(text: str, root: str) -> str:
    text = text.replace(root, "<tmp>").replace(PACKAGE, "<package>")
    # Report pages carry the time they were built.
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", "<time>", text)


def normalise(folder: Path, root: str) -> dict[str, Any]:
    """Every file of ``folder``: JSON scrubbed of volatile fields, JSONL rows sorted, binaries by hash."""
    out: dict[str, Any] = {}
    # Lock files (added with the stage runner) guard a folder while a command writes it; they hold no results.
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".lock")):
        name = str(path.relative_to(folder))
        if path.suffix == ".jsonl":
            rows = [_scrub(json.loads(x), root) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
            out[name] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, ensure_ascii=False))
        elif path.suffix == ".json":
            out[name] = _scrub(json.loads(path.read_text(encoding="utf-8")), root)
        elif path.suffix in (".md", ".csv", ".html"):
            # HTML embeds PNG figures whose bytes depend on the matplotlib build: compared without them.
            out[name] = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "<png>", _text(path.read_text("utf-8"), root))
        else:
            out[name] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _inputs(tmp: Path) -> dict[str, Path]:
    from tests.conftest import gold_row, pred_row, write_jsonl
    from voxeval.data import builtin_path
    from voxeval.testing.mockserver import sine_wav

    gold = write_jsonl(
        tmp / "gold.jsonl",
        [
            gold_row("a", [("Question", 0.7), ("Inform", 0.3)]),
            gold_row("b", [("Inform", 1.0)]),
            gold_row("c", [("Answer", 1.0)]),
        ],
    )
    pred = write_jsonl(tmp / "pred.jsonl", [pred_row("a", [("Question", 1.0)]), pred_row("b", [("Answer", 1.0)])])
    samples = [json.loads(x) for x in builtin_path("ja-assistant").read_text("utf-8").splitlines()[:4]]
    replies = [{"id": s["id"], "text": s["output"]["text"]} for s in samples]
    replies[2]["text"] = "これは金の返事ではありません"  # one reply the gold annotator cannot label
    replay = write_jsonl(tmp / "replay.jsonl", replies[:3])  # and one sample without a reply (a failure)
    root = tmp / "vstyle"
    (root / "wav").mkdir(parents=True)
    meta = []
    for rid, model, ability, freq in [
        ("p1", "A", "acoustic_attributes/pitch", 300.0),
        ("p2", "B", "acoustic_attributes/pitch", 100.0),
        ("s1", "A", "acoustic_attributes/speed", 300.0),
    ]:
        (root / "wav" / f"{rid}.wav").write_bytes(sine_wav(0.5, frequency=freq))
        meta.append(
            {
                "id": rid,
                "instruct_id": rid,
                "model_name": model,
                "ability": ability,
                "instruct_text": "高い声で話してください" if rid.startswith("p") else "速く話して",
                "response_audio_path": f"wav/{rid}.wav",
            }
        )
    return {"gold": gold, "pred": pred, "replay": replay, "meta": write_jsonl(tmp / "meta.jsonl", meta), "root": root}


def commands(tmp: Path, files: dict[str, Path]) -> dict[str, list[str]]:
    """The commands compared, by output folder name."""
    out = tmp / "out"
    return {
        "score": ["score", "--gold", str(files["gold"]), "--pred", str(files["pred"]), "--out", str(out / "score")],
        "judge": [
            "judge",
            "--judge",
            "tone",
            "--in",
            str(files["meta"]),
            "--root",
            str(files["root"]),
            "--out",
            str(out / "judge"),
        ],
        "annotate": [
            "annotate",
            "--annotator",
            "gold",
            "--in",
            str(files["replay"]),
            "--out",
            str(out / "annotate" / "pred.jsonl"),
        ],
        "run-da": [
            "run",
            "--dataset",
            "ja-assistant",
            "--limit",
            "4",
            "--system",
            f"replay:{files['replay']}",
            "--annotator",
            "gold",
            "--out",
            str(out / "run-da"),
            "--quiet",
        ],
        "run-style": [
            "run",
            "--benchmark",
            "style",
            "--dataset",
            "acoustic-ja",
            "--abilities",
            "pitch,speed",
            "--limit",
            "4",
            "--judge",
            "tone",
            "--tts",
            "pyopenjtalk",
            "--system",
            "python:tests.run.style_doubles:high_voice",
            "--system",
            "python:tests.run.style_doubles:mute",
            "--out",
            str(out / "run-style"),
            "--quiet",
        ],
    }


def capture() -> dict[str, Any]:
    """Run every command in a fresh temporary folder; returns the normalised outputs by command."""
    import contextlib
    import io

    import tests.run.style_doubles  # noqa: F401  (registers the "tone" judge)
    from voxeval.cli import main

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name).resolve()
        files = _inputs(tmp)
        result: dict[str, Any] = {}
        for label, argv in commands(tmp, files).items():
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout):
                code = main(argv)
            folder = tmp / "out" / label
            result[label] = {
                "exit": code,
                "stdout": _text(stdout.getvalue(), str(tmp)),
                "files": normalise(folder, str(tmp)),
            }
        return result


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.write_text(json.dumps(capture(), ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}")
