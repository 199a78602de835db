"""Built-in Prisoner's Dilemma strategies behave as named, against each other and a scripted foil."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from runner.agents.base import Request, ScriptedAgent
from runner.agents.builtin import make, strategies
from runner.games.prisoners_dilemma import GAME
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

C, D = "cooperate", "defect"
PAYOFFS = {"id": "pd-1", "cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}


class Scripted(ScriptedAgent):
    """A test foil that plays a fixed sequence of choices, whatever happens."""

    strategy = "test/sequence"

    def __init__(self, moves: list[str]):
        super().__init__({}, None, "foil")
        self.moves = moves

    def decide(self, request: Request) -> dict[str, Any]:
        return {"choice": self.moves[request.legal["round"] - 1]}


def agent(spec: Any, seat: int):
    if isinstance(spec, list):
        return Scripted(spec)
    name = f"prisoners_dilemma/{spec}"
    return make(name, {}, rng_for(0, f"agent-{seat}"), spec, "prisoners_dilemma")


def play_game(specs, rounds=5) -> list[list[str]]:
    """The choices per round, from a replay that the validator accepts."""
    params = GAME.params({"rounds": rounds})
    setup = {"payoffs": PAYOFFS}
    seating = Seating([agent(s, i) for i, s in enumerate(specs)], GAME.seat_names(params, setup),
                      ["player"] * 3)
    records = asyncio.run(play_alone(GAME, params, setup, seating, seed=0, tournament="t",
                                     created="2026-01-01"))
    # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
    assert check_bytes("pd.jsonl", encode(records), derive=False).ok
    return [r["data"]["choices"] for r in records if r["type"] == "event" and r["phase"] == "round_result"]


def column(rounds: list[list[str]], seat: int) -> list[str]:
    return [r[seat] for r in rounds]


CASES = [
    # (id, strategies or fixed sequences per seat, the choices of the seat under test, that seat)
    ("always-defect-defects-among-cooperators", ["always_defect", "always_cooperate", "always_cooperate"],
     [D] * 5, 0),
    ("always-cooperate-cooperates-against-defectors", ["always_cooperate", "always_defect", "always_defect"],
     [C] * 5, 0),
    ("tit-for-tat-opens-with-cooperation-then-mirrors-defection",
     ["tit_for_tat", "always_defect", "always_cooperate"], [C, D, D, D, D], 0),
    ("tit-for-tat-forgives-a-single-defection",
     ["tit_for_tat", [C, D, C, C, C], [C] * 5], [C, C, D, C, C], 0),
    ("tit-for-tat-answers-each-defection-once",
     ["tit_for_tat", [D, C, D, C, C], [C] * 5], [C, D, C, D, C], 0),
    ("tit-for-tat-reacts-to-either-opponent",
     [[C] * 5, [C, C, C, D, C], "tit_for_tat"], [C, C, C, C, D], 2),
    ("grim-trigger-never-forgives",
     ["grim_trigger", [C, D, C, C, C], [C] * 5], [C, C, D, D, D], 0),
    ("grim-trigger-stays-cooperative-with-cooperators",
     [[C] * 5, "grim_trigger", [C] * 5], [C] * 5, 1),
    ("grim-trigger-ignores-its-own-past", ["grim_trigger", "always_cooperate", "always_cooperate"], [C] * 5, 0),
]


@pytest.mark.parametrize("specs,expected,seat", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_strategy_behaviour(specs, expected, seat):
    assert column(play_game(specs), seat) == expected


def test_tit_for_tat_and_grim_trigger_cooperate_with_each_other_forever():
    rounds = play_game(["tit_for_tat", "grim_trigger", "tit_for_tat"])
    assert rounds == [[C, C, C]] * 5


def test_reciprocators_fall_into_mutual_defection_against_a_defector():
    rounds = play_game(["tit_for_tat", "grim_trigger", "always_defect"])
    assert rounds == [[C, C, D]] + [[D, D, D]] * 4


def test_the_strategies_are_registered_for_this_game_only():
    names = {n for n in strategies() if n.startswith("prisoners_dilemma/")}
    assert names == {"prisoners_dilemma/always_defect", "prisoners_dilemma/always_cooperate",
                     "prisoners_dilemma/tit_for_tat", "prisoners_dilemma/grim_trigger"}
    with pytest.raises(ValueError, match="plays prisoners_dilemma"):
        make("prisoners_dilemma/tit_for_tat", {}, rng_for(0, "x"), "x", "public_good")
    with pytest.raises(ValueError, match="no parameter"):
        make("prisoners_dilemma/tit_for_tat", {"patience": 2}, rng_for(0, "x"), "x", "prisoners_dilemma")
