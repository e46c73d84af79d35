"""A real OpenAI-compatible server nobody here wrote: llama-cpp-python's ``python -m llama_cpp.server`` with the
offline Qwen GGUF, driven through ``llm:openai-compat:…`` (annotation) and ``cascade:llm=openai-compat:…``.

Opt-in (it loads a 1.1 GB model and generates on the CPU): ``VOXEVAL_TEST_LLAMACPP_SERVER=1``. The server runs
under ``$VOXEVAL_LLAMACPP_PYTHON`` (default: this interpreter), which needs ``llama-cpp-python[server]``; the model is
``$VOXEVAL_LLAMACPP_GGUF``, else the GGUF joined from the ``llm-local`` extra's part wheels. docs/systems.md has
the same recipe for a manual run.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from voxeval.annotate import AnnotationFailed, AnnotationInput, annotator_from_spec
from voxeval.errors import MissingDependencyError
from voxeval.systems import Turn, system_from_spec
from voxeval.testing.mockserver import silence_wav

OPT_IN = "VOXEVAL_TEST_LLAMACPP_SERVER"
pytestmark = pytest.mark.skipif(os.environ.get(OPT_IN) != "1", reason=f"opt-in: set {OPT_IN}=1")
ALIAS = "qwen2.5-coder-1.5b"


def _server_python() -> str:
    python = os.environ.get("VOXEVAL_LLAMACPP_PYTHON", sys.executable)
    probe = subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"{python} cannot import llama_cpp.server: pip install 'llama-cpp-python[server]==0.3.36'")
    return python


def _gguf() -> Path:
    given = os.environ.get("VOXEVAL_LLAMACPP_GGUF")
    if given:
        return Path(given)
    from voxeval.llm import LOCAL_MODELS, weights_path

    try:
        return weights_path(LOCAL_MODELS["qwen2.5-1.5b"])
    except MissingDependencyError as exc:
        pytest.skip(f"no GGUF: set VOXEVAL_LLAMACPP_GGUF or install voxeval[llm-local] ({exc})")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    python, gguf, port = _server_python(), _gguf(), _free_port()
    command = [python, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"]
    # The server logs the whole model load to stderr: a file, not a pipe nobody reads (a full pipe blocks it).
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (lives as long as the module fixture)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if process.poll() is not None:
                log.seek(0)
                pytest.fail(f"llama_cpp.server exited: {log.read()[-2000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(1)
        else:
            pytest.fail("llama_cpp.server did not answer /v1/models within 300 s")
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_annotation_through_the_llamacpp_server(server: str) -> None:
    annotator = annotator_from_spec(f"llm:openai-compat:{ALIAS}@{server}?timeout=300&max_retries=1")
    item = AnnotationInput(reply="はい、明日の天気は晴れです。傘は要りません。", user_input="明日の天気は？")
    try:
        annotation = asyncio.run(annotator.annotate(item))
    except AnnotationFailed as exc:  # the 1.5B model may miss the schema; the transport still worked end to end
        assert exc.raw, "the server answered nothing"
        return
    assert annotation.raw and annotation.meta["attempts"] >= 1


def test_cascade_through_the_llamacpp_server(server: str) -> None:
    system = system_from_spec(f"cascade:asr=oracle,llm=openai-compat:{ALIAS}@{server}?timeout=300,tts=none")
    turn = Turn(
        "s1", silence_wav(0.2), "あなたは親切な日本語音声対話アシスタントです。", "答えてください。", "こんにちは"
    )
    reply = asyncio.run(system.respond(turn))
    assert reply.text.strip()
