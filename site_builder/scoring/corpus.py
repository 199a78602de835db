"""Loading a folder of replays for scoring: validate, re-simulate, de-duplicate, cache.

Every replay is checked and re-simulated by the rules engines (runner.rerun.validate); only
the recomputed outcome is used. Identical files count once. A cache keyed by content hash
(and a file index keyed by path, size and modification time) means re-scoring a large corpus
after adding a few replays reads and re-simulates only the new files.
"""

from __future__ import annotations

import gc
import hashlib
import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from stat import S_ISLNK
from typing import Any

import orjson

from runner.replay.format import iter_replay_files
from runner.rerun.validate import Checked, check_bytes, outcome_index
from runner.verify import trace as verify_trace
from site_builder.parallel import in_process, map_on_cores
from site_builder.scoring import SCORER_VERSION, minilm, vectors
from site_builder.scoring.digest import compact, environment
from site_builder.scoring.model import NOT_IDENTITY, AgentInfo, ScoredGame, SeatInfo, agent_key


@dataclass
class Corpus:
    """The valid games of a replay set, and what was set aside and why."""

    games: list[ScoredGame]
    agents: dict[str, AgentInfo]
    invalid_replays: list[dict[str, Any]] = field(default_factory=list)  # {path, problems}
    duplicates: list[dict[str, str]] = field(default_factory=list)       # {path, same_as}
    files: int = 0
    files_read: int = 0  # files whose bytes were read (not answered by the cache index)
    resimulated: int = 0  # replays re-simulated (not answered by the game cache)
    paths: dict[str, str] = field(default_factory=dict)  # game_id -> the file it was read from
    #: game_id -> the owner of its file (`load`'s `owner_of`; empty: everything is the reference's).
    owners: dict[str, str] = field(default_factory=dict)
    #: owner -> its agents as its own games describe them (labels, reported models): a row's label
    #: comes from its owner's games, never from what another source calls it.
    described: dict[str, dict[str, AgentInfo]] = field(default_factory=dict)

    @property
    def replay_set_hash(self) -> str:
        """A hash of the set of distinct valid replays (independent of order and file names)."""
        digest = hashlib.sha256()
        for content_hash in sorted(g.content_hash for g in self.games):
            digest.update(content_hash.encode() + b"\n")
        return digest.hexdigest()


def scored_game(checked: Checked, content_hash: str) -> ScoredGame:
    """Reduce a valid, re-simulated replay to what the metrics read."""
    assert checked.ok and checked.state is not None
    header = checked.header
    assert header is not None
    outcome = checked.state.outcome()
    winners = tuple(outcome["winners"])
    events, probes = [], []
    usage = [{"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0,
              "cache_write_input_tokens": 0, "latency_ms": 0.0, "decisions": 0, "reasked": 0}
             for _ in header["players"]]
    end = outcome_index(checked.records)
    judgements = tuple(
        {"dimension": r.data["dimension"], "judge": agent_key(r.data["judge"]), "round": r.data["round"],
         "score": r.data["score"], "mentions": r.data["mentions"], "highlights": r.data["highlights"],
         "suspects": r.data.get("suspects"), "failure": (r.data.get("failure") or {}).get("reason")}
        for r in checked.records[end + 1:])
    for record in checked.records[1:end]:
        data = record.data
        for call in (data.get("evidence") or {}).get("calls", []):
            seat = data.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(usage):
                u = usage[seat]
                u["calls"] += 1
                u["input_tokens"] += call.get("input_tokens") or 0
                u["output_tokens"] += call.get("output_tokens") or 0
                # Of input_tokens, those read from and written to the provider's prompt cache (cost.py).
                u["cached_input_tokens"] += call.get("cached_input_tokens") or 0
                u["cache_write_input_tokens"] += call.get("cache_write_input_tokens") or 0
                u["latency_ms"] += call.get("latency_ms") or 0
        if data["type"] == "event":
            events.append({k: data[k] for k in ("n", "kind", "phase", "seat", "data", "vis")})
            if data["kind"] in ("action", "forfeit") and isinstance(data["seat"], int) \
                    and 0 <= data["seat"] < len(usage):
                # One decision of that seat; re-asked if any attempt before the last was refused.
                usage[data["seat"]]["decisions"] += 1
                refused = len(data.get("attempts") or ())
                asked = refused + (1 if data["kind"] == "action" else 0)
                usage[data["seat"]]["reasked"] += 1 if asked > 1 else 0
        elif data["answer"] is not None:  # unanswered probes carry calls but no belief
            probes.append({"after": len(events), "seat": data["seat"], "probe": data["probe"],
                           "answer": data["answer"]})
    seats = tuple(SeatInfo(p["seat"], p["name"], p["role"], agent_key(p["agent"]), p["seat"] in winners)
                  for p in header["players"])
    return ScoredGame(
        game_id=header["game_id"], game=header["game"], variant=header["variant"], setup=header["setup"],
        tournament=header["tournament"], created=header["provenance"]["created"],
        content_hash=content_hash, status=outcome["status"], seats=seats, winners=winners,
        result=outcome["result"], events=tuple(events), probes=tuple(probes), usage=tuple(usage),
        judgements=judgements, suite=header.get("suite"), verify=header.get("verify"),
        trace=_candidate_trace(header, checked.records[1:end]),
    )


@dataclass(frozen=True)
class Passed:
    """A replay another check already validated and re-simulated (the submission check's): its game
    as `scored_game` made it and its seats' agents, so that `load` does not check its file again."""

    game: ScoredGame
    agents: tuple[dict[str, Any], ...]

    @classmethod
    def of(cls, checked: Checked, content_hash: str) -> Passed:
        assert checked.header is not None
        return cls(scored_game(checked, content_hash), tuple(p["agent"] for p in checked.header["players"]))


def _candidate_trace(header: Mapping[str, Any], records: Sequence[Any]) -> dict[str, Any] | None:
    """The candidate seat's trace of a suite's or a verification's deal (runner/verify.py), else None."""
    claim = header.get("verify") or header.get("suite")
    if not isinstance(claim, Mapping):
        return None
    return verify_trace((r.data for r in records), claim["seat"])


#: The cache's own layout (tables and entry shape); part of its version with the scorer's.
LAYOUT = "compact-9"  # 9: the verification's deal (header `verify`) and the candidate's trace; 8: cached and cache-written input tokens per seat (cost); 7: the game's suite deal (header `suite`); 6: the placeholders piece (copied free-text moves per seat)


class Cache:
    """A small SQLite cache: file index (path, size, mtime -> hash) and compact games by content hash.

    The cache is an accelerator, never a source of truth: it carries the scorer version and is
    emptied when that changes; a file that is not a readable cache of this shape is replaced; an
    entry whose checksum or JSON does not hold is re-simulated and overwritten.
    """

    def __init__(self, path: Path, scorer: str = SCORER_VERSION):
        self.version = f"{scorer}/{LAYOUT}"  # a cache of another version is emptied on open
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = self._open(path)
        except sqlite3.DatabaseError:  # not a database, or a damaged one: start again
            path.unlink(missing_ok=True)
            self.db = self._open(path)
        self._files: dict[str, tuple[int, int, str]] | None = None

    def _open(self, path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is None or row[0] != self.version:  # another scorer or layout: nothing in it is usable
                db.executescript("DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS replays;")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (self.version,))
            db.executescript(
                "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, hash TEXT);"
                "CREATE TABLE IF NOT EXISTS replays (hash TEXT PRIMARY KEY, checksum TEXT, entry BLOB);")
            db.commit()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def known_hash(self, path: str, size: int, mtime_ns: int) -> str | None:
        if self._files is None:  # one query for the whole index: a large corpus asks once per file
            self._files = {p: (s, m, h) for p, s, m, h in self.db.execute("SELECT * FROM files")}
        known = self._files.get(path)
        return known[2] if known is not None and known[:2] == (size, mtime_ns) else None

    def remember_file(self, path: str, size: int, mtime_ns: int, content_hash: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", (path, size, mtime_ns, content_hash))

    def entries(self, hashes: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The intact entries among `hashes` (a damaged one is left out, to be made again)."""
        wanted = set(hashes)
        found: dict[str, dict[str, Any]] = {}
        for content_hash, checksum, blob in self.db.execute("SELECT hash, checksum, entry FROM replays"):
            if content_hash not in wanted:
                continue
            if hashlib.sha256(blob).hexdigest() != checksum:
                continue
            try:
                found[content_hash] = orjson.loads(blob)
            except orjson.JSONDecodeError:
                continue
        return found

    def store(self, content_hash: str, blob: bytes) -> None:
        self.db.execute("INSERT OR REPLACE INTO replays VALUES (?, ?, ?)",
                        (content_hash, hashlib.sha256(blob).hexdigest(), blob))

    def close(self) -> None:
        self.db.commit()
        self.db.close()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector, and leave what was made out of its later passes: reading
    100,000 records makes millions of small objects (none in a cycle; reference counting still
    frees them), and each automatic pass would walk them all again (half of a warm load's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


#: The owner of the maintainers' games, and of every file no owner is given for: the reference.
REFERENCE = "maintainers"


#: progress(done, total): called as each replay the cache did not hold is re-simulated.
Progress = Callable[[int, int], None]


def load(paths: Iterable[str | os.PathLike[str]], cache_path: Path | None = None, *, derive: bool = True,
         owner_of: Mapping[str, str] | None = None, passed: Iterable[Passed] = (),
         progress: Progress | None = None) -> Corpus:
    """Validate and re-simulate every replay under `paths` (answering from the cache if given).

    `derive=False` (hand-dealt test corpora only) skips the check that each game follows from its
    seed; such results are cached apart from the checked ones. `owner_of` (path -> owner id; a
    path not in it is REFERENCE's) says whose each file is: every agent is then described from
    each owner's games apart (`Corpus.described`), and `Corpus.agents` from the reference's first.
    A file whose bytes are those of a `passed` game is not checked again: its game is taken from
    that check (still counted as re-simulated: the cache did not answer for it).
    `progress`, if given, hears of each re-simulated replay (none when the cache holds them all).
    """
    with _collector_paused():
        return _load(paths, cache_path, derive=derive, owner_of=owner_of or {}, passed=passed, progress=progress)


def _load(paths: Iterable[str | os.PathLike[str]], cache_path: Path | None, *, derive: bool,
          owner_of: Mapping[str, str], passed: Iterable[Passed] = (), progress: Progress | None = None) -> Corpus:
    # Digests depend on the installed neural embedder too (`digest.environment`).
    version = f"{SCORER_VERSION}+{environment()}" + ("" if derive else "+underived")
    cache = Cache(cache_path, version) if cache_path else None
    entries: list[tuple[str, str, dict[str, Any]]] = []  # (path, hash, entry)
    found: list[tuple[str, str]] = []  # (path, content hash)
    hashed: set[str] = set()  # files read to hash them (not answered by the cache index)
    files = files_read = resimulated = 0
    try:
        for path in iter_replay_files(paths):
            files += 1
            name = str(path)
            try:
                stat = os.lstat(name)  # one call: a link's own, a regular file's as stat() gives it
            except OSError as exc:  # gone since the folder was listed
                entries.append((name, f"unreadable:{name}", _unreadable(exc)))
                continue
            if S_ISLNK(stat.st_mode):  # never followed: it could point anywhere (runner/replay/format.py read_file)
                entries.append((name, f"link:{name}", _file_problem("a symbolic link; a replay must be a regular file")))
                continue
            content_hash = cache.known_hash(name, stat.st_size, stat.st_mtime_ns) if cache else None
            if content_hash is None:
                try:
                    content_hash = hashlib.sha256(path.read_bytes()).hexdigest()  # read again if needed
                except OSError as exc:
                    entries.append((name, f"unreadable:{name}", _unreadable(exc)))
                    continue
                hashed.add(name)
                if cache:
                    cache.remember_file(name, stat.st_size, stat.st_mtime_ns, content_hash)
            found.append((name, content_hash))
        cached = cache.entries(h for _, h in found) if cache else {}
        pending = [(name, content_hash) for name, content_hash in found if content_hash not in cached]
        entries += [(name, content_hash, cached[content_hash]) for name, content_hash in found
                    if content_hash in cached]
        resimulated = len(pending)
        files_read = len(hashed | {name for name, _ in pending})
        known = {p.game.content_hash: p for p in passed}
        again = [(name, known[content_hash]) for name, content_hash in pending if content_hash in known]
        names = [name for name, content_hash in pending if content_hash not in known]
        # Sentence vectors of earlier runs, kept beside the cache (`scoring.vectors`): workers read
        # the store and hand back what they embed; it is written here once they are done.
        shelf = vectors.beside(cache_path) if cache_path and pending and minilm.archive() else None
        made: dict[bytes, bytes] = {}
        # A few new games load here, not in a process per core: their statements use the cores.
        threads = (os.cpu_count() or 1) if in_process(len(names)) else 1
        # The games already checked are digested here first, on every core, before any worker starts.
        checked = chain((_digested(game, shelf, os.cpu_count() or 1) for _, game in again),
                        map_on_cores(_check, [(name, derive, shelf, threads) for name in names], batch=BATCH))
        names = [name for name, _ in again] + names
        for done, (name, (content_hash, blob, embedded)) in enumerate(zip(names, checked), 1):
            if progress is not None:
                progress(done, len(names))
            made.update(embedded)
            if content_hash is None:  # the file could not be read this time
                entries.append((name, f"unreadable:{name}", orjson.loads(blob)))
                continue
            if cache:
                cache.store(content_hash, blob)
            # Decoded from the same JSON the cache keeps: a cold and a warm run read identical data.
            entries.append((name, content_hash, orjson.loads(blob)))
        if shelf is not None:
            minilm.use_store(None)  # its read connection closed first: an open read could lock the write out
            vectors.save(shelf, minilm.runtime(), made)
    finally:
        minilm.use_store(None)  # this process may have loaded games itself
        minilm.use_threads(1)
        if cache:
            cache.close()
    return _assemble(entries, files, files_read, resimulated, owner_of)


def full_games(corpus: Corpus, wanted: Callable[[ScoredGame], bool] | None = None,
               progress: Progress | None = None) -> list[ScoredGame]:
    """The corpus's games (those `wanted`, if given) with their events and probes (a loaded game
    keeps only its digest): each file read and re-simulated again. For exports, which write
    per-move data. A file whose bytes are still those `load` checked is not derived from its seed
    again (that check depends on the bytes alone, and they passed it); a file changed since is
    left out."""
    games = [game for game in corpus.games if wanted is None or wanted(game)]
    out = []
    for done, game in enumerate(games, 1):
        path = corpus.paths[game.game_id]
        raw = Path(path).read_bytes()
        content_hash = hashlib.sha256(raw).hexdigest()
        if content_hash == game.content_hash:
            checked = check_bytes(path, raw, derive=False)
            if checked.ok:
                out.append(scored_game(checked, content_hash))
        if progress is not None:
            progress(done, len(games))
    return out


#: Replays checked per batch of work: bounds what waits in memory during a cold run of a large corpus.
BATCH = 512


def _check(job: tuple[str, bool, Path | None, int]) -> tuple[str | None, bytes, dict[bytes, bytes]]:
    """(content hash, cache entry, sentence vectors made) of one replay, read here: the file may
    have changed since it was hashed, so the entry goes with the hash of the very bytes checked
    (None: unreadable). With a store of vectors, statements are looked up there first; new ones
    are embedded on `threads` threads."""
    name, derive, shelf, threads = job
    store = minilm.use_store(shelf)
    minilm.use_threads(threads)
    try:
        raw = Path(name).read_bytes()
    except OSError as exc:
        return None, orjson.dumps(_unreadable(exc)), {}
    content_hash = hashlib.sha256(raw).hexdigest()
    entry = _entry(name, raw, content_hash, derive)
    return content_hash, entry, store.take_made() if store is not None else {}


def _digested(passed: Passed, shelf: Path | None, threads: int) -> tuple[str, bytes, dict[bytes, bytes]]:
    """What `_check` gives for a replay already checked (`Passed`), made from that check."""
    store = minilm.use_store(shelf)
    minilm.use_threads(threads)
    entry = _game_entry(passed.game, passed.agents)
    return passed.game.content_hash, entry, store.take_made() if store is not None else {}


def _unreadable(exc: OSError) -> dict[str, Any]:
    return _file_problem(f"cannot read the file: {exc.strerror or exc}")


def _file_problem(message: str) -> dict[str, Any]:
    """The cache-entry shape of a problem with a whole file (no line, no field)."""
    return {"problems": [{"line": 0, "field": "", "message": message}]}


def _entry(path: str, raw: bytes, content_hash: str, derive: bool = True) -> bytes:
    """What the cache keeps for one replay, as JSON: the compact scored game, or its problems."""
    checked = check_bytes(path, raw, derive=derive)
    if not checked.ok:
        # Problems are stored without the path, which differs between copies of a file.
        return orjson.dumps({"problems": [{"line": p.line, "field": p.field, "message": p.message}
                                          for p in checked.problems]})
    return _game_entry(scored_game(checked, content_hash), [p["agent"] for p in checked.header["players"]])


def _game_entry(game: ScoredGame, agents: Sequence[Mapping[str, Any]]) -> bytes:
    """The cache entry of a valid replay: its compact game and its seats' agents."""
    return orjson.dumps({"game": compact(game).to_json(), "agents": list(agents)})


def _assemble(entries: Sequence[tuple[str, str, dict[str, Any]]], files: int, files_read: int,
              resimulated: int, owner_of: Mapping[str, str]) -> Corpus:
    games: dict[str, ScoredGame] = {}
    first_path: dict[str, str] = {}
    ids: dict[str, str] = {}
    invalid, duplicates = [], []
    seen: dict[str, dict[str, _Described]] = {}  # owner -> agent key -> what its seats said
    for path, content_hash, entry in sorted(entries, key=lambda e: (e[1], e[0])):
        if "problems" in entry:
            invalid.append({"path": path, "problems": [
                f"{path}{':' + str(p['line']) if p['line'] else ''}: {p['field'] + ': ' if p['field'] else ''}"
                f"{p['message']}"
                for p in entry["problems"]]})
            continue
        if content_hash in first_path:
            duplicates.append({"path": path, "same_as": first_path[content_hash]})
            continue
        first_path[content_hash] = path
        game = ScoredGame.from_json(entry["game"])
        if game.game_id in ids:
            invalid.append({"path": path, "problems": [
                f"{path}:1: game_id: game id already used by {ids[game.game_id]} with different content"]})
            continue
        ids[game.game_id] = path
        games[content_hash] = game
        mine = seen.setdefault(owner_of.get(path, REFERENCE), {})
        for seat, description in zip(game.seats, entry["agents"]):
            mine.setdefault(seat.agent, _Described(description)).add(description)
    described = {owner: {key: d.info(key) for key, d in sorted(found.items())} for owner, found in sorted(seen.items())}
    agents: dict[str, AgentInfo] = {}
    for owner in sorted(described, key=lambda o: (o != REFERENCE, o)):  # the reference's description first
        for key, info in described[owner].items():
            agents.setdefault(key, info)
    ordered = sorted(games.values(), key=lambda g: g.game_id)
    invalid.sort(key=lambda i: i["path"])
    duplicates.sort(key=lambda d: d["path"])
    owners = {game_id: owner_of[path] for game_id, path in sorted(ids.items()) if owner_of.get(path, REFERENCE) != REFERENCE}
    return Corpus(ordered, dict(sorted(agents.items())), invalid, duplicates, files, files_read, resimulated,
                  dict(sorted(ids.items())), owners, described if owners else {})


class _Described:
    """What the seats of one agent said about it: its first description, names and reported models."""

    def __init__(self, first: dict[str, Any]):
        self.first = first
        self.names: Counter[str] = Counter()
        self.reported: set[str] = set()  # model ids the APIs answered with (metadata, not identity)

    def add(self, description: dict[str, Any]) -> None:
        self.names[description.get("name", "")] += 1
        if isinstance(description.get("model_reported"), str):
            self.reported.add(description["model_reported"])

    def label(self) -> str:
        """The most used display name (ties: alphabetical), independent of file order."""
        return min(self.names, key=lambda name: (-self.names[name], name))

    def info(self, key: str) -> AgentInfo:
        return AgentInfo(key, self.label(), {k: v for k, v in self.first.items() if k not in NOT_IDENTITY},
                         tuple(sorted(self.reported)))
