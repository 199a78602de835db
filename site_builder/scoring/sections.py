"""Results sections kept between scorings, each keyed by exactly what it was computed from.

A results section (a game's leaderboard, the Werewolf metrics, the Chameleon curves...) is a
pure function of the games it is given, the agents' descriptions and the seed. Re-scoring a
large corpus after a pull request adds a few games changes the sections those games enter and
leaves the others as they were: a section whose inputs are unchanged is read back instead of
recomputed (the bootstrap intervals over 100,000 games are most of the aggregation's time).

The key is a hash of the section's name, the scorer version, the code of the rules and the
scorer, the seed, in the given order each game's content hash (which fixes all the game's
data, its id too) and seat agents (which the owner separation may rename), and the label and
description of every agent seated in those games (a section reads no other agent). Every section goes
through JSON on both paths, so a kept section and a fresh one are the same Python value and a
warm score writes a cold score's results byte for byte. Sections not used by a scoring are
dropped at its end, so the store holds one corpus' worth.

A derived section (`Sections.derived`) is keyed by a small summary of its games instead (a
rating fit by its counted patterns): games that leave the summary as it was reuse it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from site_builder.scoring import SCORER_VERSION
from site_builder.scoring.model import AgentInfo, ScoredGame

#: The layout of a stored section; part of every key with the scorer version.
LAYOUT = "sections-3"  # 3: keys hash the games' digest; 2: inner sections' keys stored with each
#: The folders whose files a section's value depends on (besides its games).
RUNNER = Path(__file__).resolve().parents[2] / "runner"
CODE = (RUNNER, Path(__file__).resolve().parent)


#: How a metric asks for a part of its result: (name, the games it is computed from, how) ->
#: the value, computed or kept from an earlier scoring (`Sections.section`).
Keep = Callable[[str, Sequence[ScoredGame], Callable[[], Any]], Any]


def compute(name: str, games: Sequence[ScoredGame], make: Callable[[], Any]) -> Any:
    """The `Keep` that keeps nothing."""
    return make()


#: How a metric asks for a part computed from a small summary of its games (tallies) instead of
#: the games: (name, the summary as JSON-able data, the agents the part shows, how) -> the value.
#: Games that leave the summary as it was (self-play, for a rating fit) then reuse the part.
KeepDerived = Callable[[str, Any, Iterable[str], Callable[[], Any]], Any]


def compute_derived(name: str, inputs: Any, agents: Iterable[str], make: Callable[[], Any]) -> Any:
    """The `KeepDerived` that keeps nothing."""
    return make()


def beside(cache: Path) -> Path:
    """Where the sections go for a scoring cache: a file next to it (same lifetime, own layout)."""
    return cache.with_name(cache.stem + "-sections.sqlite")


def _agent_text(key: str, info: AgentInfo) -> str:
    return json.dumps([key, info.label, info.kind, info.provider, info.design, dict(info.description),
                       list(info.reported)], sort_keys=True, ensure_ascii=False, default=str)


@cache
def folders_digest(roots: tuple[Path, ...]) -> bytes:
    """A hash of every file under `roots` (names and bytes; compiled files left out)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def code_digest() -> bytes:
    """A hash of the code and data sections are computed with (the rules, content and scorer):
    a changed metric keeps no section of the code before it, even with the same scorer version."""
    return folders_digest(CODE)


class Sections:
    """Compute or read back results sections; `path` None keeps nothing (every section computed)."""

    def __init__(self, path: Path | None, agents: Mapping[str, AgentInfo], games: Sequence[ScoredGame], seed: int):
        self.db: sqlite3.Connection | None = None
        self.used: set[str] = set()
        self._making: list[set[str]] = []  # per section being computed: the keys of its inner sections
        self.kept = 0
        self.computed = 0
        self.refused = 0  # values read back that their check refused (made again)
        self._shared = False  # a part of another store (`part`): that store closes the file
        self._prefix = hashlib.sha256(f"{SCORER_VERSION}\0{LAYOUT}\0{seed}\0".encode() + code_digest()).digest()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self.db = self._open(path)
            except sqlite3.DatabaseError:  # a damaged store is an accelerator lost, nothing more
                path.unlink(missing_ok=True)
                self.db = self._open(path)
        self._index(agents, games)

    def _index(self, agents: Mapping[str, AgentInfo], games: Sequence[ScoredGame]) -> None:
        """What keys are made of: per agent a short stable id for the games' tokens, and every
        field a section may show or group by (a section's key holds those of the agents seated in
        its games, so a new agent elsewhere, or a new name of this one, changes only the sections
        it enters); per game its content hash (which fixes all its data, its id too) and its
        seats' agents, made once per scoring (a game enters several sections)."""
        short = {key: hashlib.sha256(key.encode()).hexdigest()[:16] for key in agents}
        self._described = {key: _agent_text(key, info) for key, info in agents.items()}
        # Keyed by id(game): the games outlive the store.
        self._tokens: dict[int, bytes] = {}
        self._digests: dict[int, tuple[Sequence[ScoredGame], bytes]] = {}
        self._growing: tuple[Sequence[ScoredGame], Any, set[str]] | None = None  # `extended`'s last list
        self._seated: dict[int, tuple[str, ...]] = {}
        if self.db is not None:
            for g in games:
                seated = tuple(s.agent for s in g.seats)
                self._seated[id(g)] = seated
                self._tokens[id(g)] = f"{g.content_hash}:{','.join(short.get(k, k) for k in seated)}\n".encode()

    def part(self, agents: Mapping[str, AgentInfo], games: Sequence[ScoredGame]) -> Sections:
        """A store for another set of games and agents (one contributor's, `scoring.board`) in the
        same file: the sections it uses are kept when this store closes, the others dropped."""
        child = Sections(None, agents, (), 0)
        child.db, child.used, child._prefix, child._shared = self.db, self.used, self._prefix, True
        child._index(agents, games)
        return child

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path)
        columns = [row[1] for row in db.execute("PRAGMA table_info(sections)")]
        if columns and columns != ["key", "value", "inner"]:  # a store of an older layout: its keys differ anyway
            db.execute("DROP TABLE sections")
        db.execute("CREATE TABLE IF NOT EXISTS sections (key TEXT PRIMARY KEY, value TEXT, inner TEXT)")
        return db

    def key(self, name: str, games: Sequence[ScoredGame]) -> str:
        """The hash of everything section `name` over `games` is computed from."""
        return hashlib.sha256(self._prefix + name.encode() + b"\0" + self._games_digest(games)).hexdigest()

    def _games_digest(self, games: Sequence[ScoredGame]) -> bytes:
        """A hash of the games (in order) and of their seated agents' descriptions; made once per
        list, as one list (a game's games, all games) enters several sections."""
        held = self._digests.get(id(games))
        if held is not None and held[0] is games:
            return held[1]
        digest = hashlib.sha256()
        ids = list(map(id, games))
        digest.update(b"".join(map(self._tokens.__getitem__, ids)))
        for key in sorted(set().union(*map(self._seated.__getitem__, ids))):
            digest.update(b"\0" + self._described.get(key, key).encode())
        # The list is held with its digest: its id is not reused while the store lives.
        self._digests[id(games)] = (games, digest.digest())
        return digest.digest()

    def extended(self, before: Sequence[ScoredGame], games: Sequence[ScoredGame]) -> None:
        """Make the digest of `games`, which is `before` with games added at its end, from the
        running hash of `before` and the added games alone (the history's lists of the games merged
        so far each extend the one before: their digests cost the games, not merges x games)."""
        if self.db is None:
            return
        held = self._growing
        if held is None or held[0] is not before:
            held = (before, hashlib.sha256(), set())
            self._grow(held, before)
        grown = (games, held[1].copy(), set(held[2]))
        self._grow(grown, games[len(before):])
        digest = grown[1].copy()
        for key in sorted(grown[2]):
            digest.update(b"\0" + self._described.get(key, key).encode())
        self._growing = grown
        self._digests[id(games)] = (games, digest.digest())

    def _grow(self, held: tuple[Sequence[ScoredGame], Any, set[str]], added: Sequence[ScoredGame]) -> None:
        ids = list(map(id, added))
        held[1].update(b"".join(map(self._tokens.__getitem__, ids)))
        held[2].update(*map(self._seated.__getitem__, ids))

    def section(self, name: str, games: Sequence[ScoredGame], compute: Callable[[], Any],
                check: Callable[[str, Any], bool] | None = None) -> Any:
        """Section `name` over `games`: read back if computed before from the same inputs.

        A section may be made of smaller ones (`Keep`): those are stored with it, so that while
        it is read back they stay in the store for the day its games change. `check(key, value)`:
        whether a value read back is the one this key should hold (False: it is computed again
        and stored over it), for a store kept where someone else might have written it.
        """
        return self._made(None if self.db is None else self.key(name, games), compute, check)

    def derived(self, name: str, inputs: Any, agents: Iterable[str], compute: Callable[[], Any]) -> Any:
        """Section `name` computed from `inputs` (JSON-able data summarising some games) and the
        descriptions of `agents`: read back if computed before from equal inputs (`KeepDerived`)."""
        return self._made(None if self.db is None else self._derived_key(name, inputs, agents), compute)

    def _derived_key(self, name: str, inputs: Any, agents: Iterable[str]) -> str:
        digest = hashlib.sha256(self._prefix + b"derived\0" + name.encode() + b"\0")
        digest.update(json.dumps(inputs, sort_keys=True, ensure_ascii=False, allow_nan=False).encode())
        for key in sorted(set(agents)):
            digest.update(b"\0" + self._described.get(key, key).encode())
        return digest.hexdigest()

    def _made(self, key: str | None, compute: Callable[[], Any],
              check: Callable[[str, Any], bool] | None = None) -> Any:
        """The value under `key`, read back (when `check` passes it) or computed and stored (None:
        no store, computed)."""
        if self.db is None or key is None:
            self.computed += 1
            return json.loads(json.dumps(compute(), ensure_ascii=False, allow_nan=False))
        row = self.db.execute("SELECT value, inner FROM sections WHERE key = ?", (key,)).fetchone()
        if row is not None:
            try:
                value, inner = json.loads(row[0]), json.loads(row[1])
            except ValueError:
                row = None  # a damaged entry: made again below
            else:
                if check is not None and not check(key, value):
                    self.refused += 1  # not what this key holds: made again below, and stored over it
                    row = None
            if row is not None:
                self.kept += 1
                self._use(key, inner)
                return value
        self._making.append(set())
        try:
            text = json.dumps(compute(), ensure_ascii=False, allow_nan=False)
        finally:
            inner = sorted(self._making.pop())
        self.computed += 1
        self.db.execute("INSERT OR REPLACE INTO sections VALUES (?, ?, ?)", (key, text, json.dumps(inner)))
        self._use(key, inner)
        return json.loads(text)

    def _use(self, key: str, inner: list[str]) -> None:
        """Keep `key` and its inner sections; they are inner sections of the one being made, if any."""
        self.used.add(key)
        self.used.update(inner)
        if self._making:
            self._making[-1].add(key)
            self._making[-1].update(inner)

    def close(self) -> None:
        """Drop the sections this scoring did not use, and save (a `part` leaves that to its store)."""
        if self.db is None or self._shared:
            return
        stale = [k for (k,) in self.db.execute("SELECT key FROM sections") if k not in self.used]
        self.db.executemany("DELETE FROM sections WHERE key = ?", [(k,) for k in stale])
        self.db.commit()
        self.db.close()
        self.db = None
