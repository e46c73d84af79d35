"""The fault-injecting mock server, exercised with a plain HTTP client."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
import wave
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from voxeval.testing.mockserver import Fault, FaultPlan, MockServer, silence_wav, sine_wav

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


CLIENT = httpx.Client()  # one client: building one per request costs ~0.1 s of certificate loading


def post(srv: MockServer, path: str, body: Any, **kwargs: Any) -> httpx.Response:
    return CLIENT.post(srv.base_url + path, json=body, timeout=kwargs.pop("timeout", 5), **kwargs)


def test_chat_completion_shape_and_default_echo() -> None:
    with MockServer() as srv:
        body = post(srv, "/v1/chat/completions", CHAT).json()
    assert body["object"] == "chat.completion" and body["model"] == "m"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "echo: hello there", "refusal": None}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}


def test_chat_audio_output_has_wav_and_transcript() -> None:
    with MockServer(lambda e, b: "spoken") as srv:
        body = post(srv, "/v1/chat/completions", {**CHAT, "modalities": ["text", "audio"]}).json()
    message = body["choices"][0]["message"]
    assert message["content"] is None and message["audio"]["transcript"] == "spoken"
    assert base64.b64decode(message["audio"]["data"])[:4] == b"RIFF"


def test_speech_returns_wav_bytes() -> None:
    with MockServer() as srv:
        response = post(srv, "/v1/audio/speech", {"model": "tts-1", "input": "hello", "voice": "alloy"})
    assert response.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(response.content)) as clip:
        assert clip.getnframes() > 0


def test_gemini_shape_and_responder_arguments() -> None:
    seen: list[tuple[str, Any]] = []

    def responder(endpoint: str, body: dict[str, Any]) -> str:
        seen.append((endpoint, body))
        return "こんにちは"

    with MockServer(responder) as srv:
        body = post(srv, "/v1beta/models/gemini-x:generateContent", GEMINI).json()
    assert seen == [("gemini", GEMINI)]
    assert body["candidates"][0]["content"]["parts"] == [{"text": "こんにちは"}]
    assert body["modelVersion"] == "gemini-x" and body["usageMetadata"]["promptTokenCount"] == 1


def test_records_redact_credentials_and_count_per_endpoint() -> None:
    with MockServer() as srv:
        post(srv, "/v1/chat/completions", CHAT, headers={"Authorization": "Bearer sk-top-secret"})
        post(srv, "/v1beta/models/g:generateContent", GEMINI, headers={"x-goog-api-key": "AIza-secret"})
        post(srv, "/v1/chat/completions", CHAT)
        post(srv, "/nope", {})
        records = srv.requests
        counts = (srv.count(), srv.count("chat"), srv.count("gemini"), srv.count("unknown"))
    assert counts == (4, 2, 1, 1)
    assert [r.number for r in records] == [1, 2, 3, 4]
    assert [r.auth_present for r in records] == [True, True, False, False]
    assert records[0].headers["authorization"] == "<redacted>"
    assert records[1].headers["x-goog-api-key"] == "<redacted>"
    assert "secret" not in repr(records)
    assert records[0].json == CHAT


def test_errors_for_unknown_paths_bad_bodies_and_get() -> None:
    with MockServer() as srv:
        assert post(srv, "/v2/whatever", CHAT).status_code == 404
        assert CLIENT.post(srv.base_url + "/v1/chat/completions", content=b"{oops", timeout=5).status_code == 400
        assert CLIENT.get(srv.base_url + "/v1/chat/completions", timeout=5).status_code == 405


def test_require_key_echoes_the_wrong_key() -> None:
    with MockServer(require_key="right") as srv:
        wrong = post(srv, "/v1/chat/completions", CHAT, headers={"Authorization": "Bearer wrong-key"})
        right = post(srv, "/v1/chat/completions", CHAT, headers={"Authorization": "Bearer right"})
        gemini = post(srv, "/v1beta/models/g:generateContent", GEMINI, headers={"x-goog-api-key": "bad"})
    assert wrong.status_code == 401 and "wrong-key" in wrong.json()["error"]["message"]
    assert right.status_code == 200
    assert gemini.status_code == 400 and "not valid" in gemini.json()["error"]["message"]


def test_scripted_faults_by_request_number() -> None:
    plan = FaultPlan.sequence(
        Fault("rate_limit", retry_after=2),
        Fault("server_error"),
        Fault("unavailable", retry_after=0.5),
        Fault("truncated"),
        Fault("invalid_json"),
        Fault("empty"),
        None,
    )
    with MockServer(lambda e, b: "fine", faults=plan) as srv:
        responses = [post(srv, "/v1/chat/completions", CHAT) for _ in range(8)]
        kinds = [r.fault for r in srv.requests]
    assert [r.status_code for r in responses] == [429, 500, 503, 200, 200, 200, 200, 200]
    assert responses[0].headers["retry-after"] == "2" and responses[2].headers["retry-after"] == "0.5"
    with pytest.raises(json.JSONDecodeError):
        json.loads(responses[3].text)
    assert responses[3].text.startswith('{"id": "chatcmpl-mock-4"')
    assert responses[4].text.startswith("<html>")
    assert responses[5].json()["choices"][0]["message"]["content"] == ""
    assert responses[6].json()["choices"][0]["message"]["content"] == "fine"
    assert kinds == ["rate_limit", "server_error", "unavailable", "truncated", "invalid_json", "empty", None, None]


def test_drop_and_hang_close_the_connection_unanswered() -> None:
    plan = FaultPlan.sequence(Fault("drop"), Fault("hang", seconds=0.3))
    with MockServer(faults=plan) as srv:
        with pytest.raises(httpx.RemoteProtocolError):
            post(srv, "/v1/chat/completions", CHAT)
        started = time.monotonic()
        with pytest.raises(httpx.RemoteProtocolError):
            post(srv, "/v1/chat/completions", CHAT)  # waits out the hang, then sees the close
        assert 0.25 <= time.monotonic() - started < 2
        with pytest.raises(httpx.ReadTimeout):
            srv_plan = FaultPlan.sequence(Fault("hang", seconds=5))
            with MockServer(faults=srv_plan) as other:
                post(other, "/v1/chat/completions", CHAT, timeout=0.1)


def test_exit_releases_a_hung_handler_quickly() -> None:
    srv = MockServer(faults=FaultPlan.sequence(Fault("hang", seconds=10))).start()
    errors: list[Exception] = []

    def hung_client() -> None:
        try:
            post(srv, "/v1/chat/completions", CHAT)
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=hung_client)
    thread.start()
    time.sleep(0.1)
    started = time.monotonic()
    srv.stop()
    thread.join(timeout=5)
    assert not thread.is_alive() and time.monotonic() - started < 2
    assert len(errors) == 1  # closed unanswered
    with pytest.raises(RuntimeError, match="not running"):
        _ = srv.base_url


def test_latency_delays_a_normal_reply() -> None:
    with MockServer(faults=FaultPlan.sequence(Fault("latency", seconds=0.2))) as srv:
        started = time.monotonic()
        response = post(srv, "/v1/chat/completions", CHAT)
    assert response.status_code == 200 and time.monotonic() - started >= 0.2


def test_random_faults_are_seeded() -> None:
    plan = FaultPlan(rate=0.5, random_faults=(Fault("server_error"), Fault("rate_limit")), seed=3)

    def statuses() -> list[int]:
        with MockServer(faults=plan) as srv:
            return [post(srv, "/v1/chat/completions", CHAT).status_code for _ in range(20)]

    first = statuses()
    assert first == statuses()
    assert {200, 500, 429} == set(first)


def test_scripted_faults_win_over_random_ones() -> None:
    plan = FaultPlan(script={2: Fault("server_error")}, rate=1.0, random_faults=(Fault("rate_limit"),))
    with MockServer(faults=plan) as srv:
        assert [post(srv, "/v1/chat/completions", CHAT).status_code for _ in range(3)] == [429, 500, 429]


def test_concurrent_requests_are_all_recorded_once() -> None:
    with MockServer() as srv:
        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(lambda _: post(srv, "/v1/chat/completions", CHAT).status_code, range(40)))
        numbers = sorted(r.number for r in srv.requests)
    assert codes == [200] * 40 and numbers == list(range(1, 41))


def test_a_failing_responder_is_a_500() -> None:
    def broken(endpoint: str, body: dict[str, Any]) -> str:
        raise KeyError("missing")

    with MockServer(broken) as srv:
        response = post(srv, "/v1/chat/completions", CHAT)
    assert response.status_code == 500 and "responder failed" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Fault("hang", seconds=60), "seconds"),
        (lambda: Fault("latency", seconds=-1), "seconds"),
        (lambda: FaultPlan(rate=1.5, random_faults=(Fault("drop"),)), "rate"),
        (lambda: FaultPlan(rate=0.5), "random_faults"),
    ],
)
def test_fault_plans_are_bounded(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_server_stops_itself_after_its_lifetime() -> None:
    srv = MockServer(max_lifetime=0.2).start()
    base = srv.base_url
    time.sleep(0.5)
    with pytest.raises(httpx.ConnectError):
        CLIENT.post(base + "/v1/chat/completions", json=CHAT, timeout=1)


def test_wav_helpers() -> None:
    for data, frames in ((sine_wav(0.25, rate=16000), 4000), (silence_wav(0.1, rate=8000), 800)):
        with wave.open(io.BytesIO(data)) as clip:
            assert (clip.getnchannels(), clip.getsampwidth(), clip.getnframes()) == (1, 2, frames)
    assert set(silence_wav(0.01)[44:]) == {0}
    assert len(sine_wav(1000.0, rate=8000)) == 44 + 60 * 8000 * 2
