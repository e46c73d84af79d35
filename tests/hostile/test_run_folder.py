"""Issue 31 groups 2, 3, 4, 5 and 9: a run folder is read back as data an attacker may have edited.

Paths read from its logs stay inside their own root (group 2); ``voxeval report`` is built from the files the run
recorded, by sha256, whatever the working directory (3); result keys cannot collide (4); logs without their
``config.json`` are refused (5); tampered log lines, configs and price files are errors naming file and line (9).
docs/reliability.md lists each case.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.report import _plots as plots
from voxeval.run._keys import reply_key, sample_key
from voxeval.testing.mockserver import MockServer, sine_wav

TEXTS = ("Timer set.", "It will rain.")


@pytest.fixture(autouse=True)
def no_png(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports are built but their figures not rendered to PNG (most of a small run's time; no data in them)."""
    monkeypatch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")


def _dataset(folder: Path, ids: tuple[str, ...] = ("s0", "s1"), name: str = "set.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.wav").write_bytes(sine_wav(0.3))
    rows = []
    for i, sample in enumerate(ids):
        row = gold_row(sample, [("Commissive" if i % 2 == 0 else "Inform", 1.0)], out=TEXTS[i % 2])
        row["input"]["audio"] = "in.wav"
        rows.append(row)
    return write_jsonl(folder / name, rows)


def _replay(folder: Path, ids: tuple[str, ...] = ("s0", "s1"), text: str = TEXTS[0]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    return f"replay:{write_jsonl(folder / 'replies.jsonl', [{'id': i, 'text': text} for i in ids])}"


def _run(out: Path, data: Path | str, systems: list[str], annotator: Path | str | None = None) -> int:
    args = ["run", "--dataset", str(data), *[a for s in systems for a in ("--system", s)]]
    return main([*args, "--annotator", f"gold:{annotator or data}", "--out", str(out), "--quiet"])


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def _rewrite(path: Path, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(edit(r)) + "\n" for r in _rows(path)), "utf-8")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _finished(tmp_path: Path) -> tuple[Path, Path, str]:
    data = _dataset(tmp_path / "data")
    system = _replay(tmp_path / "replay")
    out = tmp_path / "run"
    assert _run(out, data, [system]) == 0
    return data, out, system


@pytest.fixture(scope="module")
def _one_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
        return _finished(tmp_path_factory.mktemp("one-run"))


@pytest.fixture
def finished(_one_run: tuple[Path, Path, str], tmp_path: Path) -> tuple[Path, Path, str]:
    """A finished run of two samples (dataset, run folder, system spec): a copy of one run per test module (its
    dataset and replay file are shared: a test that edits them makes its own run)."""
    data, out, system = _one_run
    shutil.copytree(out, tmp_path / "run", symlinks=True)
    return data, tmp_path / "run", system


def _refused(capsys: pytest.CaptureFixture[str], code: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert "voxeval: error:" in err and "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


# Group 2: paths read back from a run's own logs ------------------------------------------------------------------


def _outside_link(out: Path) -> str:
    link = out / "audio" / "inputs" / "link.wav"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to("/etc/passwd")
    return "audio/inputs/link.wav"


def _sibling(out: Path) -> str:
    return str(out.parent / "replay" / "replies.jsonl")


@pytest.mark.parametrize(
    "audio",
    [lambda out: "/etc/passwd", lambda out: "../../x.wav", _sibling, _outside_link],
    ids=["absolute", "dotdot", "sibling-folder", "symlink-out"],
)
def test_an_input_audio_path_read_back_from_the_log_must_stay_inside_the_run(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], audio: Callable[[Path], str]
) -> None:
    """The issue's example: every ``audio`` of ``inputs.jsonl`` set outside the run, replies emptied, rerun. It
    uploaded ``/etc/passwd`` as the input audio; now the rerun stops before any system is asked."""
    data, out, system = finished
    (out / "x.wav").parent.mkdir(exist_ok=True)
    path = audio(out)
    _rewrite(out / "inputs.jsonl", lambda r: {**r, "audio": path, "source": "synth:x"})
    (out / "replies.jsonl").write_text("")
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), "inputs.jsonl", ".audio", "use a new --out folder")
    assert (out / "replies.jsonl").read_text() == ""


def test_a_dataset_row_may_point_into_its_own_dataset_but_not_into_another_folder(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data, out, system = finished
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "in.wav").write_bytes(sine_wav(0.3))
    inside = str(data.parent / "in.wav")
    _rewrite(out / "inputs.jsonl", lambda r: {**r, "audio": inside, "source": "dataset"})
    (out / "replies.jsonl").write_text("")
    assert _run(out, data, [system]) == 0  # the dataset's own file, as a spec-format input is recorded
    _rewrite(out / "inputs.jsonl", lambda r: {**r, "audio": str(tmp_path / "elsewhere" / "in.wav")})
    (out / "replies.jsonl").write_text("")
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), "inputs.jsonl", "is outside")


@pytest.mark.parametrize("audio", ["/etc/passwd", "../outside.wav", "audio/../../outside.wav"])
def test_a_reply_audio_path_read_back_for_the_judge_must_stay_inside_the_run(tmp_path: Path, audio: str) -> None:
    from voxeval.benchmark._style import judge_entries_of
    from voxeval.errors import InputError

    out = tmp_path / "run"
    out.mkdir()
    (tmp_path / "outside.wav").write_bytes(sine_wav(0.1))
    item: Any = type("Item", (), {"id": "x"})()
    replies = {reply_key("set", "sys", "x"): {"status": "ok", "audio": audio}}
    with pytest.raises(InputError, match=r"leaves the run folder|absolute paths") as info:
        judge_entries_of(out, [("set", item, tmp_path / "set.jsonl")], ["sys"], replies)
    assert "replies.jsonl" in str(info.value)


def _replay_audio(tmp_path: Path, kind: str) -> str:
    folder = tmp_path / "replay"
    folder.mkdir()
    (tmp_path / "outside.wav").write_bytes(sine_wav(0.1))
    audio = {"absolute": str(tmp_path / "outside.wav"), "dotdot": "../outside.wav", "symlink": "link.wav"}[kind]
    if kind == "symlink":
        (folder / "link.wav").symlink_to(tmp_path / "outside.wav")
    return f"replay:{write_jsonl(folder / 'replies.jsonl', [{'id': 's0', 'text': 'x', 'audio': audio}])}"


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink"])
def test_a_replay_files_audio_must_stay_inside_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Held before issue 31 (listed so the class is complete): replay audio resolves inside the replay's folder."""
    data = _dataset(tmp_path / "data")
    out = tmp_path / "run"
    capsys.readouterr()
    _refused(capsys, _run(out, data, [_replay_audio(tmp_path, kind)]), "replies.jsonl:1", "audio")
    assert not out.exists()


# Group 3: the report is built from what the run holds ------------------------------------------------------------


def test_report_from_another_directory_with_a_decoy_dataset_rebuilds_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's example: the run named ``ja5.jsonl`` relative to its working directory; ``voxeval report`` from
    a directory holding another ``ja5.jsonl`` moved WLCS from 1.000 to 0.122. Now it reads the recorded file."""
    work, decoy = tmp_path / "work", tmp_path / "decoy"
    _dataset(work, name="ja5.jsonl")
    monkeypatch.chdir(work)
    out = tmp_path / "run"
    assert _run(out, "ja5.jsonl", [_replay(tmp_path / "replay")]) == 0
    before = _files(out)
    decoy_data = _dataset(decoy, name="ja5.jsonl")
    _rewrite(decoy_data, lambda r: {**r, "output_dialogue_acts": {"steps": [{"act": "Question", "importance": 1}]}})
    for cwd in (decoy, Path("/")):
        monkeypatch.chdir(cwd)
        assert main(["report", str(out)]) == 0
        assert _files(out) == before  # the same report, byte for byte, and nothing else touched


@pytest.mark.parametrize("change", ["edited", "removed"])
def test_report_refuses_a_dataset_that_changed_or_vanished_since_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    data, out, _ = _finished(tmp_path)
    before = _files(out)
    if change == "edited":
        _rewrite(data, lambda r: {**r, "output_dialogue_acts": {"steps": [{"act": "Question", "importance": 1}]}})
    else:
        data.unlink()
    capsys.readouterr()
    needle = "changed since the run" if change == "edited" else "not found"
    _refused(capsys, main(["report", str(out)]), "config.json", "datasets.set", needle)
    assert _files(out) == before


def test_report_of_a_score_folder_reads_the_recorded_gold_not_the_working_directorys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work, decoy = tmp_path / "work", tmp_path / "decoy"
    _dataset(work, name="gold.jsonl")
    write_jsonl(work / "pred.jsonl", [{"id": "s0", "steps": [{"act": "Commissive", "importance": 1}]}])
    monkeypatch.chdir(work)
    out = tmp_path / "scored"
    assert main(["score", "--gold", "gold.jsonl", "--pred", "pred.jsonl", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    before = _files(out)
    _dataset(decoy, ("s0", "zz"), name="gold.jsonl")
    write_jsonl(decoy / "pred.jsonl", [])
    monkeypatch.chdir(decoy)
    assert main(["report", str(out)]) == 0
    assert _files(out) == before
    (work / "gold.jsonl").write_text((work / "gold.jsonl").read_text() + "\n\n")
    capsys.readouterr()
    _refused(capsys, main(["report", str(out)]), "files.gold", "changed since the run")


# Group 4: result keys ----------------------------------------------------------------------------------------------


_part = st.text(alphabet="ab/%2F", max_size=6)


def _unescape(part: str) -> str:
    return part.replace("%2F", "/").replace("%25", "%")


@given(_part, _part, _part)
def test_a_key_names_its_parts_unambiguously(dataset: str, system: str, sample: str) -> None:
    """Keys split back into exactly their parts, so distinct (dataset, system, id) never share one: with names
    joined as they were, ``("d", "s/x", "1")`` and ``("d", "s", "x/1")`` shared ``d/s/x/1``."""
    assert [_unescape(p) for p in reply_key(dataset, system, sample).split("/")] == [dataset, system, sample]
    assert [_unescape(p) for p in sample_key(dataset, sample).split("/")] == [dataset, sample]
    assert reply_key("d", "s/x", "1") != reply_key("d", "s", "x/1")


class PathEcho(MockServer):
    """An OpenAI-shaped server whose reply names the path it was asked on (which system asked)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.asked: list[str] = []

    def handle(self, request: Any, raw: bytes) -> None:
        with self.lock:
            self.asked.append(request.path)
        message = {"role": "assistant", "content": TEXTS[0] if "/v1/" in request.path else TEXTS[1]}
        body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "model": "m"}
        request._send(200, json.dumps(body).encode())


def test_names_holding_slashes_never_share_a_key_and_every_pair_is_asked(tmp_path: Path) -> None:
    """The issue's example: ids ``t1`` and ``v1/t1`` with systems ``…/p/v1`` and ``…/p`` made one key of two
    pairs: 3 of 4 pairs were asked and one system was scored with the other's reply."""
    data = _dataset(tmp_path / "data", ("t1", "v1/t1"))
    out = tmp_path / "run"
    with PathEcho() as srv:
        systems = [f"openai-compat:m@{srv.base_url}/p/v1", f"openai-compat:m@{srv.base_url}/p"]
        assert _run(out, data, systems) == 0
        assert sorted(srv.asked) == sorted(["/p/v1/chat/completions"] * 2 + ["/p/chat/completions"] * 2)
    replies = _rows(out / "replies.jsonl")
    assert len({r["key"] for r in replies}) == 4
    for row in replies:  # each system scored with its own reply
        assert row["text"] == (TEXTS[0] if row["system"].endswith("/v1") else TEXTS[1])
    assert len({r["key"] for r in _rows(out / "annotations.jsonl")}) == 4
    assert len(_rows(out / "scores.jsonl")) == 4


@pytest.mark.parametrize("log", ["inputs", "replies", "annotations"])
def test_a_log_whose_keys_are_not_its_fields_keys_is_refused_naming_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], log: str
) -> None:
    """A folder written with the old, ambiguous keys (``dataset/system/id`` joined as they are) is refused with the
    fix when a name holds ``/``; folders whose names hold none key exactly as before and stay readable."""
    data = _dataset(tmp_path / "data", ("t1", "v1/t1"))
    system = _replay(tmp_path / "replay", ("t1", "v1/t1"))
    out = tmp_path / "run"
    assert _run(out, data, [system]) == 0
    _rewrite(
        out / f"{log}.jsonl",
        lambda r: {**r, "key": "/".join(r[f] for f in ("dataset", "system", "id") if f in r)},
    )
    before = _files(out)
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), f"{log}.jsonl:", "is not the key of its", "use a new --out folder")
    if log != "inputs":  # the report reads replies and annotations
        _refused(capsys, main(["report", str(out)]), f"{log}.jsonl:")
    assert _files(out) == before


def test_a_folder_whose_names_hold_no_slash_keys_as_before(finished: tuple[Path, Path, str]) -> None:
    _, out, _ = finished
    for row in _rows(out / "replies.jsonl"):
        assert row["key"] == f"{row['dataset']}/{row['system']}/{row['id']}"


# Group 5: logs without their config --------------------------------------------------------------------------------


@pytest.mark.parametrize("keep", ["all-logs", "inputs-only", "replies-only"])
def test_logs_without_config_json_are_refused_and_kept(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path, keep: str
) -> None:
    """The issue's example: config.json removed, rerun with another annotator: the old annotations were scored
    under a config saying gold. Now any log without config.json stops the run, whatever the options."""
    data, out, system = finished
    (out / "config.json").unlink()
    drop = {"inputs-only": ("replies", "annotations"), "replies-only": ("inputs", "annotations")}.get(keep, ())
    for name in drop:
        (out / f"{name}.jsonl").unlink()
    before = _files(out)
    other = _dataset(tmp_path / "other")
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system], annotator=other), "no config.json", "use a new --out folder")
    assert _files(out) == before


@pytest.mark.parametrize(
    "content", [b"", b"\xff\xfe not utf-8", b"{", b"[]", b'"x"', b'{"settings": []}'],
    ids=["empty", "not-utf8", "truncated", "array", "string", "settings-not-object"],
)  # fmt: skip
def test_an_unreadable_config_json_is_refused_by_run_and_report(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    data, out, system = finished
    (out / "config.json").write_bytes(content)
    before = _files(out)
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), "config.json")
    _refused(capsys, main(["report", str(out)]), "config.json")
    assert _files(out) == before


def test_a_config_json_that_is_a_directory_is_refused(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data, out, system = finished
    (out / "config.json").unlink()
    (out / "config.json").mkdir()
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), "config.json")


# Group 9: tampered log lines and settings files --------------------------------------------------------------------

NO_STATUS = '{"key": "set/replay:replies/s9", "dataset": "set", "system": "replay:replies", "id": "s9"}'


@pytest.mark.parametrize("log", ["inputs", "replies", "annotations"])
@pytest.mark.parametrize(
    "line",
    ['{"foo": 1}', '{"key": 5}', NO_STATUS, '{"key": null, "status": "ok"}'],
    ids=["foo", "number-key", "no-status", "null-key"],
)
def test_a_tampered_log_line_is_an_error_naming_file_and_line(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], log: str, line: str
) -> None:
    data, out, system = finished
    path = out / f"{log}.jsonl"
    if log == "inputs" and "system" in line:
        line = '{"key": "set/s9", "dataset": "set"}'  # an input row without its id
    with path.open("a") as handle:
        handle.write(line + "\n")
    lines = len(path.read_text().splitlines())
    before = _files(out)
    capsys.readouterr()
    _refused(capsys, _run(out, data, [system]), f"{log}.jsonl:{lines}")
    if log != "inputs":
        _refused(capsys, main(["report", str(out)]), f"{log}.jsonl:{lines}")
    assert _files(out) == before


@pytest.mark.parametrize("content", ["[]", '"x"', "1", "null", "{"])
def test_a_prices_file_that_is_not_an_object_is_an_error_naming_it(
    finished: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    _, out, _ = finished
    prices = tmp_path / "prices.json"
    prices.write_text(content)
    before = _files(out)
    capsys.readouterr()
    _refused(capsys, main(["report", str(out), "--prices", str(prices)]), "prices.json")
    assert _files(out) == before


@pytest.fixture(autouse=True)
def _restore_cwd() -> Iterator[None]:
    cwd = os.getcwd()
    yield
    os.chdir(cwd)
