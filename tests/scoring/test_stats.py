"""The interval helpers of scoring/stats.py that issue #42 added: the anytime boundary over every
number of stages, simultaneous critical values over every pair of a table, tests, corrections and
intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from site_builder.scoring import stats


def test_the_anytime_boundary_is_crossed_by_a_random_walk_one_time_in_twenty():
    crossed = stats.anytime_crossing(20_000, most=1000, seed=3)
    assert crossed == pytest.approx(0.05, abs=0.006)
    # Looked at after 1..8 stages only, it is crossed far less often than a fixed 95% interval (about 4 in 10).
    assert stats.anytime_crossing(20_000, most=8, seed=4) < 0.03


def test_the_boundary_is_lowest_between_two_and_eight_stages():
    z = stats.anytime_z(np.array([1, 2, 4, 8, 64, 1000]))
    assert z[2] == min(z) and z[1] < z[0] and z[3] < z[4] < z[5]
    assert stats.anytime_level(4) == pytest.approx(2 * (1 - 0.99735), rel=0.1)


def test_simultaneous_critical_values_grow_with_the_pairs_and_know_their_correlation():
    one = stats.simultaneous_critical(np.eye(1), [0.05], seed=1)[0]
    assert one == pytest.approx(1.96, abs=0.05)
    apart = stats.simultaneous_critical(np.eye(15), [0.05] * 15, seed=1)
    assert apart[0] == pytest.approx(2.94, abs=0.06)  # Sidak: 15 independent statistics
    same = stats.simultaneous_critical(np.ones((1, 15)), [0.05] * 15, seed=1)
    assert same[0] == pytest.approx(1.96, abs=0.05)  # one statistic 15 times: no price to pay
    deeper = stats.simultaneous_critical(np.eye(15), [0.05] * 14 + [0.005], seed=1)
    assert deeper[-1] > deeper[0]

@pytest.mark.parametrize("wins, losses, expected", [
    (4, 0, 2 / 16),            # 4-0: what a coin gives one time in eight
    (0, 4, 2 / 16),
    (15, 5, 2 * 21700 / 2**20),  # P(X <= 5 | 20, 1/2) = 21,700 / 2^20
    (10, 10, 1.0),
    (0, 0, None),
])
def test_the_sign_test_is_the_exact_binomial_test_at_a_half(wins, losses, expected):
    got = stats.sign_test(wins, losses)
    assert got == expected if expected is None else got == pytest.approx(expected)


def test_holm_steps_down_and_stops_at_the_first_it_keeps():
    # m = 4: 0.01 <= 0.05/4, 0.015 <= 0.05/3, 0.03 > 0.05/2: stops there, 0.04 is kept too.
    assert stats.holm({"a": 0.01, "b": 0.015, "c": 0.03, "d": 0.04}) == {"a", "b"}
    assert stats.holm({"a": 0.001, "b": 0.02, "c": 0.04}) == {"a", "b", "c"}
    assert stats.holm({"a": 0.2}) == set() and stats.holm({}) == set()


def test_a_table_whose_seats_share_one_outcome_counts_once():
    # Two seats at each of 20 tables, all winning or all losing together: 20 trials, not 40.
    shared = stats.clustered_rate([(2, 2)] * 10 + [(0, 2)] * 10)
    assert (shared["value"], shared["n"], shared["games"]) == (0.5, 40, 20)
    assert shared["ci"] == pytest.approx(list(stats.wilson(10, 20)))
    # One seat a table: the plain Wilson interval of the seats.
    alone = stats.clustered_rate([(1, 1)] * 10 + [(0, 1)] * 10)
    assert alone["ci"] == pytest.approx(list(stats.wilson(10, 20)))
    # Seats of one table that never share an outcome (one of two wins at every table) are worth
    # as many trials as seats at most: the seats' own Wilson interval.
    opposed = stats.clustered_rate([(1, 2)] * 20)
    assert opposed["ci"] == pytest.approx(list(stats.wilson(20, 40)))
    # All won: the tables are the trials.
    assert stats.clustered_rate([(3, 3)] * 5)["ci"] == pytest.approx(list(stats.wilson(5, 5)))
    assert stats.clustered_rate([]) is None and stats.clustered_rate([(0, 0)]) is None


def test_one_column_of_simultaneous_intervals_is_its_percentile_interval():
    values = np.random.default_rng(0).normal(size=(1000, 1))
    assert stats.simultaneous_intervals(values) == [stats.percentile_interval(values[:, 0])]


def test_simultaneous_intervals_hold_together():
    rng = np.random.default_rng(1)
    bands = stats.simultaneous_intervals(rng.normal(size=(2000, 10)))
    low, high = np.array([b[0] for b in bands]), np.array([b[1] for b in bands])
    fresh = rng.normal(size=(20000, 10))
    together = ((fresh >= low) & (fresh <= high)).all(axis=1).mean()
    assert 0.93 <= together <= 0.97
    # Each alone is wider than its own 95% interval.
    alone = stats.percentile_interval(fresh[:2000, 0])
    assert high[0] - low[0] > alone[1] - alone[0]


def test_simultaneous_intervals_leave_nan_out_and_give_none_for_a_column_without_values():
    values = np.random.default_rng(2).normal(size=(500, 3))
    values[:40, 1] = np.nan
    values[:, 2] = np.nan
    bands = stats.simultaneous_intervals(values)
    assert bands[2] is None and all(math.isfinite(x) for x in (*bands[0], *bands[1]))


def test_the_expanded_level_widens_small_samples_only():
    assert stats.expanded_level(1) == 1.0 and stats.expanded_level(2) == pytest.approx(0.9944, abs=1e-4)
    assert stats.expanded_level(10) == pytest.approx(0.9612, abs=1e-4)  # Phi(sqrt(10 / 9) * 1.96) a side
    assert stats.expanded_level(10_000) == pytest.approx(0.95, abs=1e-3)
    assert [stats.expanded_level(n) for n in (5, 10, 20, 40)] == sorted((stats.expanded_level(n) for n in (5, 10, 20, 40)),
                                                                      reverse=True)


def test_bonferroni_z_holds_a_family_together():
    assert stats.bonferroni_z(1) == pytest.approx(stats.Z95)
    assert stats.bonferroni_z(10) == pytest.approx(2.807, abs=1e-3)
