"""Cost Sharing rules: proposals and their format, unanimous votes, failure, costs, hidden moves."""

from __future__ import annotations

import random

import pytest

from runner.games import IllegalAction, SetupError
from runner.games.cost_sharing import CostSharing, costs, normalise_split

AIRLINES = [
    {"id": "north", "flights_per_month": 90, "passengers_per_month": 7000, "avg_flight_hours": 1.75,
     "aircraft": "mostly small and medium aircraft"},
    {"id": "south", "flights_per_month": 50, "passengers_per_month": 7500, "avg_flight_hours": 1.5,
     "aircraft": "mostly small aircraft"},
    {"id": "east", "flights_per_month": 300, "passengers_per_month": 42000, "avg_flight_hours": 3,
     "aircraft": "large aircraft"},
    {"id": "west", "flights_per_month": 20, "passengers_per_month": 1800, "avg_flight_hours": 0.75,
     "aircraft": "turboprops"},
]
GAME = CostSharing(fees=[600000, 1000000], airlines=AIRLINES)
SETUP = {"fee": 1000000, "airlines": AIRLINES[:3]}
A, B, C = [40, 30, 30], [50, 25, 25], [33.33, 33.33, 33.34]


def start(rounds=5, fee=1000000):
    params = GAME.params({"rounds": rounds})
    setup = {"fee": fee, "airlines": AIRLINES[:3]}
    GAME.check_setup(params, setup)
    return GAME.start(params, setup)


def play_rounds(state, rounds):
    for proposals, votes in rounds:
        for seat, split in enumerate(proposals):
            state.act(seat, {"split": split})
        for seat, target in enumerate(votes):
            state.act(seat, {"proposal": target})
    return state.outcome()


# -- how a negotiation ends --------------------------------------------------------------------
CASES = [
    # (id, rounds param, [(proposals, votes)...], success, round, proposer, split, costs)
    ("unanimous-in-round-1", 5, [([A, B, C], [0, 0, 0])], True, 1, 0, A, [400000, 300000, 300000]),
    ("unanimous-on-own-proposal", 5, [([A, B, C], [2, 2, 2])], True, 1, 2, C,
     [333300, 333300, 333400]),
    ("agreement-in-the-last-round", 3,
     [([A, B, C], [0, 1, 2]), ([A, B, C], [1, 1, 0]), ([B, B, A], [1, 1, 1])], True, 3, 1, B,
     [500000, 250000, 250000]),
    ("two-of-three-is-not-enough", 1, [([A, B, C], [1, 1, 0])], False, None, None, None, None),
    ("equal-splits-from-two-proposers-are-different-proposals", 1, [([A, A, B], [0, 1, 0])],
     False, None, None, None, None),
    ("no-agreement-in-five-rounds-fails", 5, [([A, B, C], [0, 1, 2])] * 5, False, None, None, None, None),
]


@pytest.mark.parametrize("rounds,play,success,round_,proposer,split,paid", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_negotiation_outcomes(rounds, play, success, round_, proposer, split, paid):
    state = start(rounds=rounds)
    outcome = play_rounds(state, play)
    result = outcome["result"]
    assert state.pending() is None
    assert outcome["winners"] == ([0, 1, 2] if success else [])
    assert result["success"] is success
    assert result["round"] == round_
    assert result["agreed_proposer"] == proposer
    assert result["agreed_split"] == split
    assert result["costs"] == paid
    assert result["rounds_played"] == len(play)
    assert result["proposals"] == [p for p, _ in play]
    assert result["votes"] == [v for _, v in play]
    assert result["fee"] == 1000000


# -- the agreement rule: the same proposer (default) or equal splits (MAgIC's code) ------------------
AGREEMENT_CASES = [
    # (id, agreement, [(proposals, votes)...], success, round, proposer, proposers, split)
    ("same-proposer: equal splits of two airlines stay apart", "same_proposer",
     [([A, A, B], [0, 1, 0]), ([A, A, B], [1, 1, 1])], True, 2, 1, None, A),
    ("same-split: equal splits of two airlines agree", "same_split",
     [([A, A, B], [0, 1, 0])], True, 1, None, [0, 1], A),
    ("same-split: equal splits of all three airlines agree", "same_split",
     [([C, C, C], [2, 0, 1])], True, 1, None, [0, 1, 2], C),
    ("same-split: one proposer is still an agreement", "same_split",
     [([A, B, C], [1, 1, 1])], True, 1, 1, [1], B),
    ("same-split: 33.33 is not 33.34", "same_split",
     [([C, [33.33, 33.34, 33.33], B], [0, 1, 0]), ([B, B, A], [0, 1, 0])], True, 2, None, [0, 1], B),
    ("same-split: different splits fail", "same_split",
     [([A, A, B], [0, 2, 1])], False, None, None, [], None),
]


@pytest.mark.parametrize("agreement,play,success,round_,proposer,proposers,split",
                         [c[1:] for c in AGREEMENT_CASES], ids=[c[0] for c in AGREEMENT_CASES])
def test_agreement_rule(agreement, play, success, round_, proposer, proposers, split):
    params = GAME.params({"rounds": len(play), "agreement": agreement})
    assert ("agreement" in params) == (agreement == "same_split")  # the default is not written out
    state = GAME.start(params, SETUP)
    result = play_rounds(state, play)["result"]
    assert (result["success"], result["round"], result["agreed_proposer"]) == (success, round_, proposer)
    assert result.get("agreed_proposers") == proposers
    assert result["agreed_split"] == split
    assert result["costs"] == (costs(1000000, split) if split else None)
    last = [ev["data"] for ev in state.events if ev["phase"] == "vote_result"][-1]
    assert last.get("agreed_proposers") == proposers and last["agreed_proposer"] == proposer
    assert ("agreed_split" in last) == success
    assert state.public().get("agreement") == (None if agreement == "same_proposer" else "same_split")


def test_agreement_rule_values_are_checked():
    for bad in ("equal", "", None, 1):
        with pytest.raises(SetupError, match="params.agreement"):
            GAME.params({"agreement": bad})
    assert GAME.params({"agreement": "same_proposer"}) == GAME.params({}) == {"rounds": 5}


def test_agreement_ends_the_game_before_the_last_round():
    state = start(rounds=5)
    play_rounds(state, [([A, B, C], [1, 1, 1])])
    assert state.pending() is None
    with pytest.raises(IllegalAction, match="over"):
        state.act(0, {"split": A})


def test_round_events_reveal_proposals_then_votes():
    state = start(rounds=2)
    play_rounds(state, [([A, B, C], [0, 1, 1]), ([B, B, B], [2, 2, 2])])
    infos = [(ev["phase"], ev["data"]) for ev in state.events if ev["kind"] == "info"]
    assert infos == [
        ("proposals", {"round": 1, "proposals": [A, B, C]}),
        ("vote_result", {"round": 1, "votes": [0, 1, 1], "agreed_proposer": None}),
        ("proposals", {"round": 2, "proposals": [B, B, B]}),
        ("vote_result", {"round": 2, "votes": [2, 2, 2], "agreed_proposer": 2, "agreed_split": B,
                         "costs": [500000, 250000, 250000]}),
    ]
    assert all(ev["vis"] == "all" for ev in state.events if ev["kind"] == "info")


# -- proposal format -----------------------------------------------------------------------------
SPLITS = [
    # (id, proposed, normalised or None if refused, words of the refusal)
    ("whole-percent", [50, 25, 25], [50, 25, 25], None),
    ("cents", [33.33, 33.33, 33.34], [33.33, 33.33, 33.34], None),
    ("one-decimal", [33.3, 33.3, 33.4], [33.3, 33.3, 33.4], None),
    ("whole-floats-become-ints", [50.0, 25, 25.00], [50, 25, 25], None),
    ("zero-share", [0, 0, 100], [0, 0, 100], None),
    ("tuple", (20, 30, 50), [20, 30, 50], None),
    ("float-noise-within-tolerance", [0.1 + 0.2, 49.7, 50], [0.3, 49.7, 50], None),
    ("three-decimals", [33.333, 33.333, 33.334], None, "more than 2 decimals"),
    ("sums-to-110", [50, 30, 30], None, "sum to 100, they sum to 110"),
    ("sums-to-99.99", [33.33, 33.33, 33.33], None, "sum to 99.99"),
    ("negative", [-10, 60, 50], None, "negative"),
    ("two-shares", [50, 50], None, "list of 3"),
    ("four-shares", [40, 30, 30, 0], None, "list of 3"),
    ("a-number", 100, None, "list of 3"),
    ("text-shares", ["50", "25", "25"], None, "must be a number"),
    ("bool-share", [True, 49, 50], None, "must be a number"),
    ("nan-share", [float("nan"), 50, 50], None, "must be a number"),
    ("infinite-share", [float("inf"), 0, 0], None, "must be a number"),
]


@pytest.mark.parametrize("split,expected,error", [c[1:] for c in SPLITS], ids=[c[0] for c in SPLITS])
def test_split_format(split, expected, error):
    if expected is not None:
        normal = normalise_split(split)
        assert normal == expected
        assert [type(v) for v in normal] == [type(v) for v in expected]
    else:
        with pytest.raises(IllegalAction, match=error):
            normalise_split(split)


@pytest.mark.parametrize("action,error", [
    ({"split": [50, 50, 0], "note": "fair"}, "exactly the field"),
    ({"proposal": 0}, "exactly the field"),
    ({}, "exactly the field"),
], ids=["extra-field", "vote-while-proposing", "empty"])
def test_illegal_proposal_actions(action, error):
    state = start()
    with pytest.raises(IllegalAction, match=error):
        state.act(0, action)


@pytest.mark.parametrize("action,error", [
    ({"proposal": 3}, "0 to 2"), ({"proposal": -1}, "0 to 2"), ({"proposal": "A"}, "0 to 2"),
    ({"proposal": True}, "0 to 2"), ({"proposal": 1.0}, "0 to 2"), ({"split": A}, "exactly the field"),
], ids=["out-of-range", "negative", "letter", "bool", "float", "proposal-while-voting"])
def test_illegal_votes(action, error):
    state = start()
    for seat in range(3):
        state.act(seat, {"split": A})
    with pytest.raises(IllegalAction, match=error):
        state.act(0, action)


def test_voting_for_your_own_proposal_is_allowed_but_not_twice():
    state = start()
    for seat in range(3):
        state.act(seat, {"split": A})
    state.act(1, {"proposal": 1})
    with pytest.raises(IllegalAction, match="not to act"):
        state.act(1, {"proposal": 0})


# -- costs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fee,split,expected", [
    (1000000, [40, 30, 30], [400000, 300000, 300000]),
    (1000001, [33.33, 33.33, 33.34], [333300.33, 333300.33, 333400.33]),
    (1, [0.5, 0.5, 99], [0.01, 0.01, 0.99]),
    (3, [0.5, 0.5, 99], [0.02, 0.02, 2.97]),
    (600000, [0, 0, 100], [0, 0, 600000]),
], ids=["whole-dollars", "cents", "half-cent-rounds-up", "one-and-a-half-cents-rounds-up", "all-on-one"])
def test_costs_in_dollars_rounded_half_up_to_the_cent(fee, split, expected):
    assert costs(fee, split) == expected


# -- what players see ----------------------------------------------------------------------------
def test_proposals_and_votes_stay_hidden_until_the_phase_closes():
    state = start()
    state.act(0, {"split": A})
    state.act(1, {"split": B})
    log2 = state.observe(2)["log"]
    assert log2 == []
    assert [ev["data"] for ev in state.observe(0)["log"]] == [{"split": A}]
    state.act(2, {"split": C})
    assert state.observe(2)["log"][-1]["data"] == {"round": 1, "proposals": [A, B, C]}
    state.act(0, {"proposal": 2})
    assert not any(ev["phase"] == "vote" for ev in state.observe(1)["log"])


def test_all_airline_data_is_public_and_seats_are_named():
    state = start()
    assert state.observe(1)["public"] == {"rounds": 5, "fee": 1000000, "airlines": AIRLINES[:3],
                                          "seat_names": ["Airline A", "Airline B", "Airline C"]}
    assert state.private(1) == {}
    params = GAME.params({})
    assert GAME.seat_names(params, SETUP) == ["Airline A", "Airline B", "Airline C"]
    assert GAME.roles == ("airline",)
    assert [GAME.role_of(params, SETUP, s) for s in range(3)] == ["airline"] * 3
    assert GAME.counterfactuals(params, SETUP, 0, random.Random(0)) == []
    assert state.probes() == ()


def test_legal_describes_the_phase():
    state = start()
    assert state.legal(0)["field"] == "split"
    for seat in range(3):
        state.act(seat, {"split": [20, 30, 50]})
    legal = state.legal(0)
    assert legal["field"] == "proposal" and legal["options"] == [0, 1, 2]
    assert legal["proposals"] == [[20, 30, 50]] * 3


# -- parameters and setups -----------------------------------------------------------------------
def test_parameters():
    assert GAME.params({}) == {"rounds": 5}
    assert GAME.params({"rounds": 1}) == {"rounds": 1}
    for raw, field in (({"rounds": 0}, "params.rounds"), ({"rounds": "5"}, "params.rounds"),
                       ({"players": 3}, "params")):
        with pytest.raises(SetupError) as info:
            GAME.params(raw)
        assert info.value.field == field


def bad(**change):
    setup = {"fee": 1000000, "airlines": [dict(a) for a in AIRLINES[:3]]}
    for key, value in change.items():
        if key.startswith("a1_"):
            if value is None:
                del setup["airlines"][1][key[3:]]
            else:
                setup["airlines"][1][key[3:]] = value
        else:
            setup[key] = value
    return setup


@pytest.mark.parametrize("setup,field", [
    (bad(fee=0), "setup.fee"), (bad(fee=1000000.5), "setup.fee"), (bad(fee=True), "setup.fee"),
    (bad(airlines=AIRLINES[:2]), "setup.airlines"), (bad(airlines=AIRLINES), "setup.airlines"),
    (bad(airlines=[AIRLINES[0], AIRLINES[1], AIRLINES[0]]), "setup.airlines[2].id"),
    (bad(a1_flights_per_month=0), "setup.airlines[1].flights_per_month"),
    (bad(a1_flights_per_month=12.5), "setup.airlines[1].flights_per_month"),
    (bad(a1_passengers_per_month=-1), "setup.airlines[1].passengers_per_month"),
    (bad(a1_avg_flight_hours=0), "setup.airlines[1].avg_flight_hours"),
    (bad(a1_avg_flight_hours="2"), "setup.airlines[1].avg_flight_hours"),
    (bad(a1_aircraft=""), "setup.airlines[1].aircraft"),
    (bad(a1_id=""), "setup.airlines[1].id"),
    (bad(a1_aircraft=None), "setup.airlines[1]"),
    (bad(a1_hub="yes"), "setup.airlines[1]"),
    (bad(extra=1), "setup"),
    ("fee", "setup"),
], ids=["zero-fee", "fractional-fee", "bool-fee", "two-airlines", "four-airlines", "duplicate-airline",
        "no-flights", "fractional-flights", "negative-passengers", "zero-hours", "text-hours",
        "empty-aircraft", "empty-id", "missing-field", "unknown-airline-field", "unknown-setup-field",
        "not-an-object"])
def test_bad_setups_name_their_field(setup, field):
    with pytest.raises(SetupError) as info:
        GAME.check_setup({"rounds": 5}, setup)
    assert info.value.field == field


def test_deal_draws_a_fee_and_three_distinct_airlines():
    params = GAME.params({})
    rng = random.Random(2)
    setups = [GAME.deal(params, rng) for _ in range(200)]
    for setup in setups:
        GAME.check_setup(params, setup)
        assert setup["fee"] in (600000, 1000000)
        assert len({a["id"] for a in setup["airlines"]}) == 3
        assert all(a in AIRLINES for a in setup["airlines"])
    assert {a["id"] for s in setups for a in s["airlines"]} == {a["id"] for a in AIRLINES}
    assert {s["fee"] for s in setups} == {600000, 1000000}


def test_dealing_needs_three_airlines():
    game = CostSharing(fees=[1000], airlines=AIRLINES[:2])
    with pytest.raises(SetupError, match="at least 3 airlines"):
        game.deal(game.params({}), random.Random(0))
