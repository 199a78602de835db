"""Prisoner's Dilemma rules: every payoff case, totals, ties for the highest total, hidden choices."""

from __future__ import annotations

import random

import pytest

from runner.games import IllegalAction, SetupError
from runner.games.prisoners_dilemma import GAME, round_points

PAYOFFS = {"id": "pd-1", "cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 3}
C, D = "cooperate", "defect"


def start(rounds=5, payoffs=PAYOFFS):
    params = GAME.params({"rounds": rounds})
    setup = {"payoffs": dict(payoffs)}
    GAME.check_setup(params, setup)
    return GAME.start(params, setup)


def play_rounds(state, rounds):
    for choices in rounds:
        for seat, choice in enumerate(choices):
            state.act(seat, {"choice": choice})
    return state.outcome() if state.pending() is None else None


# -- one round: every combination of choices -------------------------------------------------
ROUND_CASES = [
    ("all-cooperate", [C, C, C], [2, 2, 2]),
    ("all-defect", [D, D, D], [1, 1, 1]),
    ("seat-0-defects-alone", [D, C, C], [4, 0, 0]),
    ("seat-1-defects-alone", [C, D, C], [0, 4, 0]),
    ("seat-2-defects-alone", [C, C, D], [0, 0, 4]),
    ("seats-0-1-defect", [D, D, C], [3, 3, 0]),
    ("seats-0-2-defect", [D, C, D], [3, 0, 3]),
    ("seats-1-2-defect", [C, D, D], [0, 3, 3]),
]


@pytest.mark.parametrize("choices,points", [c[1:] for c in ROUND_CASES], ids=[c[0] for c in ROUND_CASES])
def test_round_points(choices, points):
    assert round_points(choices, PAYOFFS) == points
    state = start(rounds=1)
    play_rounds(state, [choices])
    event = state.events[-1]
    assert event["phase"] == "round_result" and event["vis"] == "all"
    assert event["data"] == {"round": 1, "choices": choices, "points": points, "totals": points}


# -- whole games: winners, ties and strict winners -------------------------------------------
GAME_CASES = [
    # (id, rounds of choices, totals, winners, strict winner)
    ("all-cooperate-throughout-three-way-tie", [[C, C, C]] * 5, [10, 10, 10], [0, 1, 2], None),
    ("all-defect-throughout-three-way-tie", [[D, D, D]] * 5, [5, 5, 5], [0, 1, 2], None),
    ("lone-defector-wins", [[D, C, C]] * 5, [20, 0, 0], [0], 0),
    ("two-defectors-tie", [[C, D, D]] * 5, [0, 15, 15], [1, 2], None),
    ("late-betrayal-wins", [[C, C, C]] * 4 + [[C, C, D]], [8, 8, 12], [2], 2),
    ("alternating-lone-defectors-tie", [[D, C, C], [C, D, C], [C, C, D], [C, C, C], [C, C, C]],
     [8, 8, 8], [0, 1, 2], None),
    ("two-tie-above-the-third", [[D, C, C], [C, D, C], [C, C, C], [C, C, C], [C, C, C]],
     [10, 10, 6], [0, 1], None),
    ("defector-punished-by-two-defectors", [[D, C, C], [D, D, D], [C, D, D], [C, D, D], [C, C, C]],
     [7, 9, 9], [1, 2], None),
]


@pytest.mark.parametrize("rounds,totals,winners,strict", [c[1:] for c in GAME_CASES],
                         ids=[c[0] for c in GAME_CASES])
def test_game_outcomes(rounds, totals, winners, strict):
    outcome = play_rounds(start(), rounds)
    assert outcome["status"] == "complete"
    assert outcome["winners"] == winners
    assert outcome["result"] == {"totals": totals, "strict_winner": strict}


def test_running_totals_are_reported_each_round():
    state = start(rounds=3)
    play_rounds(state, [[D, C, C], [D, D, C], [C, C, C]])
    totals = [ev["data"]["totals"] for ev in state.events if ev["phase"] == "round_result"]
    assert totals == [[4, 0, 0], [7, 3, 0], [9, 5, 2]]


def test_a_real_tie_under_fractional_payoffs_is_a_tie():
    payoffs = {"cooperate": 0.2, "defect": 0.3, "one_defect": 0.1, "two_defect": 0.05}
    # Seat 0 earns 0.1, 0.2, 0.3 and seat 1 earns 0.2, 0.3, 0.1: both exactly 0.6.
    outcome = play_rounds(start(rounds=4, payoffs=payoffs), [[D, C, C], [C, C, C], [D, D, D], [C, D, C]])
    assert outcome["winners"] == [0, 1]
    assert outcome["result"]["strict_winner"] is None


# -- illegal actions -------------------------------------------------------------------------
@pytest.mark.parametrize("action,error", [
    ({"choice": "betray"}, "must be one of"), ({"choice": "Cooperate"}, "must be one of"),
    ({"choice": "C"}, "must be one of"), ({"choice": 1}, "must be one of"), ({"choice": None}, "must be one of"),
    ({}, "exactly the field"), ({"choice": D, "why": "x"}, "exactly the field"), (D, "must be an object"),
], ids=["betray", "capitalised", "letter", "number", "null", "empty", "extra-field", "bare-string"])
def test_illegal_actions(action, error):
    state = start()
    with pytest.raises(IllegalAction, match=error):
        state.act(0, action)
    assert state.events == []


def test_choosing_twice_in_a_round_is_refused():
    state = start()
    state.act(1, {"choice": C})
    with pytest.raises(IllegalAction, match="not to act"):
        state.act(1, {"choice": D})


def test_the_game_ends_after_the_rounds():
    state = start(rounds=2)
    play_rounds(state, [[C, C, C], [C, C, C]])
    assert state.pending() is None
    with pytest.raises(IllegalAction, match="over"):
        state.act(0, {"choice": C})


# -- hidden choices ---------------------------------------------------------------------------
def test_choices_stay_hidden_until_the_round_closes():
    state = start()
    state.act(0, {"choice": D})
    state.act(2, {"choice": C})
    assert state.observe(1)["log"] == []
    assert [ev["data"] for ev in state.observe(0)["log"]] == [{"choice": D}]
    assert [ev["data"] for ev in state.observe(2)["log"]] == [{"choice": C}]
    pending = state.pending()
    assert pending.simultaneous and pending.seats == (1,)
    state.act(1, {"choice": C})
    assert state.observe(1)["log"][-1]["data"]["choices"] == [D, C, C]


def test_payoffs_are_public_and_nothing_is_private():
    state = start()
    assert state.observe(2)["public"] == {"rounds": 5, "payoffs": PAYOFFS}
    assert state.private(2) == {}
    assert state.probes() == ()
    assert GAME.counterfactuals(GAME.params({}), {"payoffs": PAYOFFS}, 0, random.Random(0)) == []


# -- parameters and setups -------------------------------------------------------------------
def test_parameters():
    assert GAME.params({}) == {"rounds": 5}
    for raw, field in (({"rounds": 0}, "params.rounds"), ({"rounds": 51}, "params.rounds"),
                       ({"rounds": True}, "params.rounds"), ({"players": 3}, "params")):
        with pytest.raises(SetupError) as info:
            GAME.params(raw)
        assert info.value.field == field


@pytest.mark.parametrize("setup,field", [
    ({}, "setup"), ({"payoffs": PAYOFFS, "x": 1}, "setup"),
    ({"payoffs": {**PAYOFFS, "cooperate": -1}}, "setup.payoffs.cooperate"),
    ({"payoffs": {**PAYOFFS, "defect": "1"}}, "setup.payoffs.defect"),
    ({"payoffs": {**PAYOFFS, "one_defect": True}}, "setup.payoffs.one_defect"),
    ({"payoffs": {k: v for k, v in PAYOFFS.items() if k != "two_defect"}}, "setup.payoffs"),
    ({"payoffs": {**PAYOFFS, "bonus": 1}}, "setup.payoffs"),
    ({"payoffs": {**PAYOFFS, "id": 1}}, "setup.payoffs.id"),
], ids=["empty", "unknown-field", "negative-payoff", "text-payoff", "bool-payoff", "missing-payoff",
        "unknown-payoff", "numeric-id"])
def test_bad_setups_name_their_field(setup, field):
    with pytest.raises(SetupError) as info:
        GAME.check_setup({"rounds": 5}, setup)
    assert info.value.field == field


def test_deal_draws_a_shipped_payoff_setting():
    params = GAME.params({})
    seen = set()
    rng = random.Random(1)
    for _ in range(200):
        setup = GAME.deal(params, rng)
        GAME.check_setup(params, setup)
        seen.add(setup["payoffs"]["id"])
    assert len(seen) == 7
