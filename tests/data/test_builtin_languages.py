"""The built-in English and Mandarin dialogue-act sets: valid, large and varied enough, built from their sources."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from voxeval.data import builtin_path, resolve_dataset
from voxeval.data._validate import validate_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("name", "language", "locale"), [("en-assistant", "en", "en-US"), ("zh-assistant", "zh", "zh-CN")]
)
def test_builtin_set_is_valid_and_varied(name: str, language: str, locale: str) -> None:
    report = validate_file(builtin_path(name), require_spans=True)
    assert report.ok, report.errors[:5]
    data = resolve_dataset(name)
    assert data.language == language and {s.locale for s in data.samples} == {locale}
    domains = Counter(s.domain for s in data.samples)
    assert len(data.samples) >= 300 and len(domains) >= 25
    for domain in domains:
        splits = {s.split for s in data.samples if s.domain == domain}
        assert splits == {"dev", "test"}, domain
    inputs = Counter((s.domain, s.input_text) for s in data.samples)
    assert max(inputs.values()) == 1
    # Every label of the taxonomy occurs, so each has gold examples.
    assert {a.act for s in data.samples for a in s.acts} >= {
        "Answer", "Inform", "Question", "Check-Question", "Request", "Suggestion", "Commissive"
    }  # fmt: skip


def test_builtin_sets_are_built_from_their_sources(tmp_path) -> None:
    spec = importlib.util.spec_from_file_location("assistant_build", ROOT / "tools" / "assistant_data" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for language in ("en", "zh"):
        built = module.build(language, tmp_path)
        assert built.read_bytes() == builtin_path(f"{language}-assistant").read_bytes(), language


def test_source_errors_name_file_and_line(tmp_path) -> None:
    spec = importlib.util.spec_from_file_location("assistant_build", ROOT / "tools" / "assistant_data" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = {
        "A .5: x.\nC .5: y.": "share their maximum",
        "A .5: x.\nC .4: y.": "sum to 1",
        "Z: x.": "unknown act code",
        "X: only chatter.": "at least one step",
    }
    for body, message in cases.items():
        src = tmp_path / "s.txt"
        src.write_text(f"@d\nB: b\nU: u\n{body}\n", encoding="utf-8")
        with pytest.raises(module.SourceError, match=message) as info:
            module.parse_source(src, "en")
        assert str(src) in str(info.value)
