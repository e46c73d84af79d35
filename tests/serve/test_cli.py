"""``voxeval serve`` as a process: it prints its URL, answers a client, and stops cleanly on SIGTERM / SIGINT;
bad options exit 2 with the reason. One optional test serves the real offline cascade."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from voxeval.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--require-key-env", "VOXEVAL_NO_SUCH_KEY_ENV"], "VOXEVAL_NO_SUCH_KEY_ENV is not set"),
        (["--pace", "slow"], "--pace 'slow'"),
        (["--language", "xx"], "--language xx"),
    ],
)
def test_bad_options_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "python:tests.serve._echo:answer", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serves_then_stops_on_a_signal(sig: signal.Signals, monkeypatch: pytest.MonkeyPatch) -> None:
    from voxeval.llm import request_cache_off
    from voxeval.systems import Turn, system_from_spec
    from voxeval.testing.mockserver import sine_wav

    env = {**os.environ, "PYTHONPATH": "src", "SERVE_KEY": "k1"}
    argv = [sys.executable, "-m", "voxeval", "serve", "python:tests.serve._echo:answer", "--port", "0",
            "--pace", "instant", "--require-key-env", "SERVE_KEY"]  # fmt: skip
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.split(" at ")[1].split()[0]
        monkeypatch.setenv("OPENAI_API_KEY", "k1")
        with request_cache_off():
            system = system_from_spec(f"realtime:openai:m@{url}")
            reply = asyncio.run(system.respond(Turn("t", sine_wav(0.2), "s", "u")))
        assert reply.text.startswith("history=0 prompt=u system=s lang=ja")
        process.send_signal(sig)
        out, err = process.communicate(timeout=20)
    finally:
        process.kill() if process.poll() is None else None
    assert process.returncode == 0, err
    assert "voxeval serve: stopped" in out


@pytest.mark.optional
def test_the_offline_cascade_answers_spoken_japanese() -> None:
    """The real cascade (whisper-base → Qwen2.5 1.5B → pyopenjtalk) behind the server; needs its models."""
    pytest.importorskip("llama_cpp")
    pytest.importorskip("pyopenjtalk")
    from voxeval.llm import request_cache_off
    from voxeval.serve import RealtimeServer, ServeOptions, SystemRunner
    from voxeval.speech.audio import to_input_format
    from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle
    from voxeval.systems import Turn, default_prompts, system_from_spec

    try:
        runner = SystemRunner(system_from_spec("cascade"))
    except Exception as exc:  # a model file not downloaded: nothing to test here
        pytest.skip(f"the offline cascade is not available: {exc}")
    audio = to_input_format(PyOpenJTalkEngine().synthesize("今日の天気を教えてください", VoiceStyle()))
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    options = ServeOptions(default_prompts("ja")[0], speed=float("inf"))
    with RealtimeServer(runner, options) as server, request_cache_off():
        system = system_from_spec(f"realtime:openai:m@{server.url}?timeout=300")
        reply = asyncio.run(system.respond(Turn("t", audio, default_prompts("ja")[0], "")))
    runner.close()
    assert reply.text.strip() and reply.audio is not None and len(reply.audio) > 24_000


def test_the_cascade_hears_real_speech_through_server_vad() -> None:
    """The offline cascade's own ASR (whisper-base) and voice (pyopenjtalk), its LLM a local mock: two spoken turns
    through server VAD; the second turn's LLM request carries the first turn's transcript and reply."""
    pytest.importorskip("faster_whisper")
    pytest.importorskip("pyopenjtalk")
    import numpy as np

    from voxeval.serve import RealtimeServer, ServeOptions, SystemRunner
    from voxeval.speech.asr._whisper import whisper_base_dir
    from voxeval.speech.audio import input_format_pcm
    from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle
    from voxeval.systems import default_prompts, system_from_spec
    from voxeval.testing.mockserver import MockServer

    if not whisper_base_dir().exists():
        pytest.skip("whisper-base is not downloaded (make models)")
    from tests.serve._client import Client, silence

    clip = input_format_pcm(PyOpenJTalkEngine().synthesize("今日はいい天気ですね", VoiceStyle()))
    with MockServer(lambda endpoint, request: "はい、晴れです。") as llm:
        runner = SystemRunner(system_from_spec(f"cascade:llm=openai-compat:m@{llm.openai_base_url}?max_retries=0"))
        with RealtimeServer(runner, ServeOptions(default_prompts("ja")[0], speed=float("inf"))) as server:
            client = Client(server.url)  # server VAD is on by default, as the API's
            for _ in range(2):
                client.audio(np.concatenate([silence(0.3), clip, silence(0.7)]))
                done = client.until("response.done", timeout=60)
                assert done["response"]["status"] == "completed"
            client.close()
        runner.close()
        requests = [r.json["messages"] for r in llm.requests]
    transcripts = [e["transcript"] for e in client.events if e["type"] == "response.output_audio_transcript.done"]
    assert transcripts == ["はい、晴れです。"] * 2
    audio = [e for e in client.events if e["type"] == "response.output_audio.delta"]
    assert len(audio) >= 5  # pyopenjtalk's reply, at least half a second
    assert "天気" in requests[0][-1]["content"]  # whisper heard the speech
    assert [m["role"] for m in requests[1]] == ["system", "user", "assistant", "user"]
    assert requests[1][1]["content"] == requests[0][-1]["content"] and requests[1][2]["content"] == "はい、晴れです。"
