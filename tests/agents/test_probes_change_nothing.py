"""Answering a belief probe never changes how a built-in agent plays on (a probe is asked outside
the game): every built-in strategy plays the same moves with probes on and off."""

from __future__ import annotations

import asyncio

import pytest

from runner import games
from runner.agents.builtin import make, strategies
from runner.play import Seating
from runner.seeds import rng_for
from tests.helpers import play_alone

PROBED = ("chameleon", "undercover", "werewolf")


def events(game_name: str, strategy: str, seed: int, probes: bool) -> list[dict]:
    game = games.get(game_name)
    params = game.params({"clue": "subset", "words": 20} if strategy == "chameleon/ambiguity" else {})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    agents = [make(strategy, {}, rng_for(seed, f"agent-{s}"), strategy, game_name) for s in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    records = asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="t",
                                     created="2026-11-25", probes=probes))
    return [r for r in records if r["type"] in ("event", "outcome")]


@pytest.mark.parametrize("strategy", sorted(name for name in strategies() if name.split("/")[0] in PROBED))
def test_probes_change_no_move(strategy):
    game_name = strategy.split("/")[0]
    for seed in range(6):
        assert events(game_name, strategy, seed, True) == events(game_name, strategy, seed, False), seed
