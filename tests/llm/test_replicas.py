"""Replicas of one served model (vLLM on several hosts): one spec, requests spread, concurrency per replica."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voxeval.errors import ConfigError
from voxeval.llm import ChatMessage, ChatRequest, ReplicaSet, RetryPolicy, chat_model_from_spec, parse_model_spec
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer

REQUEST = ChatRequest(messages=(ChatMessage("user", "hello"),), max_tokens=20)


def replicas(spec: str) -> ReplicaSet:
    model = chat_model_from_spec(spec)
    assert isinstance(model, ReplicaSet)
    for replica in model.replicas:  # millisecond backoff
        replica.policy = RetryPolicy(max_retries=replica.options.max_retries, base_delay=0.01, max_delay=0.05)
    return model


async def ask(model: Any, n: int) -> list[str]:
    return [r.text for r in await asyncio.gather(*(model.complete(REQUEST) for _ in range(n)))]


def test_requests_spread_over_both_replicas_with_concurrency_per_replica() -> None:
    slow = FaultPlan.sequence(*[Fault("latency", 0.2)] * 12)
    with MockServer(lambda e, b: "one", faults=slow) as a, MockServer(lambda e, b: "two", faults=slow) as b:
        model = replicas(f"openai-compat:m@{a.openai_base_url},{b.openai_base_url}?concurrency=2")
        texts = asyncio.run(ask(model, 12))
        assert a.count("chat") == 6 and b.count("chat") == 6  # both replicas work, evenly
    assert sorted(set(texts)) == ["one", "two"]
    assert [r.limiter.peak for r in model.replicas] == [2, 2]  # 2 in flight on each: 4 at once overall
    assert model.served == [6, 6]


def test_a_dead_replica_hands_its_requests_to_the_others() -> None:
    with MockServer(lambda e, b: "up") as up:
        with MockServer() as gone:
            dead_url = gone.openai_base_url
        model = replicas(f"openai-compat:m@{dead_url},{up.openai_base_url}?max_retries=1")
        assert asyncio.run(ask(model, 4)) == ["up"] * 4
        assert up.count("chat") == 4 and model.served == [0, 4]


def test_an_error_that_is_the_answer_is_not_retried_elsewhere() -> None:
    from voxeval.llm import ProviderError

    with MockServer(lambda e, b: "x") as a, MockServer(lambda e, b: "x") as b:
        model = replicas(f"openai-compat:gpt-5-mini@{a.openai_base_url},{b.openai_base_url}?temperature=0.5")
        with pytest.raises(ProviderError) as caught:
            asyncio.run(model.complete(REQUEST))  # the server refuses the temperature: a client error
        assert not caught.value.retryable and a.count("chat") + b.count("chat") == 1


def test_the_spec_and_the_system_describe_every_replica() -> None:
    from voxeval.systems import system_from_spec

    spec = "openai-compat:m@http://127.0.0.1:9/v1/,http://127.0.0.1:10/v1?concurrency=3"
    assert parse_model_spec(spec).base_url == "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"
    system = system_from_spec(spec)
    assert system.concurrency == 6  # 3 per replica
    described = system.describe()
    assert described["replicas"] == ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
    assert described["base_url"] == "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openai:gpt-4o@http://a/v1,http://b/v1", "supported by openai-compat only"),
        ("openai-compat:m@http://a/v1,http://a/v1/", "given twice"),
        ("openai-compat:m@http://a/v1,b/v1", "malformed base URL 'b/v1'"),
        ("openai-compat:m@http://a/v1,", "malformed base URL ''"),
    ],
)
def test_bad_replica_lists_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_model_spec(spec)
