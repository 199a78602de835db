"""Writing the viewer's data into a built site: every replay's lines packed into shards, and the list.

Each game's lines are made on every core (site_builder/parallel.py); with the last build's shards
and manifest, an unchanged shard is kept as it was and an unchanged game's lines are copied.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_builder.parallel import map_on_cores
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.model import ScoredGame
from site_builder.viewer.data import DATA_VERSION, read_records, replay_data
from site_builder.viewer.files import CALLS_DIR, DATA_DIR, LIST_DIR, to_json, write_json
from site_builder.viewer.listing import replay_index, write_list
from site_builder.viewer.shards import MANIFEST, SHARD_SUFFIX, bucket_count, pack, shard_hash, shard_name, unpack

#: At most this many games per shard on average (the bucket count is the smallest power of two
#: that keeps to it): packed, a game's data is ~0.3 KB and a model game's exchanges ~0.8 KB
#: compressed, so shards stay near 10 KB, well under the transfer a visitor should wait for.
GAMES_PER_DATA_SHARD = 32
GAMES_PER_CALLS_SHARD = 16


@dataclass
class DataWritten:
    """What `write_data` did: files in the site's replay folders, how many it (re)wrote, and how
    many games it made data for (the others were taken from the last build's shards)."""

    files: int
    written: int
    rendered: int = 0


@dataclass
class _Entry:
    """A game to be packed: what it is made of, and whether the last build's lines may be reused."""

    game: ScoredGame
    path: str
    source: Mapping[str, Any] | None
    key: str
    hash: int
    reuse: bool
    old_calls: bool


def write_data(corpus: Corpus, site_dir: str | os.PathLike[str],
               sources: Mapping[str, Mapping[str, Any]] | None = None, *,
               previous: Path | None = None, manifest: Path | None = None,
               progress: Callable[[int, int], None] | None = None) -> DataWritten:
    """Write the viewer data of every valid replay of `corpus` into the built site.

    Writes the data shards under `replays/data/` with their manifest, the exchange shards under
    `replays/calls/`, and the list's index and shards under `replays/list/`. With `previous`
    (the data and calls folders of the last build, moved aside) and `manifest` (what each game's
    lines were made from, and the bucket counts), a shard whose games are all unchanged is kept
    as it was, and an unchanged game's lines are copied from the old shards instead of made again.
    `progress(done, total)` hears of the games of the shards written, as each job of them is done.
    """
    site = Path(site_dir)
    for folder in (DATA_DIR, CALLS_DIR, LIST_DIR):
        shutil.rmtree(site / folder, ignore_errors=True)
        (site / folder).mkdir(parents=True)
    old = _read_manifest(manifest, previous) if previous is not None else {}
    old_games: dict[str, dict[str, Any]] = old.get("games", {})
    labels = {key: info.label for key, info in corpus.agents.items()}
    entries: list[_Entry] = []
    for game in corpus.games:
        source = sources.get(game.game_id) if sources else None
        key = _data_key(game, labels, source)
        was = old_games.get(game.game_id)
        reuse = was is not None and was["key"] == key
        entries.append(_Entry(game, corpus.paths[game.game_id], source, key, shard_hash(game.game_id), reuse,
                              bool(was and was["calls"])))
    data_buckets = bucket_count(len(entries), GAMES_PER_DATA_SHARD)
    calls_buckets = bucket_count(sum(_plays_a_model(e.game) for e in entries), GAMES_PER_CALLS_SHARD)
    kept = _unchanged_shards(entries, old, old_games, data_buckets, calls_buckets, previous)
    # A job is the coarser of the two bucketings: every game of a calls shard and of a data shard
    # is in the same job (the counts are powers of two), so workers never share a shard.
    jobs_count = min(data_buckets, calls_buckets)
    jobs: dict[int, list[_Entry]] = {}
    for entry in entries:
        jobs.setdefault(entry.hash % jobs_count, []).append(entry)
    todo = []
    for job, members in sorted(jobs.items()):
        shards = {(DATA_DIR, e.hash % data_buckets) for e in members} | \
                 {(CALLS_DIR, e.hash % calls_buckets) for e in members}
        if not shards <= kept:
            todo.append(_Job(members, {s for s in shards if s not in kept}, data_buckets, calls_buckets,
                             old.get("data"), old.get("calls"), str(previous) if previous else None,
                             {s.agent: labels.get(s.agent, s.agent) for e in members for s in e.game.seats},
                             str(site)))
    calls_of: dict[str, bool] = {e.game.game_id: e.old_calls for e in entries}
    written = rendered = packed = 0
    to_pack = sum(len(job.entries) for job in todo)
    for job, done in zip(todo, map_on_cores(_pack_job, todo, chunksize=4)):
        calls_of.update(done.calls)
        written += done.written
        rendered += done.rendered
        packed += len(job.entries)
        if progress is not None:
            progress(packed, to_pack)
    moved = 0
    for folder, bucket in sorted(kept):  # kept shards move over once no job reads the old ones
        old_file = previous / Path(folder).name / shard_name(bucket) if previous else None
        if old_file is not None and old_file.is_file():  # (a kept calls bucket may have no games with calls)
            old_file.rename(site / folder / shard_name(bucket))
            moved += 1
    written += write_json(site / MANIFEST, {"v": DATA_VERSION, "hash": "fnv1a32-fmix32",
                                             "data": data_buckets, "calls": calls_buckets})
    written += write_list(site, replay_index(corpus.games, corpus.agents))
    if manifest is not None:
        manifest.parent.mkdir(parents=True, exist_ok=True)
        games = {e.game.game_id: {"key": e.key, "calls": calls_of[e.game.game_id]} for e in entries}
        manifest.write_text(json.dumps({"version": DATA_VERSION, "shards": shard_files(site / DATA_DIR, site / CALLS_DIR),
                                        "data": data_buckets, "calls": calls_buckets, "games": games},
                                       sort_keys=True), encoding="utf-8")
    return DataWritten(files=moved + written, written=written, rendered=rendered)


def _plays_a_model(game: ScoredGame) -> bool:
    """Whether a game has model exchanges (its seats' usage counts calls): sizes the calls buckets."""
    return any((usage.get("calls") or 0) > 0 for usage in game.usage)


def _unchanged_shards(entries: Sequence[_Entry], old: Mapping[str, Any], old_games: Mapping[str, Any],
                      data_buckets: int, calls_buckets: int, previous: Path | None) -> set[tuple[str, int]]:
    """The shards of the last build that can stay as they are: same bucket count, the very same
    games, none changed, and the file there."""
    if previous is None:
        return set()
    kept: set[tuple[str, int]] = set()
    for folder, buckets, has in ((DATA_DIR, data_buckets, lambda g: True),
                                 (CALLS_DIR, calls_buckets, lambda g: bool(old_games[g]["calls"]))):
        if old.get("data" if folder == DATA_DIR else "calls") != buckets:
            continue
        now: dict[int, set[str]] = {}
        changed: set[int] = set()
        for e in entries:
            bucket = e.hash % buckets
            now.setdefault(bucket, set()).add(e.game.game_id)
            if not e.reuse:
                changed.add(bucket)
        before: dict[int, set[str]] = {}
        for game_id in old_games:
            before.setdefault(shard_hash(game_id) % buckets, set()).add(game_id)
        for bucket, ids in now.items():
            if bucket in changed or before.get(bucket) != ids:
                continue
            if any(has(g) for g in ids):
                if (previous / Path(folder).name / shard_name(bucket)).is_file():
                    kept.add((folder, bucket))
            else:
                kept.add((folder, bucket))  # no file then, none now
    return kept


@dataclass
class _Job:
    """The games of one job, the shards of theirs to write, and where the last build's shards are."""

    entries: list[_Entry]
    shards: set[tuple[str, int]]
    data_buckets: int
    calls_buckets: int
    old_data_buckets: int | None
    old_calls_buckets: int | None
    previous: str | None
    labels: dict[str, str]
    site: str


@dataclass
class _JobDone:
    calls: dict[str, bool]
    written: int
    rendered: int


def _pack_job(job: _Job) -> _JobDone:
    """Make (or copy from the old shards) every line of the job's games and write its shards."""
    old_shards: dict[tuple[str, int], dict[str, str]] = {}

    def old_line(folder: str, buckets: int | None, entry: _Entry) -> str | None:
        if buckets is None or job.previous is None:
            return None
        where = (folder, entry.hash % buckets)
        if where not in old_shards:
            path = Path(job.previous) / Path(folder).name / shard_name(where[1])
            try:
                old_shards[where] = unpack(path.read_bytes())
            except (OSError, ValueError, EOFError):
                old_shards[where] = {}
        return old_shards[where].get(entry.game.game_id)

    lines: dict[tuple[str, int], dict[str, str]] = {shard: {} for shard in job.shards}
    calls_of: dict[str, bool] = {}
    rendered = 0
    for entry in job.entries:
        game_id = entry.game.game_id
        data_line = old_line(DATA_DIR, job.old_data_buckets, entry) if entry.reuse else None
        calls_line = old_line(CALLS_DIR, job.old_calls_buckets, entry) if entry.reuse and entry.old_calls else None
        if data_line is None or (entry.old_calls and calls_line is None):
            data_line, calls_line = _game_lines(entry, job.labels)
            rendered += 1
        calls_of[game_id] = calls_line is not None
        for folder, buckets, line in ((DATA_DIR, job.data_buckets, data_line),
                                      (CALLS_DIR, job.calls_buckets, calls_line)):
            shard = (folder, entry.hash % buckets)
            if line is not None and shard in lines:
                lines[shard][game_id] = line
    written = 0
    for (folder, bucket), members in sorted(lines.items()):
        if members:
            (Path(job.site) / folder / shard_name(bucket)).write_bytes(pack(members))
            written += 1
    return _JobDone(calls_of, written, rendered)


def _game_lines(entry: _Entry, labels: Mapping[str, str]) -> tuple[str, str | None]:
    """A game's viewer data and its exchanges (None if it has none) as JSON text."""
    data, calls = replay_data(entry.game, read_records(entry.path, entry.game.content_hash), labels)
    if entry.source is not None:
        data["source"] = entry.source
    return to_json(data), (to_json(calls) if calls is not None else None)


def _data_key(game: ScoredGame, labels: Mapping[str, str], source: Mapping[str, Any] | None) -> str:
    """What a replay's data is made of: the replay, its agents' labels, its source, the format."""
    made_of = [DATA_VERSION, game.content_hash, [labels.get(s.agent, s.agent) for s in game.seats], source]
    return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode()).hexdigest()


def shard_files(data: Path, calls: Path) -> str:
    """Which shard files these folders hold: a digest of each one's name, size and modification
    time. A shard kept by a rename or a hard link keeps all three; one written again does not."""
    digest = hashlib.sha256()
    for name, folder in (("data", data), ("calls", calls)):
        for path in sorted(folder.glob(f"*{SHARD_SUFFIX}")) if folder.is_dir() else []:
            stat = path.stat()
            digest.update(f"{name}/{path.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _read_manifest(path: Path | None, previous: Path) -> dict[str, Any]:
    """The last build's bucket counts and game keys, if they describe the very shards set aside in
    `previous` (whichever folder that build wrote them to: `gamenight serve` builds beside the site
    it serves); none, so everything is made again, if unreadable, of another format or written
    with other shards (another site folder's, or this one's rebuilt without the manifest)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path is not None else {}
        usable = data.get("version") == DATA_VERSION \
            and data.get("shards") == shard_files(previous / Path(DATA_DIR).name, previous / Path(CALLS_DIR).name) \
            and isinstance(data.get("games"), dict) and isinstance(data.get("data"), int) \
            and isinstance(data.get("calls"), int)
        return data if usable else {}
    except (OSError, ValueError, AttributeError):
        return {}
