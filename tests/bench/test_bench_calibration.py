"""The calibration benchmark, small and seeded: each claim of the ranked board holds inside a
tolerance of its target on simulated boards scored by the scorer's own functions, so that a
change that breaks a claim fails here (docs/benchmarks.md has the full run)."""

from __future__ import annotations

import numpy as np
import pytest

from site_builder.bench import calibration as bench


@pytest.fixture()
def rng():
    return np.random.default_rng(20261201)


def values(figures, name):
    return [f["value"] for f in figures if f["figure"] == name]


def test_figures_have_the_shared_shape_and_targets_read_as_written():
    found = bench.figure("claim", "setting", "coverage", 0.95, "0.93-0.97", 10)
    assert set(found) == {"claim", "setting", "figure", "value", "target", "ok", "boards"} and found["ok"]
    assert not bench.meets(0.98, "0.93-0.97") and bench.meets(0.04, "<= 0.05") and not bench.meets(0.06, "<= 0.05")
    assert bench.meets(0.93, ">= 0.93") and not bench.meets(0.005, "< 0.005") and bench.meets(3.0, "measured")


def test_the_simulated_deals_follow_their_truth(rng):
    profile = bench.shipped("random")
    drawn = bench.draw([profile, profile], 40, 60, rng)
    for game in bench.GAMES:
        values_, wins = drawn[game]
        assert values_.mean() == pytest.approx(profile.game(game), abs=0.03)
        assert set(np.unique(wins)) <= {0.0, 1.0}
    # Werewolf is most the deal's: two rows' results on a deal correlate there most.
    corr = {g: np.corrcoef(drawn[g][0][:, 0].ravel(), drawn[g][0][:, 1].ravel())[0, 1] for g in ("werewolf", "chameleon")}
    assert corr["werewolf"] > corr["chameleon"] > 0


def test_the_score_interval_covers_from_one_stage_on_and_no_interval_is_zero_wide(rng):
    profiles = [(bench.constant("every slot 50%", 0.5), "value", bench.BAND),
                (bench.constant("every slot 3%", 0.03), "value", bench.EDGE),
                (bench.role_following(), "value", bench.EDGE), (bench.shipped("random"), "value", bench.EDGE)]
    figures = bench.interval_figures(bench.Current(), 150, (1, 2), rng, profiles)
    assert all(v >= 0.90 for v in values(figures, "coverage")), values(figures, "coverage")
    assert all(v >= 0.87 for v in values(figures, "lowest coverage of a game"))
    assert values(figures, "zero-width intervals") == [0] * 8


def test_a_board_of_equal_rows_claims_no_false_separation(rng):
    figures = bench.equal_board_figures(bench.Current(), 50, (2,), rng)
    assert all(v <= 0.08 for v in values(figures, "boards with a false separation"))


def test_a_growing_board_looked_at_after_every_stage_stays_honest(rng):
    figures = bench.growing_figures(bench.Current(), 25, 5, rng)
    assert values(figures, "boards with a false separation at some look")[0] <= 0.08


def test_until_width_neither_biases_nor_undercovers(rng):
    figures = bench.until_width_figures(bench.Current(), 150, (0.2,), rng, most=8)
    assert all(abs(v) < 0.01 for v in values(figures, "bias of the score"))
    assert all(v >= 0.90 for v in values(figures, "coverage"))


def test_the_richer_value_tells_apart_what_won_or_lost_cannot(rng):
    figures = bench.power_figures(bench.Current(), 25, (2,), (0.2,), rng)
    power = {f["setting"].split("(")[1].split(";")[0]: f["value"] for f in figures}
    assert power["same strategies, richer value"] > power["same strategies, won or lost"] + 0.2


def test_the_other_boards_figures_come_in_the_same_shape_when_their_module_is_there():
    for found in bench.other_boards(boards=5, seed=1):
        assert set(found) >= {"claim", "setting", "figure", "value", "target", "ok", "boards"}
