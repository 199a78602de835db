"""Public Good rules: contributions, the multiplied pool, finals, winners and ties."""

from __future__ import annotations

import random

import pytest

from runner.games import IllegalAction, SetupError
from runner.games.public_good import PublicGood, share_of

MULTIPLIERS = [1, 1.2, 1.5, 1.8, 2.2, 3, 5]
GAME = PublicGood(multipliers=MULTIPLIERS, endowment=100)


def start(multiplier=1.5, rounds=5, endowment=100):
    params = GAME.params({"rounds": rounds})
    setup = {"multiplier": multiplier, "endowment": endowment}
    GAME.check_setup(params, setup)
    return GAME.start(params, setup)


def play_rounds(state, rounds):
    for given in rounds:
        for seat, amount in enumerate(given):
            state.act(seat, {"contribution": amount})
    return state.outcome() if state.pending() is None else None


# -- finals, winners and ties ----------------------------------------------------------------
CASES = [
    # (id, multiplier, contributions per round, kept, pool, share, finals, winners, strict)
    ("everyone-free-rides-three-way-tie", 3, [[0, 0, 0]] * 5, [100, 100, 100], 0, 0,
     [100, 100, 100], [0, 1, 2], None),
    ("everyone-gives-all-three-way-tie", 3, [[20, 20, 20]] * 5, [0, 0, 0], 300, 300,
     [300, 300, 300], [0, 1, 2], None),
    ("lone-free-rider-wins", 2.2, [[0, 20, 20]] * 5, [100, 0, 0], 200, 146.67,
     [246.67, 146.67, 146.67], [0], 0),
    ("two-free-riders-tie", 1.2, [[0, 10, 0]] * 5, [100, 50, 100], 50, 20,
     [120, 70, 120], [0, 2], None),
    ("least-contributor-wins-at-multiplier-5", 5, [[10, 5, 20], [0, 5, 20], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
     [90, 90, 60], 60, 100, [190, 190, 160], [0, 1], None),
    ("strict-winner-at-seat-2", 1.8, [[30, 20, 10], [0, 0, 0], [0, 0, 0], [0, 0, 5], [0, 0, 0]],
     [70, 80, 85], 65, 39, [109, 119, 124], [2], 2),
    ("multiplier-1-gives-back-the-average", 1, [[100, 50, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
     [0, 50, 100], 150, 50, [50, 100, 150], [2], 2),
    ("everything-in-the-first-round", 1.5, [[100, 100, 99], [0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
     [0, 0, 0], 300, 150, [150, 150, 150], [0, 1, 2], None),
]


@pytest.mark.parametrize("multiplier,rounds,kept,pool,share,finals,winners,strict",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_outcomes(multiplier, rounds, kept, pool, share, finals, winners, strict):
    state = start(multiplier=multiplier)
    outcome = play_rounds(state, rounds)
    result = outcome["result"]
    assert outcome["winners"] == winners
    assert result["strict_winner"] == strict
    assert result["contributions"] == rounds
    assert result["kept"] == kept
    assert result["pool"] == pool
    assert result["share"] == share
    assert result["finals"] == finals
    assert result["multiplier"] == multiplier


@pytest.mark.parametrize("pool,multiplier,share", [
    (150, 1.2, 60), (101, 1.5, 50.5), (7, 1.8, 4.2), (1, 2.2, 0.73), (2, 2.2, 1.47), (1, 1, 0.33),
    (2, 1, 0.67), (300, 5, 500), (299, 3, 299), (1, 0.045, 0.02),
], ids=["exact-int", "half-point", "decimal-multiplier", "rounds-down", "rounds-up", "third-down",
        "two-thirds-up", "largest", "multiplier-equals-players", "exact-half-cent-rounds-up"])
def test_share_is_exact_and_rounded_half_up_to_the_cent(pool, multiplier, share):
    assert share_of(pool, multiplier) == share
    assert type(share_of(pool, multiplier)) is type(share)


def test_round_results_reveal_contributions_pool_and_kept_then_the_payout():
    state = start(multiplier=3, rounds=2)
    play_rounds(state, [[10, 0, 5], [0, 20, 0]])
    infos = [(ev["phase"], ev["data"]) for ev in state.events if ev["kind"] == "info"]
    assert infos == [
        ("round_result", {"round": 1, "contributions": [10, 0, 5], "round_total": 15, "pool": 15,
                          "kept": [90, 100, 95]}),
        ("round_result", {"round": 2, "contributions": [0, 20, 0], "round_total": 20, "pool": 35,
                          "kept": [90, 80, 95]}),
        ("payout", {"pool": 35, "multiplier": 3, "share": 35, "finals": [125, 115, 130]}),
    ]
    assert all(ev["vis"] == "all" for ev in state.events if ev["kind"] == "info")


# -- contributions -------------------------------------------------------------------------------
@pytest.mark.parametrize("amount,error", [
    (-1, "from 0 to the 100 points"), (101, "from 0 to the 100 points"), (2.5, "whole number"),
    (10.0, "whole number"), ("10", "whole number"), (True, "whole number"), (None, "whole number"),
], ids=["negative", "more-than-owned", "fraction", "float", "text", "bool", "null"])
def test_illegal_contributions(amount, error):
    state = start()
    with pytest.raises(IllegalAction, match=error):
        state.act(0, {"contribution": amount})
    assert state.events == []


@pytest.mark.parametrize("action,error", [
    ({}, "exactly the field"), ({"contribution": 5, "note": "x"}, "exactly the field"),
    ({"choice": "cooperate"}, "exactly the field"), (5, "must be an object"),
], ids=["empty", "extra-field", "wrong-field", "not-an-object"])
def test_malformed_actions(action, error):
    with pytest.raises(IllegalAction, match=error):
        start().act(0, action)


def test_contributions_are_capped_by_what_is_left():
    state = start(rounds=3)
    play_rounds(state, [[100, 60, 0]])
    assert state.legal(0)["max"] == 0 and state.legal(1)["max"] == 40 and state.legal(2)["max"] == 100
    with pytest.raises(IllegalAction, match="from 0 to the 0 points"):
        state.act(0, {"contribution": 1})
    with pytest.raises(IllegalAction, match="from 0 to the 40 points"):
        state.act(1, {"contribution": 41})
    state.act(0, {"contribution": 0})
    state.act(1, {"contribution": 40})
    state.act(2, {"contribution": 100})
    assert state.legal(1) == {"field": "contribution", "min": 0, "max": 0, "round": 3, "rounds": 3}


def test_contributing_twice_in_a_round_is_refused():
    state = start()
    state.act(2, {"contribution": 5})
    with pytest.raises(IllegalAction, match="not to act"):
        state.act(2, {"contribution": 5})


def test_contributions_stay_hidden_until_the_round_closes():
    state = start()
    state.act(0, {"contribution": 30})
    state.act(1, {"contribution": 0})
    assert state.observe(2)["log"] == []
    assert [ev["data"] for ev in state.observe(1)["log"]] == [{"contribution": 0}]
    state.act(2, {"contribution": 7})
    assert state.observe(2)["log"][-1]["data"]["contributions"] == [30, 0, 7]


def test_the_game_ends_after_the_rounds():
    state = start(rounds=2)
    play_rounds(state, [[1, 1, 1], [1, 1, 1]])
    assert state.pending() is None
    with pytest.raises(IllegalAction, match="over"):
        state.act(0, {"contribution": 0})


def test_public_information():
    state = start(multiplier=2.2, rounds=4, endowment=50)
    assert state.observe(0)["public"] == {"players": 3, "rounds": 4, "endowment": 50, "multiplier": 2.2}
    assert state.private(0) == {}
    assert state.probes() == ()


# -- parameters and setups -----------------------------------------------------------------------
def test_parameters():
    assert GAME.params({}) == {"rounds": 5}
    for raw, field in (({"rounds": 0}, "params.rounds"), ({"rounds": 51}, "params.rounds"),
                       ({"rounds": 2.0}, "params.rounds"), ({"multiplier": 2}, "params")):
        with pytest.raises(SetupError) as info:
            GAME.params(raw)
        assert info.value.field == field


@pytest.mark.parametrize("setup,field", [
    ({"multiplier": 0, "endowment": 100}, "setup.multiplier"),
    ({"multiplier": -1.5, "endowment": 100}, "setup.multiplier"),
    ({"multiplier": 101, "endowment": 100}, "setup.multiplier"),
    ({"multiplier": "1.5", "endowment": 100}, "setup.multiplier"),
    ({"multiplier": True, "endowment": 100}, "setup.multiplier"),
    ({"multiplier": 1.5, "endowment": 0}, "setup.endowment"),
    ({"multiplier": 1.5, "endowment": 100.5}, "setup.endowment"),
    ({"multiplier": 1.5}, "setup"),
    ({"multiplier": 1.5, "endowment": 100, "rounds": 5}, "setup"),
    ([1.5, 100], "setup"),
], ids=["zero-multiplier", "negative-multiplier", "huge-multiplier", "text-multiplier", "bool-multiplier",
        "zero-endowment", "fractional-endowment", "missing-endowment", "unknown-field", "not-an-object"])
def test_bad_setups_name_their_field(setup, field):
    with pytest.raises(SetupError) as info:
        GAME.check_setup({"rounds": 5}, setup)
    assert info.value.field == field


def test_deal_records_a_content_multiplier_and_the_endowment():
    params = GAME.params({})
    rng = random.Random(4)
    setups = [GAME.deal(params, rng) for _ in range(300)]
    for setup in setups:
        GAME.check_setup(params, setup)
        assert setup["endowment"] == 100
    assert sorted({s["multiplier"] for s in setups}) == MULTIPLIERS
    assert GAME.roles == ("player",)
    assert GAME.counterfactuals(params, setups[0], 0, random.Random(0)) == []
