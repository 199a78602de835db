"""The effect on the leaderboard: the board scored without and with the accepted files, as the site scores it."""

from __future__ import annotations

import bisect
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_builder.scoring import board, owners
from site_builder.scoring.corpus import load
from site_builder.scoring.owners import Owner
from site_builder.submission.check import Submission, added_games
from site_builder.submission.layout import copy_replay

@dataclass(frozen=True)
class Standing:
    """An agent's row in one rating table."""

    games: int
    rating: float  # the rating the table is sorted by (Elo scale)
    place: int
    of: int
    interval: tuple[float, float] | None = None  # its 95% bootstrap interval (before the submission)


@dataclass(frozen=True)
class EffectRow:
    """One agent in one rating table, before and after the submission (None: not in the table)."""

    board: str  # "overall" or a game name
    key: str
    label: str
    before: Standing | None
    after: Standing | None
    mine: bool = True  # the submitter's row (any other row shown is one that changed)

    @property
    def beyond_interval(self) -> bool:
        """Whether the submission moves an agent already rated beyond its interval: a reviewer's flag."""
        if self.before is None or self.after is None or self.before.interval is None:
            return False
        low, high = self.before.interval
        return not low <= self.after.rating <= high


@dataclass
class Effect:
    """How the rating tables change when the accepted files join the base corpus: the submitter's
    rows, and every other row that changes (the board is built so that none does)."""

    rows: list[EffectRow]
    games_before: int
    games_after: int
    resimulated: int  # replays re-simulated by the rules engines
    cached: int  # replays answered by the scorer's cache
    seconds: float
    compared: int = 0  # rows of others in the rating tables, compared before and after
    others_changed: int = 0  # of those, the rows whose games, rating, interval or place changed


#: The seed of the site's bootstrap (site_builder.build), so the intervals are those the board shows.
INTERVAL_SEED = 2026


def standings(table: Mapping[str, Any]) -> dict[str, Standing]:
    """Each rated agent's games, rating, interval and place in one table of the board
    (`scoring.board.rating_board`): a place among the maintainers' rows, the place a contributor's
    row would take among them (as the site ranks them)."""
    rows = table.get("agents", [])
    ours = [r for r in rows if not r.get("owner")]  # sorted best first, as every table is
    place_of = {r["agent"]: place for place, r in enumerate(ours, start=1)}
    descending = sorted(-r["rating"] for r in ours)
    out: dict[str, Standing] = {}
    for row in rows:
        place = place_of.get(row["agent"]) or 1 + bisect.bisect_left(descending, -row["rating"])
        out[row["agent"]] = Standing(row["games"], row["rating"], place, len(ours),
                                     tuple(row["rating_ci"]) if row.get("rating_ci") else None)
    return out


def leaderboard_effect(submission: Submission, base_dir: Path, new_dir: Path, cache_path: Path) -> Effect:
    """Score the base corpus and base + accepted files as the site does (scoring/board.py): the
    submitter's rows, and every other row of the rating tables compared before and after."""
    started = time.perf_counter()
    for check in submission.accepted:
        assert check.raw is not None
        copy_replay(new_dir, check.path, check.raw)
    submitter = submission.submitter
    base_owners = {str(base_dir / path): Owner(source.owner, source.owner_label, source.date or "")
                   for path, source in submission.base_index.owners.files.items()}
    new_owners = {str(new_dir / check.path): Owner(submitter.owner, submitter.label, "~")  # newest of all
                  for check in submission.accepted}
    tables = []
    corpora = []
    for folders, owner_of in (([base_dir], base_owners), ([base_dir, new_dir], {**base_owners, **new_owners})):
        corpus = load(folders, cache_path, owner_of={path: owner.id for path, owner in owner_of.items()})
        corpus = owners.separate(corpus, owner_of)
        corpora.append(corpus)
        tables.append(board.rating_board(corpus, {o.id: o.label for o in owner_of.values()}, seed=INTERVAL_SEED))
    before, after = corpora
    mine = {a["key"] for a in tables[1]["agents"] if (a.get("owner") or {}).get("id") == submitter.owner}
    labels = {a["key"]: a["label"] for t in tables for a in t["agents"]}
    rows: list[EffectRow] = []
    compared = changed = 0
    for name in ["overall", *sorted(added_games(submission))]:
        old, new = (standings(t["ratings"]["overall"] if name == "overall" else t["ratings"]["by_game"].get(name, {}))
                    for t in tables)
        for key in sorted(set(old) | set(new), key=lambda k: (new[k].place if k in new else 0, k)):
            row = EffectRow(name, key, labels.get(key, key), old.get(key), new.get(key), key in mine)
            if key in mine:
                rows.append(row)
                continue
            compared += 1
            if old.get(key) != new.get(key):
                changed += 1
                rows.append(row)
    resimulated = before.resimulated + after.resimulated
    return Effect(rows, len(before.games), len(after.games), resimulated,
                  before.files + after.files - resimulated, time.perf_counter() - started, compared, changed)
