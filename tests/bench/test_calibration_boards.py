"""The claims of the game pages and the exhibition board hold on simulated boards of known truth
(site_builder/bench/calibration_boards.py): a fixed seed and a few boards each, every figure held inside
a tolerance around its target, so that a change that breaks a claim fails here. The full run, with
hundreds of boards, is in docs/benchmarks.md. Main's code (before issue #42) fails every test here
but the shape one."""

from __future__ import annotations

import numpy as np

from site_builder.bench import calibration_boards as calibration
from site_builder.scoring import ratings

SEED = 42


def figures(claim, boards: int) -> dict[tuple[str, str], dict]:
    rows = claim(boards, np.random.default_rng([SEED, boards]))
    return {(r["setting"], r["figure"]): r for r in rows}


def value(found: dict, figure: str, setting: str = "") -> list[float]:
    return [r["value"] for (s, f), r in found.items() if f == figure and setting in s]


def test_measure_gives_every_figure_with_its_target():
    rows = calibration.measure(boards=1, seed=1)
    assert {r["claim"] for r in rows} == {
        "head-to-head shading", "cooperative games: tables, not seats", "team games: tables, not seats",
        "ratings: small samples", "exhibition places", "agents sharing no role", "board-wide rank ranges"}
    for r in rows:
        assert set(r) == {"claim", "setting", "figure", "value", "target", "ok", "boards"}
        assert isinstance(r["value"], float) and isinstance(r["ok"], bool) and r["boards"] >= 1
    assert calibration.measure(boards=1, seed=1) == rows  # seeded
    assert "| claim |" in calibration.table(rows)


def test_equal_agents_shade_no_cell_and_a_strong_one_is_still_seen():
    found = figures(calibration.head_to_head_claims, 20)
    assert value(found, "matrices with any shaded cell") == [0.0]  # main: 91% of matrices
    assert value(found, "shaded cells per matrix")[0] <= 0.1       # main: 5.35 cells
    assert value(found, "share of its cells shaded (power)")[0] >= 0.4
    assert value(found, "cell shaded", "4-0") == [0.0]


def test_a_win_rate_counts_tables_not_seats():
    found = figures(calibration.seat_claims, 150)
    coverages = value(found, "coverage")
    assert len(coverages) == 4 and min(coverages) >= 0.91  # main: 0.865-0.895


def test_a_shown_rating_covers_and_a_provisional_one_says_so():
    found = figures(calibration.rating_claims, 12)
    provisional = [r for r in found.values() if r["figure"] == "coverage (provisional)"]
    shown = [r for r in found.values() if r["figure"] == "coverage"]
    assert len(provisional) == 2 and all(r["ok"] for r in provisional)  # 2 and 5 games: provisional
    assert len(shown) == 2 and all(r["value"] >= 0.85 for r in shown)   # 10 and 20 games
    assert ratings.MIN_GAMES == 10
    pulls = value(found, "stated pull (share of the way to 1000)")
    assert pulls == sorted(pulls, reverse=True) and pulls[0] > 0.2 and pulls[-1] < 0.1


def test_a_model_of_seven_games_gets_no_place_on_the_exhibition_board():
    found = figures(calibration.exhibition_claims, 8)
    assert value(found, "boards that give it a place") == [0.0]  # main: every board, at place 1
    assert value(found, "boards showing one place twice") == [0.0]
    assert value(found, "boards with a false separation")[0] <= 0.15


def test_twins_seen_in_no_common_role_are_not_told_apart():
    found = figures(calibration.twins_claims, 20)
    assert value(found, "boards claiming one twin above the other") == [0.0]
    assert value(found, "boards saying the twins share no role") == [1.0]
    assert value(found, "boards with any false separation (twins or opponent)")[0] <= 0.1


def test_a_board_of_equal_agents_is_rarely_told_apart():
    found = figures(calibration.game_board_claims, 30)
    assert value(found, "boards with a false separation", "The Chameleon's board")[0] <= 0.07  # main: 0.17
    assert value(found, "boards with a false separation", "Cost Sharing's board")[0] <= 0.07
