"""A ranked row's deal values, score and intervals (runner/suite_score.py): shared by the runner's
`standing` and the board, so both read a row the same way."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from runner import suite as suites
from runner import suite_score
from runner.suite_score import deal_value


@pytest.mark.parametrize("game, result, winners, seat, forfeited, value", [
    # The Chameleon: MAgIC's credit over the role's largest (2).
    ("chameleon", {"magic_outcome": "chameleon_wins", "chameleon": 1}, [1], 1, False, 1.0),
    ("chameleon", {"magic_outcome": "chameleon_wins", "chameleon": 1}, [1], 0, False, 0.0),
    ("chameleon", {"magic_outcome": "chameleon_guessed", "chameleon": 1}, [1], 0, False, 0.5),
    ("chameleon", {"magic_outcome": "chameleon_guessed", "chameleon": 1}, [1], 1, False, 0.5),
    ("chameleon", {"magic_outcome": "even_vote", "chameleon": 2}, [0, 1, 3], 2, False, 0.5),
    ("chameleon", {"magic_outcome": "non_chameleons_win", "chameleon": 2}, [0, 1, 3], 0, False, 1.0),
    # Undercover: over 3.
    ("undercover", {"magic_outcome": "even_vote", "undercover": 3}, [3], 3, False, 2 / 3),
    ("undercover", {"magic_outcome": "even_vote", "undercover": 3}, [3], 0, False, 1 / 3),
    ("undercover", {"magic_outcome": "civilians_win", "undercover": 3}, [0, 1, 2], 1, False, 1.0),
    # Points over the best seat's; a tie for the best is a win.
    ("prisoners_dilemma", {"totals": [4, 10, 4]}, [1], 0, False, 0.4),
    ("prisoners_dilemma", {"totals": [10, 10, 4]}, [0, 1], 0, False, 1.0),
    ("prisoners_dilemma", {"totals": [0, 0, 0]}, [0, 1, 2], 2, False, 1.0),
    ("public_good", {"finals": [86.67, 86.67, 126.67]}, [2], 1, False, 86.67 / 126.67),
    # Won or lost; a forfeit is worth nothing.
    ("werewolf", {}, [0, 3], 3, False, 1.0),
    ("werewolf", {}, [0, 3], 2, False, 0.0),
    ("cost_sharing", {"success": True}, [0, 1, 2], 1, False, 1.0),
    ("public_good", {"forfeit": {"seat": 1}}, [], 1, True, 0.0),
    # A result without the field its game's score is read from: won or lost.
    ("prisoners_dilemma", {}, [1], 1, False, 1.0),
    ("chameleon", {}, [0], 1, False, 0.0),
])
def test_a_deals_value(game, result, winners, seat, forfeited, value):
    assert deal_value(game, result, winners, seat, forfeited=forfeited) == pytest.approx(value)


def test_every_outcome_of_the_hidden_role_games_has_a_credit():
    """A deal's value reads the outcome's MAgIC credit: an outcome a game can end in without one
    would stop the board (each game's outcomes are its FACTS)."""
    from runner.games import chameleon, undercover

    for module in (chameleon, undercover):
        outcomes = set(module.FACTS.outcome.words)
        assert outcomes == set(module.MAGIC_CREDITS), module.__name__
        assert all(0 <= a <= 3 and 0 <= b <= 3 for a, b in module.MAGIC_CREDITS.values())


def test_the_slots_are_the_suites_roles_or_seats():
    cycles = suite_score.cycles_of(suites.find("ranked-1").games)
    assert cycles == {"chameleon": 2, "undercover": 2, "werewolf": 6, "cost_sharing": 3,
                      "prisoners_dilemma": 3, "public_good": 3}


@pytest.mark.parametrize("x, n", [(0, 3), (1, 3), (3, 3), (2, 6), (5, 24)])
def test_midp_is_the_binomial_mid_p_interval(x, n):
    low, high = suite_score.midp(x, n)[0]
    mid = lambda p: stats.binom.sf(x, n, p) + stats.binom.pmf(x, n, p) / 2  # P(X > x) + P(X = x) / 2
    assert low == 0 if x == 0 else mid(low) == pytest.approx(0.025, abs=1e-9)
    below = lambda p: stats.binom.cdf(x, n, p) - stats.binom.pmf(x, n, p) / 2
    assert high == 1 if x == n else below(high) == pytest.approx(0.025, abs=1e-9)


def test_a_games_interval_is_never_zero_wide_and_covers_a_small_truth():
    """Three deals that agree: the bootstrap's "95% [0, 0]" is gone; a true 3% is inside."""
    row = suite_score.score({"public_good": {0: 0.0, 1: 0.0, 2: 0.0}}, {"public_good": 3})
    assert row["by_game"]["public_good"]["ci"][0] == 0 and row["by_game"]["public_good"]["ci"][1] > 0.5
    assert row["ci"][0] == 0 and row["ci"][1] > 0.03
    # Exactly: a true 3% over 3 deals is covered when 0 or 1 is won: 99.7% of the time.
    intervals = suite_score.midp(np.arange(4), 3)
    coverage = sum(stats.binom.pmf(x, 3, 0.03) for x, (lo, hi) in enumerate(intervals) if lo <= 0.03 <= hi)
    assert coverage > 0.99


def test_the_score_weighs_each_game_and_each_slot_the_same():
    # Chameleon: 2 slots, slot 0 dealt 3 times (all won), slot 1 twice (all lost): 1/2, not 3/5.
    row = suite_score.score({"chameleon": {0: 1.0, 2: 1.0, 4: 1.0, 1: 0.0, 3: 0.0}, "werewolf": {0: 1.0}},
                            {"chameleon": 2, "werewolf": 6})
    assert row["by_game"]["chameleon"]["value"] == 0.5 and row["value"] == 0.75
    assert row["n"] == 6 and 0 < row["ci"][0] < 0.75 < row["ci"][1] < 1


def test_results_that_follow_the_role_are_measured_within_the_role():
    """A row that wins every chameleon deal and loses every other: within each role nothing varies,
    so its Chameleon rate is far surer than a row winning half at random (whose two roles differ
    by nothing)."""
    follows = {i: float(i % 2 == 0) for i in range(24)}
    mixed = {i: float(i % 4 < 2) for i in range(24)}  # half won in each role
    sure = suite_score.game_estimate(follows, 2)
    unsure = suite_score.game_estimate(mixed, 2)
    assert sure[0] == unsure[0] == 0.5 and sure[2] < unsure[2] / 5


def test_until_width_stages_depend_on_the_width_alone():
    per_stage = {g.game: g.deals_per_stage for g in suites.find("ranked-1").games}
    widths = [suite_score.planning_width(per_stage, k) for k in (1, 2, 4, 8, 16)]
    assert widths == sorted(widths, reverse=True) and widths[0] < 0.5
    k = suite_score.stages_for_width(per_stage, 0.15, 1000)
    assert suite_score.planning_width(per_stage, k) < 0.15 <= suite_score.planning_width(per_stage, k - 1)
    assert suite_score.stages_for_width(per_stage, 0.001, 5) is None
