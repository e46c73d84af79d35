"""The labelling server: token, traversal and symlinks, 400s that write nothing, append-only rows, resume, undo."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from voxeval.errors import InputError
from voxeval.label import Study, check_submission, load_file_items
from voxeval.label._server import LabelServer

A, B = "はい、承知しました。", "タイマーを3分にセットしました。"
REPLY = A + B


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.wav").write_bytes(b"RIFF-test")
    (tmp_path.parent / f"{tmp_path.name}-secret.wav").write_bytes(b"secret")
    (tmp_path / "link.wav").symlink_to(tmp_path.parent / f"{tmp_path.name}-secret.wav")
    rows = [
        {"id": "s1", "text": REPLY, "audio": "a.wav", "system": "sysA"},
        {"id": "s2", "text": "<script>alert(1)</script>", "audio": "../" + f"{tmp_path.name}-secret.wav"},
        {"id": "s3", "text": "明日は晴れです。", "audio": "link.wav", "attributes": {"pitch": "high"}},
    ]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return tmp_path


def _serve(root: Path, task: str, labeller: str = "ann") -> Iterator[LabelServer]:
    study = Study(root, load_file_items(root / "items.jsonl"), task, labeller)  # type: ignore[arg-type]
    server = LabelServer(("127.0.0.1", 0), study, token="tok")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture()
def da(root: Path) -> Iterator[LabelServer]:
    yield from _serve(root, "da")


@pytest.fixture()
def style(root: Path) -> Iterator[LabelServer]:
    yield from _serve(root, "style")


def _call(server: LabelServer, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(*server.server_address[:2])
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    conn.request("POST" if data is not None else "GET", path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    kind = resp.getheader("Content-Type") or ""
    return resp.status, json.loads(payload) if kind.startswith("application/json") else payload


def _span(text: str, part: str, act: str, importance: float) -> dict[str, Any]:
    start = text.index(part)
    return {"act": act, "importance": importance, "start": start, "end": start + len(part), "text": part}


@pytest.mark.parametrize("path", ["/", "/api/state", "/static/app.js", "/media/a.wav", "/?token=bad", "/?token=tok2"])
def test_every_route_needs_the_token(da: LabelServer, path: str) -> None:
    assert _call(da, path)[0] == 403
    assert _call(da, "/api/submit", {"action": "undo"})[0] == 403


def test_only_named_files_inside_the_root_are_served(da: LabelServer) -> None:
    assert _call(da, "/media/a.wav?token=tok") == (200, b"RIFF-test")
    for path in ["../secret.wav", "%2e%2e/x.wav", "link.wav", "items.jsonl", "human/da/ann.jsonl", "/etc/passwd"]:
        assert _call(da, f"/media/{path}?token=tok")[0] == 404, path
    name = da.study.root.name
    assert _call(da, f"/media/../{name}-secret.wav?token=tok")[0] == 404
    assert _call(da, "/static/../_server.py?token=tok")[0] == 404


def test_pages_forbid_inline_scripts_and_state_hides_the_system(da: LabelServer) -> None:
    conn = http.client.HTTPConnection(*da.server_address[:2])
    conn.request("GET", "/?token=tok")
    resp = conn.getresponse()
    assert "script-src 'self'" in (resp.getheader("Content-Security-Policy") or "")
    assert b'data-task="da"' in resp.read()
    status, state = _call(da, "/api/state?token=tok")
    assert status == 200 and state["total"] == 3 and state["done"] == 0
    assert "system" not in state["item"]


BAD = [
    ({"action": "label", "key": "s1", "steps": []}, "steps"),
    ({"action": "label", "key": "nope", "steps": []}, "key"),
    ({"action": "jump", "key": "s1"}, "action"),
    ({"action": "label", "key": "s1", "steps": [_span(REPLY, A, "Shout", 1.0)]}, "steps[0].act"),
    ({"action": "label", "key": "s1", "steps": [{**_span(REPLY, A, "Inform", 1.0), "text": "x"}]}, "steps[0].text"),
    ({"action": "label", "key": "s1", "steps": [_span(REPLY, A, "Commissive", 0.9)]}, "steps"),
    (
        {"action": "label", "key": "s1", "steps": [
            _span(REPLY, A, "Commissive", 0.5), _span(REPLY, B, "Inform", 0.5)]},
        "steps",
    ),
    (
        {"action": "label", "key": "s1", "steps": [
            _span(REPLY, B, "Inform", 0.6), _span(REPLY, A, "Commissive", 0.4)]},
        "steps[1].start",
    ),
    ({"action": "label", "key": "s1", "steps": [_span(REPLY, "はい、", "Inform", 0.333)]}, "steps[0].importance"),
    ({"action": "label", "key": "s1", "steps": [_span(REPLY, "はい、", "Inform", True)]}, "steps[0].importance"),
    ({"action": "label", "key": "s1", "no_act": True, "steps": [_span(REPLY, A, "Commissive", 1.0)]}, "steps"),
    ({"action": "label", "key": "s1", "no_act": True}, "steps"),
    ({"action": "label", "key": "s1", "no_act": "yes", "steps": []}, "no_act"),
    ({"action": "label", "key": "s1", "no_act": False, "steps": []}, "steps"),
    ({"action": "skip", "key": "s1", "seconds": -1}, "seconds"),
    ({"action": "skip", "key": "s1", "note": 5}, "note"),
    ([1, 2], "body"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "field"), BAD)
def test_malformed_submissions_get_400_naming_the_field_and_write_nothing(
    da: LabelServer, body: Any, field: str
) -> None:
    status, answer = _call(da, "/api/submit?token=tok", body)
    assert (status, answer["field"]) == (400, field)
    assert not da.study.path.exists()


def test_bodies_that_are_not_json_or_too_large_are_refused(da: LabelServer) -> None:
    assert _call(da, "/api/submit?token=tok", raw=b"{not json")[1]["field"] == "body"
    assert _call(da, "/api/submit?token=tok", raw=b"x" * (64 * 1024 + 1))[0] == 400
    assert not da.study.path.exists()


def test_judgements_append_at_once_resume_and_undo(root: Path, da: LabelServer) -> None:
    order = [i.key for i in da.study.items]
    first = order[0]
    text = da.study.by_key[first].text
    steps = [{"act": "Inform", "importance": 1, "start": 0, "end": len(text), "text": text}]
    status, answer = _call(da, "/api/submit?token=tok", {"action": "label", "key": first, "steps": steps, "seconds": 2})
    assert status == 200 and answer["state"]["done"] == 1 and answer["state"]["item"]["key"] == order[1]
    assert _call(da, "/api/submit?token=tok", {"action": "skip", "key": order[1]})[0] == 200
    lines = da.study.path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["status"] for x in lines] == ["labelled", "skipped"]
    assert json.loads(lines[0])["steps"][0]["span"] == text
    # a new server on the same file (the tab closed, the server killed) resumes at the first unjudged item
    again = Study(root, load_file_items(root / "items.jsonl"), "da", "ann")
    assert again.state()["item"]["key"] == order[2] and again.state()["done"] == 1
    _call(da, "/api/submit?token=tok", {"action": "undo"})
    lines = da.study.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[2]) | {"at": None} == json.loads(lines[2]) | {
        "status": "undone", "retracts": 2, "key": order[1], "at": None,
    }  # fmt: skip
    assert da.study.state()["item"]["key"] == order[1]


def test_labellers_write_separate_files_in_their_own_order(root: Path) -> None:
    a = Study(root, load_file_items(root / "items.jsonl"), "style", "ann")
    b = Study(root, load_file_items(root / "items.jsonl"), "style", "bob")
    assert a.path != b.path and a.seed != b.seed
    assert sorted(i.key for i in a.items) == sorted(i.key for i in b.items)


def test_style_scores_must_be_1_to_5(style: LabelServer) -> None:
    key = style.study.items[0].key
    for score in [0, 6, 2.5, "3", True, None]:
        status, answer = _call(style, "/api/submit?token=tok", {"action": "label", "key": key, "score": score})
        assert (status, answer["field"]) == (400, "score")
    assert not style.study.path.exists()
    assert _call(style, "/api/submit?token=tok", {"action": "label", "key": key, "score": 4, "note": "ok"})[0] == 200
    assert json.loads(style.study.path.read_text(encoding="utf-8"))["score"] == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--labeller", "../evil"], "--labeller"),
        (["--labeller", "a/b"], "--labeller"),
        (["--labeller", ""], "--labeller"),
        (["--source", "missing.jsonl"], "not found"),
        (["--source", "."], "no replies.jsonl"),
        (["--labeller", "ann", "--seed", "-1"], "--seed: must be an integer in [0, 2**32)"),
        (["--labeller", "ann", "--seed", str(2**32)], "--seed: must be an integer in [0, 2**32)"),
    ],
)
def test_label_refuses_bad_arguments_before_serving(
    root: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxeval.cli import main

    monkeypatch.chdir(root)
    source = argv[argv.index("--source") + 1] if "--source" in argv else "items.jsonl"
    rest = [a for a in argv if a != "--source" and a != source] or ["--labeller", "ann"]
    assert main(["label", source, "--task", "da", *rest]) == 2
    assert message in capsys.readouterr().err
    assert not (root / "human").exists()


def test_a_run_directorys_items_carry_the_recorded_input_text_and_the_scored_reply(tmp_path: Path) -> None:
    import tests.run.realtime_doubles  # noqa: F401  (registers the instant tone-tts engine)
    from voxeval.cli import main
    from voxeval.data import builtin_path, load_gold
    from voxeval.label._items import load_run_items

    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--annotator", "gold", "--tts", "tone-tts"]
    assert main([*args, "--system", "python:tests.run.doubles:echo_gold", "--out", str(out), "--quiet"]) == 0
    gold = {s.id: s for s in load_gold(builtin_path("ja-assistant"))}
    items = load_run_items(out, "da")
    assert len(items) == 2
    for item in items:
        assert item.input_text == gold[item.id].input_text  # from the dataset config.json recorded, by sha256
        assert item.text == gold[item.id].output_text and item.input_audio
        assert item.text_source == "model"  # a text system: the model's own text is what the run annotates
    # the recorded dataset is found from any working directory, and a tampered log is refused as by `report`
    (out / "inputs.jsonl").write_text('{"foo": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"inputs\.jsonl:1"):
        load_run_items(out, "da")


def test_the_order_seed_is_chosen_recorded_and_kept_on_resume(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxeval.cli import main
    from voxeval.label._items import order_seed

    items = load_file_items(root / "items.jsonl")
    default = Study(root, items, "da", "ann")
    seeded = Study(root, items, "da", "ann", seed=7)
    assert (default.seed, seeded.seed) == (order_seed("ann", "da"), 7)
    assert {Study(root, items, "da", "ann", seed=s).seed for s in (7, 8)} == {7, 8}  # nothing saved yet: any seed
    seeded.submit(check_submission({"action": "flag", "key": seeded.items[0].key}, "da", seeded.by_key))
    assert json.loads(seeded.path.read_text(encoding="utf-8"))["seed"] == 7
    resumed = Study(root, items, "da", "ann")  # no --seed: the file's seed wins over the derived one
    assert resumed.seed == 7 and [i.key for i in resumed.items] == [i.key for i in seeded.items]
    assert Study(root, items, "da", "ann", seed=7).seed == 7
    with pytest.raises(InputError, match=r"ann\.jsonl, field seed: .*order of seed 7; resume with --seed 7"):
        Study(root, items, "da", "ann", seed=8)
    before = seeded.path.read_bytes()
    monkeypatch.chdir(root)
    assert main(["label", "items.jsonl", "--task", "da", "--labeller", "ann", "--seed", "8"]) == 2
    assert "resume with --seed 7" in capsys.readouterr().err
    assert seeded.path.read_bytes() == before
    assert Study(root, items, "da", "bob", seed=8).seed == 8  # another labeller's file is theirs


@pytest.mark.parametrize("bad", [[3, 4], ["3"], [None], [True]])
def test_a_file_recording_several_or_malformed_seeds_is_refused(root: Path, bad: list[object]) -> None:
    path = root / "human" / "da" / "ann.jsonl"
    path.parent.mkdir(parents=True)
    common = {"key": "s1", "status": "flagged", "labeller": "ann", "task": "da"}
    rows = [{"n": n, **common, "seed": seed} for n, seed in enumerate(bad, start=1)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # Two seeds: refused when the order is derived; a malformed one: refused by the row schema (label._rows).
    message = "rows record more than one" if len(bad) > 1 else ":1, field seed: must be an integer in"
    with pytest.raises(InputError, match=message):
        Study(root, load_file_items(root / "items.jsonl"), "da", "ann")


def test_no_act_is_a_deliberate_label_and_undo_hands_the_judgement_back(da: LabelServer) -> None:
    key = da.study.items[0].key
    body = {"action": "label", "key": key, "steps": [], "no_act": True, "note": "chatter"}
    status, answer = _call(da, "/api/submit?token=tok", body)
    assert status == 200 and answer["state"]["done"] == 1
    row = json.loads(da.study.path.read_text(encoding="utf-8"))
    assert (row["status"], row["steps"], row["no_act"]) == ("labelled", [], True)
    _, answer = _call(da, "/api/submit?token=tok", {"action": "undo"})
    assert answer["restored"] == {"key": key, "status": "labelled", "steps": [], "no_act": True, "note": "chatter"}
    assert answer["state"]["item"]["key"] == key


def test_the_token_is_kept_per_run_and_labeller_owner_only(tmp_path: Path) -> None:
    from voxeval.label._token import stored_token, token_path

    first = stored_token(tmp_path, "ann")
    assert stored_token(tmp_path, "ann") == first != stored_token(tmp_path, "bob")  # a restart keeps the URL
    assert token_path(tmp_path, "ann").stat().st_mode & 0o777 == 0o600
    assert stored_token(tmp_path / "other", "ann") != first
    token_path(tmp_path, "ann").chmod(0o644)
    with pytest.raises(InputError, match="0600"):
        stored_token(tmp_path, "ann")
    for bad in ("short\n", "x" * 40 + "/\n"):
        path = token_path(tmp_path, "cat")
        path.unlink(missing_ok=True)
        path.write_text(bad, encoding="ascii")
        path.chmod(0o600)
        with pytest.raises(InputError, match="not a voxeval label token"):
            stored_token(tmp_path, "cat")
    token_path(tmp_path, "dan").symlink_to(token_path(tmp_path, "bob"))
    with pytest.raises(InputError, match="cannot read"):
        stored_token(tmp_path, "dan")


def test_items_say_which_channel_the_reply_text_is() -> None:
    from voxeval.errors import Location
    from voxeval.label._items import _from_row

    heard = {"text": "はい。", "text_source": "speech", "model_text": "はい！"}
    item = _from_row(heard, "k", Location("x"))
    assert (item.text_source, item.model_text) == ("speech", "はい！")
    public = item.public(show_system=False)
    assert (public["text_source"], public["model_text"], public["locale"]) == ("speech", "はい！", "")
    typed = _from_row({**heard, "text_source": "model"}, "k", Location("x"))
    assert (typed.text_source, typed.model_text) == ("model", "")  # the model's text is the reply itself
