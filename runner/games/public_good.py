"""Public Good (MAgIC): three players contribute to a pool that is multiplied and shared at the end."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
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
    SetupError,
    State,
    action_fields,
    check_keys,
    is_int,
    is_number,
    require,
)
from runner.games.facts import Facts, Outcome

PLAYERS = 3
MAX_MULTIPLIER = 100
MAX_ENDOWMENT = 10**6


def share_of(pool: int, multiplier: int | float) -> int | float:
    """pool x multiplier / players, rounded half up to 2 decimals (an int when whole).

    The multiplier is read from its decimal form (1.2 is 6/5), so the share is exact, not a
    binary-float approximation.
    """
    exact = Fraction(pool) * Fraction(repr(multiplier)) / PLAYERS
    cents = int((exact * 100 + Fraction(1, 2)) // 1)
    return cents // 100 if cents % 100 == 0 else cents / 100


def add_cents(a: int | float, b: int | float) -> int | float:
    """a + b for amounts with at most 2 decimals, without float noise (an int when whole)."""
    cents = round(a * 100) + round(b * 100)
    return cents // 100 if cents % 100 == 0 else cents / 100


class PublicGoodState(State):
    """Rounds of simultaneous contributions; each round's contributions are revealed when it closes."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.round = 1
        self.current: dict[Seat, int] = {}
        self.kept: list[int] = [setup["endowment"]] * PLAYERS
        self.pool = 0
        self.history: list[list[int]] = []

    def _pending(self) -> Pending | None:
        if self.round > self.params["rounds"]:
            return None
        waiting = tuple(s for s in range(PLAYERS) if s not in self.current)
        return Pending("act", "contribute", waiting, simultaneous=True)

    def legal(self, seat: Seat) -> dict[str, Any]:
        return {"field": "contribution", "min": 0, "max": self.kept[seat], "round": self.round,
                "rounds": self.params["rounds"]}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        action_fields(action, ["contribution"])
        amount = action["contribution"]
        if not is_int(amount):
            raise IllegalAction(f"the contribution must be a whole number of points, got {amount!r}")
        if not 0 <= amount <= self.kept[seat]:
            raise IllegalAction(f"the contribution must be from 0 to the {self.kept[seat]} points "
                                f"you have left, got {amount}")
        return {"contribution": amount}

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        self.current[seat] = action["contribution"]
        if len(self.current) < PLAYERS:
            return
        given = [self.current[s] for s in range(PLAYERS)]
        self.current = {}
        self.kept = [k - g for k, g in zip(self.kept, given)]
        self.pool += sum(given)
        self.history.append(given)
        self._emit("info", "round_result", None,
                   {"round": self.round, "contributions": given, "round_total": sum(given),
                    "pool": self.pool, "kept": list(self.kept)}, "all")
        self.round += 1
        if self.round > self.params["rounds"]:
            share = share_of(self.pool, self.setup["multiplier"])
            self._emit("info", "payout", None,
                       {"pool": self.pool, "multiplier": self.setup["multiplier"], "share": share,
                        "finals": [add_cents(k, share) for k in self.kept]}, "all")

    def private(self, seat: Seat) -> dict[str, Any]:
        return {}

    def public(self) -> dict[str, Any]:
        return {"players": PLAYERS, "rounds": self.params["rounds"], "endowment": self.setup["endowment"],
                "multiplier": self.setup["multiplier"]}

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        share = share_of(self.pool, self.setup["multiplier"])
        # Everyone gets the same share, so the highest final is the highest kept: compare ints.
        best = max(self.kept)
        winners = [s for s in range(PLAYERS) if self.kept[s] == best]
        return winners, {"contributions": [list(r) for r in self.history], "kept": list(self.kept), "pool": self.pool,
                         "multiplier": self.setup["multiplier"], "share": share,
                         "finals": [add_cents(k, share) for k in self.kept],
                         "strict_winner": winners[0] if len(winners) == 1 else None}

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        return {"contribution": rng.randint(0, self.kept[seat])}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        return [{"contribution": -1}, {"contribution": self.kept[seat] + 1}, {"contribution": 2.5},
                {"contribution": 10.0}, {"contribution": "10"}, {"contribution": True}, {"contribution": None},
                {}, {"contribution": 0, "note": "x"}, {"choice": "cooperate"}, 5]


class PublicGood(RoundsGame):
    """Three players, a fixed number of rounds, one multiplier dealt per game."""

    name = "public_good"
    title = "Public Good"
    roles = ("player",)

    def __init__(self, multipliers: Sequence[int | float] | None = None, endowment: int | None = None):
        self._multipliers = None if multipliers is None else list(multipliers)
        self._endowment = endowment

    def content(self) -> tuple[list[int | float], int]:
        """Multipliers and endowment: the explicit ones, else the shipped content (read on first use)."""
        shipped = content.load("public_good") if self._multipliers is None or self._endowment is None else {}
        multipliers = self._multipliers if self._multipliers is not None else shipped["multipliers"]
        endowment = self._endowment if self._endowment is not None else shipped["endowment"]
        return multipliers, endowment

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        multipliers, endowment = self.content()
        if not multipliers:
            raise SetupError("content.public_good", "there are no multipliers to deal from")
        return {"multiplier": rng.choice(multipliers), "endowment": endowment}

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["multiplier", "endowment"], "setup")
        multiplier = setup["multiplier"]
        require(is_number(multiplier) and 0 < multiplier <= MAX_MULTIPLIER, "setup.multiplier",
                f"must be a number above 0 and at most {MAX_MULTIPLIER}")
        require(is_int(setup["endowment"]) and 1 <= setup["endowment"] <= MAX_ENDOWMENT, "setup.endowment",
                f"must be a whole number of points from 1 to {MAX_ENDOWMENT}")

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return PublicGoodState(self, params, setup)



GAME = PublicGood()

FACTS = Facts(
    winning="the seat with the most points after the rounds wins (a tie is a win for each)",
    outcome=Outcome("strict_winner", {None: "shared win"}, otherwise="single winner"),
    default_opponent="public_good/conditional",
    goals={None: "Finish with the highest score: the points you keep plus your equal share of the "
                 "multiplied pool."},
    points="finals",
    magic=True,
)
