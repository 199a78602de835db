"""Built-in Public Good strategies: free rider, full contributor, conditional cooperator."""

from __future__ import annotations

import asyncio

import pytest

from runner.agents.builtin import make, strategies
from runner.games.public_good import PublicGood
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

GAME = PublicGood(multipliers=[1.5], endowment=100)


def play_game(specs, rounds=5, endowment=100, multiplier=1.5):
    """The outcome of one game between the given strategies (name or (name, params))."""
    params = GAME.params({"rounds": rounds})
    setup = {"multiplier": multiplier, "endowment": endowment}
    agents = []
    for seat, spec in enumerate(specs):
        name, agent_params = spec if isinstance(spec, tuple) else (spec, {})
        agents.append(make(f"public_good/{name}", agent_params, rng_for(0, f"agent-{seat}"), name, "public_good"))
    seating = Seating(agents, GAME.seat_names(params, setup), ["player"] * 3)
    records = asyncio.run(play_alone(GAME, params, setup, seating, seed=0, tournament="t",
                                     created="2026-01-01"))
    # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
    assert check_bytes("pg.jsonl", encode(records), derive=False).ok
    return records[-1]


CASES = [
    # (id, strategies, rounds, endowment, contributions per round, winners)
    ("free-rider-beats-two-full-contributors", ["free_rider", "full_contributor", "full_contributor"], 5, 100,
     [[0, 20, 20]] * 5, [0]),
    ("full-contributors-give-everything-by-the-end", ["full_contributor"] * 3, 5, 100, [[20, 20, 20]] * 5,
     [0, 1, 2]),
    ("full-contributor-puts-the-remainder-in-the-last-round", ["full_contributor", "free_rider", "free_rider"],
     3, 100, [[33, 0, 0], [33, 0, 0], [34, 0, 0]], [1, 2]),
    ("conditional-follows-the-others-average", ["conditional", "free_rider", "full_contributor"], 5, 100,
     [[20, 0, 20], [10, 0, 20], [10, 0, 20], [10, 0, 20], [10, 0, 20]], [1]),
    ("conditional-decays-against-a-free-rider", ["free_rider", "conditional", "conditional"], 5, 100,
     [[0, 20, 20], [0, 10, 10], [0, 5, 5], [0, 3, 3], [0, 2, 2]], [0]),
    ("conditional-start-parameter", [("conditional", {"start": 50}), "full_contributor", "free_rider"], 5, 100,
     [[50, 20, 0], [10, 20, 0], [10, 20, 0], [10, 20, 0], [10, 20, 0]], [2]),
    ("conditional-is-capped-by-what-is-left", [("conditional", {"start": 150}), "full_contributor",
                                                "full_contributor"], 5, 100,
     [[100, 20, 20], [0, 20, 20], [0, 20, 20], [0, 20, 20], [0, 20, 20]], [0, 1, 2]),
    ("conditional-rounds-half-up", ["conditional", ("conditional", {"start": 5}), ("conditional", {"start": 0})],
     3, 100, [[20, 5, 0], [3, 10, 13], [12, 8, 7]], [2]),
]


@pytest.mark.parametrize("specs,rounds,endowment,contributions,winners", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_strategy_behaviour(specs, rounds, endowment, contributions, winners):
    outcome = play_game(specs, rounds, endowment)
    assert outcome["result"]["contributions"] == contributions
    assert outcome["winners"] == winners


def test_free_rider_never_contributes_and_never_loses_to_contributors():
    for others in (["full_contributor", "conditional"], ["conditional", "conditional"]):
        outcome = play_game(["free_rider", *others], multiplier=5)
        assert all(r[0] == 0 for r in outcome["result"]["contributions"])
        assert outcome["winners"] == [0]


def test_conditional_parameters_are_checked():
    for bad in (-1, 2.5, "20", True):
        with pytest.raises(ValueError, match="start"):
            make("public_good/conditional", {"start": bad}, rng_for(0, "x"), "x", "public_good")
    assert {n for n in strategies() if n.startswith("public_good/")} == {
        "public_good/free_rider", "public_good/full_contributor", "public_good/conditional"}
