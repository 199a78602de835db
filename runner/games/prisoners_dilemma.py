"""Three-player iterated Prisoner's Dilemma (MAgIC): simultaneous cooperate/defect rounds."""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from runner import content
from runner.games.base import (
    Action,
    Game,
    IllegalAction,
    Pending,
    RoundsGame,
    Seat,
    State,
    action_fields,
    check_keys,
    is_number,
    require,
)
from runner.games.facts import Facts, Outcome

CHOICES = ("cooperate", "defect")
PAYOFF_KEYS = ("cooperate", "defect", "one_defect", "two_defect")
PLAYERS = 3


def exact(value: float) -> Fraction:
    """A payoff as an exact fraction of its decimal spelling (0.1 is 1/10, not a binary float)."""
    return Fraction(str(value))


def plain(value: Fraction) -> int | float:
    """An exact number back as JSON: an int when whole, else the nearest float."""
    return value.numerator if value.denominator == 1 else float(value)


def round_points(choices: list[str], payoffs: Mapping[str, float]) -> list[float]:
    """Points of each seat for one round, from the number of defectors."""
    defectors = choices.count("defect")
    if defectors == 0:
        return [payoffs["cooperate"]] * len(choices)
    if defectors == len(choices):
        return [payoffs["defect"]] * len(choices)
    key = "one_defect" if defectors == 1 else "two_defect"
    return [payoffs[key] if c == "defect" else 0 for c in choices]


class PrisonersDilemmaState(State):
    """Rounds of simultaneous choices; choices are revealed when a round closes."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.round = 1
        self.current: dict[Seat, str] = {}
        # Exact running totals: ties for the highest total must not depend on float rounding.
        self.totals: list[Fraction] = [Fraction(0)] * PLAYERS
        self.history: list[list[str]] = []

    def _pending(self) -> Pending | None:
        if self.round > self.params["rounds"]:
            return None
        waiting = tuple(s for s in range(PLAYERS) if s not in self.current)
        return Pending("act", "choose", waiting, simultaneous=True)

    def legal(self, seat: Seat) -> dict[str, Any]:
        return {"field": "choice", "options": list(CHOICES), "round": self.round}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        action_fields(action, ["choice"])
        if action["choice"] not in CHOICES:
            raise IllegalAction(f"choice must be one of {list(CHOICES)}, got {action['choice']!r}")
        return {"choice": action["choice"]}

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        self.current[seat] = action["choice"]
        if len(self.current) < PLAYERS:
            return
        choices = [self.current[s] for s in range(PLAYERS)]
        points = round_points(choices, self.setup["payoffs"])
        self.totals = [t + exact(p) for t, p in zip(self.totals, points)]
        self.history.append(choices)
        self._emit("info", "round_result", None,
                   {"round": self.round, "choices": choices, "points": points,
                    "totals": [plain(t) for t in self.totals]}, "all")
        self.current = {}
        self.round += 1

    def private(self, seat: Seat) -> dict[str, Any]:
        return {}

    def public(self) -> dict[str, Any]:
        return {"rounds": self.params["rounds"], "payoffs": dict(self.setup["payoffs"])}

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        best = max(self.totals)
        winners = [s for s in range(PLAYERS) if self.totals[s] == best]
        return winners, {"totals": [plain(t) for t in self.totals],
                         "strict_winner": winners[0] if len(winners) == 1 else None}

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        return {"choice": rng.choice(CHOICES)}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        return [{"choice": "betray"}, {"choice": "Cooperate"}, {}, {"choice": "defect", "x": 1},
                {"choice": 1}, "defect"]


class PrisonersDilemma(RoundsGame):
    """Three players, a fixed number of rounds, a payoff setting dealt per game."""

    name = "prisoners_dilemma"
    title = "Prisoner's Dilemma"
    roles = ("player",)

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        setting = rng.choice(content.load("prisoners_dilemma")["settings"])
        return {"payoffs": {k: setting[k] for k in ("id", *PAYOFF_KEYS)}}

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["payoffs"], "setup")
        payoffs = setup["payoffs"]
        check_keys(payoffs, PAYOFF_KEYS, "setup.payoffs", optional=["id"])
        for key in PAYOFF_KEYS:
            require(is_number(payoffs[key]) and payoffs[key] >= 0, f"setup.payoffs.{key}",
                    "must be a non-negative number")
        if "id" in payoffs:
            require(isinstance(payoffs["id"], str), "setup.payoffs.id", "must be a string")

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return PrisonersDilemmaState(self, params, setup)



GAME = PrisonersDilemma()

FACTS = Facts(
    winning="the seat with the most points after the rounds wins (a tie is a win for each)",
    outcome=Outcome("strict_winner", {None: "shared win"}, otherwise="single winner"),
    default_opponent="prisoners_dilemma/tit_for_tat",
    goals={None: "Finish the rounds with the highest total of points (cooperate or defect each "
                 "round; ties for the top all win)."},
    points="totals",
    magic=True,
)
