"""Claims that hold together (scoring/stats.py): the anytime boundary over every number of stages,
and simultaneous critical values over every pair of a table."""

from __future__ import annotations

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
