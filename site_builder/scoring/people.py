"""People on the board: every human seat of a game pooled into one "people" row.

Each person is already a row of their own (the scorer keys a person by the name they chose). The
pooled row answers "how do people do at this game?" beside the models and bots. Its intervals
are a bootstrap over games, not Wilson intervals over seats: a game with two people at the table
gives two seats that are not independent (they played each other and the same deal), and a
Wilson interval over seats would treat them as if they were (docs/metrics.md, "People").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from site_builder.scoring.leaderboards import SEAT_SCORES
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.stats import percentile_interval, rate, resampled_totals

#: The key of the pooled row wherever rows are keyed by agent (no agent key is a bare word:
#: they are JSON objects).
PEOPLE = "people"


def is_person(key: str, agents: Mapping[str, AgentInfo]) -> bool:
    info = agents.get(key)
    return info is not None and info.kind == "human"


def played(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo]) -> dict[str, int]:
    """How many people (distinct names) have played, and in how many games."""
    persons = {key for key, info in agents.items() if info.kind == "human"}
    names: set[str] = set()
    with_people = 0
    for game in games:
        if not persons.isdisjoint(s.agent for s in game.seats):  # one set test per game: 100,000s of them
            names |= persons.intersection(s.agent for s in game.seats)
            with_people += 1
    return {"people": len(names), "games": with_people}


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def _entry(column: int, of: int, rows: np.ndarray, totals: np.ndarray) -> dict[str, Any] | None:
    """A ratio of two columns summed over games, with its bootstrap-over-games interval."""
    n = rows[:, of].sum()
    if n <= 0:
        return None
    ci = percentile_interval(_ratio(totals[:, column], totals[:, of]))
    return {"value": float(rows[:, column].sum() / n), "ci": list(ci) if ci else None, "n": int(n)}


def pooled_row(name: str, games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *,
               seed: int) -> dict[str, Any] | None:
    """The "people" row of game `name`'s board (None if no person sat in its games).

    The games counted are those a person's rates count (`ScoredGame.counts_for`): complete games,
    and games a person forfeited (a loss of that person's seats). Per game: the people's seats,
    their wins, by role, and the game's seat score summed over their seats; the win rates and the
    mean score are ratios of these sums, and their 95% intervals come from resampling the games
    (each game with all its human seats), seeded.
    """
    persons = {key for key, info in agents.items() if info.kind == "human"}
    mine = sorted((g for g in games if not persons.isdisjoint(s.agent for s in g.seats)), key=lambda g: g.game_id)
    if not mine:
        return None
    roles = sorted({s.role for g in mine for s in g.seats if is_person(s.agent, agents)})
    score = SEAT_SCORES.get(name)
    # Columns: wins, seats, then per role wins and seats, then score sum and count.
    width = 2 + 2 * len(roles) + 2
    rows: list[list[float]] = []
    forfeits = 0
    for g in mine:
        if not g.valid and is_person(g.forfeiter or "", agents):
            forfeits += 1
        counted = [s for s in g.seats if is_person(s.agent, agents) and g.counts_for(s.agent)]
        if not counted:
            continue
        row = [0.0] * width
        for s in counted:
            row[0] += s.won
            row[1] += 1
            at = 2 + 2 * roles.index(s.role)
            row[at] += s.won
            row[at + 1] += 1
            if score and g.valid and (value := score[2](g, s)) is not None:
                row[-2] += value
                row[-1] += 1
        rows.append(row)
    people = sorted({s.agent for g in mine for s in g.seats if is_person(s.agent, agents)})
    out: dict[str, Any] = {
        "agent": PEOPLE, "label": "people", "provider": "human", "design": "pooled",
        "people": len(people), "games": len(mine), "forfeits": forfeits, "forfeit_rate": rate(forfeits, len(mine)),
        "seats": 0, "win_rate": None, "roles": {},
        "interval": "bootstrap over games",
    }
    if rows:
        table = np.asarray(rows, dtype=float)
        totals = resampled_totals(table, seed=seed)
        out["seats"] = int(table[:, 1].sum())
        out["win_rate"] = _entry(0, 1, table, totals)
        out["roles"] = {role: entry for i, role in enumerate(roles)
                        if (entry := _entry(2 + 2 * i, 3 + 2 * i, table, totals)) is not None}
        if score:
            out[score[0]] = _entry(width - 2, width - 1, table, totals)
    elif score:
        out[score[0]] = None
    return out
