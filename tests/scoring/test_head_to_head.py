"""Head to head (scoring/head_to_head.py): which games decide between two agents, and the numbers."""

from __future__ import annotations

import pytest

from site_builder.scoring import head_to_head
from site_builder.scoring.model import ScoredGame, SeatInfo
from site_builder.scoring.stats import wilson


def game(seats: list[tuple[str, bool]], *, index: int = 0, forfeit: int | None = None) -> ScoredGame:
    """A game whose seat i is agent seats[i][0], among the winners iff seats[i][1]."""
    return ScoredGame(
        game_id=f"g{index}", game="werewolf", variant={}, setup={}, tournament="t", created="2026-11-28",
        content_hash=f"h{index}", status="complete" if forfeit is None else "invalid",
        seats=tuple(SeatInfo(i, f"P{i}", "player", agent, won) for i, (agent, won) in enumerate(seats)),
        winners=tuple(i for i, (_, won) in enumerate(seats) if won),
        result={} if forfeit is None else {"forfeit": {"seat": forfeit}}, events=(), probes=(), usage=())


#: (what the game is, its seats, the pair (a, b) looked at, [met, a beat b, b beat a] of that pair)
SCENARIOS = [
    ("a won, b lost", [("a", True), ("b", False)], ("a", "b"), [1, 1, 0]),
    ("b won, a lost", [("a", False), ("b", True)], ("a", "b"), [1, 0, 1]),
    ("team-mates who both won", [("a", True), ("b", True), ("c", False)], ("a", "b"), [1, 0, 0]),
    ("team-mates who both won, against c", [("a", True), ("b", True), ("c", False)], ("b", "c"), [1, 1, 0]),
    ("a third agent won: both lost", [("a", False), ("b", False), ("c", True)], ("a", "b"), [1, 0, 0]),
    ("nobody won (a tied vote)", [("a", False), ("b", False)], ("a", "b"), [1, 0, 0]),
    ("a shared win (a tie for the most points)", [("a", True), ("b", True)], ("a", "b"), [1, 0, 0]),
    ("b's two seats both won", [("a", False), ("b", True), ("b", True)], ("a", "b"), [1, 0, 1]),
    ("half of a's seats won, b lost", [("a", True), ("a", False), ("b", False)], ("a", "b"), [1, 1, 0]),
    ("half of a's seats won, b won", [("a", True), ("a", False), ("b", True)], ("a", "b"), [1, 0, 1]),
    ("half of each one's seats won", [("a", True), ("a", False), ("b", False), ("b", True)], ("a", "b"), [1, 0, 0]),
    ("a third of a's seats against half of b's",
     [("a", True), ("a", False), ("a", False), ("b", True), ("b", False)], ("a", "b"), [1, 0, 1]),
]


@pytest.mark.parametrize("what, seats, pair, expected", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_which_games_decide_between_two_agents(what, seats, pair, expected):
    assert head_to_head.tally([game(seats)])[pair] == expected


def test_a_forfeit_is_a_loss_to_every_other_agent_and_decides_nothing_between_them():
    forfeited = game([("a", False), ("b", False), ("c", False)], forfeit=0)
    counts = head_to_head.tally([forfeited])
    assert counts[("a", "b")] == [1, 0, 1] and counts[("a", "c")] == [1, 0, 1]
    assert counts[("b", "c")] == [1, 0, 0]


def test_self_play_pairs_no_one():
    assert head_to_head.tally([game([("a", True), ("a", False)])]) == {}


def test_the_share_of_decided_games_with_its_wilson_interval_and_its_mirror():
    games = ([game([("a", True), ("b", False)], index=i) for i in range(6)]
             + [game([("a", False), ("b", True)], index=10 + i) for i in range(2)]
             + [game([("a", True), ("b", True)], index=20)])  # met, decided nothing
    (pair,) = head_to_head.head_to_head(games)["pairs"]
    assert (pair["a"], pair["b"], pair["met"], pair["a_won"], pair["b_won"]) == ("a", "b", 9, 6, 2)
    assert pair["beats"]["value"] == 0.75 and pair["beats"]["n"] == 8
    assert pair["beats"]["ci"] == pytest.approx(list(wilson(6, 8)))
    mirrored = head_to_head.beats(pair, "b")
    assert mirrored["value"] == 0.25 and mirrored["n"] == 8
    assert mirrored["ci"] == pytest.approx(list(wilson(2, 8)))
    assert head_to_head.beats(pair, "a") is pair["beats"]


def test_a_pair_that_met_without_a_decided_game_has_no_share():
    (pair,) = head_to_head.head_to_head([game([("b", True), ("a", True)])])["pairs"]
    assert (pair["a"], pair["b"], pair["met"], pair["beats"]) == ("a", "b", 1, None)
    assert head_to_head.beats(pair, "b") is None


def decided(a: str, b: str, a_won: int, b_won: int, start: int = 0) -> list[ScoredGame]:
    return [game([(a, i < a_won), (b, i >= a_won)], index=start + i) for i in range(a_won + b_won)]


def test_each_pair_carries_its_exact_test_against_a_coin_toss():
    table = head_to_head.head_to_head(decided("a", "b", 9, 1))
    assert table["pairs"][0]["p_value"] == pytest.approx(2 * 11 / 1024)  # P(X <= 1 | 10, 1/2) = 11 / 1024
    tie = head_to_head.head_to_head([game([("a", True), ("b", True)])])
    assert tie["pairs"][0]["p_value"] is None and tie["pairs"][0]["beats"] is None


def test_a_pair_is_sure_only_from_the_minimum_of_decided_games_and_after_holm():
    # 9-0 is a p of 0.004, but under MIN_DECIDED games: never sure. 10-0 alone in its matrix is.
    assert head_to_head.MIN_DECIDED == 10
    assert head_to_head.sure(head_to_head.head_to_head(decided("a", "b", 9, 0))["pairs"]) == set()
    assert head_to_head.sure(head_to_head.head_to_head(decided("a", "b", 10, 0))["pairs"]) == {("a", "b")}
    # 15-5 (p = 0.041) is sure alone; beside a second pair of 15-5 neither holds at 0.05 / 2.
    alone = head_to_head.head_to_head(decided("a", "b", 15, 5))["pairs"]
    assert head_to_head.sure(alone) == {("a", "b")}
    two = head_to_head.head_to_head(decided("a", "b", 15, 5) + decided("c", "d", 15, 5, start=100))["pairs"]
    assert head_to_head.sure(two) == set()
    assert head_to_head.chance_cells(66) == pytest.approx(6.6)
