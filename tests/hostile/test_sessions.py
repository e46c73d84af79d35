"""Issue 40 (hostile world, round three), the session layer: classes A (reply bounds), B (secrets on disk), F (errors
that escaped classification), G (events of another response) and the cache of replies a run cannot keep.

Each class is fixed at one boundary: every reply is bounded by
:class:`voxeval.llm.sessions._collect.ReplyCollector` and :func:`voxeval.llm.sessions._session.checked_result`; every
server message passes :func:`voxeval.llm.sessions._ws.decode_message` (JSON objects, nesting, the key redacted);
handshakes never follow redirects; spec URLs never carry credentials; the request caches store only
:func:`voxeval.llm._cache.storable` text. The mock plays the hostile server
(:class:`voxeval.testing.realtime.Hostility`). docs/reliability.md lists each case.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
import wave
from pathlib import Path
from typing import Any

import httpx
import pytest

import tests.run.realtime_doubles  # noqa: F401  (registers the tone-tts engine and the pcm-said reply ASR)
from tests.hostile.raw_server import no_wait_model
from tests.hostile.test_providers import ASK, RawServer
from voxeval.cli import main
from voxeval.errors import ConfigError
from voxeval.llm import (
    ChatResponse,
    ProviderError,
    RequestCache,
    SessionInput,
    Usage,
    parse_model_spec,
    parse_session_spec,
    session_model_from_spec,
    set_request_cache,
)
from voxeval.llm._http import HttpReply
from voxeval.llm.sessions._ws import decode_message
from voxeval.run._reply_asr import ReplyASRWorker
from voxeval.speech.asr import Transcript
from voxeval.testing.realtime import Hostility, MockReply, RealtimeMockServer, tone

KEY = "sk-proj-" + "Q9w8E7r6T5" * 6 + "Yy"  # 70 characters, like a real project key
PCM = {"openai": (b"\x10\x00\xf0\xff" * 2400, 24_000), "gemini": (b"\x10\x00\xf0\xff" * 1600, 16_000)}
ESCAPED = ("Traceback", "RecursionError", "struct.error", "UnicodeEncodeError", "OverflowError")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


async def _no_wait(seconds: float) -> None:
    return None


def ask(srv: RealtimeMockServer, provider: str, options: str = "max_retries=1") -> tuple[Any, Any]:
    """The model of ``provider`` at the mock, and its answer to one turn (or the ``ProviderError`` raised)."""
    url = srv.openai_url if provider == "openai" else srv.gemini_url
    built = session_model_from_spec(f"{provider}:m@{url}?{options}")
    built.sleep = _no_wait
    pcm, rate = PCM[provider]
    try:
        return built, asyncio.run(built.answer(SessionInput("sys", "user", pcm, rate)))
    except ProviderError as error:
        return built, error


def leaked(root: Path) -> list[str]:
    """Files under ``root`` holding any 8-character piece of the key."""
    pieces = [KEY[i : i + 8].encode() for i in range(len(KEY) - 7)]
    return [str(p) for p in root.rglob("*") if p.is_file() and any(x in p.read_bytes() for x in pieces)]


# Class A: one bound on every reply's duration, text and bytes, whatever the declared rate.


@pytest.mark.parametrize("rate", ["0", "1", "100", "7999", "48001", "999999999999", "9" * 5000, "abc", "-24000", ""])
def test_a_declared_rate_that_is_no_speech_rate_is_refused_once(rate: str) -> None:
    with RealtimeMockServer(hostility=Hostility(audio_rate=rate)) as srv:
        built, error = ask(srv, "gemini")
    assert isinstance(error, ProviderError), error
    assert (error.kind, built.attempts) == ("bad_response", 1)  # the same answer every time: not retried
    assert "not a rate from 8000 to 48000 Hz" in error.message and len(error.message) < 300


@pytest.mark.parametrize("rate", [8000, 24_000, 48_000])
def test_a_speech_rate_is_taken_as_declared(rate: int) -> None:
    """*Guard*: the rates of real servers are kept, and the audio read at them."""
    with RealtimeMockServer(hostility=Hostility(audio_rate=str(rate))) as srv:
        _, result = ask(srv, "gemini")
    assert result.rate == rate and len(result.pcm) == len(tone(0.3))


@pytest.mark.parametrize("rate", [8000, 24_000, 48_000])
def test_reply_audio_over_the_duration_cap_is_refused_at_every_rate(rate: int, monkeypatch) -> None:
    monkeypatch.setattr("voxeval.llm.sessions._collect.MAX_REPLY_AUDIO_SECONDS", 0.1)  # the mock speaks 0.15 s to 1.8 s
    with RealtimeMockServer(hostility=Hostility(audio_rate=str(rate))) as srv:
        built, error = ask(srv, "gemini")
    assert isinstance(error, ProviderError) and "runs over 0.1 s: refused" in error.message
    assert built.attempts == 1


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_a_session_receiving_more_than_its_byte_budget_is_refused(provider: str, monkeypatch) -> None:
    monkeypatch.setattr("voxeval.llm.sessions._ws.MAX_SESSION_BYTES", 4000)
    with RealtimeMockServer() as srv:
        built, error = ask(srv, provider)
    assert isinstance(error, ProviderError) and "more than 4000 bytes in one session" in error.message
    assert built.attempts == 1


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_endless_transcript_deltas_are_refused_in_bounded_time_and_memory(provider: str) -> None:
    """60 KB deltas without end (was 1.5 GB resident after 8 s): refused past 2^20 characters."""
    started = time.perf_counter()
    tracemalloc.start()
    try:
        with RealtimeMockServer(hostility=Hostility(flood_bytes=60_000)) as srv:
            built, error = ask(srv, provider)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(error, ProviderError) and "runs over 1048576 characters: refused" in error.message
    assert built.attempts == 1 and time.perf_counter() - started < 10 and peak < 64 << 20


class _CountingASR:
    """A reply ASR engine that records the clips it was given (it must never get one over the limit)."""

    name = "counting"

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        self.sizes += [len(w) for w in wavs]
        return [Transcript("heard", language) for _ in wavs]

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        return self.transcribe_batch([wav], language)[0]


def _wav(path: Path, rate: int, frames: int) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(rate)
        out.writeframes(bytes(2 * frames))
    return path


def test_the_reply_asr_stage_refuses_audio_over_the_duration_limit(tmp_path: Path) -> None:
    """A 26 MB WAV declaring 100 Hz (36.7 hours) once grew the reply ASR to 23.9 GB; 601 s at 8 kHz likewise."""
    clips = [
        ({"key": "hours"}, _wav(tmp_path / "a.wav", 100, 13_200_000)),
        ({"key": "over"}, _wav(tmp_path / "b.wav", 8000, 601 * 8000)),
        ({"key": "fine"}, _wav(tmp_path / "c.wav", 24_000, 24_000)),
    ]
    engine = _CountingASR()
    rows = asyncio.run(ReplyASRWorker("counting", engine)((clips, "ja")))
    assert [r["status"] for r in rows] == ["failed", "failed", "ok"]
    assert "lasts 132000.0 s, over the 600 s the reply ASR takes" in rows[0]["error"]
    assert "lasts 601.0 s" in rows[1]["error"] and engine.sizes == [48_044]


# Class B: every string a server sends that voxeval keeps passes the redaction boundary.


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_a_key_echoed_into_every_kept_field_is_redacted_in_the_result_and_the_cache(provider, tmp_path) -> None:
    set_request_cache(tmp_path / "cache")
    with RealtimeMockServer(lambda t: MockReply(f"say {KEY}", tone(0.2)), hostility=Hostility(echo_key=True)) as srv:
        _, result = ask(srv, provider)
        _, again = ask(srv, provider)
    assert result.text == "say ***" and again.cached and (again.text, again.pcm) == (result.text, result.pcm)
    if provider == "openai":
        assert (result.model_version, result.response_id) == ("m***", "resp_1***")
        assert result.usage.output_tokens is None and "output_tokens: '***' is not a token count" in str(result.usage)
    else:
        assert result.response_id == "session-***" and result.usage.input_tokens is None
    assert again.usage == result.usage and leaked(tmp_path) == []


def test_a_cache_entry_holding_the_key_is_redacted_when_read(tmp_path: Path) -> None:
    """An entry written before the fix (or by hand) is redacted on the way out, and checked like an answer."""
    set_request_cache(tmp_path / "cache")
    with RealtimeMockServer() as srv:
        _, result = ask(srv, "openai")
        [entry] = (tmp_path / "cache").rglob("*.json")
        body = json.loads(entry.read_text())
        body["session"].update(response_id=f"r-{KEY}", text=f"t {KEY}", model_version=KEY)
        entry.write_text(json.dumps(body))
        _, cached = ask(srv, "openai")
        body["session"]["rate"] = 999999999999
        entry.write_text(json.dumps(body))
        _, tampered = ask(srv, "openai")
    assert cached.cached and (cached.response_id, cached.text, cached.model_version) == ("r-***", "t ***", "***")
    assert not tampered.cached and tampered.text == result.text  # a tampered entry is a miss, answered afresh


@pytest.mark.parametrize("status", [301, 302, 307, 308])
@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_a_redirected_handshake_is_refused_and_the_key_never_leaves(provider: str, status: int) -> None:
    with RealtimeMockServer() as target:
        url = target.openai_url if provider == "openai" else target.gemini_url
        with RealtimeMockServer(hostility=Hostility(redirect=(status, url))) as srv:
            built, error = ask(srv, provider)
        assert target.count() == 0  # the new origin never saw a handshake, so never the key
    assert isinstance(error, ProviderError) and (error.kind, error.status, built.attempts) == ("client", status, 1)
    assert f"redirect (HTTP {status}): not followed" in error.message


@pytest.mark.parametrize("status", [301, 307])
@pytest.mark.parametrize("spec", ["openai-compat:m@{}/v1?key_env=OPENAI_API_KEY", "gemini:m@{}"])
def test_an_http_provider_does_not_follow_a_redirect(spec: str, status: int) -> None:
    with RawServer(lambda path, headers: (200, {}, b"{}")) as target:
        moved = {"Location": f"{target.base_url}/elsewhere"}
        with RawServer(lambda path, headers: (status, dict(moved), b"")) as srv:
            model = no_wait_model(spec.format(srv.base_url))
            with pytest.raises(ProviderError) as caught:
                asyncio.run(model.complete(ASK))
        assert target.paths == []
    assert caught.value.kind == "client" and "a redirect, not followed" in caught.value.message


CREDENTIALS = [
    (parse_session_spec, "openai:m@ws://user:PASS-word@127.0.0.1:9/v1/realtime", "OPENAI_API_KEY"),
    (parse_session_spec, "openai:m@wss://:PASS-word@h/v1?voice=x&bogus=1", "OPENAI_API_KEY"),
    (parse_session_spec, "gemini:m@wss://PASS-word@h/ws", "GEMINI_API_KEY"),
    (parse_session_spec, "gemini:m@ws://u%40x:PASS-word@h:1/ws?timeout=-1", "GEMINI_API_KEY"),
    (parse_model_spec, "openai-compat:m@http://user:PASS-word@127.0.0.1:9/v1", "VOXEVAL_COMPAT_API_KEY"),
    (parse_model_spec, "openai-compat:m@http://a:1/v1,http://u:PASS-word@b:1/v1", "VOXEVAL_COMPAT_API_KEY"),
    (parse_model_spec, "openai:m@https://PASS-word@api.example/v1?bogus=1", "OPENAI_API_KEY"),
    (parse_model_spec, "gemini:m@https://user:PASS-word@g.example", "GEMINI_API_KEY"),
    (parse_model_spec, "llamacpp:m@http://u:PASS-word@h:1", "?key_env=NAME"),
]


@pytest.mark.parametrize(("parse", "spec", "variable"), CREDENTIALS, ids=[c[1] for c in CREDENTIALS])
def test_credentials_in_a_url_are_refused_naming_the_variable_to_use(parse, spec: str, variable: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(spec)
    message = str(caught.value)
    assert "holds credentials" in message and variable in message and "PASS" not in message


def test_an_at_sign_outside_the_host_is_no_credential() -> None:
    """*Guard*: ``@`` in a path or a model name is not taken for credentials."""
    assert parse_session_spec("openai:m@ws://127.0.0.1:9/v1/a@b").url == "ws://127.0.0.1:9/v1/a@b"
    parsed = parse_model_spec("openai-compat:qwen@2@http://h:1/v1/x@y?timeout=5")
    assert (parsed.model, parsed.base_url) == ("qwen@2", "http://h:1/v1/x@y")


# The runs: a clear outcome for each hostile server, no traceback, no key or password on disk.


def _run(out: Path, *systems: str, cache: bool = False) -> int:
    args = ["run", "--dataset", "ja-assistant", "--limit", "1", "--annotator", "gold", "--tts", "tone-tts"]
    args += ["--reply-asr", "pcm-said", "--out", str(out), "--quiet"]
    for system in systems:
        args += ["--system", system]
    return main([*args] if cache else [*args, "--no-cache"])


def test_a_url_with_a_password_stops_the_run_before_anything_is_written(tmp_path: Path, capsys) -> None:
    code = _run(tmp_path / "out", "realtime:openai:m@ws://user:PASS-word@127.0.0.1:9/v1")
    err = capsys.readouterr().err
    assert code == 2 and "OPENAI_API_KEY" in err and "PASS" not in err
    assert not (tmp_path / "out").exists()


RUN_CASES = {
    "rate-huge": ("gemini", Hostility(audio_rate="999999999999"), "failed", "not a rate from 8000 to 48000 Hz"),
    "rate-zero": ("gemini", Hostility(audio_rate="0"), "failed", "not a rate from 8000 to 48000 Hz"),
    "nested-3000": ("openai", Hostility(nesting=3000), "failed", "nested too deeply to decode"),
    "nested-100000": ("gemini", Hostility(nesting=100_000), "failed", "nested too deeply to decode"),
    "foreign-audio": ("openai", Hostility(foreign="audio"), "failed", "event of response 'resp_foreign'"),
    "surrogate": ("gemini", Hostility(), "undecodable", "holds a lone surrogate"),
}


@pytest.mark.parametrize("case", RUN_CASES)
def test_a_run_against_a_hostile_server_records_a_clear_outcome(case: str, tmp_path: Path) -> None:
    provider, hostility, outcome, reason = RUN_CASES[case]
    set_request_cache(tmp_path / "cache")
    said = (lambda t: MockReply("abc\udc80", tone(0.2))) if case == "surrogate" else (lambda t: "fine")
    with RealtimeMockServer(said, hostility=hostility) as srv:
        url = srv.openai_url if provider == "openai" else srv.gemini_url
        kind = "realtime:openai" if provider == "openai" else "live:gemini"
        assert _run(tmp_path / "out", f"s={kind}:m@{url}?max_retries=1", cache=True) == 0
    [reply] = [json.loads(x) for x in (tmp_path / "out" / "replies.jsonl").read_text().splitlines()]
    assert (reply["status"], reply["outcome"]) == ("failed", outcome) and reason in reply["error"]
    for path in tmp_path.rglob("*"):
        text = path.read_text(errors="replace") if path.is_file() else ""
        assert not any(word in text for word in ESCAPED), (path, text[:300])
    assert not list((tmp_path / "cache").rglob("*.json"))  # a reply the run could not keep is never cached


def test_a_run_against_a_key_echoing_session_server_leaves_the_key_in_no_file(tmp_path: Path, capsys) -> None:
    set_request_cache(tmp_path / "cache")
    with RealtimeMockServer(lambda t: f"key {KEY}", hostility=Hostility(echo_key=True)) as srv:
        systems = (f"rt=realtime:openai:m@{srv.openai_url}", f"live=live:gemini:m@{srv.gemini_url}")
        assert _run(tmp_path / "out", *systems, cache=True) == 0
        assert _run(tmp_path / "again", *systems, cache=True) == 0  # answered from the cache
        assert srv.count() == 2
    replies = [json.loads(x) for x in (tmp_path / "again" / "replies.jsonl").read_text().splitlines()]
    assert {r["meta"]["response_id"] for r in replies} == {"resp_1***", "session-***"}
    assert all(r["meta"]["cached"] and r["meta"]["usage_warnings"] for r in replies)
    captured = capsys.readouterr()
    assert leaked(tmp_path) == [] and KEY[8:16] not in captured.out + captured.err


# Class F: every decode error classified.


@pytest.mark.parametrize("depth", [3000, 100_000])
@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_a_message_nested_too_deep_is_a_bad_response(provider: str, depth: int) -> None:
    with RealtimeMockServer(hostility=Hostility(nesting=depth)) as srv:
        built, error = ask(srv, provider)
    assert isinstance(error, ProviderError) and error.kind == "bad_response" and built.attempts == 2
    assert "nested too deeply to decode" in error.message


def test_a_message_nested_a_little_is_ignored() -> None:
    """*Guard*: an unknown event with ordinary nesting changes nothing."""
    with RealtimeMockServer(hostility=Hostility(nesting=50)) as srv:
        _, result = ask(srv, "openai")
    assert result.text == "はい、わかりました。"


@pytest.mark.parametrize("depth", [3000, 100_000])
def test_deep_json_from_an_http_provider_is_classified(depth: int) -> None:
    body = ('{"a":' + "[" * depth + "]" * depth + "}").encode()
    with pytest.raises(ProviderError) as caught:
        HttpReply(200, httpx.Headers(), body, ("KEY",)).json_object("w")
    assert caught.value.kind == "bad_response" and "nested too deeply" in caught.value.message


def test_the_message_boundary_redacts_keys_and_object_keys() -> None:
    """*Guard*: :func:`decode_message` redacts every string, keys included, JSON-escaped forms too."""
    assert decode_message('{"KEY": ["a KEY", 1, {"x": "KEY"}]}', "w", ("KEY",)) == {"***": ["a ***", 1, {"x": "***"}]}


@pytest.mark.parametrize("text", ["abc\udc80", "abc\ufffd"], ids=["surrogate", "replacement"])
@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_an_undecodable_transcript_is_classified_and_never_cached(provider: str, text: str, tmp_path) -> None:
    set_request_cache(tmp_path / "cache")
    with RealtimeMockServer(lambda t: MockReply(text, tone(0.2))) as srv:
        built, error = ask(srv, provider)
    assert isinstance(error, ProviderError) and (error.kind, built.attempts) == ("undecodable", 1)
    assert not list((tmp_path / "cache").rglob("*.json"))


@pytest.mark.parametrize(
    "text", ["abc\udc80", "abc\ufffd", "x" * (2 << 20), "あ" * 400_000], ids=["surrogate", "fffd", "2MB", "1.2MB-utf8"]
)
def test_the_request_cache_never_stores_a_reply_the_run_cannot_keep(text: str, tmp_path: Path) -> None:
    """The HTTP request cache: once a 51 MB entry; a previous entry under the key is dropped too."""
    cache = RequestCache(tmp_path)
    cache.put("ab" * 32, ChatResponse("fine", None, "m", Usage(1, 1), "stop"))
    cache.put("ab" * 32, ChatResponse(text, None, "m", Usage(1, 1), "stop"))
    assert cache.get("ab" * 32) is None and not list(tmp_path.rglob("*.json"))


# Class G: events of another response are refused, never merged.


@pytest.mark.parametrize("foreign", ["audio", "text", "transcript_done"])
def test_events_of_another_response_are_refused(foreign: str) -> None:
    with RealtimeMockServer(hostility=Hostility(foreign=foreign)) as srv:  # type: ignore[arg-type]
        built, error = ask(srv, "openai")
    assert isinstance(error, ProviderError) and (error.kind, built.attempts) == ("bad_response", 1)
    assert "sent an event of response 'resp_foreign' while answering 'resp_1'" in error.message
