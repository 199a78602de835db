"""People on the board: each name its own row, and one pooled row of all human seats per game."""

from __future__ import annotations

import pytest
from builders import builtin, infos, pd_game

from site_builder.scoring.leaderboards import leaderboards
from site_builder.scoring.people import PEOPLE, played, pooled_row

BOT = builtin("bot", "prisoners_dilemma/always_defect")
ANN, BOB = {"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}
C, D = "cooperate", "defect"

AGENTS = infos(BOT, ANN, BOB)
GAMES = [
    pd_game("g1", [[D, C, C]], [BOT, ANN, BOB]),  # bot 4, Ann 0, Bob 0: people 0 of 2
    pd_game("g2", [[C, C, C]], [BOT, ANN, BOB]),  # a three-way tie: people 2 of 2
    pd_game("g3", [[C, D, C]], [BOT, ANN, BOT]),  # Ann 4 wins: people 1 of 1
    pd_game("g4", [[D, D, D]], [BOT, BOT, BOT]),  # no person: not in the pooled row
]


def test_the_pooled_row_adds_up_every_human_seat_of_the_games_with_people():
    row = pooled_row("prisoners_dilemma", GAMES, AGENTS, seed=3)
    assert (row["agent"], row["people"], row["games"], row["seats"]) == (PEOPLE, 2, 3, 5)
    assert row["win_rate"]["value"] == pytest.approx(3 / 5) and row["win_rate"]["n"] == 5
    lo, hi = row["win_rate"]["ci"]
    assert 0 <= lo <= 3 / 5 <= hi <= 1 and lo < hi
    assert row["roles"]["player"]["value"] == pytest.approx(3 / 5)
    # Mean total points per human seat: Ann 0 + 2 + 4, Bob 0 + 2.
    assert row["mean_total"]["value"] == pytest.approx((0 + 2 + 4 + 0 + 2) / 5)
    assert row["forfeit_rate"]["value"] == 0 and row["interval"] == "bootstrap over games"


def test_the_interval_resamples_whole_games_not_seats():
    # Two people who always tie each other: every resample of games gives them the same rate,
    # so the interval is a point. Seats resampled one by one would not know they go together.
    tied = [pd_game(f"t{i}", [[C, C, C]] if i % 2 else [[D, C, C]], [BOT, ANN, BOB]) for i in range(6)]
    row = pooled_row("prisoners_dilemma", tied, AGENTS, seed=1)
    assert row["win_rate"]["value"] == pytest.approx(0.5)
    assert row["win_rate"]["ci"][0] < 0.5 < row["win_rate"]["ci"][1]
    same = [pd_game(f"s{i}", [[C, C, C]], [BOT, ANN, BOB]) for i in range(4)]
    assert pooled_row("prisoners_dilemma", same, AGENTS, seed=1)["win_rate"]["ci"] == [1.0, 1.0]


def test_each_person_is_still_a_row_of_their_own_and_a_board_without_people_has_no_pooled_row():
    board = leaderboards(GAMES, AGENTS, seed=3)["prisoners_dilemma"]
    rows = {r["label"]: r for r in board["agents"]}
    assert rows["Ann"]["seats"] == 3 and rows["Ann"]["win_rate"]["value"] == pytest.approx(2 / 3)
    assert rows["Bob"]["seats"] == 2 and rows["Bob"]["provider"] == "human"
    assert pooled_row("prisoners_dilemma", GAMES[3:], AGENTS, seed=3) is None


def test_how_many_people_played_counts_distinct_names_and_games_with_a_person():
    assert played(GAMES, AGENTS) == {"people": 2, "games": 3}
    assert played(GAMES[3:], AGENTS) == {"people": 0, "games": 0}


def test_the_pooled_row_is_deterministic_for_a_seed_and_order_free():
    one = pooled_row("prisoners_dilemma", GAMES, AGENTS, seed=9)
    assert one == pooled_row("prisoners_dilemma", list(reversed(GAMES)), AGENTS, seed=9)
