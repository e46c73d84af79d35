"""Hugging Face dataset folders: export → import gives the same rows, audio and scores; column mappings; dialogues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voxeval.benchmark._dialogues import dialogue_file
from voxeval.cli import main
from voxeval.data import builtin_path, load_dialogues, resolve_dataset
from voxeval.errors import InputError

datasets = pytest.importorskip("datasets", reason="voxeval[hf] not installed")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory):
    """A private voxeval cache for the module (materialised folders land there)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOXEVAL_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def exported(cache, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole built-in ja-assistant, exported under its own name (so a run on it names the dataset the same)."""
    out = tmp_path_factory.mktemp("hf") / "ja-assistant"
    assert main(["dataset", "export", "ja-assistant", "--format", "hf", "--out", str(out)]) == 0
    return out


def test_export_writes_the_hub_layout_and_a_card(exported: Path) -> None:
    assert sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*") if p.is_file()) == [
        "README.md",
        "data/dev-00000-of-00001.parquet",
        "data/test-00000-of-00001.parquet",
    ]
    card = (exported / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\nlicense: apache-2.0\n") and '  - split: "test"\n    path: "data/test-*"' in card
    assert "| `steps` |" in card and "sha256" in card
    loaded = datasets.load_dataset(str(exported), cache_dir=str(exported.parent / "hf-cache"))
    assert {k: len(v) for k, v in loaded.items()} == {"dev": 224, "test": 112}
    assert loaded["dev"].features["steps"].feature["act"].dtype == "string"  # a nested list of structs


def test_round_trip_gives_identical_rows_in_file_order(exported: Path) -> None:
    original = resolve_dataset("ja-assistant")
    for spec in (f"hf:{exported}", str(exported)):
        back = resolve_dataset(spec)
        assert back.name == "ja-assistant"
        assert [s.raw for s in back.samples] == [s.raw for s in original.samples]


def test_round_trip_keeps_the_audio_bytes(cache, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    args = ["--format", "hf", "--audio", "--split", "test", "--limit", "2"]
    assert main(["dataset", "export", "ja-assistant", "--out", str(first), *args]) == 0
    imported = resolve_dataset(f"hf:{first}")
    assert [s.audio is not None for s in imported.samples] == [True, True]
    cells = datasets.Dataset.from_parquet(str(first / "data/test-00000-of-00001.parquet"), cache_dir=str(tmp_path))
    cells = cells.cast_column("audio", datasets.Audio(decode=False))
    files = [(imported.root / s.audio).read_bytes() for s in imported.samples]
    assert [c["audio"]["bytes"] for c in cells] == files and files[0][:4] == b"RIFF"
    # Exported again from the imported copy: the dataset's own audio files go out unchanged.
    assert main(["dataset", "export", str(imported.path), "--out", str(second), *args]) == 0
    again = resolve_dataset(f"hf:{second}")
    assert [(again.root / s.audio).read_bytes() for s in again.samples] == files
    assert [s.raw["input"]["text"] for s in again.samples] == [s.raw["input"]["text"] for s in imported.samples]


def _run(dataset: str, replay: Path, out: Path) -> list[dict]:
    args = ["run", "--dataset", dataset, "--limit", "8", "--system", f"replay:{replay}", "--annotator", "gold"]
    assert main([*args, "--reply-text", "model", "--reply-asr", "none", "--out", str(out), "--quiet"]) == 0
    return [json.loads(x) for x in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_exported_set_scores_identically_in_a_run(exported: Path, tmp_path: Path) -> None:
    rows = [json.loads(x) for x in builtin_path("ja-assistant").read_text(encoding="utf-8").splitlines()[:8]]
    # Every other reply is another sample's reference: scores that differ per sample, not all 1.
    replay = tmp_path / "replay.jsonl"
    texts = [rows[(k + k % 2) % 8]["output"]["text"] for k in range(8)]
    replay.write_text(
        "".join(json.dumps({"id": r["id"], "text": t}) + "\n" for r, t in zip(rows, texts, strict=True)), "utf-8"
    )
    builtin = _run("ja-assistant", replay, tmp_path / "builtin")
    via_hf = _run(f"hf:{exported}", replay, tmp_path / "hf")
    assert via_hf == builtin and len({r["wlcs"] for r in builtin}) > 1


def test_dialogue_sets_round_trip_with_nested_turns(cache, tmp_path: Path, capsys) -> None:
    out = tmp_path / "ja-dialogues"
    assert main(["dataset", "export", "ja-dialogues", "--format", "hf", "--out", str(out)]) == 0
    name, path = dialogue_file(f"hf:{out}")
    assert name == "ja-dialogues"
    assert [d.raw for d in load_dialogues(path)] == [d.raw for d in load_dialogues(builtin_path("ja-dialogues"))]
    assert main(["dataset", "export", "ja-dialogues", "--format", "hf", "--audio", "--out", str(tmp_path / "x")]) == 2
    assert "--audio applies to single-turn" in capsys.readouterr().err and not (tmp_path / "x").exists()


def _foreign(tmp_path: Path, rows: list[dict]) -> Path:
    folder = tmp_path / "foreign"
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
    return folder


FOREIGN = [
    {"qid": "q1", "question": "What time is it?", "answer": "It is three.", "acts": '["Answer"]', "lang": "en-US"},
    {"qid": "q2", "question": "Set a timer", "answer": "How long?", "acts": '[{"act": "Question", "importance": 1}]',
     "lang": "en-US"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("input=question&output=answer&steps=acts&id=qid&locale=lang", ["q1", "q2"]),
        ("input=question&output=answer&steps=acts&locale=en-US", ["train-00001", "train-00002"]),
    ],
)
def test_a_foreign_dataset_reads_through_a_column_mapping(cache, tmp_path: Path, query: str, expected) -> None:
    dataset = resolve_dataset(f"hf:{_foreign(tmp_path, FOREIGN)}?{query}")
    assert [s.id for s in dataset.samples] == expected
    assert [s.acts[0].act for s in dataset.samples] == ["Answer", "Question"]
    assert {s.locale for s in dataset.samples} == {"en-US"} and dataset.samples[1].output_text == "How long?"


def test_foreign_dialogues_read_through_a_turns_mapping(cache, tmp_path: Path) -> None:
    rows = [dict(d.raw) for d in load_dialogues(builtin_path("en-dialogues"))[:3]]
    foreign = [
        {"dialogue": r["id"], "situation": r["scenario_context"]["background"], "conversation": r["turns"]}
        for r in rows
    ]
    folder = tmp_path / "dialogues"
    datasets.Dataset.from_list(foreign).save_to_disk(str(folder))
    name, path = dialogue_file(f"hf:{folder}?turns=conversation&id=dialogue&background=situation&locale=en-US")
    back = load_dialogues(path)
    assert name == "dialogues" and [d.raw["turns"] for d in back] == [r["turns"] for r in rows]
    assert [d.id for d in back] == [r["id"] for r in rows] and {d.language for d in back} == {"en"}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("input=question&output=answer", "steps: no such column"),
        ("input=prompt&output=answer&steps=acts", "prompt: no such column"),
        ("input=question&outptu=answer", "unknown field in the column mapping"),
        ("input=question&output=answer&steps=question", "must be a list of steps|a text cell must hold the steps"),
    ],
)
def test_a_bad_mapping_names_the_column(cache, tmp_path: Path, query: str, message: str) -> None:
    folder = _foreign(tmp_path, FOREIGN)
    with pytest.raises(InputError, match=message):
        resolve_dataset(f"hf:{folder}?{query}")


@pytest.mark.parametrize(
    ("extra", "message"),
    [('{"input": [1]}', "not a row of voxeval's export"), ("{not json", "extra: not JSON"), ("[1]", "a JSON object")],
)
def test_a_tampered_export_row_is_named(exported: Path, tmp_path: Path, extra: str, message: str) -> None:
    table = datasets.Dataset.from_parquet(str(exported / "data/test-00000-of-00001.parquet"), cache_dir=str(tmp_path))
    rows = table.to_list()[:3]
    rows[1]["extra"] = extra
    folder = tmp_path / "tampered"
    datasets.Dataset.from_list(rows, features=table.features).to_parquet(
        str(folder / "data/test-00000-of-00001.parquet")
    )
    with pytest.raises(InputError, match=message) as caught:
        resolve_dataset(f"hf:{folder}")
    assert f"{folder}/test:2" in str(caught.value)


def test_export_refuses_a_folder_that_is_not_empty(cache, tmp_path: Path, capsys) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine", encoding="utf-8")
    args = ["dataset", "export", "paper-examples", "--format", "hf", "--out", str(tmp_path / "taken")]
    assert main(args) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert (tmp_path / "taken" / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_a_second_resolve_does_not_rehash_the_folder(exported: Path, tmp_path: Path, monkeypatch) -> None:
    import shutil

    import voxeval.paths
    from voxeval.interop import hf_gold_file

    folder = tmp_path / "ja-assistant"
    shutil.copytree(exported, folder)
    hashed: list[Path] = []
    real = voxeval.paths.sha256_file
    monkeypatch.setattr(voxeval.paths, "sha256_file", lambda p: hashed.append(Path(p)) or real(p))
    first = hf_gold_file(f"hf:{folder}")
    assert len(hashed) == 3  # README.md and the two parquet files, once
    assert hf_gold_file(f"hf:{folder}") == first and resolve_dataset(f"hf:{folder}").name == "ja-assistant"
    assert len(hashed) == 3  # resolved twice more: nothing read again
    card = folder / "README.md"
    card.write_text(card.read_text(encoding="utf-8") + "\nedited\n", encoding="utf-8")
    assert hf_gold_file(f"hf:{folder}") != first  # a changed file is hashed again: a new materialised copy
    assert len(hashed) == 6
