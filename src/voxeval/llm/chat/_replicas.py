"""Several replicas of one served model (e.g. ``vllm serve`` on N hosts) behind one spec, requests spread over them.

``openai-compat:MODEL@http://h1:8000/v1,http://h2:8000/v1?concurrency=16`` names two replicas; each is a
:class:`RemoteChatModel` with its own pooled connections and its own limits, so ``concurrency`` (and ``rps``) hold
per replica and the model as a whole takes ``concurrency × replicas`` requests at once. A request goes to the
replica with the fewest requests assigned (ties: in turn). A replica that still fails with a transient error after
its own retries (down, overloaded) hands the request to the next replica; other errors are the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voxeval.llm._types import ChatRequest, ChatResponse, ProviderError
from voxeval.llm.chat._remote import RemoteChatModel


class ReplicaSet:
    """One model served at several base URLs; answers like a single :class:`RemoteChatModel`."""

    def __init__(self, replicas: Sequence[RemoteChatModel]) -> None:
        if len(replicas) < 2:
            raise ValueError("a replica set needs at least two replicas")
        self.replicas = tuple(replicas)
        self.provider = replicas[0].provider
        self.model = replicas[0].model
        self.base_url = ",".join(r.base_url for r in replicas)
        """All base URLs, comma-separated: the request cache key does not depend on which replica answered."""
        self.assigned = [0] * len(replicas)
        """Requests each replica holds right now (waiting for a slot, in flight or backing off)."""
        self.served = [0] * len(replicas)
        """Requests each replica answered."""
        self._turn = 0

    def _order(self) -> list[int]:
        """Replica indexes to try: the least assigned first, ties broken in turn; then the others."""
        n = len(self.replicas)
        start = self._turn
        self._turn = (self._turn + 1) % n
        rotated = [(start + i) % n for i in range(n)]
        return sorted(rotated, key=lambda i: self.assigned[i])

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer on the least busy replica; on a transient failure after its retries, on the next one."""
        error: ProviderError | None = None
        for index in self._order():
            self.assigned[index] += 1
            try:
                response = await self.replicas[index].complete(request)
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                error = exc
                continue
            finally:
                self.assigned[index] -= 1
            self.served[index] += 1
            return response
        assert error is not None
        raise error

    def describe(self) -> dict[str, Any]:
        """The first replica's description with every base URL (``base_url`` joined, ``replicas`` listed)."""
        first = self.replicas[0].describe()
        return {**first, "base_url": self.base_url, "replicas": [r.base_url for r in self.replicas]}

    def __repr__(self) -> str:
        return f"ReplicaSet({self.provider}:{self.model}@{self.base_url})"
