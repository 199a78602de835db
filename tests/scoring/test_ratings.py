"""The Bradley-Terry rating across agents: rankings per game, hand-checked fits and bootstrap properties."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from builders import builtin, replay, scored

from site_builder.scoring import ratings, stats
from site_builder.scoring.model import AgentInfo, ScoredGame, SeatInfo, agent_key

PD_SETUP = {"payoffs": {"id": "pd-1", "cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}}
DESCS = {name: builtin(name, f"prisoners_dilemma/{name}") for name in ("a", "b", "c", "d")}
KEYS = {name: agent_key(d) for name, d in DESCS.items()}
AGENTS = {KEYS[n]: AgentInfo(KEYS[n], n, {k: v for k, v in d.items() if k != "name"}) for n, d in DESCS.items()}


@pytest.fixture(scope="module")
def base() -> ScoredGame:
    """One real three-seat replay, re-scored; the synthetic games below vary its seats and outcome."""
    inputs = [("act", s, {"choice": "cooperate"}) for s in range(3)]
    return scored(replay("prisoners_dilemma", PD_SETUP, [DESCS["a"]] * 3, inputs, rules={"rounds": 1}))


def game(base: ScoredGame, game_id: str, seats: Sequence[tuple[str, bool]], *, name: str = "prisoners_dilemma",
         forfeit: int | None = None) -> ScoredGame:
    """A game whose seat i is played by agent seats[i][0] and won iff seats[i][1]; or, with
    `forfeit`, a game that seat forfeited (no winners)."""
    if forfeit is not None:
        infos = tuple(SeatInfo(i, f"P{i}", "player", KEYS[agent], False) for i, (agent, _) in enumerate(seats))
        return dataclasses.replace(base, game_id=game_id, game=name, status="invalid", seats=infos, winners=(),
                                   result={"forfeit": {"seat": forfeit, "phase": "choose", "reason": "test"}})
    infos = tuple(SeatInfo(i, f"P{i}", "player", KEYS[agent], won) for i, (agent, won) in enumerate(seats))
    return dataclasses.replace(base, game_id=game_id, game=name, seats=infos,
                               winners=tuple(i for i, (_, won) in enumerate(seats) if won))


def rows(board: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {AGENTS[r["agent"]].label: r for r in board["agents"]}


def test_competition_ranks():
    assert ratings.ranks([1.0, 0.5, 1.0, 0.0]) == [1, 3, 1, 4]
    assert ratings.ranks([0.0, 0.0]) == [1, 1]


def test_game_ranking_scores_share_of_seats_won(base):
    g = game(base, "g1", [("a", True), ("a", False), ("b", True)])
    player = "prisoners_dilemma:player"
    assert ratings.game_ranking(g) == sorted([(KEYS["a"], 0.5, (player, player)), (KEYS["b"], 1.0, (player,))])
    assert ratings.game_ranking(game(base, "g2", [("a", True)] * 3)) is None           # self-play
    # A forfeit: the forfeiter last, the others tied first.
    forfeited = game(base, "g3", [("a", False), ("b", False), ("c", False)], forfeit=1)
    # (a forfeit says nothing about roles: its entries carry none)
    assert ratings.game_ranking(forfeited) == sorted([(KEYS["a"], 0.0, ()), (KEYS["b"], -1.0, ()), (KEYS["c"], 0.0, ())])
    assert ratings.game_ranking(game(base, "g4", [("a", False)] * 3, forfeit=0)) is None  # self-play


def solve(equation, lo: float = -50.0, hi: float = 50.0) -> float:
    """The root of an increasing function by bisection (the hand computation's equation)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if equation(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def test_one_game_fit_by_hand(base):
    # A beats B once. With one virtual draw each against a strength-0 agent, the maximum has
    # r_A = -r_B = x where the derivative of log s(2x) + log s(x)/2 + log s(-x)/2 vanishes:
    # (1 - s(2x)) + (1/2 - s(x)) = 0.
    board = ratings.leaderboard([game(base, "g1", [("a", True), ("b", False), ("b", False)])], AGENTS, seed=1,
                                game="prisoners_dilemma")
    x = solve(lambda v: -((1 - sigmoid(2 * v)) + (0.5 - sigmoid(v))))
    r = rows(board)
    scale = 400 / math.log(10)
    assert math.isclose(r["a"]["rating"], 1000 + scale * x, abs_tol=1e-6)
    assert math.isclose(r["b"]["rating"], 1000 - scale * x, abs_tol=1e-6)
    assert r["a"]["games"] == r["b"]["games"] == 1
    assert board["games_rated"] == 1


def test_a_three_agent_game_weighs_each_pair_by_one_over_agents_minus_one(base):
    # A first, B and C tied second: pairs A>B and A>C weigh 1/2 each, B=C a draw of weight 1/2.
    # By symmetry r_B = r_C = y and r_A = x; at the maximum both derivatives vanish.
    board = ratings.leaderboard([game(base, "g1", [("a", True), ("b", False), ("c", False)])], AGENTS, seed=1,
                                game="prisoners_dilemma")
    r = rows(board)
    x, y = [(v - 1000) / (400 / math.log(10)) for v in (r["a"]["rating"], r["b"]["rating"])]
    assert math.isclose(r["b"]["rating"], r["c"]["rating"], abs_tol=1e-9)
    assert abs(2 * 0.5 * (1 - sigmoid(x - y)) + (0.5 - sigmoid(x))) < 1e-9
    assert abs(0.5 * (0 - sigmoid(y - x)) + 0.5 * (0.5 - 0.5) + (0.5 - sigmoid(y))) < 1e-9


def test_a_draw_moves_nobody(base):
    board = ratings.leaderboard([game(base, "g1", [("a", False), ("b", False), ("c", False)])], AGENTS, seed=1,
                                game="prisoners_dilemma")
    assert {r["rating"] for r in board["agents"]} == {1000.0}


def test_a_perfect_record_stays_finite(base):
    games = [game(base, f"g{i}", [("a", True), ("b", False), ("b", False)]) for i in range(200)]
    r = rows(ratings.leaderboard(games, AGENTS, seed=1, game="prisoners_dilemma", resamples=50))
    assert math.isfinite(r["a"]["rating"]) and r["a"]["rating"] > 1000 + 400  # better than 10 to 1
    assert r["a"]["rating"] + r["b"]["rating"] == pytest.approx(2000)


def test_the_fit_is_the_maximum_of_the_likelihood(base):
    # At the fitted ratings the gradient of the log-likelihood (with the virtual draws) is zero.
    outcomes = [[("a", True), ("b", False), ("c", False)], [("b", True), ("c", False), ("a", False)],
                [("c", True), ("a", True), ("b", False)], [("a", False), ("b", False), ("c", True)]]
    games = [game(base, f"g{i:03d}", outcomes[(i * 7) % 4 if i % 5 else 0]) for i in range(40)]
    r = {k: (v["rating"] - 1000) / (400 / math.log(10)) for k, v in
         rows(ratings.leaderboard(games, AGENTS, seed=1, game="prisoners_dilemma", resamples=0)).items()}
    gradient = {k: 0.5 - sigmoid(v) for k, v in r.items()}
    for g in games:
        ranking = ratings.game_ranking(g)
        names = [AGENTS[a].label for a, _, _ in ranking]
        places = ratings.ranks([s for _, s, _ in ranking])
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i != j:
                    won = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    gradient[a] += (won - sigmoid(r[a] - r[b])) / (len(names) - 1)
    assert max(abs(v) for v in gradient.values()) < 1e-8


def test_rank_upper_bound_on_a_hand_made_table():
    bands = {"A": [10.0, 12.0], "B": [9.0, 11.0], "C": [5.0, 8.0], "D": [1.0, 5.0], "E": None}
    table = [{"agent": k, "band": band, "games": 40, "roles": {"player": 40}} for k, band in bands.items()]
    # A: nobody's lower bound is above 12. B: A's 10 is not above 11. C: 10 and 9 are above 8.
    # D: 10, 9 are above 5, C's 5 is not (equal). E: no interval, no rank.
    assert ratings.rank_upper_bounds(table) == {"A": 1, "B": 1, "C": 3, "D": 3, "E": None}
    # A provisional row (fewer than MIN_GAMES games) is neither ranked nor counted above another.
    table[0]["games"] = ratings.MIN_GAMES - 1
    assert ratings.rank_upper_bounds(table) == {"A": None, "B": 1, "C": 2, "D": 2, "E": None}
    # Rows seen in no common role, or that the games do not tie together, are never counted.
    table[1]["roles"] = {"chameleon": 40}
    table[2]["roles"] = {"non_chameleon": 40}
    table[3]["linked"] = 1
    assert ratings.rank_upper_bounds(table) == {"A": None, "B": 1, "C": 1, "D": 1, "E": None}


def test_percentile_interval():
    values = np.array([float(v) for v in range(200)] + [np.nan] * 7)  # undefined resamples are left out
    # floor(0.025 * 200) = 5 -> 5.0; ceil(0.975 * 200) - 1 = 194 -> 194.0
    assert stats.percentile_interval(values) == (5.0, 194.0)
    assert stats.percentile_interval(np.array([np.nan])) is None


def test_a_resample_is_a_multinomial_draw_of_the_distinct_items():
    # Drawing n of 3 kinds with counts (5, 3, 2): every resample still has n items, the mean
    # share of each kind is its count / n, and the seed fixes the draws.
    counts = np.array([5, 3, 2])
    drawn = stats.resample_counts(counts, seed=7, resamples=4000)
    assert (drawn.sum(axis=1) == 10).all()
    assert np.allclose(drawn.mean(axis=0), counts, atol=0.15)
    assert (drawn == stats.resample_counts(counts, seed=7, resamples=4000)).all()
    many = np.ones(50, dtype=int)  # every item distinct: the index-draw path, with the same properties
    drawn = stats.resample_counts(many, seed=7, resamples=4000)
    assert (drawn.sum(axis=1) == len(many)).all() and (drawn == stats.resample_counts(many, seed=7, resamples=4000)).all()
    assert np.allclose(drawn.mean(axis=0), 1, atol=0.1)


def test_index_draws_made_in_blocks_land_where_one_block_puts_them(monkeypatch):
    many = np.ones(50, dtype=int)
    whole = stats.resample_counts(many, seed=11, resamples=300)
    monkeypatch.setattr(stats, "BLOCK", 7 * len(many))  # blocks of 7 resamples, the last one short
    assert np.array_equal(stats.resample_counts(many, seed=11, resamples=300), whole)


def dominance(base: ScoredGame, n: int = 24) -> list[ScoredGame]:
    """A beats B beats C in every game (B's two seats: one wins, one loses; C never wins)."""
    return [game(base, f"dom-{i:02d}", [("a", True), ("b", i % 2 == 0), ("c", False)]) for i in range(n)]


def test_dominant_agent_ranks_first(base):
    board = ratings.leaderboard(dominance(base), AGENTS, seed=3, game="prisoners_dilemma", resamples=60)
    order = [AGENTS[r["agent"]].label for r in board["agents"]]
    assert order == ["a", "b", "c"]
    r = rows(board)
    assert r["a"]["rank_upper_bound"] == 1
    assert r["a"]["rating_ci"][0] > r["c"]["rating_ci"][1]
    assert r["c"]["rank_upper_bound"] >= 2
    assert board["resamples"] == 60 and board["level"] == 0.95


def test_shuffling_games_changes_nothing(base):
    games = dominance(base, 12) + [game(base, f"mix-{i}", [("b", True), ("c", True), ("a", False)]) for i in range(6)]
    expected = json.dumps(ratings.leaderboard(games, AGENTS, seed=9, resamples=30), sort_keys=True)
    for k in range(3):
        shuffled = games[:]
        random.Random(k).shuffle(shuffled)
        assert json.dumps(ratings.leaderboard(shuffled, AGENTS, seed=9, resamples=30), sort_keys=True) == expected


def test_self_play_and_invalid_games_are_skipped(base):
    games = dominance(base, 8)
    extra = [game(base, f"solo-{i}", [("d", i % 2 == 0)] * 3) for i in range(5)]
    extra += [game(base, "bad-1", [("d", False)] * 3, forfeit=2)]
    with_extra = ratings.leaderboard(games + extra, AGENTS, seed=4, game="prisoners_dilemma", resamples=20)
    without = ratings.leaderboard(games, AGENTS, seed=4, game="prisoners_dilemma", resamples=20)
    assert with_extra["agents"] == without["agents"]
    assert KEYS["d"] not in {r["agent"] for r in with_extra["agents"]}
    assert with_extra["games_rated"] == 8
    assert with_extra["games_skipped"] == {"single_agent": 6}


def test_a_forfeit_lowers_the_forfeiter_only(base):
    games = [game(base, f"g{i}", [("a", True), ("b", False), ("c", False)]) for i in range(4)]
    forfeits = [game(base, f"z{i}", [("a", False), ("b", False), ("c", False)], forfeit=1) for i in range(4)]
    before = rows(ratings.leaderboard(games, AGENTS, seed=4, game="prisoners_dilemma", resamples=20))
    after_board = ratings.leaderboard(games + forfeits, AGENTS, seed=4, game="prisoners_dilemma", resamples=20)
    after = rows(after_board)
    assert after_board["forfeits_rated"] == 4 and after_board["games_rated"] == 8
    assert after["b"]["rating"] < before["b"]["rating"]  # b forfeited four times: ranked last each time
    assert after["c"]["rating"] > before["c"]["rating"]  # c tied first in those games, above b
    assert after["b"]["rating"] < after["c"]["rating"]


def test_overall_and_per_game_boards(base):
    pd = dominance(base, 6)
    other = [game(base, f"pg-{i}", [("c", True), ("a", False), ("a", False)], name="public_good") for i in range(6)]
    result = ratings.leaderboard(pd + other, AGENTS, seed=2, resamples=20)
    assert set(result) == {"overall", "by_game"}
    assert sorted(result["by_game"]) == ["prisoners_dilemma", "public_good"]
    assert result["overall"]["game"] is None and result["overall"]["games_rated"] == 12
    pg = result["by_game"]["public_good"]
    assert pg["game"] == "public_good" and pg["games_rated"] == 6
    assert [AGENTS[r["agent"]].label for r in pg["agents"]] == ["c", "a"]
    assert pg == ratings.leaderboard(pd + other, AGENTS, seed=2, game="public_good", resamples=20)
    # Restricting to one game ignores the others entirely.
    assert pg == ratings.leaderboard(other, AGENTS, seed=2, game="public_good", resamples=20)


def test_nothing_to_rate(base):
    board = ratings.leaderboard([game(base, "solo", [("a", True)] * 3)], AGENTS, seed=1, game="prisoners_dilemma")
    assert board["agents"] == [] and board["games_rated"] == 0 and board["resamples"] == 0
    assert ratings.leaderboard([], AGENTS, seed=1) == {"overall": ratings.board([], AGENTS, seed=1), "by_game": {}}


def test_result_is_plain_json(base):
    result = ratings.leaderboard(dominance(base, 6), AGENTS, seed=1, resamples=10)
    assert json.loads(json.dumps(result, allow_nan=False)) == result


# -- the design's matrices: built with numpy, the same to the last bit as entry-by-entry loops --

class ReferenceDesign:
    """The design built entry by entry (the loops `ratings.Design` replaced): the oracle its
    matrices must equal bit for bit, the outer products' CSR in the same entry order included."""

    def __init__(self, counts: Mapping[ratings.Pattern, int], game_weights: Mapping[str, float] | None = None):
        from scipy import sparse
        self.patterns = sorted(counts)
        self.game_weights = dict(game_weights) if game_weights is not None else None
        self.counts = np.array([counts[p] for p in self.patterns], dtype=float)
        self.agents = sorted({a for _, agents, _, _ in self.patterns for a in agents})
        index = {a: i for i, a in enumerate(self.agents)}
        pairs: dict[tuple[int, int, tuple[tuple[str, float], ...]], int] = {}
        cells: list[tuple[int, int, float, float]] = []
        for u, (game, agents, places, roles) in enumerate(self.patterns):
            factor = 1.0 if game_weights is None else game_weights.get(game, 1.0)
            weight = factor / (len(agents) - 1)
            mixes = [ratings._mix(r) if r else {} for r in roles]
            for i in range(len(agents)):
                for j in range(i + 1, len(agents)):
                    diff = {k: mixes[i].get(k, 0.0) - mixes[j].get(k, 0.0) for k in {*mixes[i], *mixes[j]}}
                    shown = tuple(sorted((k, v) for k, v in diff.items() if v != 0.0))
                    pair = pairs.setdefault((index[agents[i]], index[agents[j]], shown), len(pairs))
                    first = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    cells.append((u, pair, weight, weight * first))
        self.roles = sorted({k for _, _, shown in pairs for k, _ in shown})
        self.parameters = [*self.agents, *self.roles]
        at = {p: i for i, p in enumerate(self.parameters)}
        self.weights = np.zeros((len(self.patterns), len(pairs)))
        self.scores = np.zeros((len(self.patterns), len(pairs)))
        for u, pair, weight, score in cells:
            self.weights[u, pair] += weight
            self.scores[u, pair] += score
        self.model = np.zeros((len(pairs), len(self.parameters)))
        rows, columns, values = [], [], []
        for (i, j, shown), q in pairs.items():
            entries = [(i, 1.0), (j, -1.0), *((at[k], v) for k, v in shown)]
            for k, v in entries:
                self.model[q, k] = v
            for k, v in entries:
                for l, w in entries:
                    rows.append(q)
                    columns.append(k * len(self.parameters) + l)
                    values.append(v * w)
        self.outer = sparse.csr_matrix((values, (rows, columns)),
                                       shape=(len(pairs), len(self.parameters) ** 2)).T.tocsr()
        self.members = np.zeros((len(self.patterns), len(self.agents)))
        self.role_games = np.zeros((len(self.patterns), len(self.roles)))
        role_at = {k: i for i, k in enumerate(self.roles)}
        for u, (_, agents, _, roles) in enumerate(self.patterns):
            self.members[u, [index[a] for a in agents]] = 1.0
            for k in {k for r in roles for k in r if k in role_at}:
                self.role_games[u, role_at[k]] = 1.0


def random_counts(seed: int, patterns: int) -> Counter:
    """Patterns of 2 to 5 agents of three games: ties, forfeits (no roles), one-role games, and
    agents dealt several seats of mixed roles."""
    rng = random.Random(seed)
    counts: Counter = Counter()
    agents = [f"agent{i:02d}" for i in range(12)]
    for _ in range(patterns):
        game = rng.choice(["chameleon", "werewolf", "prisoners_dilemma"])
        who = rng.sample(agents, rng.randint(2, 5))
        forfeit = rng.random() < 0.1
        entries = []
        for a in who:
            score = float(rng.choice([0.0, 0.5, 1.0, 1.0 / 3]))  # repeats make ties
            if forfeit:
                entries.append((a, 0.0, ()))
            elif game == "prisoners_dilemma":
                entries.append((a, score, ("prisoners_dilemma:player",) * rng.randint(1, 2)))
            else:
                seats = rng.randint(1, 3)
                entries.append((a, score, tuple(sorted(ratings.role_key(game, rng.choice(["a", "b", "c"]))
                                                       for _ in range(seats)))))
        if forfeit:
            entries[0] = (entries[0][0], ratings.FORFEIT_SCORE, ())
        counts[ratings.pattern(sorted(entries), game)] += rng.randint(1, 4)
    return counts


def assert_same_design(new: ratings.Design, reference: ReferenceDesign) -> None:
    for name in ("patterns", "game_weights", "agents", "roles", "parameters"):
        assert getattr(new, name) == getattr(reference, name), name
    for name in ("counts", "weights", "scores", "model", "members", "role_games"):
        mine, theirs = getattr(new, name), getattr(reference, name)
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
        assert mine.tobytes() == theirs.tobytes(), name  # bit for bit, -0.0 and all
    assert new.outer.format == reference.outer.format == "csr" and new.outer.shape == reference.outer.shape
    for part in ("data", "indices", "indptr"):  # the entries' order decides the order of later sums
        mine, theirs = getattr(new.outer, part), getattr(reference.outer, part)
        assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes(), part


@pytest.mark.parametrize("seed,patterns,weighted", [(1, 1, False), (2, 6, False), (3, 40, True), (4, 200, True)])
def test_the_design_is_the_entry_by_entry_construction_to_the_last_bit(seed, patterns, weighted):
    counts = random_counts(seed, patterns)
    weights = {"chameleon": 0.25, "werewolf": 3.0} if weighted else None  # prisoners_dilemma: 1
    design = ratings.Design(counts, weights)
    assert_same_design(design, ReferenceDesign(counts, weights))
    assert_same_design(ratings.Design(counts, weights), design)  # the patterns' cache changes nothing
    if patterns > 1:
        assert design.roles and len(design.outer.data) > 4 * len(design.model)  # roles were shown


def test_the_design_of_hand_made_patterns_is_the_entry_by_entry_construction():
    counts = Counter({
        ratings.pattern([("a", 1.0, ("werewolf:villager", "werewolf:wolf")), ("b", 1.0, ("werewolf:villager",)),
                         ("c", 0.0, ("werewolf:wolf",))], "werewolf"): 2,  # a tie and a role mix
        ratings.pattern([("a", 0.0, ("chameleon:chameleon",)), ("b", 1.0, ("chameleon:player",))], "chameleon"): 1,
        ratings.pattern([("b", 0.5, ("prisoners_dilemma:player",)), ("d", 0.5, ("prisoners_dilemma:player",))],
                        "prisoners_dilemma"): 3,  # a one-role game: no role parameter
        ratings.pattern([("a", ratings.FORFEIT_SCORE, ()), ("c", 0.0, ()), ("d", 0.0, ())], "werewolf"): 1,
    })
    for weights in (None, {"werewolf": 0.5}):
        design = ratings.Design(counts, weights)
        assert_same_design(design, ReferenceDesign(counts, weights))
    assert design.roles == ["chameleon:chameleon", "chameleon:player", "werewolf:villager", "werewolf:wolf"]
    assert_same_design(ratings.Design(Counter()), ReferenceDesign(Counter()))  # nothing to rate


# -- anchors: a contributor's agents fitted against ratings held fixed (scoring/board.py) ----------

def anchored_counts(people: int) -> Counter:
    """Patterns of `people` agents, each of whom played two anchored agents A and B a few times,
    and two of whom (p0, p1) also played each other (one linked group, the rest alone)."""
    counts: Counter = Counter()
    for i in range(people):
        me = f"p{i:04d}"
        counts[ratings.pattern(sorted([(me, 1.0, ()), ("A", 0.0, ()), ("B", 0.5, ())]))] += 1 + i % 3
        counts[ratings.pattern(sorted([(me, 0.0, ()), ("A", 1.0, ()), ("B", 0.0, ())]))] += 1
    counts[ratings.pattern(sorted([("p0000", 1.0, ()), ("p0001", 0.0, ()), ("A", 0.0, ())]))] += 2
    return counts


def test_an_anchored_fit_by_groups_is_the_joint_anchored_fit():
    """Fitting each group of linked agents alone (what makes a thousand people cheap) gives the
    joint maximum, point and resamples, with the anchors where they were held."""
    counts = anchored_counts(6)
    held = {"A": 0.4, "B": -0.3}
    design = ratings.Design(counts)
    joint = ratings.fit(design, design.counts[None, :], anchors=held)[0]
    drawn = stats.resample_counts(design.counts, seed=3, resamples=50)
    joint_drawn = ratings.fit(design, drawn, start=joint, anchors=held)
    point, strengths = ratings._fit_around(design, drawn, held)
    assert np.allclose(point, joint, atol=1e-9) and np.allclose(strengths, joint_drawn, atol=1e-8)
    at = {a: i for i, a in enumerate(design.parameters)}
    assert point[at["A"]] == 0.4 and (strengths[:, at["B"]] == -0.3).all()


def test_a_thousand_anchored_agents_are_fitted_group_by_group():
    """1,000 free agents: a joint bootstrap fit would hold 200 matrices of 1,002 x 1,002 (1.6 GB) and
    solve each; by groups it is a thousand fits of one strength (and one of two)."""
    counts = anchored_counts(1000)
    table = ratings.table(counts, {}, seed=1, game=None, resamples=200, anchors={"A": 1100.0, "B": 950.0})
    assert len(table["agents"]) == 1000 and all(r["rating_ci"] for r in table["agents"])
    assert {r["agent"] for r in table["agents"]}.isdisjoint({"A", "B"})  # anchors get no row


# -- roles: an agent always dealt the easier role is not taken for the stronger one ---------------

ROLE_DESCS = {name: builtin(name, f"chameleon/{name}") for name in ("strong", "weak", "c1", "c2")}
ROLE_KEYS = {name: agent_key(d) for name, d in ROLE_DESCS.items()}
ROLE_AGENTS = {ROLE_KEYS[n]: AgentInfo(ROLE_KEYS[n], n, {k: v for k, v in d.items() if k != "name"})
               for n, d in ROLE_DESCS.items()}
#: True log-strengths, and the roles' true advantages (the chameleon's role is the favoured one).
TRUE = {"strong": 0.5, "weak": -0.5, "c1": 0.0, "c2": 0.0}
TRUE_ROLE = {"chameleon": 0.75, "non_chameleon": -0.75}


def role_game(base: ScoredGame, game_id: str, chameleon: str, others: str, rng: random.Random) -> ScoredGame:
    """A four-seat game of two agents: `chameleon` holds the chameleon's seat, `others` the three
    others; the chameleon's side wins with the model's own odds (strengths plus role advantages)."""
    edge = TRUE[chameleon] + TRUE_ROLE["chameleon"] - TRUE[others] - TRUE_ROLE["non_chameleon"]
    chameleon_won = rng.random() < sigmoid(edge)
    seats = tuple(SeatInfo(i, f"P{i}", "chameleon" if i == 0 else "non_chameleon",
                           ROLE_KEYS[chameleon if i == 0 else others], chameleon_won == (i == 0)) for i in range(4))
    return dataclasses.replace(base, game_id=game_id, game="chameleon", seats=seats,
                               winners=tuple(s.seat for s in seats if s.won))


def known_strengths(base: ScoredGame, per_kind: int = 300) -> list[ScoredGame]:
    """The reference agents c1 and c2 play both roles against each other; the weak agent is always
    dealt the chameleon (the favoured role), the strong one never."""
    rng = random.Random(5)
    kinds = [("c1", "c2"), ("c2", "c1"), ("weak", "c1"), ("weak", "c2"), ("c1", "strong"), ("c2", "strong")]
    return [role_game(base, f"g{k}-{i:04d}", chameleon, others, rng)
            for k, (chameleon, others) in enumerate(kinds) for i in range(per_kind)]


def test_the_weaker_agent_in_the_favoured_role_is_not_ranked_first(base):
    games = known_strengths(base)
    table = ratings.leaderboard(games, ROLE_AGENTS, seed=2, game="chameleon", resamples=200)
    rated = {ROLE_AGENTS[r["agent"]].label: r for r in table["agents"]}
    assert rated["strong"]["rating"] > rated["c1"]["rating"] > rated["weak"]["rating"]
    # The same fit without the roles (every seat alike, the fit before scorer 10) ranks the weak one first.
    blind, _, _ = ratings.count_patterns([[(a, score, ()) for a, score, _ in ratings.game_ranking(g)] for g in games],
                                         "chameleon")
    old = {ROLE_AGENTS[r["agent"]].label: r["rating"] for r in
           ratings.table(blind, ROLE_AGENTS, seed=2, game="chameleon", resamples=0)["agents"]}
    assert old["weak"] > old["c1"] > old["strong"]
    # Each agent's and each role's true value lies within its interval; rows say which roles they covered.
    scale = 400 / math.log(10)
    for name, r in rated.items():
        low, high = r["rating_ci"]
        assert low <= 1000 + scale * TRUE[name] <= high, name
    advantages = {a["role"]: a for a in table["roles"]}
    for role, value in TRUE_ROLE.items():
        low, high = advantages[role]["ci"]
        assert low <= scale * value <= high, role
    assert rated["weak"]["roles"] == {"chameleon": 600}
    assert rated["strong"]["roles"] == {"non_chameleon": 600}
    assert rated["c1"]["roles"] == {"chameleon": 600, "non_chameleon": 600}


def test_agents_seen_in_no_common_role_are_never_surely_above_each_other(base):
    table = ratings.leaderboard(known_strengths(base), ROLE_AGENTS, seed=2, game="chameleon", resamples=200)
    rated = {ROLE_AGENTS[r["agent"]].label: r for r in table["agents"]}
    # strong (only ever a non-chameleon) and weak (only ever the chameleon) share no role: their
    # 1000-point gap rests on every agent being as strong in every role, which nothing tests.
    assert rated["strong"]["band"][0] > rated["weak"]["band"][1]
    assert not ratings.surely_above(rated["strong"], rated["weak"])
    assert ratings.surely_above(rated["strong"], rated["c1"]) and ratings.surely_above(rated["c1"], rated["weak"])
    assert rated["strong"]["rank_upper_bound"] == 1 and rated["weak"]["rank_upper_bound"] == 3  # c1 and c2 above it


def twins(base: ScoredGame, games: int = 60) -> list[ScoredGame]:
    """weak only ever the chameleon against c1, strong only ever a non-chameleon against c1."""
    rng = random.Random(3)
    out = []
    for i in range(games):
        out.append(role_game(base, f"t{i:03d}", "weak", "c1", rng))
        out.append(role_game(base, f"u{i:03d}", "c1", "strong", rng))
    return out


def test_agents_the_games_do_not_tie_together_are_told_apart_by_nothing(base):
    # weak plays c1 only as the chameleon, strong plays c1 only as a non-chameleon: the role's
    # advantage and the three strengths trade off exactly, so no difference between them is told.
    table = ratings.leaderboard(twins(base), ROLE_AGENTS, seed=2, game="chameleon", resamples=100)
    rated = {ROLE_AGENTS[r["agent"]].label: r for r in table["agents"]}
    assert len({r["linked"] for r in rated.values()}) == 3
    assert all(ratings.rank_upper_bounds(table["agents"])[r["agent"]] == 1 for r in table["agents"])
    # Games that tie them together (c1 and c2 in both roles against each other, each newcomer
    # against both) give one group.
    tied = ratings.leaderboard(known_strengths(base, 60), ROLE_AGENTS, seed=2, game="chameleon", resamples=0)
    assert {r["linked"] for r in tied["agents"]} == {0}


def test_a_rating_of_few_games_is_provisional_and_says_how_far_its_draw_pulls_it(base):
    few = [game(base, f"f{i}", [("a", i % 2 == 0), ("b", i % 2 == 1)]) for i in range(4)]
    many = few + [game(base, f"m{i}", [("a", i % 2 == 0), ("b", i % 2 == 1)]) for i in range(40)]
    small = rows(ratings.leaderboard(few, AGENTS, seed=1, game="prisoners_dilemma", resamples=50))
    large = rows(ratings.leaderboard(many, AGENTS, seed=1, game="prisoners_dilemma", resamples=50))
    assert small["a"]["provisional"] and small["a"]["rank_upper_bound"] is None and small["a"]["band"] is None
    assert not large["a"]["provisional"] and large["a"]["rank_upper_bound"] == 1 and large["a"]["band"]
    # At even odds a game tells as much of a strength as the virtual draw does (p(1 - p) = 1/4 each):
    # against 4 games the draw is a fifth of what is known, against 44 one forty-fifth.
    assert small["a"]["shrinkage"] == pytest.approx(1 / 5, rel=0.05)
    assert large["a"]["shrinkage"] == pytest.approx(1 / 45, rel=0.05)
    assert ratings.MIN_GAMES == 10
