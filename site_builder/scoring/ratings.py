"""A rating across agents that knows roles: a Bradley-Terry maximum-likelihood fit over the pairs
of each game's ranking, with an advantage per role beside each agent's strength, on the Elo
scale, with bootstrap intervals.

Each game becomes a ranking of the distinct agents in it (score = fraction of the agent's seats
that won; equal scores share a rank; an agent that forfeited ranks last, the others tie first).
Every pair of agents in a ranking is one comparison (a win, a loss or a draw counted as half a
win) weighted 1 / (agents - 1), so a game weighs the same for each agent in it. An agent's odds in
a pair are its strength plus the mean advantage of the roles its seats were dealt: an agent that
always holds the easier role is not taken for the stronger one, as the role's advantage is learnt
from the games in which agents hold different roles, and taken out.

The fit is order-free: it depends on how many games of each kind there were, not on their order,
so the games are first counted into *patterns* (game, agents, ranks, roles) and a bootstrap
resample of games is a multinomial draw of pattern counts, fitted for all resamples at once
(numpy). A table over several games weighs each game the same and resamples each game apart.
Cooperative games (every seat wins or loses together) are not rated: their comparisons are all
draws. docs/metrics/ratings.md says why this model and what each number means.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import sparse
from threadpoolctl import ThreadpoolController

from runner import games as registry
from runner.seeds import RESAMPLES  # one number for every bootstrap
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.sections import KeepDerived, compute_derived
from site_builder.scoring.stats import expanded_level, percentile_interval, resample_counts, simultaneous_intervals

MODEL = ("Bradley-Terry (pairwise, draws as half a win) with an advantage per role, maximum likelihood with "
         "one virtual draw per agent and per role")
#: The Elo scale: 400 points are odds of 10 to 1; an agent with no information sits at 1000.
BASE, PER_TENFOLD = 1000.0, 400.0
ELO = PER_TENFOLD / math.log(10)
#: Newton steps stop when no rating moves by more than this (natural log-odds units).
TOLERANCE = 1e-10
MAX_STEPS = 100

#: One agent of a game's ranking: its key, its score, the roles its seats were dealt ("game:role", sorted).
Entry = tuple[str, float, tuple[str, ...]]
Ranking = list[Entry]  # sorted by agent key
#: What the fit reads of a game: its game, its agents (sorted), their ranks and their roles.
Pattern = tuple[str, tuple[str, ...], tuple[int, ...], tuple[tuple[str, ...], ...]]

#: The score of the agent that forfeited a game: below every other outcome.
FORFEIT_SCORE = -1.0


def cooperative(game: str) -> bool:
    """Whether every seat of `game` wins or loses together (Cost Sharing): nothing to rate."""
    return bool(getattr(registry.get(game), "cooperative", False)) if game in registry.GAME_MODULES else False


def role_key(game: str, role: str) -> str:
    return f"{game}:{role}"


def game_ranking(game: ScoredGame) -> Ranking | None:
    """The agents of a game with their score (share of their seats that won) and roles; None if
    not rateable (self-play, a cooperative game).

    A game an agent forfeited ranks that agent last and every other agent tied first: the
    forfeit is its loss, and says nothing about how the others compare with each other, nor about
    the roles (its entries carry none).
    """
    if cooperative(game.game):
        return None
    if not game.valid:
        loser = game.forfeiter
        others = sorted({s.agent for s in game.seats} - {loser})
        if loser is None or not others:
            return None
        return sorted([(loser, FORFEIT_SCORE, ()), *((a, 0.0, ()) for a in others)])
    seats: dict[str, int] = {}
    won: dict[str, int] = {}
    roles: dict[str, list[str]] = {}
    for seat in game.seats:
        seats[seat.agent] = seats.get(seat.agent, 0) + 1
        won[seat.agent] = won.get(seat.agent, 0) + int(seat.won)
        roles.setdefault(seat.agent, []).append(role_key(game.game, seat.role))
    if len(seats) < 2:
        return None  # self-play says nothing about relative strength
    return [(agent, won[agent] / seats[agent], tuple(sorted(roles[agent]))) for agent in sorted(seats)]


def ranks(scores: Sequence[float]) -> list[int]:
    """Competition ranks: 1 + how many scores are strictly higher (equal scores share a rank)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def pattern(ranking: Ranking, game: str = "") -> Pattern:
    """What the fit reads of a ranking of `game`: its agents, their ranks and their roles."""
    return (game, tuple(a for a, _, _ in ranking), tuple(ranks([s for _, s, _ in ranking])),
            tuple(r for _, _, r in ranking))


def _mix(roles: tuple[str, ...]) -> dict[str, float]:
    """An agent's roles in a game as shares of its seats."""
    counted = Counter(roles)
    return {role: n / len(roles) for role, n in counted.items()}


#: A pair's role shares told apart: (role, share of the first agent's seats minus the second's), sorted.
Shown = tuple[tuple[str, float], ...]
#: One pair of a pattern: the positions of its agents in the pattern, their role difference and the
#: first agent's score (1 a win, 0.5 a draw, 0 a loss).
PatternPair = tuple[int, int, Shown, float]


@lru_cache(maxsize=1 << 16)
def _pattern_pairs(agents: tuple[str, ...], places: tuple[int, ...], roles: tuple[tuple[str, ...], ...]
                   ) -> tuple[tuple[PatternPair, ...], frozenset[str]]:
    """A pattern's pairs (in pair order) and the roles its seats were dealt, as `Design` reads them.

    Cached (bounded): the board over time refits a table at each of its points, and the same
    patterns recur from one point to the next, so their role shares are worked out once.
    """
    mixes = [_mix(r) if r else {} for r in roles]
    out: list[PatternPair] = []
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            diff = {k: mixes[i].get(k, 0.0) - mixes[j].get(k, 0.0) for k in {*mixes[i], *mixes[j]}}
            shown = tuple(sorted((k, v) for k, v in diff.items() if v != 0.0))
            first = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
            out.append((i, j, shown, first))
    return tuple(out), frozenset(k for r in roles for k in r)


class Design:
    """Counted patterns as matrices: pair weights and first-agent scores per pattern, each pair's
    row of the model (+1 for its first agent, -1 for its second, and the difference of their role
    shares), agents per pattern.

    The parameters are the agents (sorted), then the roles that tell some pair apart (sorted): a
    role every agent of every game held alike (one-role games) has no parameter. `game_weights`
    (game -> factor) weighs each pattern by its game's factor (1 if not given).

    Built with numpy from flat arrays, each pattern's pairs cached (`_pattern_pairs`): the board
    over time builds a design at every point, and Python loops over each pair's outer product made
    this most of its time. The matrices are the same to the last bit as entry-by-entry loops give
    (tests/scoring/test_ratings.py keeps such loops as the reference), `outer` included: its CSR
    holds its entries in the order the later sums add them.
    """

    def __init__(self, counts: Mapping[Pattern, int], game_weights: Mapping[str, float] | None = None):
        self.patterns = sorted(counts)
        self.game_weights = dict(game_weights) if game_weights is not None else None
        self.counts = np.array([counts[p] for p in self.patterns], dtype=float)
        self.agents = sorted({a for _, agents, _, _ in self.patterns for a in agents})
        index = {a: i for i, a in enumerate(self.agents)}
        pairs: dict[tuple[int, int, Shown], int] = {}
        # One cell per pair of each pattern: its pattern, its pair, its weight, the first agent's score.
        cell_pattern: list[int] = []
        cell_pair: list[int] = []
        cell_weight: list[float] = []
        cell_score: list[float] = []
        member_pattern: list[int] = []  # (pattern, agent) of every agent of every pattern
        member_agent: list[int] = []
        dealt: list[frozenset[str]] = []  # the roles of each pattern's seats
        for u, (game, agents, places, roles) in enumerate(self.patterns):
            factor = 1.0 if game_weights is None else game_weights.get(game, 1.0)
            weight = factor / (len(agents) - 1)
            at_agent = [index[a] for a in agents]
            pattern_pairs, pattern_roles = _pattern_pairs(agents, places, roles)
            for i, j, shown, first in pattern_pairs:
                cell_pattern.append(u)
                cell_pair.append(pairs.setdefault((at_agent[i], at_agent[j], shown), len(pairs)))
                cell_weight.append(weight)
                cell_score.append(weight * first)
            member_pattern.extend([u] * len(agents))
            member_agent.extend(at_agent)
            dealt.append(pattern_roles)
        self.roles = sorted({k for _, _, shown in pairs for k, _ in shown})
        self.parameters = [*self.agents, *self.roles]
        size = len(self.parameters)
        at = {p: i for i, p in enumerate(self.parameters)}
        # A pattern holds a pair once, so each cell is one entry (0.0 + x is x: weights are >= 0).
        self.weights = np.zeros((len(self.patterns), len(pairs)))
        self.scores = np.zeros((len(self.patterns), len(pairs)))
        self.weights[cell_pattern, cell_pair] = cell_weight
        self.scores[cell_pattern, cell_pair] = cell_score
        # A pattern lists its agents in key order (`game_ranking`), so each pair is (lower, higher).
        assert all(i < j for i, j, _ in pairs), "patterns must list their agents in order"
        # Each pair's entries, pair after pair: (its parameter, its value), its two agents first.
        columns: list[int] = []
        values: list[float] = []
        for i, j, shown in pairs:
            columns.extend([i, j, *(at[k] for k, _ in shown)])
            values.extend([1.0, -1.0, *(v for _, v in shown)])
        sizes = np.array([2 + len(shown) for _, _, shown in pairs], dtype=np.int64)
        column = np.array(columns, dtype=np.int64)
        value = np.array(values, dtype=float)
        self.model = np.zeros((len(pairs), size))  # each pair's row of the model
        self.model[np.repeat(np.arange(len(pairs)), sizes), column] = value  # distinct cells
        self.outer = _outer(sizes, column, value, size)
        self.members = np.zeros((len(self.patterns), len(self.agents)))  # games per agent per pattern
        self.members[member_pattern, member_agent] = 1.0
        self.role_games = np.zeros((len(self.patterns), len(self.roles)))  # games per role per pattern
        role_at = {k: i for i, k in enumerate(self.roles)}
        held = [(u, role_at[k]) for u, ks in enumerate(dealt) for k in ks if k in role_at]
        self.role_games[[u for u, _ in held], [k for _, k in held]] = 1.0


def _outer(sizes: np.ndarray, column: np.ndarray, value: np.ndarray, size: int) -> sparse.csr_matrix:
    """The pairs' outer products x x^T for `_curvature`: a (size², pairs) CSR matrix whose row
    k * size + l holds x_k x_l of each pair q with both entries, in order of q.

    `sizes` is each pair's number of entries, `column` and `value` their parameters and values,
    pair after pair. This is the canonical CSR (sorted indices, no duplicates: a pair's parameters
    are distinct) that scipy makes of the same triplets, `csr_matrix((x_k x_l, (q, k * size + l)))
    .T.tocsr()`, built without scipy's conversions.
    """
    pairs = len(sizes)
    start = np.cumsum(sizes) - sizes  # each pair's first entry
    squares = sizes * sizes
    pair = np.repeat(np.arange(pairs, dtype=np.int64), squares)  # each product's pair
    within = np.arange(int(squares.sum()), dtype=np.int64) - np.repeat(np.cumsum(squares) - squares, squares)
    left = start[pair] + within // sizes[pair]
    right = start[pair] + within % sizes[pair]
    row = column[left] * size + column[right]
    order = np.lexsort((pair, row))  # by row, then by pair: the order tocsr leaves them in
    indptr = np.zeros(size * size + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=size * size), out=indptr[1:])
    return sparse.csr_matrix(((value[left] * value[right])[order], pair[order], indptr), shape=(size * size, pairs))


def fit(design: Design, counts: np.ndarray, start: np.ndarray | None = None,
        anchors: Mapping[str, float] | None = None) -> np.ndarray:
    """Parameters (natural log-odds units: the agents' strengths, then the roles' advantages)
    maximising the likelihood, one row per row of pattern `counts`.

    Each agent and each role also draws one virtual game against a strength of 0: that keeps an
    agent that won (or lost) every game finite, ties agents that never met to one scale, and fixes
    the roles' common level (only differences between roles enter a pair). Newton's method on the
    concave log-likelihood, all rows at once, from `start` (one row of parameters; zeros if None):
    the bootstrap fits start at the point estimate, near which each resample's optimum lies.

    `anchors` (parameter -> value) holds those parameters fixed and fits only the others against
    them (no virtual draw for an anchor: its value is given): a contributor's agents are fitted
    against the maintainers' ratings and role advantages this way (site_builder/scoring/board.py).
    """
    n = counts @ design.weights  # (rows, pairs) comparisons
    s = counts @ design.scores  # (rows, pairs) wins of the first agent
    r = np.zeros((counts.shape[0], len(design.parameters)))
    if start is not None:
        r += start
    free = np.ones(len(design.parameters), dtype=bool)
    for i, name in enumerate(design.parameters):
        if anchors is not None and name in anchors:
            free[i] = False
            r[:, i] = anchors[name]
    with _blas().limit(limits=1, user_api="blas"):
        _newton(design, n, s, r, free)
    return r


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The loaded BLAS libraries, found once: a limit per fit then costs microseconds, not the ~20 ms
    of inspecting every loaded library again (the board over time fits thousands of tables)."""
    return ThreadpoolController()


def _newton(design: Design, n: np.ndarray, s: np.ndarray, r: np.ndarray, free: np.ndarray) -> None:
    """Newton steps on the `free` columns of `r` in place until no value moves by more than TOLERANCE.

    Run with one BLAS thread (`fit`): the solves are 1,000 small systems, which BLAS threads do
    not speed up, and on a shared machine they wait on each other whenever another process
    holds a core (a 100,000-game table's fit measured 2 s on one thread, 7-60 s on two).
    """
    if not free.any():
        return
    m = design.model
    index = np.flatnonzero(free)
    everyone = bool(free.all())  # no anchors: no sub-matrices to take
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

    A pair's row of M has two agents and a few roles, so each pair adds its weight times its row's
    outer product to a handful of entries: one sparse product over the pairs' outer products
    (`Design.outer`), never a (rows, parameters, pairs) product (1.9 GB and a minute at 80 agents).
    """
    size = len(design.parameters)
    return np.ascontiguousarray((design.outer @ weight.T).T).reshape(weight.shape[0], size, size)


def _fit_around(design: Design, drawn: np.ndarray | None, held: Mapping[str, float]
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """The point fit and the resamples' fits (`drawn`: resampled pattern counts, or None) with the
    `held` parameters fixed. With the anchors fixed, agents that never shared a game are
    independent: the likelihood is a product over groups of free parameters linked by games, so
    each group is fitted alone. Its systems are as small as the group: a thousand people who each
    played the built-in agents are a thousand fits of one strength, not one of a thousand."""
    index = {a: i for i, a in enumerate(design.parameters)}
    parent = list(range(len(design.parameters)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def params_of(u: int) -> list[str]:
        _, members, _, roles = design.patterns[u]
        return [*members, *(k for r in roles for k in r if k in index)]

    for u in range(len(design.patterns)):
        free = [index[a] for a in params_of(u) if a not in held]
        for other in free[1:]:
            parent[find(other)] = find(free[0])
    groups: dict[int, set[str]] = {}
    for name, i in index.items():
        if name not in held:
            groups.setdefault(find(i), set()).add(name)
    point = np.array([held.get(a, 0.0) for a in design.parameters])
    values = None if drawn is None else np.tile(point, (drawn.shape[0], 1))
    for mine in groups.values():
        columns = [u for u in range(len(design.patterns)) if not mine.isdisjoint(params_of(u))]
        part = Design({design.patterns[u]: int(design.counts[u]) for u in columns}, design.game_weights)  # same order
        near = {a: held[a] for a in part.parameters if a in held}
        at = [index[a] for a in part.parameters]
        fitted = fit(part, part.counts[None, :], anchors=near)[0]
        point[at] = fitted
        if drawn is not None and values is not None:
            values[:, at] = fit(part, drawn[:, columns], start=fitted, anchors=near)
    return point, values


def elo(strength: Any) -> Any:
    """A log-strength (or an array of them) on the Elo scale."""
    return BASE + ELO * strength


#: An agent rated on fewer games than this is provisional: listed with its rating, given no place
#: and no "surely above" either way. Measured (site_builder/bench/calibration_boards.py): an interval of
#: 2 games covers its agent's strength 66% of the time, of 5 games 90%, of 10 games 94%, of 20 95%.
MIN_GAMES = 10


def provisional(row: Mapping[str, Any]) -> bool:
    """Whether a rating row is provisional (fewer than MIN_GAMES games), so placed nowhere."""
    return bool(row.get("provisional", row.get("games", MIN_GAMES) < MIN_GAMES))


def _roles_by_game(roles: Mapping[str, int]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for role in roles:
        game, _, name = role.rpartition(":")
        out.setdefault(game, set()).add(name)
    return out


def share_a_role(a: Mapping[str, int], b: Mapping[str, int]) -> bool:
    """Whether two agents (their rows' `roles`) held a common role in every game both were rated in.

    Where they did not (one seen only as the chameleon, the other only as a non-chameleon), their
    games compare them only through the role advantages, which assume each agent is as strong in
    every role as in the roles it was seen in: an assumption their games cannot test, so no claim
    that one is above the other is made between them."""
    mine, theirs = _roles_by_game(a), _roles_by_game(b)
    return all(mine[game] & theirs[game] for game in mine.keys() & theirs.keys())


def signature(row: Mapping[str, Any]) -> tuple[int | None, frozenset[str]]:
    """What decides which rows a rating row can be compared with (`comparable`): its `linked`
    group and the roles it was seen in. Rows of one signature are all comparable, or none are."""
    return row.get("linked", 0), frozenset(row.get("roles") or {})


def comparable(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether the games can tell two rating rows apart: their games tie them together (`linked`,
    `_linked`) and share a role (`share_a_role`). Rows without `linked` are taken as tied."""
    linked = a.get("linked", 0), b.get("linked", 0)
    return linked[0] is not None and linked[0] == linked[1] and share_a_role(a.get("roles") or {},
                                                                             b.get("roles") or {})


def surely_above(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether rating row `a` is surely above row `b` on the table's board-wide intervals: neither
    provisional, the games can compare them (`comparable`) and a's `band` lies wholly above b's."""
    if provisional(a) or provisional(b) or not a.get("band") or not b.get("band"):
        return False
    return a["band"][0] > b["band"][1] and comparable(a, b)


class Sure:
    """How many of some rating rows are surely above, or surely below, any row (`surely_above`):
    counted by bisection in the sorted bounds of each group of rows of one `signature`, so N
    rows cost N log N (times the groups), not N squared. Provisional rows and rows without a band
    are left out of the rows counted."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]):
        groups: dict[tuple[int | None, frozenset[str]], tuple[list[float], list[float], Mapping[str, Any]]] = {}
        self.count = 0
        for row in rows:
            if provisional(row) or not row.get("band"):
                continue
            lows, highs, _ = groups.setdefault(signature(row), ([], [], row))
            lows.append(row["band"][0])
            highs.append(row["band"][1])
            self.count += 1
        self.groups = [(sorted(lows), sorted(highs), first) for lows, highs, first in groups.values()]

    def _sharing(self, row: Mapping[str, Any]) -> list[tuple[list[float], list[float], Mapping[str, Any]]]:
        return [g for g in self.groups if comparable(g[2], row)]

    def above(self, row: Mapping[str, Any]) -> int:
        """The rows counted whose band lies wholly above this row's (and that are `comparable` with it)."""
        high = row["band"][1]
        return sum(len(lows) - bisect.bisect_right(lows, high) for lows, _, _ in self._sharing(row))

    def below(self, row: Mapping[str, Any]) -> int:
        """The rows counted whose band lies wholly below this row's (and that are `comparable` with it)."""
        low = row["band"][0]
        return sum(bisect.bisect_left(highs, low) for _, highs, _ in self._sharing(row))


def rank_upper_bounds(rows: Sequence[Mapping[str, Any]]) -> dict[str, int | None]:
    """1 + the number of rows surely above each row (`surely_above`); None for a provisional row or
    one without a band."""
    sure = Sure(rows)
    return {row["agent"]: None if provisional(row) or not row.get("band") else 1 + sure.above(row) for row in rows}


def leaderboard(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                game: str | None = None, resamples: int | None = None,
                anchors: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Any]:
    """Ratings of one game's replays (`game`), or {"overall": all games, "by_game": each game} when
    None (cooperative games have no table of their own and no part in the overall one).
    `anchors` ({"overall" or a game: {parameter: value}}) holds those fixed (see `table`)."""
    if game is not None:
        return board(games, agents, seed=seed, game=game, resamples=resamples)
    tallies: dict[str, Tally] = {}
    by_game: dict[str, list[ScoredGame]] = {}
    for g in games:
        by_game.setdefault(g.game, []).append(g)
    for name, played in by_game.items():
        tallies[name] = pattern_tally(played)
    draws = RESAMPLES if resamples is None else resamples

    def rated(names: Sequence[str], name: str | None) -> dict[str, Any]:
        held = None if anchors is None else anchors.get(name or "overall", {})
        return tallied_table([tallies[n] for n in names], agents, seed=seed, game=name, resamples=draws, anchors=held)

    competitive = sorted(n for n in tallies if not cooperative(n))
    return {"overall": rated(competitive, None), "by_game": {name: rated([name], name) for name in competitive}}


def count_patterns(rankings: Iterable[Ranking | None], game: str = "") -> tuple[Counter[Pattern], int, int]:
    """Patterns of `game` with their game counts, and how many rankings were None (not rateable)
    and forfeits."""
    counts: Counter[Pattern] = Counter()
    skipped = forfeits = 0
    for ranking in rankings:
        if ranking is None:
            skipped += 1
            continue
        forfeits += any(score == FORFEIT_SCORE for _, score, _ in ranking)
        counts[pattern(ranking, game)] += 1
    return counts, skipped, forfeits


#: A game's rating inputs as plain data (`pattern_tally`): each pattern's game, agents, ranks,
#: roles and count.
Tally = dict[str, Any]


def pattern_tally(games: Iterable[ScoredGame]) -> Tally:
    """What the fit reads of `games` (of one game) as JSON-able data: the counted patterns (in
    pattern order), the unrateable and the forfeited games. Tallies of disjoint sets of games add
    up (`merge_tallies`), so a new game re-counts only its part."""
    counts: Counter[Pattern] = Counter()
    skipped = forfeits = 0
    for g in games:
        found, s, f = count_patterns([game_ranking(g)], g.game)
        counts.update(found)
        skipped += s
        forfeits += f
    return {"patterns": pattern_rows(counts), "skipped": skipped, "forfeits": forfeits}


def pattern_rows(counts: Mapping[Pattern, int]) -> list[list[Any]]:
    """Counted patterns as JSON-able rows [game, agents, places, roles, count], in pattern order."""
    return [[game, list(agents), list(places), [list(r) for r in roles], counts[(game, agents, places, roles)]]
            for game, agents, places, roles in sorted(counts)]


def merge_tallies(tallies: Iterable[Tally]) -> tuple[Counter[Pattern], int, int]:
    """Tallies added up, as `count_patterns` gives them for all their games at once."""
    counts: Counter[Pattern] = Counter()
    skipped = forfeits = 0
    for tally in tallies:
        for game, agents, places, roles, count in tally["patterns"]:
            counts[(game, tuple(agents), tuple(places), tuple(tuple(r) for r in roles))] += count
        skipped += tally["skipped"]
        forfeits += tally["forfeits"]
    return counts, skipped, forfeits


def tallied_table(tallies: Iterable[Tally], agents: Mapping[str, AgentInfo], *, seed: int, game: str | None = None,
                  resamples: int | None = None, keep: KeepDerived = compute_derived,
                  anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rating table of the games behind `tallies` (`pattern_tally`): `board`'s table of them.

    `keep` may answer the fit from an earlier scoring with the same patterns: games that add no
    pattern (self-play, as in the Werewolf paper's Werewolf) change the skipped count, not the fit. `anchors`:
    see `table`.
    """
    counts, skipped, forfeits = merge_tallies(tallies)
    return table(counts, agents, seed=seed, game=game, resamples=RESAMPLES if resamples is None else resamples,
                 skipped=skipped, forfeits=forfeits, keep=keep, anchors=anchors)


def board(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          game: str | None = None, resamples: int | None = None) -> dict[str, Any]:
    """One rating table, best first (ties: agent key): of one game, or (game None) of every
    competitive game, each weighing the same. `resamples` defaults to RESAMPLES; 0 gives the point
    estimates without intervals."""
    by_game: dict[str, list[ScoredGame]] = {}
    for g in games:
        if (game is None and not cooperative(g.game)) or g.game == game:
            by_game.setdefault(g.game, []).append(g)
    return tallied_table([pattern_tally(by_game[name]) for name in sorted(by_game)], agents, seed=seed, game=game,
                         resamples=resamples)


def table(counts: Mapping[Pattern, int], agents: Mapping[str, AgentInfo], *, seed: int, game: str | None,
          resamples: int, skipped: int = 0, forfeits: int = 0, keep: KeepDerived = compute_derived,
          anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rating table of counted patterns (see `board`): a row per agent, and the advantage of
    each role that tells agents apart.

    With `anchors` (agent -> its rating, "game:role" -> BASE + its advantage, both on the Elo
    scale, as `anchors_of` reads them from a table), those are held fixed and only the others are
    fitted and listed: a contributor's rows against the maintainers' table
    (site_builder/scoring/board.py); their `rank_upper_bound` is left to the board, which ranks
    them against that table."""
    seated = {a for _, members, _, _ in counts for a in members}
    named = seated | {k for _, _, _, roles in counts for r in roles for k in r}
    held = {a: anchors[a] for a in sorted(named) if anchors is not None and a in anchors}
    inputs: dict[str, Any] = {"patterns": pattern_rows(counts), "resamples": resamples}
    if anchors is not None:
        inputs["anchors"] = held
    fitted = keep(f"ratings/fit/{game or 'overall'}", inputs, seated,
                  lambda: _fitted(counts, agents, seed=seed, resamples=resamples, game=game,
                                  anchors=None if anchors is None else held))
    games_rated = Counter()
    for (name, *_), n in counts.items():
        games_rated[name] += n
    return {"game": game, "model": MODEL, "scale": {"base": BASE, "points_per_tenfold_odds": PER_TENFOLD},
            "resamples": fitted["resamples"], "level": 0.95, "games_rated": sum(counts.values()),
            "forfeits_rated": forfeits, "games_skipped": {"single_agent": skipped},
            **({} if game is not None else {"weights": "each game the same",
                                            "games_by_game": dict(sorted(games_rated.items()))}),
            "roles": fitted["roles"], "agents": fitted["agents"]}


def game_weights(counts: Mapping[Pattern, int]) -> dict[str, float]:
    """Each game's factor so that every game weighs the same: the games rated over the games
    rated of that game, over the number of games (1 each when one game is rated)."""
    per_game: Counter[str] = Counter()
    for (name, *_), n in counts.items():
        per_game[name] += n
    total = sum(per_game.values())
    return {name: total / (len(per_game) * n) for name, n in per_game.items()}


def _resampled(design: Design, seed: int, resamples: int) -> np.ndarray:
    """Resampled pattern counts: one multinomial draw per game of its own games (a table of one
    game draws with `seed` itself), so each game keeps its number of games in every resample."""
    names = sorted({game for game, *_ in design.patterns})
    if len(names) == 1:
        return resample_counts(design.counts, seed=seed, resamples=resamples)
    out = np.zeros((resamples, len(design.patterns)))
    for name in names:
        columns = [u for u, (game, *_) in enumerate(design.patterns) if game == name]
        out[:, columns] = resample_counts(design.counts[columns], seed=_subseed(seed, name), resamples=resamples)
    return out


def _subseed(seed: int, name: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{name}".encode(), digest_size=8).digest(), "big")


def _fitted(counts: Mapping[Pattern, int], agents: Mapping[str, AgentInfo], *, seed: int,
            resamples: int, game: str | None = None, anchors: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The rows of a rating table, best first, its roles' advantages, and the resamples behind
    their intervals: a function of the patterns' counts alone (`Design` sorts them), the agents'
    labels, the seed (and the anchors' values, whose agents and roles get no row)."""
    rows = []
    roles: list[dict[str, Any]] = []
    used = 0
    held = None if anchors is None else {a: (value - BASE) / ELO for a, value in anchors.items()}
    if counts:
        weights = game_weights(counts) if game is None else None
        design = Design(counts, weights)
        games_of = design.counts @ design.members
        role_games = design.counts @ design.role_games
        intervals: dict[str, list[float] | None] = dict.fromkeys(design.parameters)
        drawn = _resampled(design, seed, resamples) if resamples > 0 else None
        used = resamples if resamples > 0 else 0
        if held is None:
            point = fit(design, design.counts[None, :])[0]
            values = None if drawn is None else fit(design, drawn, start=point)
        else:
            point, values = _fit_around(design, drawn, held)
        if drawn is not None and values is not None:
            # An agent (a role) none of whose games was drawn is not rated in that resample.
            present = np.hstack([drawn @ design.members, drawn @ design.role_games]) > 0
            for i, name in enumerate(design.parameters):
                scale = elo if i < len(design.agents) else (lambda x: ELO * x)
                behind = games_of[i] if i < len(design.agents) else role_games[i - len(design.agents)]
                ci = percentile_interval(np.where(present[:, i], scale(values[:, i]), np.nan),
                                         expanded_level(int(round(behind))))
                intervals[name] = None if ci is None else [ci[0], ci[1]]
        covered = _role_games(counts)
        pulled = shrinkage(design, point)
        linked = _linked(design, held)
        for i, agent in enumerate(design.agents):
            if held is not None and agent in held:
                continue  # an anchor: its row is the table it was taken from
            info = agents.get(agent)
            games = int(round(games_of[i]))
            rows.append({"agent": agent, "label": info.label if info else agent, "rating": elo(float(point[i])),
                         "rating_ci": intervals[agent], "band": None, "games": games,
                         "provisional": games < MIN_GAMES, "shrinkage": float(pulled[i]), "linked": linked[agent],
                         "rank_upper_bound": None,
                         "roles": {_shown(k, game): n for k, n in sorted(covered.get(agent, {}).items())}})
        if drawn is not None and values is not None:
            _bands(rows, design, values, present)
        if held is None:  # a contributor's rows are ranked by the board, against the maintainers' table
            upper = rank_upper_bounds(rows)
            for row in rows:
                row["rank_upper_bound"] = upper[row["agent"]]
        rows.sort(key=lambda row: (-row["rating"], row["agent"]))
        for i, name in enumerate(design.parameters[len(design.agents):], start=len(design.agents)):
            if held is not None and name in held:
                continue
            roles.append({"role": _shown(name, game), "advantage": ELO * float(point[i]), "ci": intervals[name],
                          "games": int(round(role_games[i - len(design.agents)]))})
    return {"resamples": used, "agents": rows, "roles": roles}


def shrinkage(design: Design, point: np.ndarray) -> np.ndarray:
    """Per agent, the share of what the fit knows of its strength that is its one virtual draw:
    the draw's information over all of it (the games' and the draw's, at the fitted strengths).
    A rating is pulled about that share of the way from what its games alone say toward 1000:
    half the way for an agent whose games weigh what one draw does."""
    p = 1.0 / (1.0 + np.exp(-(point @ design.model.T)))
    n = design.counts @ design.weights
    games = (n * p * (1 - p)) @ design.model[:, :len(design.agents)] ** 2
    q = 1.0 / (1.0 + np.exp(-point[:len(design.agents)]))
    draw = q * (1 - q)
    return draw / (draw + games)


def _linked(design: Design, held: Mapping[str, float] | None) -> dict[str, int | None]:
    """Per agent, which agents its games tie it to: agents with the same number are compared by
    their games, whatever strengths and role advantages fit them; between agents of different
    numbers (or None) the difference of their ratings is not told by the games at all, only by the
    virtual draws (agents that never met anyone who met the other; two agents each seen in one role
    against one opponent, where the role's advantage and their strengths trade off exactly).

    A difference of two strengths is told by the games when it is orthogonal to every direction
    the games cannot see (the null space of the pairs' rows of the model): agents whose rows of a
    basis of that null space are equal are tied together. The largest such group is 0. With
    `held` (a contributor's table fitted against the maintainers'), only the free parameters vary:
    an agent the anchors tie down is 0, any other None."""
    free = [i for i, name in enumerate(design.parameters) if held is None or name not in held]
    model = design.model[:, free]
    if model.shape[1] == 0:
        return {}
    values, vectors = np.linalg.eigh(model.T @ model)
    null = vectors[:, values < 1e-9 * max(1.0, float(values.max(initial=0.0)))]
    at = {design.parameters[i]: j for j, i in enumerate(free)}
    agents = [a for a in design.agents if a in at]
    if held is not None:
        return {a: 0 if np.abs(null[at[a]]).max(initial=0.0) < 1e-6 else None for a in agents}
    groups: list[tuple[np.ndarray, list[str]]] = []  # (a member's row of the null space, members)
    for a in agents:
        row = null[at[a]]
        home = next((members for first, members in groups if np.abs(first - row).max(initial=0.0) < 1e-6), None)
        if home is None:
            groups.append((row, [a]))
        else:
            home.append(a)
    groups.sort(key=lambda g: (-len(g[1]), g[1][0]))
    return {a: number for number, (_, members) in enumerate(groups) for a in members}


def _bands(rows: list[dict[str, Any]], design: Design, values: np.ndarray, present: np.ndarray) -> None:
    """Each non-provisional row's `band`: the 95% intervals of the table's non-provisional ratings
    widened together until all of them hold at once in 95% of the resamples
    (`stats.simultaneous_intervals`), so "surely above" read off them is a claim about the whole
    table, not about one pair."""
    column = {a: i for i, a in enumerate(design.agents)}
    shown = [row for row in rows if not row["provisional"] and row["rating_ci"]]
    if not shown:
        return
    at = [column[row["agent"]] for row in shown]
    drawn = np.where(present[:, at], elo(values[:, at]), np.nan)
    for row, band in zip(shown, simultaneous_intervals(drawn)):
        row["band"] = None if band is None else [band[0], band[1]]


def _shown(role: str, game: str | None) -> str:
    """A role as a table names it: "seer" in Werewolf's own table, "werewolf:seer" overall."""
    return role.split(":", 1)[1] if game is not None and role.startswith(game + ":") else role


def _role_games(counts: Mapping[Pattern, int]) -> dict[str, Counter[str]]:
    """Per agent, the games in which it held each role (a game counts once per role it held)."""
    out: dict[str, Counter[str]] = {}
    for (_, agents, _, roles), n in counts.items():
        for agent, held in zip(agents, roles):
            mine = out.setdefault(agent, Counter())
            for role in set(held):
                mine[role] += n
    return out
