"""Every llm test starts with no API keys in the environment, a private cache root and no request cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from voxeval.llm import _cache, set_request_cache

KEY_VARIABLES = ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VOXEVAL_COMPAT_API_KEY")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "voxeval-cache"))
    saved = _cache._request_cache
    set_request_cache(None)
    yield
    _cache._request_cache = saved
