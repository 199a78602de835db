"""Sentence vectors kept between scorings (`scoring.vectors`): read back, never trusted blindly."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from site_builder.scoring import minilm, vectors, werewolf
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble, dumps

CORPUS = Path(__file__).resolve().parents[2] / "replays" / "builtin"
needs_model = pytest.mark.skipif(minilm.archive() is None,
                                 reason=f"the model package is not installed ({minilm.INSTALL})")


def werewolf_games(folder: Path, part: slice) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for f in sorted(CORPUS.glob("builtin-werewolf-*.jsonl"))[part]:
        shutil.copy(f, folder / f.name)
    return folder


@pytest.fixture
def fresh_process_vectors():
    """Each test starts as a new process would: no vector or distance matrix in memory, no store in use."""
    forget()
    yield
    minilm.use_store(None)
    forget()


def forget() -> None:
    minilm.vector.cache_clear()
    werewolf._neural_matrix.cache_clear()


@pytest.fixture
def no_embedding(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a statement was embedded")
    monkeypatch.setattr(minilm, "_forward", refuse)


def stored(cache: Path) -> int:
    with sqlite3.connect(vectors.beside(cache)) as db:
        return db.execute("SELECT count(*) FROM vectors").fetchone()[0]


@needs_model
def test_games_loaded_again_read_their_statements_back_and_score_as_cold(tmp_path, fresh_process_vectors,
                                                                          monkeypatch):
    games = werewolf_games(tmp_path / "games", slice(0, 3))
    cache = tmp_path / "cache.sqlite"
    cold = dumps(assemble(load([games], cache)))
    assert stored(cache) > 0
    cache.unlink()  # every game re-simulated and digested again, as after a scorer update
    forget()  # as in a new process
    monkeypatch.setattr(minilm, "_forward", lambda *a: pytest.fail("a kept statement was embedded again"))
    assert dumps(assemble(load([games], cache))) == cold


@needs_model
def test_new_games_embed_only_statements_no_earlier_run_kept(tmp_path, fresh_process_vectors, monkeypatch):
    base, added = werewolf_games(tmp_path / "base", slice(0, 3)), werewolf_games(tmp_path / "added", slice(3, 5))
    cache = tmp_path / "cache.sqlite"
    load([base], cache)
    before = stored(cache)
    cold = dumps(assemble(load([base, added])))  # no cache, no store
    forget()
    embedded: list[object] = []
    forward = minilm._forward
    monkeypatch.setattr(minilm, "_forward", lambda m, ids, mask: (embedded.append(ids), forward(m, ids, mask))[1])
    assert dumps(assemble(load([base, added], cache))) == cold
    assert 0 < len(embedded) and stored(cache) == before + len(embedded)
    assert minilm._shelf is None and minilm._threads == 1  # the process is left as it was


@needs_model
def test_vectors_read_back_are_the_computed_ones(tmp_path, fresh_process_vectors, no_embedding):
    texts = ["I am the Seer.", "Trust me, I am a villager."]
    made = vectors.Shelf(tmp_path / "v.sqlite", minilm.runtime(), minilm.DIMENSIONS)
    expected = {t: np.arange(384, dtype=np.float32) * (i + 1) for i, t in enumerate(texts)}
    for text, vector in expected.items():
        made.keep(text, vector)
    vectors.save(tmp_path / "v.sqlite", minilm.runtime(), made.take_made())
    assert made.made == {}
    minilm.use_store(tmp_path / "v.sqlite")
    for text, vector in expected.items():
        back = minilm.vector(text)
        assert back.dtype == np.float32 and not back.flags.writeable and np.array_equal(back, vector)


def test_a_store_of_another_runtime_is_not_read_and_is_emptied_when_written(tmp_path):
    path = tmp_path / "v.sqlite"
    vectors.save(path, "runtime-a", {vectors.key("hello"): np.ones(4, dtype="<f4").tobytes()})
    assert vectors.Shelf(path, "runtime-a", 4).get("hello") is not None
    assert vectors.Shelf(path, "runtime-b", 4).get("hello") is None
    vectors.save(path, "runtime-b", {vectors.key("other"): np.zeros(4, dtype="<f4").tobytes()})
    assert vectors.Shelf(path, "runtime-b", 4).get("hello") is None
    assert vectors.Shelf(path, "runtime-b", 4).get("other") is not None


def test_a_damaged_store_or_vector_is_made_again_not_read(tmp_path):
    path = tmp_path / "v.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    assert vectors.Shelf(path, "r", 4).get("hello") is None
    vectors.save(path, "r", {vectors.key("hello"): np.ones(4, dtype="<f4").tobytes(),
                             vectors.key("short"): b"\0\0\0"})
    assert np.array_equal(vectors.Shelf(path, "r", 4).get("hello"), np.ones(4, dtype=np.float32))
    assert vectors.Shelf(path, "r", 4).get("short") is None  # a vector of the wrong size
    assert vectors.Shelf(tmp_path / "absent.sqlite", "r", 4).get("hello") is None
    assert not (tmp_path / "absent.sqlite").exists()  # reading never makes a store


def test_the_runtime_names_the_package_the_code_numpy_and_the_blas():
    package, version, code, numpy_version, blas = json.loads(minilm.runtime())
    assert (package, numpy_version) == (minilm.PACKAGE, np.__version__)
    assert version == minilm.package_version() and len(code) == 16 and isinstance(blas, list)
