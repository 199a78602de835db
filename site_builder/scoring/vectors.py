"""Sentence vectors kept between scorings: a statement embedded by an earlier run is read back.

Embedding is most of what a new Werewolf game costs to load (~13 ms a statement on one core),
and a corpus repeats its statements (scripted players' lines, a small model's favourite
replies): 26,711 distinct among 269,040 in the 100,000-game benchmark corpus. The per-game
values are cached with each game; this keeps the vectors, so a warm score after new games embeds
only the statements no earlier run has seen.

A store is an SQLite file beside the scoring cache. It is read by every process that loads
games (workers open it read-only) and written by the loading process alone, after its workers
are done: a worker hands the vectors it made back with its games (`Shelf.made`). The store
belongs to one embedder runtime (`runtime`: the model package, the code of the forward pass,
numpy and the BLAS), and is emptied when that changes: a vector made elsewhere may differ in its
last bits, and a warm score must give a cold score's numbers. Like the cache, it is an
accelerator: a damaged store is replaced, a damaged vector made again.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: The layout of the store; part of its runtime key.
LAYOUT = "vectors-1"


def beside(cache: Path) -> Path:
    """Where the vectors go for a scoring cache: a file next to it."""
    return cache.with_name(cache.stem + "-vectors.sqlite")


def key(text: str) -> bytes:
    """The store's key of a text (a 16-byte hash: texts can be long)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class Shelf:
    """Vectors of one runtime read from a store (read-only), and the ones this process made since
    it last handed them over."""

    def __init__(self, path: Path, runtime: str, width: int):
        self.path, self.runtime, self.width = path, runtime, width
        self.made: dict[bytes, bytes] = {}
        self._db: sqlite3.Connection | None = None
        self._opened = False
        self._lock = threading.Lock()  # statements may be embedded on several threads (`minilm.embed`)

    def _reader(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            try:
                db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
                row = db.execute("SELECT value FROM meta WHERE key = 'runtime'").fetchone()
            except sqlite3.Error:  # no store yet, or not one: nothing to read
                return None
            if row is None or row[0] != f"{LAYOUT}/{self.runtime}":
                db.close()
                return None
            self._db = db
        return self._db

    def get(self, text: str) -> np.ndarray | None:
        """The kept vector of `text` (read-only float32), or None."""
        with self._lock:
            db = self._reader()
            if db is None:
                return None
            try:
                row = db.execute("SELECT vector FROM vectors WHERE key = ?", (key(text),)).fetchone()
            except sqlite3.Error:
                return None
        if row is None or not isinstance(row[0], bytes) or len(row[0]) != self.width * 4:
            return None
        return np.frombuffer(row[0], dtype="<f4")

    def keep(self, text: str, vector: np.ndarray) -> None:
        """Note a vector this process made, to be handed over (`take_made`)."""
        with self._lock:
            self.made[key(text)] = np.asarray(vector, dtype="<f4").tobytes()

    def take_made(self) -> dict[bytes, bytes]:
        with self._lock:
            made, self.made = self.made, {}
        return made

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db, self._opened = None, False


def save(path: Path, runtime: str, vectors: Mapping[bytes, bytes]) -> None:
    """Add `vectors` to the store at `path` (emptied first if it holds another runtime's)."""
    if not vectors and not path.exists():
        return
    try:
        _save(path, runtime, vectors)
    except sqlite3.DatabaseError:  # not a database, or a damaged one: start again
        path.unlink(missing_ok=True)
        _save(path, runtime, vectors)


def _save(path: Path, runtime: str, vectors: Mapping[bytes, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA page_size = 16384")  # a new file's pages hold ten vectors, not two
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = db.execute("SELECT value FROM meta WHERE key = 'runtime'").fetchone()
        if row is None or row[0] != f"{LAYOUT}/{runtime}":
            db.execute("DROP TABLE IF EXISTS vectors")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('runtime', ?)", (f"{LAYOUT}/{runtime}",))
        db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB)")
        db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", sorted(vectors.items()))
        db.commit()
    finally:
        db.close()
