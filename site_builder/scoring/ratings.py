"""A rating across agents: a Bradley-Terry maximum-likelihood fit over the pairs of each game's
ranking, on the Elo scale, with bootstrap intervals.

Each game becomes a ranking of the distinct agents in it (score = fraction of the agent's seats
that won; equal scores share a rank; an agent that forfeited ranks last, the others tie first).
Every pair of agents in a ranking is one comparison (a win, a loss or a draw counted as half a
win) weighted 1 / (agents - 1), so a game weighs the same for each agent in it. The fit is
order-free: it depends on how many games of each kind there were, not on their order, so the
games are first counted into *patterns* (same agents, same ranks) and a bootstrap resample of
games is a multinomial draw of pattern counts, fitted for all resamples at once (numpy).
docs/metrics/ratings.md says why this model and what each number means.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.sections import KeepDerived, compute_derived
from site_builder.scoring.stats import percentile_interval, resample_counts

MODEL = "Bradley-Terry (pairwise, draws as half a win), maximum likelihood with one virtual draw per agent"
#: The Elo scale: 400 points are odds of 10 to 1; an agent with no information sits at 1000.
BASE, PER_TENFOLD = 1000.0, 400.0
ELO = PER_TENFOLD / math.log(10)
RESAMPLES = 1000
#: Newton steps stop when no rating moves by more than this (natural log-odds units).
TOLERANCE = 1e-10
MAX_STEPS = 100

Ranking = list[tuple[str, float]]  # (agent key, score), sorted by agent key
Pattern = tuple[tuple[str, ...], tuple[int, ...]]  # agents (sorted) and their ranks

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


def pattern(ranking: Ranking) -> Pattern:
    """What the fit reads of a ranking: its agents and their ranks."""
    return tuple(a for a, _ in ranking), tuple(ranks([s for _, s in ranking]))


class Design:
    """Counted patterns as matrices: pair weights and first-agent scores per pattern, agents per pattern."""

    def __init__(self, counts: Mapping[Pattern, int]):
        self.patterns = sorted(counts)
        self.counts = np.array([counts[p] for p in self.patterns], dtype=float)
        self.agents = sorted({a for agents, _ in self.patterns for a in agents})
        index = {a: i for i, a in enumerate(self.agents)}
        pairs: dict[tuple[int, int], int] = {}
        cells: list[tuple[int, int, float, float]] = []  # (pattern, pair, weight, score of the first)
        for u, (agents, places) in enumerate(self.patterns):
            weight = 1.0 / (len(agents) - 1)
            for i in range(len(agents)):
                for j in range(i + 1, len(agents)):
                    pair = pairs.setdefault((index[agents[i]], index[agents[j]]), len(pairs))
                    first = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    cells.append((u, pair, weight, weight * first))
        self.weights = np.zeros((len(self.patterns), len(pairs)))
        self.scores = np.zeros((len(self.patterns), len(pairs)))
        for u, pair, weight, score in cells:
            self.weights[u, pair] += weight
            self.scores[u, pair] += score
        self.incidence = np.zeros((len(pairs), len(self.agents)))  # +1 first agent, -1 second
        self.pair_agents = (np.zeros(len(pairs), dtype=int), np.zeros(len(pairs), dtype=int))
        for (i, j), pair in pairs.items():
            self.incidence[pair, i], self.incidence[pair, j] = 1.0, -1.0
            self.pair_agents[0][pair], self.pair_agents[1][pair] = i, j
        # A pattern lists its agents in key order (`game_ranking`), so each pair is (lower, higher)
        # and no two pairs share agents: `_curvature` relies on it.
        assert all(i < j for i, j in pairs), "patterns must list their agents in order"
        self.members = np.zeros((len(self.patterns), len(self.agents)))  # games per agent per pattern
        for u, (agents, _) in enumerate(self.patterns):
            self.members[u, [index[a] for a in agents]] = 1.0


def fit(design: Design, counts: np.ndarray, start: np.ndarray | None = None,
        anchors: Mapping[str, float] | None = None) -> np.ndarray:
    """Log-strengths (natural units) maximising the likelihood, one row per row of pattern `counts`.

    Each agent also draws one virtual game against a strength-0 agent: that keeps an agent that
    won (or lost) every game finite and ties agents that never met to one scale. Newton's method
    on the concave log-likelihood, all rows at once, from `start` (one row of log-strengths;
    zeros if None): the bootstrap fits start at the point estimate, near which each resample's
    optimum lies, and need 5 steps instead of 13.

    `anchors` (agent -> log-strength) holds those agents fixed, and fits only the others against
    them (no virtual draw for an anchor: its strength is given): a contributor's agents are fitted
    against the maintainers' ratings this way (site_builder/scoring/board.py).
    """
    n = counts @ design.weights  # (rows, pairs) comparisons
    s = counts @ design.scores  # (rows, pairs) wins of the first agent
    r = np.zeros((counts.shape[0], len(design.agents)))
    if start is not None:
        r += start
    free = np.ones(len(design.agents), dtype=bool)
    for i, agent in enumerate(design.agents):
        if anchors is not None and agent in anchors:
            free[i] = False
            r[:, i] = anchors[agent]
    with threadpool_limits(limits=1, user_api="blas"):
        _newton(design, n, s, r, free)
    return r


def _newton(design: Design, n: np.ndarray, s: np.ndarray, r: np.ndarray, free: np.ndarray) -> None:
    """Newton steps on the `free` columns of `r` in place until no rating moves by more than TOLERANCE.

    Run with one BLAS thread (`fit`): the solves are 1,000 small systems, which BLAS threads do
    not speed up, and on a shared machine they wait on each other whenever another process
    holds a core (a 100,000-game table's fit measured 2 s on one thread, 7-60 s on two).
    """
    m = design.incidence
    if not free.any():
        return
    everyone = bool(free.all())  # the usual fit: no anchors, no sub-matrices to take
    index = np.flatnonzero(free)
    diagonal = np.arange(len(index))
    for _ in range(MAX_STEPS):
        p = 1.0 / (1.0 + np.exp(-(r @ m.T)))
        q = 1.0 / (1.0 + np.exp(-r[:, index]))
        gradient = (s - n * p) @ m
        curvature = _curvature(design, n * p * (1 - p))
        if not everyone:
            gradient = gradient[:, index]
            curvature = curvature[:, index[:, None], index[None, :]]
        gradient = gradient + (0.5 - q)
        curvature[:, diagonal, diagonal] += q * (1 - q)
        step = np.linalg.solve(curvature, gradient[..., None])[..., 0]
        step = np.clip(step, -2.0, 2.0)  # far from the optimum a full Newton step can overshoot
        r[:, index] += step
        if np.abs(step).max() < TOLERANCE:
            break


def _curvature(design: Design, weight: np.ndarray) -> np.ndarray:
    """The information matrices M^T diag(w) M, one per row of pair weights `weight` (rows, pairs).

    A pair's row of M is +1 at its first agent and -1 at its second, so each pair adds its
    weight to both agents' diagonal entries and takes it from their two off-diagonal ones:
    written directly, not as a (rows, agents, pairs) product (1.9 GB and a minute at 80 agents).
    """
    rows, agents = weight.shape[0], len(design.agents)
    out = np.zeros((rows, agents, agents))
    first, second = design.pair_agents
    out[:, first, second] = -weight  # each pair of agents is one column: no index repeats
    out[:, second, first] = -weight
    out[:, np.arange(agents), np.arange(agents)] = weight @ np.abs(design.incidence)
    return out


def _fit_around(design: Design, drawn: np.ndarray | None, held: Mapping[str, float]
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """The point fit and the resamples' fits (`drawn`: resampled pattern counts, or None) with the
    `held` agents fixed. With the anchors fixed, agents that never shared a game are independent:
    the likelihood is a product over groups of agents linked by games (through free agents), so
    each group is fitted alone. Its systems are as small as the group: a thousand people who each
    played the built-in agents are a thousand fits of one strength, not one of a thousand."""
    agents = len(design.agents)
    index = {a: i for i, a in enumerate(design.agents)}
    parent = list(range(agents))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for members, _ in design.patterns:
        free = [index[a] for a in members if a not in held]
        for other in free[1:]:
            parent[find(other)] = find(free[0])
    groups: dict[int, list[int]] = {}
    for a, i in index.items():
        if a not in held:
            groups.setdefault(find(i), []).append(i)
    point = np.array([held.get(a, 0.0) for a in design.agents])
    strengths = None if drawn is None else np.tile(point, (drawn.shape[0], 1))
    for group in groups.values():
        mine = {design.agents[i] for i in group}
        columns = [u for u, (members, _) in enumerate(design.patterns) if not mine.isdisjoint(members)]
        part = Design({design.patterns[u]: int(design.counts[u]) for u in columns})  # sorted as design.patterns
        near = {a: held[a] for a in part.agents if a in held}
        at = [index[a] for a in part.agents]
        fitted = fit(part, part.counts[None, :], anchors=near)[0]
        point[at] = fitted
        if drawn is not None and strengths is not None:
            strengths[:, at] = fit(part, drawn[:, columns], start=fitted, anchors=near)
    return point, strengths


def elo(strength: Any) -> Any:
    """A log-strength (or an array of them) on the Elo scale."""
    return BASE + ELO * strength


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
                game: str | None = None, resamples: int | None = None,
                anchors: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Any]:
    """Ratings of one game's replays (`game`), or {"overall": all games, "by_game": each game} when None.
    `anchors` ({"overall" or a game: {agent: rating}}) holds those ratings fixed (see `table`)."""
    if game is not None:
        return board(games, agents, seed=seed, game=game, resamples=resamples)
    rankings: dict[str, list[Ranking | None]] = {}  # each game ranked once, for both tables
    for g in games:
        rankings.setdefault(g.game, []).append(game_ranking(g))
    draws = RESAMPLES if resamples is None else resamples

    def rated(names: Sequence[str], name: str | None) -> dict[str, Any]:
        counts, skipped, forfeits = count_patterns(r for n in names for r in rankings[n])
        held = None if anchors is None else anchors.get(name or "overall", {})
        return table(counts, agents, seed=seed, game=name, resamples=draws, skipped=skipped, forfeits=forfeits,
                     anchors=held)

    return {"overall": rated(sorted(rankings), None), "by_game": {name: rated([name], name) for name in sorted(rankings)}}


def count_patterns(rankings: Iterable[Ranking | None]) -> tuple[Counter[Pattern], int, int]:
    """Patterns with their game counts, and how many rankings were None (not rateable) and forfeits."""
    counts: Counter[Pattern] = Counter()
    skipped = forfeits = 0
    for ranking in rankings:
        if ranking is None:
            skipped += 1
            continue
        forfeits += any(score == FORFEIT_SCORE for _, score in ranking)
        counts[pattern(ranking)] += 1
    return counts, skipped, forfeits


#: A game's rating inputs as plain data (`pattern_tally`): each pattern's agents, ranks and count.
Tally = dict[str, Any]


def pattern_tally(games: Iterable[ScoredGame]) -> Tally:
    """What the fit reads of `games` as JSON-able data: the counted patterns (in pattern order),
    the unrateable and the forfeited games. Tallies of disjoint sets of games add up
    (`merge_tallies`), so a new game re-counts only its part."""
    counts, skipped, forfeits = count_patterns(game_ranking(g) for g in games)
    return {"patterns": pattern_rows(counts), "skipped": skipped, "forfeits": forfeits}


def pattern_rows(counts: Mapping[Pattern, int]) -> list[list[Any]]:
    """Counted patterns as JSON-able rows [agents, places, count], in pattern order."""
    return [[list(agents), list(places), counts[(agents, places)]] for agents, places in sorted(counts)]


def merge_tallies(tallies: Iterable[Tally]) -> tuple[Counter[Pattern], int, int]:
    """Tallies added up, as `count_patterns` gives them for all their games at once."""
    counts: Counter[Pattern] = Counter()
    skipped = forfeits = 0
    for tally in tallies:
        for agents, places, count in tally["patterns"]:
            counts[(tuple(agents), tuple(places))] += count
        skipped += tally["skipped"]
        forfeits += tally["forfeits"]
    return counts, skipped, forfeits


def tallied_table(tallies: Iterable[Tally], agents: Mapping[str, AgentInfo], *, seed: int, game: str | None = None,
                  resamples: int | None = None, keep: KeepDerived = compute_derived,
                  anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rating table of the games behind `tallies` (`pattern_tally`): `board`'s table of them.

    `keep` may answer the fit from an earlier scoring with the same patterns: games that add no
    pattern (self-play, as in 004's Werewolf) change the skipped count, not the fit. `anchors`:
    see `table`.
    """
    counts, skipped, forfeits = merge_tallies(tallies)
    return table(counts, agents, seed=seed, game=game, resamples=RESAMPLES if resamples is None else resamples,
                 skipped=skipped, forfeits=forfeits, keep=keep, anchors=anchors)


def board(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          game: str | None = None, resamples: int | None = None) -> dict[str, Any]:
    """One rating table, best first (ties: agent key). `resamples` defaults to RESAMPLES; 0 gives
    the point estimates without intervals."""
    counts, skipped, forfeits = count_patterns(game_ranking(g) for g in games if game is None or g.game == game)
    return table(counts, agents, seed=seed, game=game, resamples=RESAMPLES if resamples is None else resamples,
                 skipped=skipped, forfeits=forfeits)


def table(counts: Mapping[Pattern, int], agents: Mapping[str, AgentInfo], *, seed: int, game: str | None,
          resamples: int, skipped: int = 0, forfeits: int = 0, keep: KeepDerived = compute_derived,
          anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rating table of counted patterns (see `board`).

    With `anchors` (agent -> rating on the Elo scale), those agents' ratings are held fixed and
    only the others are fitted and listed: a contributor's rows against the maintainers' table
    (site_builder/scoring/board.py); their `rank_upper_bound` is left to the board, which ranks
    them against that table."""
    seated = {a for members, _ in counts for a in members}
    held = {a: anchors[a] for a in sorted(seated) if anchors is not None and a in anchors}
    inputs: dict[str, Any] = {"patterns": pattern_rows(counts), "resamples": resamples}
    if anchors is not None:
        inputs["anchors"] = held
    fitted = keep(f"ratings/fit/{game or 'overall'}", inputs, seated,
                  lambda: _fitted(counts, agents, seed=seed, resamples=resamples,
                                  anchors=None if anchors is None else held))
    return {"game": game, "model": MODEL, "scale": {"base": BASE, "points_per_tenfold_odds": PER_TENFOLD},
            "resamples": fitted["resamples"], "level": 0.95, "games_rated": sum(counts.values()),
            "forfeits_rated": forfeits, "games_skipped": {"single_agent": skipped}, "agents": fitted["agents"]}


def _fitted(counts: Mapping[Pattern, int], agents: Mapping[str, AgentInfo], *, seed: int,
            resamples: int, anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rows of a rating table, best first, and the resamples behind their intervals: a
    function of the patterns' counts alone (`Design` sorts them), the agents' labels, the seed
    (and the anchors' ratings, whose agents get no row)."""
    rows = []
    used = 0
    held = None if anchors is None else {a: (rating - BASE) / ELO for a, rating in anchors.items()}
    if counts:
        design = Design(counts)
        games_of = design.counts @ design.members
        intervals: dict[str, list[float] | None] = dict.fromkeys(design.agents)
        drawn = resample_counts(design.counts, seed=seed, resamples=resamples) if resamples > 0 else None
        used = resamples if resamples > 0 else 0
        if held is None:
            point = fit(design, design.counts[None, :])[0]
            strengths = None if drawn is None else fit(design, drawn, start=point)
        else:
            point, strengths = _fit_around(design, drawn, held)
        if drawn is not None and strengths is not None:
            present = (drawn @ design.members) > 0  # an agent none of whose games was drawn is not rated
            for i, agent in enumerate(design.agents):
                ci = percentile_interval(np.where(present[:, i], elo(strengths[:, i]), np.nan))
                intervals[agent] = None if ci is None else [ci[0], ci[1]]
        upper = rank_upper_bounds(intervals) if held is None else dict.fromkeys(intervals)
        for i, agent in enumerate(design.agents):
            if held is not None and agent in held:
                continue  # an anchor: its row is the table it was taken from
            info = agents.get(agent)
            rows.append({"agent": agent, "label": info.label if info else agent, "rating": elo(float(point[i])),
                         "rating_ci": intervals[agent], "games": int(round(games_of[i])),
                         "rank_upper_bound": upper[agent]})
        rows.sort(key=lambda row: (-row["rating"], row["agent"]))
    return {"resamples": used, "agents": rows}
