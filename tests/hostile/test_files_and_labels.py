"""Issue 40 (round three), the classes about files, human labels, the labelling server and reports.

A: a FIFO where a log or a human file should be is refused, never waited on; a span ``end: 10**12`` is refused by the
row schema; the label server bounds idle and slow connections and how many it serves. C: no write follows a link
planted below its root. D: one checked schema for human rows (``label``, ``agreement``, export). E: one server per
labeller, names matched whole, names differing only in case refused. F: ``/media/…%00…`` is a 404. H: Markdown cells
inert. I: report numbers range-checked where rows are read, and never printed as 300 digits. Also: ``Host``
allow-list. docs/reliability.md lists each case.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gold_row, write_jsonl
from voxeval.cli import main
from voxeval.errors import ConfigError, InputError, OutputError
from voxeval.io import AppendLog, atomic_write_bytes
from voxeval.label import Study, load_file_items
from voxeval.label import _server as label_server
from voxeval.label._server import LabelServer
from voxeval.report import _plots as plots
from voxeval.report._escape import fixed, markdown_table, md_cell
from voxeval.systems import Reply, Turn
from voxeval.testing.mockserver import sine_wav

REPLY = "はい、承知しました。"


def _refused(capsys: pytest.CaptureFixture[str], code: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert "voxeval: error:" in err and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def _within(seconds: float, call: Callable[[], int]) -> int:
    """``call()``'s result, failing the test (instead of hanging it) when it takes longer than ``seconds``."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"still waiting after {seconds} s (blocked on a FIFO?)"
    return result[0]


# A labelling folder: items, and rows as `voxeval label` writes them ------------------------------------------------


def _items(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.wav").write_bytes(b"RIFF-test")
    rows = [{"id": "s1", "text": REPLY, "audio": "a.wav"}, {"id": "s2", "text": REPLY, "audio": "ok.wav\u0000.txt"}]
    return write_jsonl(root / "items.jsonl", rows)


def _row(task: str, labeller: str = "aiko", **fields: Any) -> dict[str, Any]:
    base = {"n": 1, "labeller": labeller, "task": task, "seed": 7, "key": "s1", "id": "s1", "status": "labelled"}
    base.update(note="", seconds=1.5)
    if task == "da":
        step = {"act": "Answer", "importance": 1.0, "span": REPLY, "start": 0, "end": len(REPLY)}
        base.update(text=REPLY, input_text="入力", steps=[step])
    else:
        base["score"] = 4
    return {**base, **fields}


def _human(root: Path, task: str, labeller: str, rows: list[dict[str, Any]]) -> Path:
    (root / "human" / task).mkdir(parents=True, exist_ok=True)
    return write_jsonl(root / "human" / task / f"{labeller}.jsonl", rows)


def _step(**edit: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda row: {**row, "steps": [{**row["steps"][0], **edit}]}


MALFORMED_DA: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = {
    "retracts-list": (lambda r: {**r, "status": "undone", "retracts": [1], "n": 2}, "field retracts"),
    "retracts-later": (lambda r: {**r, "status": "undone", "retracts": 5}, "field retracts"),
    "n-string": (lambda r: {**r, "n": "1"}, "field n"),
    "steps-string": (lambda r: {**r, "steps": "Answer"}, "field steps"),
    "importance-string": (_step(importance="high"), "field steps[0].importance"),
    "start-string": (_step(start="0"), "field steps[0].start"),
    "end-huge": (_step(end=10**12), "field steps[0].start"),
    "act-bogus": (_step(act="Bogus"), "field steps[0].act"),
    "span-other-text": (_step(span="x"), "field steps[0].span"),
    "status-bogus": (lambda r: {**r, "status": "done"}, "field status"),
    "other-labeller": (lambda r: {**r, "labeller": "bob"}, "field labeller"),
    "seconds-negative": (lambda r: {**r, "seconds": -1}, "field seconds"),
    "steps-empty-without-no-act": (lambda r: {**r, "steps": []}, "field steps"),
    "no-act-false": (lambda r: {**r, "steps": [], "no_act": False}, "field no_act"),
    "no-act-with-steps": (lambda r: {**r, "no_act": True}, "field steps"),
    "no-act-on-a-skip": (
        lambda r: (
            {k: v for k, v in r.items() if k not in ("steps", "text", "seconds")}
            | {"status": "skipped", "no_act": True}
        ),
        "field no_act",
    ),
    "text-source-bogus": (lambda r: {**r, "text_source": "asr"}, "field text_source"),
}
MALFORMED_STYLE: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = {
    "score-missing": (lambda r: {k: v for k, v in r.items() if k != "score"}, "field score: missing"),
    "score-string": (lambda r: {**r, "score": "5"}, "field score"),
    "score-true": (lambda r: {**r, "score": True}, "field score"),
    "score-huge": (lambda r: {**r, "score": 1e308}, "field score"),
    "score-six": (lambda r: {**r, "score": 6}, "field score"),
    "steps-on-style": (lambda r: {**r, "steps": []}, "field steps"),
}
MALFORMED = {f"da-{k}": ("da", *v) for k, v in MALFORMED_DA.items()}
MALFORMED |= {f"style-{k}": ("style", *v) for k, v in MALFORMED_STYLE.items()}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_human_row_is_refused_by_agreement_and_label_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    task, edit, field = MALFORMED[case]
    _items(tmp_path)
    good = _row(task)
    alone = case == "da-n-string"  # a row with a string n on line 1; every other malformed row follows a good one
    path = _human(tmp_path, task, "aiko", [edit(good)] if alone else [good, edit({**good, "n": 2})])
    line = 1 if alone else 2
    _refused(capsys, main(["agreement", str(tmp_path), "--task", task]), f"aiko.jsonl:{line}, {field}")
    before = path.read_bytes()
    with pytest.raises(
        InputError, match=re.escape(f"aiko.jsonl:{line}, {field}")
    ):  # `label` resuming: refused before serving
        Study(tmp_path, load_file_items(tmp_path / "items.jsonl"), task, "aiko")  # type: ignore[arg-type]
    assert path.read_bytes() == before


def test_well_formed_rows_of_both_tasks_pass_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The schema accepts what the page writes (so the refusals above are about the malformed field)."""
    for task in ("da", "style"):
        undo = {"n": 2, "labeller": "aiko", "task": task, "seed": 7, "key": "s1", "status": "undone", "retracts": 1}
        _human(tmp_path, task, "aiko", [_row(task), undo, {**_row(task), "n": 3}])
        _human(tmp_path, task, "bob", [_row(task, "bob")])
    assert main(["agreement", str(tmp_path)]) == 0, capsys.readouterr().err


# A: a FIFO is refused, never waited on ------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["own-file", "other-labeller"])
def test_a_fifo_for_a_human_file_is_refused_by_label_and_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    _items(tmp_path)
    (tmp_path / "human" / "da").mkdir(parents=True)
    os.mkfifo(tmp_path / "human" / "da" / ("aiko.jsonl" if where == "own-file" else "bob.jsonl"))
    monkeypatch.chdir(tmp_path)
    _refused(capsys, _within(10, lambda: main(["agreement", str(tmp_path)])), "FIFO")
    if where == "own-file":
        label = ["label", "items.jsonl", "--task", "da", "--labeller", "aiko"]
        _refused(capsys, _within(10, lambda: main(label)), "FIFO")


# A run folder (two replayed replies, gold annotator), copied per test ---------------------------------------------


def spoken(turn: Turn) -> Reply:
    """A system that speaks (importable as ``python:tests.hostile.test_files_and_labels:spoken``)."""
    return Reply("Timer set.", sine_wav(0.05))


def texty(turn: Turn) -> str:
    """A system that only writes (no reply audio: no reply ASR in the module's run)."""
    return "Timer set."


def _run(out: Path, data: Path, system: str) -> int:
    args = ["run", "--dataset", str(data), "--system", system, "--annotator", f"gold:{data}", "--reply-text", "model"]
    return main([*args, "--out", str(out), "--quiet"])


@pytest.fixture(scope="module")
def _one_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("run3")
    rows = [gold_row(i, [("Commissive", 1.0)], out="Timer set.") for i in ("s0", "s1")]
    data = write_jsonl(folder / "set.jsonl", rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
        assert _run(folder / "run", data, "python:tests.hostile.test_files_and_labels:texty") == 0
    return data, folder / "run"


@pytest.fixture
def run(_one_run: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
    shutil.copytree(_one_run[1], tmp_path / "run", symlinks=True)
    return _one_run[0], tmp_path / "run"


@pytest.mark.parametrize("log", ["annotations.jsonl", "replies.jsonl", "config.json"])
def test_a_fifo_in_a_run_folder_is_refused_by_report(
    run: tuple[Path, Path], capsys: pytest.CaptureFixture[str], log: str
) -> None:
    out = run[1]
    (out / log).unlink()
    os.mkfifo(out / log)
    _refused(capsys, _within(10, lambda: main(["report", str(out)])), log, "FIFO")


# C: no write through a planted link ---------------------------------------------------------------------------------


def _plant(out: Path, outside: Path, where: str) -> Path:
    """Plant a link at ``where`` (inside ``out``) leading to ``outside``; returns what must stay untouched."""
    outside.mkdir(exist_ok=True)
    link = out / where
    if where.startswith("audio"):
        shutil.rmtree(link, ignore_errors=True)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside, target_is_directory=True)
        return outside
    link.unlink(missing_ok=True)
    target = outside / "victim.jsonl"
    target.write_text("keep\n")
    link.symlink_to(target if "dangling" not in where else outside / "new.jsonl")
    return outside


@pytest.mark.parametrize("where", ["replies.jsonl", "annotations.jsonl", "audio/replies", ".voxeval.lock"])
def test_a_run_never_writes_through_a_link_planted_in_the_run_folder(
    run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    data, out = run
    system = "python:tests.hostile.test_files_and_labels:texty"
    if where == "audio/replies":  # a new run of a system that speaks, into a folder prepared with the link
        out, system = tmp_path / "fresh", "python:tests.hostile.test_files_and_labels:spoken"
    else:
        (out / "replies.jsonl").write_text("")  # every reply to do again
    if where == "annotations.jsonl":
        (out / "annotations.jsonl").write_text("")
    outside = _plant(out, tmp_path / "outside", where)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    code = _run(out, data, system)
    if where == "audio/replies":  # each reply's audio write is refused: the reply is recorded as failed, with why
        rows = [json.loads(line) for line in (out / "replies.jsonl").read_text("utf-8").splitlines()]
        assert code == 0 and {r["status"] for r in rows} == {"failed"}
        assert all("audio/replies: is a symbolic link" in r["error"] for r in rows)
    else:
        _refused(capsys, code, "symbolic link", where)
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before, "something was written outside"


def test_a_report_file_planted_as_a_link_is_replaced_not_written_through(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    out = run[1]
    victim = tmp_path / "victim.md"
    victim.write_text("keep")
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(victim)
    assert main(["report", str(out)]) == 0
    assert victim.read_text() == "keep" and not (out / "report.md").is_symlink()


@pytest.mark.parametrize("where", ["file", "dangling-file", "task-folder", "human-folder"])
def test_label_never_writes_a_human_file_through_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    _items(tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "aiko.jsonl").write_text("")
    folder = tmp_path / "root" / "human" / "da"
    if where.endswith("folder"):
        link = folder if where == "task-folder" else folder.parent
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside, target_is_directory=True)
    else:
        folder.mkdir(parents=True)
        (folder / "aiko.jsonl").symlink_to(outside / ("aiko.jsonl" if where == "file" else "new.jsonl"))
    items = load_file_items(tmp_path / "root" / "items.jsonl")
    with pytest.raises(OutputError, match="symbolic link"):
        study = Study(tmp_path / "root", items, "da", "aiko")  # refuses a link for the file itself at once
        LabelServer(("127.0.0.1", 0), study).server_close()  # its lock file: a folder link is refused here
    if where.endswith("folder"):
        with pytest.raises(OutputError, match="symbolic link"):
            study.log.append(_row("da"))
    if where == "human-folder":  # agreement.json is not written through it either
        _refused(capsys, main(["agreement", str(tmp_path / "root")]), "human: is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["aiko.jsonl"]
    assert (outside / "aiko.jsonl").read_text() == ""


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_the_writers_refuse_a_link_at_any_depth_below_their_root(tmp_path: Path, depth: int) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    outside.mkdir()
    parts = ["a", "b", "c.wav"]
    (root / Path(*parts[:depth])).mkdir(parents=True, exist_ok=True)
    (root / Path(*parts[: depth + 1])).symlink_to(outside / "c.wav" if depth == 2 else outside)
    with pytest.raises(OutputError, match="symbolic link"):
        atomic_write_bytes(root / "a" / "b" / "c.wav", b"x", root=root) if depth < 2 else AppendLog(
            root / "a" / "b" / "c.wav", root=root
        ).append({"id": "x"})
    assert list(outside.iterdir()) == []
    atomic_write_bytes(root / "z" / "ok.wav", b"x", root=root)  # a real folder below the root is created
    assert (root / "z" / "ok.wav").read_bytes() == b"x"


# E: labeller identity and concurrency -------------------------------------------------------------------------------


def test_a_second_server_for_one_labeller_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    items = load_file_items(_items(tmp_path))
    first = LabelServer(("127.0.0.1", 0), Study(tmp_path, items, "da", "aiko"), token="t")
    try:
        with pytest.raises(ConfigError, match=r"in use by pid .*label under another --labeller"):
            LabelServer(("127.0.0.1", 0), Study(tmp_path, items, "da", "aiko"), token="t")
        LabelServer(("127.0.0.1", 0), Study(tmp_path, items, "da", "bob"), token="t").server_close()
    finally:
        first.server_close()
    LabelServer(("127.0.0.1", 0), Study(tmp_path, items, "da", "aiko"), token="t").server_close()  # released
    assert not (tmp_path / "human" / "da" / "aiko.jsonl").exists()


@pytest.mark.parametrize("name", ["aiko\n", "aiko\r", " aiko", "ai/ko", "", "a" * 65, "..", "-aiko"])
def test_a_labeller_name_is_matched_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _items(tmp_path)
    monkeypatch.chdir(tmp_path)
    _refused(capsys, main(["label", "items.jsonl", "--task", "da", f"--labeller={name}"]), "--labeller")


@pytest.mark.parametrize(("existing", "new"), [("aiko", "Aiko"), ("Bob.x", "bob.X"), ("ZOE", "zoe")])
def test_two_labellers_differing_only_in_case_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], existing: str, new: str
) -> None:
    items = load_file_items(_items(tmp_path))
    _human(tmp_path, "style", existing, [_row("style", existing)])
    with pytest.raises(InputError, match="differ only in case"):
        Study(tmp_path, items, "style", new)
    _human(tmp_path, "style", new, [_row("style", new)])
    _refused(capsys, main(["agreement", str(tmp_path)]), "differ only in case")


# A (server bounds), F and the Host allow-list ------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabelServer]:
    monkeypatch.setattr(label_server._Handler, "timeout", 0.3)
    monkeypatch.setattr(label_server, "REQUEST_DEADLINE", 1.0)
    study = Study(tmp_path, load_file_items(_items(tmp_path)), "style", "aiko")
    srv = LabelServer(("127.0.0.1", 0), study, token="tok")
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _get(server: LabelServer, path: str, host: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=5)
    conn.putrequest("GET", path, skip_host=host is not None)
    if host:
        conn.putheader("Host", host)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


def _half_sent(server: LabelServer) -> socket.socket:
    sock = socket.create_connection(server.server_address[:2])
    sock.sendall(b"GET /api/state?token=tok HTTP/1.1\r\nHost: localh")
    return sock


def test_half_sent_requests_are_cut_and_cannot_lock_the_labeller_out(server: LabelServer) -> None:
    server.slots = threading.BoundedSemaphore(3)
    idle = [_half_sent(server) for _ in range(3)]
    time.sleep(0.05)
    assert _get(server, "/api/state?token=tok")[0] == 503  # every slot taken: refused at once, not queued
    time.sleep(0.5)  # past the idle timeout: the silent connections were closed
    assert all(s.recv(100) == b"" for s in idle)
    assert _get(server, "/api/state?token=tok")[0] == 200
    trickle = _half_sent(server)
    start = time.monotonic()
    while time.monotonic() - start < 3:  # one byte every 0.1 s never trips the idle timeout, only the deadline
        try:
            trickle.sendall(b"o")
        except OSError:
            break
        time.sleep(0.1)
    assert time.monotonic() - start < 2.5, "a trickling request outlived its deadline"
    for sock in [*idle, trickle]:
        sock.close()


@pytest.mark.parametrize(
    ("host", "status"),
    [
        *[("evil.example", 421), ("evil.example:{port}", 421), ("127.0.0.1.evil.example", 421), ("", 421)],
        *[("localhost:{port}", 200), ("127.0.0.1:{port}", 200), ("LOCALHOST", 200), ("[::1]:{port}", 200)],
        ("localhost:1", 421),
    ],
)
def test_the_host_header_must_name_this_server(server: LabelServer, host: str, status: int) -> None:
    header = host.format(port=server.server_address[1]) or " "
    assert _get(server, "/api/state?token=tok", host=header)[0] == status


@pytest.mark.parametrize("path", ["ok.wav%00.txt", "a.wav%00", "%00", "a.wav%2500", "a.wav/..%00/x"])
def test_a_nul_byte_in_a_media_path_is_a_404(server: LabelServer, path: str) -> None:
    status, body = _get(server, f"/media/{path}?token=tok")
    assert status == 404 and b"not found" in body


# H: Markdown cells ---------------------------------------------------------------------------------------------------

HOSTILE_TEXTS = {
    "script": "<script>alert(1)</script>",
    "img-onerror": "<img src=x onerror=alert(1)>",
    "heading-breakout": "ok |\n\n# Fake heading\n| a | b |",
    "js-link": "[click](javascript:alert(1))",
    "tracking-image": "![t](http://tracker.example/p.png)",
    "autolink": "<javascript:alert(1)> and http://x.example/",
    "reference-link": "[x][1]\n\n[1]: javascript:alert(1)",
    "control": "NUL\x00 ESC\x1b[31m BEL\x07 DEL\x7f C1\x9b",
    "bidi": "abc\u202edcba\u2066x\u2069 \u200f",
    "line-separator": "a\u2028b\u2029c\r\nd",
    "backslash-escape": "\\[x\\](javascript:alert(1)) \\<b>",
    "code-span": "`|` ``x``",
}


@pytest.mark.parametrize("text", HOSTILE_TEXTS.values(), ids=HOSTILE_TEXTS.keys())
def test_a_markdown_cell_is_inert(text: str) -> None:
    table = markdown_table(["reply", "n"], [[text, 1]])
    lines = table.splitlines()
    assert len(lines) == 3, "one row, whatever the text"
    body = lines[2]
    assert body.startswith("| ") and body.endswith(" | 1 |")
    for raw in ("<", ">", "\x00", "\x1b", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\u200f", "\u2028", "\r"):
        assert raw not in body
    assert not re.search(r"(?<!\\)\][(\[:]", body), "a link, image or reference closes"
    assert not re.search(r"(?<!\\)`", body), "a code span opens"
    assert not re.search(r"(?i)(javascript|https?):", body), "a scheme is left whole (its colon is escaped)"
    assert "\\|" in md_cell("|") and md_cell("[95% CI]") == "[95% CI]"


def echo_hostile(turn: Turn) -> str:
    """Replies with every hostile text (importable as a ``python:`` system)."""
    return " ".join(HOSTILE_TEXTS.values())


def test_a_report_md_of_a_spoken_run_shows_hostile_reply_text_inert(run: tuple[Path, Path]) -> None:
    """The spoken-versus-text section once had its own table code that let reply text through raw."""
    from voxeval.report._speech import channel_section

    hostile = echo_hostile(None)  # type: ignore[arg-type]
    replies = {
        f"d/s/{i}": {"dataset": "d", "system": "s", "id": str(i), "model_text": hostile, "asr_text": hostile[::-1]}
        for i in range(3)
    }
    _, md = channel_section(replies, "speech")
    assert "Largest differences" in md
    for raw in ("<script", "<img", "\n# Fake", "\x00", "\x1b", "\u202e", "javascript:", "http:"):
        assert raw not in md, raw
    assert not re.search(r"(?<!\\)\]\(", md), "a link or an image closes"
    out = run[1]
    assert main(["report", str(out)]) == 0
    assert "\x00" not in (out / "report.md").read_text("utf-8")


# I: report numbers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [-1e308, -1, 1e308, 86_401, "1", True, [1]])
def test_a_latency_out_of_range_is_refused_where_the_row_is_read(
    run: tuple[Path, Path], capsys: pytest.CaptureFixture[str], value: object
) -> None:
    out = run[1]
    rows = [json.loads(line) for line in (out / "replies.jsonl").read_text("utf-8").splitlines()]
    rows[0]["latency"]["total_s"] = value
    write_jsonl(out / "replies.jsonl", rows)
    err = _refused(capsys, main(["report", str(out)]), "replies.jsonl:1, field latency.total_s")
    assert len(err) < 600


@pytest.mark.parametrize(("value", "shown"), [(-1e308, "-1.000e+308"), (1e300, "1.000e+300"), (0.5, "0.500")])
def test_a_report_number_is_never_printed_as_hundreds_of_digits(value: float, shown: str) -> None:
    assert fixed(value) == shown and len(fixed(value)) < 12
