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

A cold build makes every point, each from the one before (`Running`): the games of a merge are
counted once into per-owner rating tallies (the patterns the fit reads, scoring/ratings.py) and
into their ranked rows; a point refits only the tables whose tallies (or anchors) changed, from
the counts, and remakes only the rows that got games, so its cost is those fits and rows, not a
pass over every game merged so far. It is the board of the games so far, value for value
(`_scored`, from scratch, is the test's oracle and the path when `board.parts` refuses them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from site_builder.scoring import board as boards
from site_builder.scoring import ranked, ratings, verification
from site_builder.scoring.corpus import REFERENCE, Corpus
from site_builder.scoring.model import AgentInfo, ScoredGame
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
    running = Running(corpus, labels, seed)
    try:
        for i, (merge, added) in enumerate(zip(order, by_point)):
            before, games = games, games + added  # a new list per point: the store knows a list's digest by the list
            store.extended(before, games)
            for game in added:
                owned.update(f"{game.game_id}\0{corpus.owners.get(game.game_id, '')}\n".encode())
                running.add(game)
            name = f"history point {owned.hexdigest()}"
            key = store.key(name, games) if store.db else None
            point = store.section(name, games, lambda: _point(running, key) if running.refused is None
                                  else _scored(_up_to(corpus, games), labels, seed, key), check=_holds(len(games)))
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


def _point(running: Running, key: str | None = None) -> dict[str, Any]:
    """One point of the history, made from the running board of the games merged up to it."""
    return _shaped(running.ranked_rows(), running.rated(), running.games, key)


def _scored(now: Corpus, labels: Mapping[str, str] | None, seed: int, key: str | None = None) -> dict[str, Any]:
    """One point scored from scratch, as the board scores the games merged up to it: what `_point`
    must equal (tests/scoring/test_history.py), and the path that raises `board.parts`' refusal."""
    rows = [row for row in boards.ranked_board(boards.parts(now, labels), seed=seed)["rows"]
            if row.get("score") is not None]
    return _shaped(rows, boards.rating_board(now, labels, seed=seed, resamples=0)["ratings"], len(now.games), key)


def _shaped(rows: Sequence[Mapping[str, Any]], rated: Mapping[str, Any], games: int,
            key: str | None) -> dict[str, Any]:
    """One point of the history: the ranked rows with a score and every rating table's agents, as
    the board scores the games merged up to it (ratings as point estimates); `key`, the store's key
    it is kept under, and its number of games, held in it so that a read-back point is checked."""
    listed = [{"row": row["row"], "label": row["label"], "suite": row["suite"], "owner": row["owner"],
               "agents": row["agents"], "value": {"score": row["score"]["value"], "ci": row["score"]["ci"],
                                                 "n": row["score"]["n"], "place": row["place"]}} for row in rows]
    return {"key": key, "games": games, "ranked": listed,
            "ratings": {name: [{"agent": e["agent"], "label": e["label"], "owner": e.get("owner"),
                                "value": {"rating": e["rating"], "games": e["games"]}} for e in table["agents"]]
                        for name, table in {"overall": rated["overall"], **rated["by_game"]}.items()}}


def _ordered(owner: str) -> tuple[bool, str]:
    """Owners as `board.parts` orders them: the reference first, then by id."""
    return owner != REFERENCE, owner


@dataclass
class _Owner:
    """One owner's games so far as its part of the board reads them: per game its rating tally
    (patterns counted, unrateable and forfeited games) and its number of games (which names the
    tally: the games only grow), and the agents seated, described as the owner's games describe them."""

    counts: dict[str, Counter[ratings.Pattern]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    forfeits: Counter[str] = field(default_factory=Counter)
    games: Counter[str] = field(default_factory=Counter)
    agents: dict[str, AgentInfo] = field(default_factory=dict)
    owned: set[str] = field(default_factory=set)

    def add(self, game: ScoredGame) -> None:
        found, skipped, forfeits = ratings.count_patterns([ratings.game_ranking(game)], game.game)
        self.counts.setdefault(game.game, Counter()).update(found)
        self.skipped[game.game] += skipped
        self.forfeits[game.game] += forfeits
        self.games[game.game] += 1

    def tallied(self, names: Sequence[str]) -> tuple[Counter[ratings.Pattern], int, int]:
        """The tallies of `names` added up (`ratings.merge_tallies`)."""
        counts: Counter[ratings.Pattern] = Counter()
        for name in names:
            counts.update(self.counts[name])
        return counts, sum(self.skipped[n] for n in names), sum(self.forfeits[n] for n in names)


@dataclass
class _Row:
    """A tournament's games so far as a ranked row reads them: its suite games by owner, the
    contributors with any game in it (the last names its owner), the maintainers' verifications of
    it, and the row as last made (None: not a row), remade when any of these grows."""

    games: dict[str, list[ScoredGame]] = field(default_factory=dict)
    contributors: set[str] = field(default_factory=set)
    evidence: list[ScoredGame] = field(default_factory=list)
    made: dict[str, Any] | None = None


class Running:
    """The board of the games merged so far, grown game by game: `rated` and `ranked_rows` give
    what `board.rating_board` (point estimates) and `board.ranked_board` give of those games, each
    table refitted only when its tallies or anchors changed and each row remade only when it grew."""

    def __init__(self, corpus: Corpus, labels: Mapping[str, str] | None, seed: int):
        self.corpus, self.labels, self.seed = corpus, labels or {}, seed
        self.games = 0
        self.owners: dict[str, _Owner] = {}
        self.rows: dict[str, _Row] = {}
        self.changed: set[str] = set()  # rows grown since they were last made
        self.any_owner = False  # a game with an entry in `Corpus.owners` (else board.parts keeps the corpus whole)
        self.taken: dict[str, str] = {}  # agent -> the owner whose rows it is (board.parts refuses a second)
        self.refused: str | None = None  # an agent two owners' rows share: `_scored` raises for it
        self.tables: dict[tuple[str, str | None], tuple[Any, dict[str, Any]]] = {}  # -> (its inputs, the table)
        self.stage_deals, self.cycles = ranked.shipped_stage_deals(), ranked.shipped_cycles()

    def add(self, game: ScoredGame) -> None:
        """Count in one more game (merged after every game counted so far)."""
        self.games += 1
        self.any_owner = self.any_owner or game.game_id in self.corpus.owners
        owner = self.corpus.owners.get(game.game_id, REFERENCE)
        if game.verify is not None:  # evidence about a row when the maintainers' (board.parts), else nothing
            if owner == REFERENCE:
                self._row(str(game.verify["row"])).evidence.append(game)
            return
        mine = self.owners.setdefault(owner, _Owner())
        mine.add(game)
        described = self.corpus.described.get(owner, {})
        for key in sorted({s.agent for s in game.seats} - mine.agents.keys()):
            info = mine.agents[key] = described.get(key) or self.corpus.agents[key]
            if info.kind in boards.OWNED_KINDS:
                mine.owned.add(key)
                if self.taken.setdefault(key, owner) != owner:
                    self.refused = key
        row = self._row(game.tournament)
        if owner != REFERENCE:
            row.contributors.add(owner)
        if game.suite:
            row.games.setdefault(owner, []).append(game)

    def _row(self, name: str) -> _Row:
        self.changed.add(name)
        return self.rows.setdefault(name, _Row())

    # -- the rating tables ------------------------------------------------------------------

    def rated(self) -> dict[str, Any]:
        """`board.rating_board(...)["ratings"]` of the games so far, as point estimates: the
        reference's tables, with each contributor's rows fitted against them merged in."""
        reference = self._leaderboard(REFERENCE, None)
        results: dict[str, Any] = {"ratings": {  # lists of their own: merging extends them
            "overall": _listed(reference["overall"]),
            "by_game": {name: _listed(table) for name, table in reference["by_game"].items()}}}
        anchors = boards.anchors_of(results)
        nobody = dataclasses.replace(self.corpus, games=[], agents={}, paths={}, owners={}, described={})
        for owner in sorted((o for o in self.owners if o != REFERENCE), key=_ordered):
            part = boards.Part(owner, self.labels.get(owner, owner), nobody, frozenset(self.owners[owner].owned))
            boards.merge(results, {"ratings": self._leaderboard(owner, anchors)}, part)
        return results["ratings"]

    def _leaderboard(self, owner: str, anchors: Mapping[str, Mapping[str, float]] | None) -> dict[str, Any]:
        """`ratings.leaderboard` of one owner's games (resamples 0), each table kept from the last
        point whose inputs it had."""
        mine = self.owners.get(owner) or _Owner()
        whole = owner == REFERENCE and not self.any_owner  # board.parts keeps the corpus' own agents then
        agents = self.corpus.agents if whole else mine.agents
        competitive = sorted(n for n in mine.games if not ratings.cooperative(n))

        def rated(names: Sequence[str], name: str | None) -> dict[str, Any]:
            held = None if anchors is None else anchors.get(name or "overall", {})
            inputs = (tuple((n, mine.games[n]) for n in names), held, whole)
            kept = self.tables.get((owner, name))
            if kept is None or kept[0] != inputs:
                counts, skipped, forfeits = mine.tallied(names)
                kept = self.tables[(owner, name)] = (inputs, ratings.table(
                    counts, agents, seed=self.seed, game=name, resamples=0, skipped=skipped, forfeits=forfeits,
                    anchors=held))
            return kept[1]

        return {"overall": rated(competitive, None), "by_game": {name: rated([name], name) for name in competitive}}

    # -- the ranked rows ----------------------------------------------------------------------

    def ranked_rows(self) -> list[dict[str, Any]]:
        """The ranked board's scored rows of the games so far, in its order, each with its place."""
        for name in self.changed:
            self.rows[name].made = self._made(name, self.rows[name])
        self.changed.clear()
        rows = verification.order([r.made for r in self.rows.values() if r.made is not None and "score" in r.made])
        placed = ranked.places(rows)
        return [{**row, "place": placed[row["row"]]} for row in rows]

    def _made(self, name: str, row: _Row) -> dict[str, Any] | None:
        """One row as `ranked.board` makes it (before places) from its games alone, or None."""
        games = [g for owner in sorted(row.games, key=_ordered) for g in row.games[owner]]
        found = ranked.outcomes(games)
        if name not in found:
            return None
        last = max(row.contributors, default=None)  # board.ranked_board: the last contributor's part names it
        owners = {} if last is None else {name: {"id": last, "label": self.labels.get(last, last)}}
        status = verification.statuses(games, row.evidence, owners, self.cycles)
        return ranked.rows_of(found, owners, self.stage_deals, self.cycles, status)[0]


def _listed(table: Mapping[str, Any]) -> dict[str, Any]:
    """A table whose list of agents is its own (`board.merge` extends the reference's in place)."""
    return {**table, "agents": list(table["agents"])}


def _latest_first(field: str) -> Any:
    """Lines ordered as the board stands at their last point: highest value first, then by name."""
    def key(line: Mapping[str, Any]) -> tuple[int, float, str]:
        last = next((v for v in reversed(line["values"]) if v is not None), None)
        return (0, -last[field], line.get("row") or line["agent"]) if last else (1, 0.0, line.get("row") or line["agent"])
    return key
