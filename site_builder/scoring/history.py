"""The board over time: each ranked row's score and each agent's rating as the games were merged.

A game's *merge* is the commit that added its file on the revision's first-parent history
(site_builder/sources.py). The history's points are the distinct merges, oldest first (by the
commit's date in UTC, then its id); at each point the board is scored again from the games merged
up to then, with the owners kept apart as on the board itself (scoring/board.py): the ranked rows
with their intervals (cheap: a row's own deals), the rating tables as point estimates only (their
bootstrap is the expensive part of scoring, and a line over time needs none). A game with no merge
(a file not committed, or a build outside a git checkout) is in no point: it is counted, not drawn.

Each point's scoring is kept between builds (`kept`, a section store beside the scoring cache,
scoring/sections.py), keyed by the games merged up to it, their owners, the owners' labels, the
seed and the code: the corpus only grows, so a build after a merge scores its new point alone
instead of every point again (each point is a whole board's fit). The store may come from an
earlier run of the pages workflow (its cache, .github/workflows/pages.yml): a point read back must
name the key it is read under and its number of games, or it is scored again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from site_builder.scoring import board as boards
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.sections import Sections


@dataclass(frozen=True)
class Merge:
    """The commit that brought a game in: its id, its ISO 8601 date, and who it came from (a label)."""

    commit: str
    date: str
    label: str = ""

    @property
    def instant(self) -> datetime:
        """The date as an aware UTC time (ISO strings with other offsets do not sort as text)."""
        moment = datetime.fromisoformat(self.date)
        return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def store_beside(cache: Path) -> Path:
    """Where the history's points are kept for a scoring cache: a file of their own next to it (a
    section store drops what its scoring did not use, so the history cannot share the board's)."""
    return cache.with_name(cache.stem + "-history.sqlite")


def points(merged: Mapping[str, Merge | None]) -> list[Merge]:
    """The distinct merges of the games, oldest first (date in UTC, then commit id)."""
    found = {m.commit: m for m in merged.values() if m is not None}
    return sorted(found.values(), key=lambda m: (m.instant, m.commit))


def _up_to(corpus: Corpus, games: Sequence[Any]) -> Corpus:
    """The corpus cut down to `games`, owners and described agents kept (board.parts reads them)."""
    ids = {g.game_id for g in games}
    return dataclasses.replace(corpus, games=list(games), paths={k: v for k, v in corpus.paths.items() if k in ids},
                               owners={k: v for k, v in corpus.owners.items() if k in ids},
                               invalid_replays=[], duplicates=[], files=len(games))


def board_over_time(corpus: Corpus, merged: Mapping[str, Merge | None], labels: Mapping[str, str] | None = None,
                    *, seed: int, kept: Path | None = None,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The history of the board (results' "history" section): the points, and per ranked row and
    per agent of each rating table a value at every point (None where it had no place yet).

    `merged` gives each game id its merge (None or absent: no git source); `labels` names the
    owners, as for `board.assemble_board`; `kept`: the store of earlier builds' points (None:
    every point scored); `progress(done, total)` hears of each point as it is made."""
    order = points(merged)
    at = {m.commit: i for i, m in enumerate(order)}
    sourced = [g for g in corpus.games if merged.get(g.game_id) is not None]
    by_point: list[list[Any]] = [[] for _ in order]
    for game in sourced:
        by_point[at[merged[game.game_id].commit]].append(game)  # type: ignore[union-attr]
    out_points: list[dict[str, Any]] = []
    ranked: dict[str, dict[str, Any]] = {}
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    games: list[Any] = []
    store = Sections(kept, corpus.agents, sourced, seed)
    owned = hashlib.sha256(json.dumps(sorted((labels or {}).items())).encode())  # who owns each game, so far
    try:
        for i, (merge, added) in enumerate(zip(order, by_point)):
            games = games + added  # a new list per point: the store knows a list's digest by the list
            for game in added:
                owned.update(f"{game.game_id}\0{corpus.owners.get(game.game_id, '')}\n".encode())
            name = f"history point {owned.hexdigest()}"
            point = store.section(name, games, lambda: _point(_up_to(corpus, games), labels, seed,
                                                              key=store.key(name, games) if store.db else None),
                                  check=_holds(len(games)))
            out_points.append({"commit": merge.commit, "date": merge.date, "label": merge.label,
                               "added": len(added), "games": len(games)})
            for row in point["ranked"]:
                line = ranked.setdefault(row["row"], {"row": row["row"], "label": row["label"], "suite": row["suite"],
                                                      "owner": row["owner"], "agents": row["agents"],
                                                      "values": [None] * len(order)})
                line["values"][i] = row["value"]
            for name, entries in point["ratings"].items():
                for entry in entries:
                    line = tables.setdefault(name, {}).setdefault(entry["agent"], {
                        "agent": entry["agent"], "label": entry["label"], "owner": entry["owner"],
                        "values": [None] * len(order)})
                    line["values"][i] = entry["value"]
            if progress is not None:
                progress(i + 1, len(order))
    finally:
        store.close()
    return {
        "points": out_points,
        "unsourced": len(corpus.games) - len(sourced),
        "ranked": sorted(ranked.values(), key=_latest_first("score")),
        "ratings": {name: sorted(rows.values(), key=_latest_first("rating")) for name, rows in sorted(tables.items())},
        "estimates": "ranked rows: score with its 95% interval; ratings: point estimates (no interval)",
    }


def _holds(games: int) -> Callable[[str, Any], bool]:
    """Whether a point read back from the store is the one its key names: made under that key, of
    that many games (a point copied under another key, or of an older layout, is made again)."""
    return lambda key, point: isinstance(point, dict) and point.get("key") == key and point.get("games") == games


def _point(now: Corpus, labels: Mapping[str, str] | None, seed: int, key: str | None = None) -> dict[str, Any]:
    """One point of the history: the ranked rows with a score and every rating table's agents, as
    the board scores the games merged up to it (ratings as point estimates); `key`, the store's key
    it is kept under, and its number of games, held in it so that a read-back point is checked."""
    ranked = [{"row": row["row"], "label": row["label"], "suite": row["suite"], "owner": row["owner"],
               "agents": row["agents"], "value": {"score": row["score"]["value"], "ci": row["score"]["ci"],
                                                 "n": row["score"]["n"], "place": row["place"]}}
              for row in boards.ranked_board(boards.parts(now, labels), seed=seed)["rows"]
              if row.get("score") is not None]
    rated = boards.rating_board(now, labels, seed=seed, resamples=0)["ratings"]
    return {"key": key, "games": len(now.games), "ranked": ranked,
            "ratings": {name: [{"agent": e["agent"], "label": e["label"], "owner": e.get("owner"),
                                "value": {"rating": e["rating"], "games": e["games"]}} for e in table["agents"]]
                        for name, table in {"overall": rated["overall"], **rated["by_game"]}.items()}}


def _latest_first(field: str) -> Any:
    """Lines ordered as the board stands at their last point: highest value first, then by name."""
    def key(line: Mapping[str, Any]) -> tuple[int, float, str]:
        last = next((v for v in reversed(line["values"]) if v is not None), None)
        return (0, -last[field], line.get("row") or line["agent"]) if last else (1, 0.0, line.get("row") or line["agent"])
    return key
