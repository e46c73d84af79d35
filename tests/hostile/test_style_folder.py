"""Issue 31 groups 2 and 9 in a style run: ``judgements.jsonl`` and ``summary.json`` read back through the checked
readers, and reply audio given to the judge resolved inside the run (docs/reliability.md lists each case)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.test_run_folder import _files, _refused, _rewrite
from voxeval.cli import main
from voxeval.report import _plots as plots
from voxeval.testing.mockserver import sine_wav

# The same classes in a style run (judgements.jsonl, summary.json, reply audio given to the judge) ---------------


@pytest.fixture(scope="module")
def _style_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    import tests.run.style_doubles  # noqa: F401  (registers the "tone" judge)

    out = tmp_path_factory.mktemp("style") / "run"
    args = ["run", "--benchmark", "style", "--dataset", "acoustic-ja", "--abilities", "pitch", "--limit", "2"]
    args += [
        "--judge",
        "tone",
        "--quiet",
        "--tts",
        "espeak-ng",
        "--system",
        "python:tests.run.style_doubles:high_voice",
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
        assert main([*args, "--out", str(out)]) == 0
    return out, args


def _append(path: Path, line: str) -> str:
    with path.open("a") as handle:
        handle.write(line + "\n")
    return f"{path.name}:{len(path.read_text().splitlines())}"


def _truncate_first(path: Path) -> str:
    path.write_text('{"key": \n' + path.read_text())
    return f"{path.name}:1"


STYLE_TAMPERING: dict[str, Callable[[Path], str]] = {
    "summary-array": lambda out: (out / "summary.json").write_text("[]") and "summary.json",
    "summary-without-systems": lambda out: (out / "summary.json").write_text('{"x": 1}') and "summary.json",
    "judgement-foo": lambda out: _append(out / "judgements.jsonl", '{"foo": 1}'),
    "judgement-wrong-key": lambda out: _append(
        out / "judgements.jsonl", '{"key": "k", "dataset": "d", "system": "s", "id": "x", "status": "ok"}'
    ),
    "first-judgement-truncated": lambda out: _truncate_first(out / "judgements.jsonl"),
}  # fmt: skip


@pytest.mark.parametrize("tamper", list(STYLE_TAMPERING))
def test_a_tampered_style_run_is_refused_by_report(
    _style_run: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str], tamper: str
) -> None:
    out = tmp_path / "run"
    shutil.copytree(_style_run[0], out, symlinks=True)
    needle = STYLE_TAMPERING[tamper](out)
    before = _files(out)
    capsys.readouterr()
    _refused(capsys, main(["report", str(out)]), needle)
    assert _files(out) == before


@pytest.mark.parametrize("audio", ["/etc/passwd", "../../outside.wav"])
def test_reply_audio_read_back_by_a_style_rerun_must_stay_inside_the_run(
    _style_run: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str], audio: str
) -> None:
    out = tmp_path / "run"
    shutil.copytree(_style_run[0], out, symlinks=True)
    (tmp_path / "outside.wav").write_bytes(sine_wav(0.1))
    _rewrite(out / "replies.jsonl", lambda r: {**r, "audio": audio})
    (out / "judgements.jsonl").write_text("")
    capsys.readouterr()
    _refused(capsys, main([*_style_run[1], "--out", str(out)]), "replies.jsonl", ".audio")
    assert (out / "judgements.jsonl").read_text() == ""
