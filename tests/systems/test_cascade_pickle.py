"""A cascade sent to a worker (process pool, Ray) is rebuilt there with the request cache as where it was built."""

from __future__ import annotations

import pickle

import pytest

from voxeval.llm import CachedChatModel, request_cache, request_cache_off, set_request_cache
from voxeval.systems._cascade import CascadeSystem, parse_cascade_options


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    import voxeval.llm._cache as cache_module

    monkeypatch.setattr(cache_module, "_request_cache", cache_module._request_cache)  # restored after the test
    set_request_cache(tmp_path / "requests")


def _cascade() -> CascadeSystem:
    return CascadeSystem(parse_cascade_options("asr=oracle,llm=openai-compat:m@http://127.0.0.1:9/v1,tts=none"))


def test_no_cache_survives_pickling_to_a_worker(cache_dir) -> None:
    with request_cache_off():
        built = _cascade()
    assert not isinstance(built._llm, CachedChatModel)
    copy = pickle.loads(pickle.dumps(built))
    assert not isinstance(copy._llm, CachedChatModel)
    assert request_cache() is not None  # the process-wide setting is restored after the rebuild


def test_a_cached_cascade_stays_cached_in_a_worker(cache_dir) -> None:
    built = _cascade()
    assert isinstance(built._llm, CachedChatModel)
    assert isinstance(pickle.loads(pickle.dumps(built))._llm, CachedChatModel)


def test_request_cache_off_restores_the_unset_default() -> None:
    import voxeval.llm._cache as cache_module

    before = cache_module._request_cache
    with request_cache_off():
        assert request_cache() is None
    assert cache_module._request_cache == before
