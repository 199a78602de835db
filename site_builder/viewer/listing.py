"""The replay list's files: every game a row, in streams sorted newest first and cut into shards.

The list page shows 50 rows at a time, so it must not fetch every row of a 100,000-game board.
Its rows are kept in *streams*, each sorted newest first and cut into gzip shards of SHARD_ROWS
rows: "all" (every game), "g-<game>" (one game's) and "a<i>" (the games an agent label played,
i the label's place in the index's `labels`). A filter reads the one stream that holds all its
rows (the agent's if one is chosen, else the game's, else "all"); the rest of the filter (the
game, the outcome) is applied to the rows read. For that, each stream has a small file of
counts: per shard, how many of its rows fall under each (game, outcome) key. From them the
page works out the number of matching rows and which shards hold the rows of the page shown,
and fetches only those (one shard for a first screen).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import games as registry
from site_builder.scoring import digest
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.viewer.data import outcome_summary
from site_builder.viewer.files import GZIP_LEVEL, LIST_DIR, to_json, write_json

#: Version of the list's files (independent of the viewer data's DATA_VERSION).
LIST_VERSION = 3
#: Rows per list shard: 500 rows are ~6 KB over the wire, ten pages of the list.
SHARD_ROWS = 500
#: The suffix of a list shard: gzip-compressed JSON, read with the browser's DecompressionStream.
LIST_SHARD_SUFFIX = ".json.gz"


@dataclass(frozen=True)
class ListedGame:
    """One row of the replay list, with the agents as keys (labels come from the agents table)."""

    game_id: str
    game: str
    created: str
    agents: tuple[str, ...]
    roles: tuple[str, ...]
    winners: tuple[int, ...]
    outcome: str
    valid: bool
    moves: int | None

    @classmethod
    def of(cls, game: ScoredGame) -> ListedGame:
        return cls(game.game_id, game.game, game.created, tuple(s.agent for s in game.seats),
                   tuple(s.role for s in game.seats), tuple(game.winners), outcome_summary(game), game.valid,
                   digest.moves(game))


def replay_index(played: Sequence[ScoredGame], agents: Mapping[str, AgentInfo]) -> dict[str, Any]:
    """The list page's files, by name: `index.json`, each stream's counts and its shards."""
    return list_files([ListedGame.of(g) for g in played], {key: info.label for key, info in agents.items()})


def list_files(listed: Sequence[ListedGame], labels: Mapping[str, str]) -> dict[str, Any]:
    """The list page's files, by name (a `.json.gz` shard's value is gzipped when written).

    `index.json`: the games (title, count, outcomes, roles, agents seen), the agents' labels, the
    distinct labels (their streams) and the (game, outcome) keys. A row is [game id, date, agent
    per seat (index into `agents`), winning seats, outcome (index into its game's `outcomes`),
    invalid (0 or 1), role per seat (index into its game's `roles`), moves, game (index into
    `games`)]. `<stream>.json`: {"keys": [the key indices present in the stream], "shards": [per
    shard, its rows under each of those keys, in that order]}.
    """
    keys = sorted(labels, key=lambda k: (labels[k], k))
    agent_index = {key: i for i, key in enumerate(keys)}
    distinct = sorted({labels[k] for k in keys})
    label_index = {label: i for i, label in enumerate(distinct)}
    order = {name: i for i, name in enumerate(registry.available())}
    names = sorted({g.game for g in listed}, key=lambda g: (order.get(g, len(order)), g))
    games = []
    for name in names:
        mine = [g for g in listed if g.game == name]
        roles = list(registry.get(name).roles)
        roles += sorted({r for g in mine for r in g.roles} - set(roles))
        games.append({"game": name, "title": registry.get(name).title, "count": len(mine),
                      "outcomes": sorted({g.outcome for g in mine}), "roles": roles,
                      "agents": sorted({agent_index[a] for g in mine for a in g.agents})})
    game_index = {g["game"]: i for i, g in enumerate(games)}
    outcome_keys = [(i, o) for i, g in enumerate(games) for o in range(len(g["outcomes"]))]
    key_of = {k: n for n, k in enumerate(outcome_keys)}
    newest_first = sorted(sorted(listed, key=lambda g: g.game_id), key=lambda g: g.created, reverse=True)
    streams: dict[str, list[tuple[list[Any], int]]] = {"all": []}
    for g in newest_first:
        info = games[game_index[g.game]]
        row = [g.game_id, g.created[:10], [agent_index[a] for a in g.agents], list(g.winners),
               info["outcomes"].index(g.outcome), 0 if g.valid else 1, [info["roles"].index(r) for r in g.roles],
               g.moves, game_index[g.game]]
        key = key_of[(game_index[g.game], row[4])]
        streams["all"].append((row, key))
        streams.setdefault(f"g-{g.game}", []).append((row, key))
        for label in sorted({labels[a] for a in g.agents}):
            streams.setdefault(f"a{label_index[label]}", []).append((row, key))
    files: dict[str, Any] = {}
    for stream, rows in streams.items():
        present = sorted({key for _, key in rows})  # the keys of this stream, in the counts' order
        column = {key: i for i, key in enumerate(present)}
        counts = []
        for start in range(0, len(rows), SHARD_ROWS):
            chunk = rows[start:start + SHARD_ROWS]
            tally = [0] * len(present)
            for _, key in chunk:
                tally[column[key]] += 1
            counts.append(tally)
            files[f"{stream}-{start // SHARD_ROWS}{LIST_SHARD_SUFFIX}"] = {"v": LIST_VERSION,
                                                                          "rows": [row for row, _ in chunk]}
        files[f"{stream}.json"] = {"v": LIST_VERSION, "keys": present, "shards": counts}
    files["index.json"] = {"v": LIST_VERSION, "total": len(listed), "rows": SHARD_ROWS,
                           "agents": [labels[k] for k in keys], "labels": distinct, "games": games,
                           "keys": [list(k) for k in outcome_keys]}
    return files


def write_list(site_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> int:
    """Write the list's files (list_files) into the site's list folder; the number written."""
    folder = Path(site_dir) / LIST_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if name.endswith(LIST_SHARD_SUFFIX):
            raw = gzip.compress(to_json(content).encode("utf-8"), compresslevel=GZIP_LEVEL, mtime=0)
            (folder / name).write_bytes(raw)
        else:
            write_json(folder / name, content)
    return len(files)
