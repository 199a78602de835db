"""A rating across agents: OpenSkill Plackett-Luce over per-game rankings, with bootstrap intervals.

Each game becomes a ranking of the distinct agents in it (score = fraction of the agent's seats
that won; equal scores share a rank; an agent that forfeited ranks last, the others tie first). Games are rated in game_id order, so the result
does not depend on file order; a seeded bootstrap over games (each resample re-rated from
scratch) gives a 95% interval of every agent's mu, and the LMSYS-style rank upper bound.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from typing import Any

from openskill.models import PlackettLuce

from site_builder.scoring.model import AgentInfo, ScoredGame

#: openskill's defaults, written out so the results say exactly what was used.
PARAMS = {"mu": 25.0, "sigma": 25.0 / 3.0, "beta": 25.0 / 6.0, "tau": 25.0 / 300.0}
RESAMPLES = 200
#: Re-rating every resample costs one model update per game: bound the updates per table so a
#: 10,000-game corpus stays quick (at least 30 resamples; small corpora get all 200).
UPDATE_BUDGET = 180_000
MIN_RESAMPLES = 30
LEVEL = 0.95

Ranking = list[tuple[str, float]]  # (agent key, score), sorted by agent key


#: The score of the agent that forfeited a game: below every other outcome.
FORFEIT_SCORE = -1.0


def game_ranking(game: ScoredGame) -> Ranking | None:
    """The agents of a game with their score (share of their seats that won); None if not rateable.

    A game an agent forfeited ranks that agent last and every other agent tied first: the
    forfeit is its loss, and says nothing about how the others compare with each other.
    """
    if not game.valid:
        loser = game.forfeiter
        others = sorted({s.agent for s in game.seats} - {loser})
        if loser is None or not others:
            return None
        return sorted([(loser, FORFEIT_SCORE), *((a, 0.0) for a in others)])
    seats: dict[str, int] = {}
    won: dict[str, int] = {}
    for seat in game.seats:
        seats[seat.agent] = seats.get(seat.agent, 0) + 1
        won[seat.agent] = won.get(seat.agent, 0) + int(seat.won)
    if len(seats) < 2:
        return None  # self-play says nothing about relative strength
    return [(agent, won[agent] / seats[agent]) for agent in sorted(seats)]


def ranks(scores: Sequence[float]) -> list[int]:
    """Competition ranks: 1 + how many scores are strictly higher (equal scores share a rank)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def rate(rankings: Sequence[Ranking]) -> dict[str, dict[str, float]]:
    """Sequential Plackett-Luce updates over rankings in the given order: mu, sigma, games per agent."""
    model = PlackettLuce(**PARAMS)
    state: dict[str, Any] = {}
    games: dict[str, int] = {}
    for ranking in rankings:
        agents = [agent for agent, _ in ranking]
        teams = [[state[a] if a in state else model.rating(name=a)] for a in agents]
        new = model.rate(teams, ranks=[float(r) for r in ranks([s for _, s in ranking])])
        for agent, team in zip(agents, new):
            state[agent] = team[0]
            games[agent] = games.get(agent, 0) + 1
    return {a: {"mu": r.mu, "sigma": r.sigma, "games": games[a]} for a, r in state.items()}


def percentile_interval(values: Sequence[float], level: float = LEVEL) -> list[float] | None:
    """The percentile interval of bootstrap values (same index rule as stats.bootstrap)."""
    if not values:
        return None
    ordered = sorted(values)
    tail = (1 - level) / 2
    lo = ordered[min(len(ordered) - 1, int(math.floor(tail * len(ordered))))]
    hi = ordered[min(len(ordered) - 1, int(math.ceil((1 - tail) * len(ordered))) - 1)]
    return [lo, hi]


def rank_upper_bounds(intervals: Mapping[str, Sequence[float] | None]) -> dict[str, int | None]:
    """1 + the number of agents whose lower bound is above this agent's upper bound (None without interval)."""
    out: dict[str, int | None] = {}
    for agent, ci in intervals.items():
        if ci is None:
            out[agent] = None
            continue
        out[agent] = 1 + sum(1 for other, oci in intervals.items()
                             if other != agent and oci is not None and oci[0] > ci[1])
    return out


def leaderboard(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                game: str | None = None, resamples: int | None = None) -> dict[str, Any]:
    """Ratings of one game's replays (`game`), or {"overall": all games, "by_game": each game} when None."""
    if game is not None:
        return board(games, agents, seed=seed, game=game, resamples=resamples)
    names = sorted({g.game for g in games})
    return {"overall": board(games, agents, seed=seed, resamples=resamples),
            "by_game": {name: board(games, agents, seed=seed, game=name, resamples=resamples)
                        for name in names}}


def board(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          game: str | None = None, resamples: int | None = None) -> dict[str, Any]:
    """One rating table: rows sorted by conservative ordinal (mu - 3 sigma), best first.

    `resamples` defaults to RESAMPLES, fewer when that would exceed UPDATE_BUDGET updates.
    """
    chosen = sorted((g for g in games if game is None or g.game == game), key=lambda g: g.game_id)
    rankings: list[Ranking] = []
    single = 0
    forfeits = 0
    for g in chosen:
        ranking = game_ranking(g)
        if ranking is None:
            single += 1
            continue
        forfeits += not g.valid
        rankings.append(ranking)
    if resamples is None:
        resamples = max(MIN_RESAMPLES, min(RESAMPLES, UPDATE_BUDGET // max(len(rankings), 1)))
    point = rate(rankings)
    samples: dict[str, list[float]] = {a: [] for a in point}
    if rankings:
        rng = random.Random(seed)
        n = len(rankings)
        for _ in range(resamples):
            # Sorted indices = the resampled games in game_id order, like the point estimate.
            picked = sorted(rng.randrange(n) for _ in range(n))
            for agent, r in rate([rankings[i] for i in picked]).items():
                samples[agent].append(r["mu"])
    intervals = {a: percentile_interval(v) for a, v in samples.items()}
    upper = rank_upper_bounds(intervals)
    rows = []
    for agent, r in point.items():
        info = agents.get(agent)
        rows.append({"agent": agent, "label": info.label if info else agent, "mu": r["mu"],
                     "sigma": r["sigma"], "ordinal": r["mu"] - 3 * r["sigma"], "games": r["games"],
                     "mu_ci": intervals[agent], "rank_upper_bound": upper[agent]})
    rows.sort(key=lambda row: (-row["ordinal"], row["agent"]))
    return {"game": game, "model": "openskill PlackettLuce", "library": f"openskill {version('openskill')}",
            "params": dict(PARAMS), "resamples": resamples if rankings else 0, "level": LEVEL,
            "games_rated": len(rankings), "forfeits_rated": forfeits, "games_skipped": {"single_agent": single},
            "agents": rows}
