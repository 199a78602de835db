"""Built-in Cost Sharing strategies: the usage index, proposals, votes and who agrees with whom."""

from __future__ import annotations

import asyncio

import pytest

from runner.agents.base import Request
from runner.agents.builtin import make, strategies
from runner.agents.builtin.cost_sharing import distance, to_split, usage_shares
from runner.games.cost_sharing import CostSharing, to_cents
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

# The sample setting printed in MAgIC (003, Table 3), plus one large carrier.
MAGIC = [
    {"id": "a", "flights_per_month": 90, "passengers_per_month": 7000, "avg_flight_hours": 1.75,
     "aircraft": "small and medium"},
    {"id": "b", "flights_per_month": 50, "passengers_per_month": 7500, "avg_flight_hours": 1.5,
     "aircraft": "small"},
    {"id": "c", "flights_per_month": 50, "passengers_per_month": 7500, "avg_flight_hours": 1.5,
     "aircraft": "small"},
]
BIG = {"id": "big", "flights_per_month": 300, "passengers_per_month": 40000, "avg_flight_hours": 3,
       "aircraft": "large"}
GAME = CostSharing(fees=[1000000], airlines=MAGIC + [BIG])
SETUP = {"fee": 1000000, "airlines": [MAGIC[0], MAGIC[1], BIG]}


def agent(spec, seat):
    name, params = spec if isinstance(spec, tuple) else (spec, {})
    return make(f"cost_sharing/{name}", params, rng_for(0, f"agent-{seat}"), name, "cost_sharing")


def play_game(specs, setup=SETUP, rounds=5):
    params = GAME.params({"rounds": rounds})
    seating = Seating([agent(s, i) for i, s in enumerate(specs)], GAME.seat_names(params, setup),
                      ["airline"] * 3)
    records = asyncio.run(play_alone(GAME, params, setup, seating, seed=0, tournament="t",
                                     created="2026-01-01"))
    # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
    assert check_bytes("cs.jsonl", encode(records), derive=False).ok
    return records[-1]


def test_usage_index_on_the_magic_sample():
    # Flights 90/50/50, passengers 7000/7500/7500, flight hours 157.5/75/75: a third each.
    shares = usage_shares(MAGIC)
    expected_a = (90 / 190 + 7000 / 22000 + 157.5 / 307.5) / 3
    assert shares[0] == pytest.approx(expected_a)
    assert shares[1] == pytest.approx(shares[2])
    assert sum(shares) == pytest.approx(1)
    # 4346.87 / 2826.56 / 2826.56 hundredths: the two spare hundredths go to the largest
    # remainders, the tie between the equal airlines to the lower seat.
    assert to_split(shares) == [43.47, 28.27, 28.26]


def test_usage_index_ignores_a_measure_nobody_has():
    cargo = [dict(a, passengers_per_month=0) for a in MAGIC]
    shares = usage_shares(cargo)
    assert shares[0] == pytest.approx((90 / 190 + 157.5 / 307.5) / 2)


@pytest.mark.parametrize("weights,split", [
    ([1, 1, 1], [33.34, 33.33, 33.33]), ([2, 1, 1], [50, 25, 25]), ([0, 0, 1], [0, 0, 100]),
    ([1, 2, 2], [20, 40, 40]), ([0.1, 0.1, 0.1], [33.34, 33.33, 33.33]), ([0, 0, 0], [33.34, 33.33, 33.33]),
], ids=["thirds", "half-quarter-quarter", "all-on-one", "fifths", "small-weights", "no-weights"])
def test_to_split_sums_to_exactly_100_with_largest_remainders(weights, split):
    assert to_split(weights) == split
    assert sum(to_cents(split)) == 10000


MATCHES = [
    # (id, strategies, success, round, proposer)
    ("proportional-agree-at-once", ["proportional"] * 3, True, 1, 0),
    ("conceding-agree-at-once", ["conceding"] * 3, True, 1, 0),
    ("conceding-and-proportional-agree", ["conceding", "proportional", "conceding"], True, 1, 0),
    ("greedy-never-agree", ["greedy"] * 3, False, None, None),
    ("one-greedy-blocks-proportional", ["proportional", "greedy", "proportional"], False, None, None),
    ("one-greedy-blocks-conceding", ["conceding", "conceding", "greedy"], False, None, None),
    ("greedy-without-discount-is-fair", [("greedy", {"discount": 0}), "proportional", "conceding"], True, 1, 0),
]


@pytest.mark.parametrize("specs,success,round_,proposer", [c[1:] for c in MATCHES], ids=[c[0] for c in MATCHES])
def test_who_agrees_with_whom(specs, success, round_, proposer):
    result = play_game(specs)["result"]
    assert (result["success"], result["round"], result["agreed_proposer"]) == (success, round_, proposer)
    if success:
        assert result["agreed_split"] == to_split(usage_shares(SETUP["airlines"]))


def test_greedy_asks_for_its_discount_and_the_others_cover_it_in_proportion():
    result = play_game([("greedy", {"discount": 0.5}), "proportional", "proportional"], rounds=1)["result"]
    fair = usage_shares(SETUP["airlines"])
    greedy = result["proposals"][0][0]
    assert greedy[0] == pytest.approx(fair[0] * 50, abs=0.01)
    assert greedy[1] / greedy[2] == pytest.approx(fair[1] / fair[2], rel=1e-3)
    assert sum(to_cents(greedy)) == 10000


def test_greedy_votes_for_the_proposal_that_makes_it_pay_least():
    greedy = agent("greedy", 1)
    obs = {"seat": 1, "public": {"airlines": SETUP["airlines"]},
           "log": [{"kind": "info", "phase": "proposals", "seat": None,
                    "data": {"round": 1, "proposals": [[40, 30, 30], [30, 40, 30], [50, 20, 30]]}}]}
    request = Request("cost_sharing", 1, "vote", obs, {"field": "proposal"})
    assert greedy.decide(request) == {"proposal": 2}


def test_proportional_votes_for_the_proposal_closest_to_the_fair_split():
    fair = to_split(usage_shares(SETUP["airlines"]))
    near = [fair[0] + 1, fair[1] - 1, fair[2]]
    obs = {"seat": 0, "public": {"airlines": SETUP["airlines"]},
           "log": [{"kind": "info", "phase": "proposals", "seat": None,
                    "data": {"round": 1, "proposals": [[0, 0, 100], [100, 0, 0], near]}}]}
    assert agent("proportional", 0).decide(Request("cost_sharing", 0, "vote", obs, {})) == {"proposal": 2}


def test_conceding_moves_halfway_towards_the_others_average_each_round():
    result = play_game(["conceding", "greedy", "greedy"], rounds=3)["result"]
    proposals = result["proposals"]
    for r in (1, 2):
        mine, others = proposals[r - 1][0], proposals[r - 1][1:]
        average = [(a + b) / 2 for a, b in zip(*others)]
        expected = [m + (a - m) / 2 for m, a in zip(mine, average)]
        assert distance(proposals[r][0], expected) <= 0.03
    # The greedy proposals never change, so the gap to their average halves every round.
    gaps = [distance(p[0], [(a + b) / 2 for a, b in zip(p[1], p[2])]) for p in proposals]
    assert gaps[1] == pytest.approx(gaps[0] / 2, abs=0.03) and gaps[2] == pytest.approx(gaps[0] / 4, abs=0.03)


def test_conceding_votes_for_the_proposal_closest_to_the_group_average():
    obs = {"seat": 0, "public": {"airlines": SETUP["airlines"]},
           "log": [{"kind": "info", "phase": "proposals", "seat": None,
                    "data": {"round": 1, "proposals": [[80, 10, 10], [30, 35, 35], [20, 40, 40]]}}]}
    assert agent("conceding", 0).decide(Request("cost_sharing", 0, "vote", obs, {})) == {"proposal": 1}


@pytest.mark.parametrize("name,params,error", [
    ("greedy", {"discount": 1.5}, "discount"), ("greedy", {"discount": True}, "discount"),
    ("conceding", {"step": -0.1}, "step"), ("conceding", {"step": "half"}, "step"),
    ("proportional", {"step": 0.5}, "no parameter"),
], ids=["discount-above-1", "bool-discount", "negative-step", "text-step", "unknown-parameter"])
def test_parameters_are_checked(name, params, error):
    with pytest.raises(ValueError, match=error):
        make(f"cost_sharing/{name}", params, rng_for(0, "x"), "x", "cost_sharing")


def test_the_strategies_are_registered():
    assert {n for n in strategies() if n.startswith("cost_sharing/")} == {
        "cost_sharing/proportional", "cost_sharing/greedy", "cost_sharing/conceding"}
