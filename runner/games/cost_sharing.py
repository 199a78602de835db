"""Cost Sharing (MAgIC "Airport Fee Allocation"): three airlines negotiate how to split a fixed fee."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
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
SEAT_NAMES = ("Airline A", "Airline B", "Airline C")
PROFILE_KEYS = ("id", "flights_per_month", "passengers_per_month", "avg_flight_hours", "aircraft")
WHOLE = 10_000  # 100 percent, in hundredths of a percent
MAX_FEE = 10**12
#: When a vote ends the game in agreement: all three votes for one airline's proposal (the default),
#: or all three for proposals with equal splits, whoever made them (MAgIC's code, airportfee_pgm.py
#: lines 252-263; docs/games/cost_sharing.md).
AGREEMENTS = ("same_proposer", "same_split")


def to_cents(split: Any) -> list[int]:
    """A proposed split as hundredths of a percent; IllegalAction unless it is a valid split."""
    if not isinstance(split, (list, tuple)) or len(split) != PLAYERS:
        raise IllegalAction(f"the split must be a list of {PLAYERS} percentages in seat order "
                            f"({', '.join(SEAT_NAMES)})")
    cents = []
    for i, value in enumerate(split):
        if not is_number(value):
            raise IllegalAction(f"share {i} ({SEAT_NAMES[i]}) must be a number, got {value!r}")
        if value < 0:
            raise IllegalAction(f"share {i} ({SEAT_NAMES[i]}) must not be negative, got {value!r}")
        scaled = value * 100
        rounded = round(scaled)
        # Tolerance for binary floats such as 33.33 * 100 = 3332.9999999999995.
        if abs(scaled - rounded) > 1e-6:
            raise IllegalAction(f"share {i} ({SEAT_NAMES[i]}) has more than 2 decimals: {value!r}")
        cents.append(int(rounded))
    if sum(cents) != WHOLE:
        raise IllegalAction(f"the percentages must sum to 100, they sum to {from_cents(sum(cents))}")
    return cents


def from_cents(cents: int) -> int | float:
    """Hundredths of a percent (or of a dollar) as a number: an int when whole."""
    return cents // 100 if cents % 100 == 0 else cents / 100


def normalise_split(split: Any) -> list[int | float]:
    """The split with each share as an int when whole, else a float with at most 2 decimals."""
    return [from_cents(c) for c in to_cents(split)]


def costs(fee: int, split: list[int | float]) -> list[int | float]:
    """Dollars each airline pays under `split`, rounded half up to the cent."""
    out = []
    for share in to_cents(split):
        # fee * share/10000 dollars = fee * share / 100 cents, rounded half up in integers.
        out.append(from_cents((fee * share * 2 + 100) // 200))
    return out


class CostSharingState(State):
    """Rounds of simultaneous proposals, then simultaneous votes; unanimity ends the game."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.round = 1
        self.phase = "propose"
        self.current: dict[Seat, Any] = {}
        self.proposals: list[list[list[int | float]]] = []  # per round, per proposer
        self.votes: list[list[Seat]] = []  # per round, per voter
        self.agreed_split: list[int | float] | None = None
        self.agreed_proposers: list[Seat] = []  # whose proposals the agreeing votes named

    @property
    def same_split(self) -> bool:
        return self.params.get("agreement") == "same_split"

    @property
    def agreed(self) -> Seat | None:
        """The one airline whose proposal all three voted for, or None (also when equal splits of
        several airlines were agreed under "same_split")."""
        return self.agreed_proposers[0] if len(self.agreed_proposers) == 1 else None

    def _pending(self) -> Pending | None:
        if self.agreed_split is not None or self.round > self.params["rounds"]:
            return None
        waiting = tuple(s for s in range(PLAYERS) if s not in self.current)
        return Pending("act", self.phase, waiting, simultaneous=True)

    def legal(self, seat: Seat) -> dict[str, Any]:
        if self.phase == "propose":
            return {"field": "split", "round": self.round, "rounds": self.params["rounds"],
                    "order": list(SEAT_NAMES),
                    "rule": "3 percentages in seat order, each >= 0 with at most 2 decimals, summing to 100"}
        return {"field": "proposal", "round": self.round, "options": list(range(PLAYERS)),
                "proposals": self.proposals[-1],
                "rule": "the seat of the airline whose proposal you vote for (your own is allowed)"}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        if phase == "propose":
            action_fields(action, ["split"])
            return {"split": normalise_split(action["split"])}
        action_fields(action, ["proposal"])
        target = action["proposal"]
        if not is_int(target) or not 0 <= target < PLAYERS:
            raise IllegalAction(f"the vote must name a proposal by its proposer's seat, 0 to {PLAYERS - 1}; "
                                f"got {target!r}")
        return {"proposal": target}

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        self.current[seat] = action["split" if phase == "propose" else "proposal"]
        if len(self.current) < PLAYERS:
            return
        gathered = [self.current[s] for s in range(PLAYERS)]
        self.current = {}
        if phase == "propose":
            self.proposals.append(gathered)
            self._emit("info", "proposals", None, {"round": self.round, "proposals": gathered}, "all")
            self.phase = "vote"
            return
        self.votes.append(gathered)
        named = self.proposals[-1]
        if self.same_split:
            # Splits are normalised, so equal shares compare equal whoever proposed them.
            agreed = all(named[v] == named[gathered[0]] for v in gathered)
        else:
            # The same proposer's proposal: equal splits from two airlines stay distinct.
            agreed = gathered.count(gathered[0]) == PLAYERS
        if agreed:
            self.agreed_split = named[gathered[0]]
            self.agreed_proposers = sorted(set(gathered))
        data: dict[str, Any] = {"round": self.round, "votes": gathered, "agreed_proposer": self.agreed}
        if self.same_split:
            data["agreed_proposers"] = list(self.agreed_proposers)
        if agreed:
            data["agreed_split"] = self.agreed_split
            data["costs"] = costs(self.setup["fee"], self.agreed_split)
        self._emit("info", "vote_result", None, data, "all")
        if not agreed:
            self.round += 1
            self.phase = "propose"

    def private(self, seat: Seat) -> dict[str, Any]:
        return {}

    def public(self) -> dict[str, Any]:
        out = {"rounds": self.params["rounds"], "fee": self.setup["fee"],
               "airlines": [dict(a) for a in self.setup["airlines"]], "seat_names": list(SEAT_NAMES)}
        if self.same_split:  # only then, so that observations under the default rule stay as they were
            out["agreement"] = "same_split"
        return out

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        success = self.agreed_split is not None
        split = list(self.agreed_split) if self.agreed_split is not None else None
        result = {"success": success, "round": self.round if success else None,
                  "rounds_played": len(self.votes), "agreed_proposer": self.agreed,
                  "agreed_split": split, "costs": costs(self.setup["fee"], split) if split is not None else None,
                  "fee": self.setup["fee"], "proposals": copy.deepcopy(self.proposals),
                  "votes": copy.deepcopy(self.votes)}
        if self.same_split:
            result["agreed_proposers"] = list(self.agreed_proposers)
        return (list(range(PLAYERS)) if success else []), result

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        if self.phase == "vote":
            return {"proposal": rng.randrange(PLAYERS)}
        low, high = sorted(rng.randint(0, 100) for _ in range(2))
        return {"split": [low, high - low, 100 - high]}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        if self.phase == "vote":
            return [{"proposal": 3}, {"proposal": -1}, {"proposal": "A"}, {"proposal": True},
                    {"proposal": 1.0}, {}, {"proposal": 0, "split": [100, 0, 0]}, {"split": [100, 0, 0]}]
        return [{"split": [50, 50]}, {"split": [50, 30, 30]}, {"split": [-10, 60, 50]},
                {"split": [33.333, 33.333, 33.334]}, {"split": ["50", "25", "25"]},
                {"split": [True, 0, 99]}, {"split": [float("nan"), 50, 50]}, {"split": 100},
                {"split": [40, 30, 30, 0]}, {}, {"split": [40, 30, 30], "note": "fair"},
                {"proposal": 0}]


def check_profile(profile: Any, field: str) -> None:
    """Raise SetupError unless `profile` is one airline's usage data."""
    check_keys(profile, PROFILE_KEYS, field)
    require(isinstance(profile["id"], str) and 0 < len(profile["id"]) <= 80, f"{field}.id",
            "must be a string of 1 to 80 characters")
    require(is_int(profile["flights_per_month"]) and 1 <= profile["flights_per_month"] <= 10**6,
            f"{field}.flights_per_month", "must be an integer from 1 to 1000000")
    require(is_int(profile["passengers_per_month"]) and 0 <= profile["passengers_per_month"] <= 10**9,
            f"{field}.passengers_per_month", "must be an integer from 0 to 1000000000")
    hours = profile["avg_flight_hours"]
    require(is_number(hours) and 0 < hours <= 24, f"{field}.avg_flight_hours",
            "must be a number of hours above 0 and at most 24")
    require(isinstance(profile["aircraft"], str) and 0 < len(profile["aircraft"]) <= 200,
            f"{field}.aircraft", "must be a string of 1 to 200 characters")


class CostSharing(RoundsGame):
    """Three airlines, a fixed airport fee, up to `rounds` rounds of proposals and votes."""

    name = "cost_sharing"
    title = "Cost Sharing"
    roles = ("airline",)
    cooperative = True  # the airlines all agree (and all win) or all fail
    options = {"agreement": AGREEMENTS}

    def __init__(self, fees: list[int] | None = None, airlines: list[Mapping[str, Any]] | None = None):
        self._fees = None if fees is None else list(fees)
        self._airlines = None if airlines is None else [dict(a) for a in airlines]

    def content(self) -> tuple[list[int], list[dict[str, Any]]]:
        """Fees and airline profiles: the explicit ones, else the shipped content (read on first use)."""
        shipped = content.load("cost_sharing_airlines") if self._fees is None or self._airlines is None else {}
        fees = self._fees if self._fees is not None else shipped["fees"]
        airlines = self._airlines if self._airlines is not None else shipped["airlines"]
        return fees, airlines

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        fees, airlines = self.content()
        if not fees or len(airlines) < PLAYERS:
            raise SetupError("content.cost_sharing_airlines", f"needs a fee and at least {PLAYERS} airlines")
        fee = rng.choice(fees)
        chosen = rng.sample(airlines, PLAYERS)
        return {"fee": fee, "airlines": [{k: a[k] for k in PROFILE_KEYS} for a in chosen]}

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["fee", "airlines"], "setup")
        require(is_int(setup["fee"]) and 1 <= setup["fee"] <= MAX_FEE, "setup.fee",
                f"must be a whole number of dollars from 1 to {MAX_FEE}")
        airlines = setup["airlines"]
        require(isinstance(airlines, list) and len(airlines) == PLAYERS, "setup.airlines",
                f"must be a list of {PLAYERS} airline profiles")
        for i, profile in enumerate(airlines):
            check_profile(profile, f"setup.airlines[{i}]")
        ids = [a["id"] for a in airlines]
        for i, ident in enumerate(ids):
            require(ident not in ids[:i], f"setup.airlines[{i}].id", f"{ident!r} is dealt twice")

    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(raw, [], "params", optional=["rounds", "agreement"])
        out = super().params({k: v for k, v in raw.items() if k != "agreement"})
        agreement = raw.get("agreement", AGREEMENTS[0])
        require(isinstance(agreement, str) and agreement in AGREEMENTS, "params.agreement",
                f"must be one of {list(AGREEMENTS)}")
        # The default is left out of the normal form: replays written before the option existed
        # keep their exact `variant`.
        return out if agreement == AGREEMENTS[0] else {**out, "agreement": agreement}

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return CostSharingState(self, params, setup)


    def seat_names(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> list[str]:
        return list(SEAT_NAMES)


GAME = CostSharing()

FACTS = Facts(
    winning="every airline wins when all three agree on a split within the rounds; nobody wins otherwise",
    outcome=Outcome("success", {True: "agreement", False: "no agreement"}),
    default_opponent="cost_sharing/proportional",
    goals={None: "Agree with the other two airlines on how to split the airport's fee, fairly for "
                 "how much each uses it and as good for your airline as you can get; with no "
                 "agreement by the last round all three lose."},
    magic=True,
)
