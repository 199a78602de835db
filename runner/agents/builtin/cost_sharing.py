"""Built-in Cost Sharing strategies: fair, greedy and conceding airlines."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from runner.agents.base import Request, ScriptedAgent
from runner.games.cost_sharing import WHOLE, from_cents, to_cents

Obs = Mapping[str, Any]
Split = list[int | float]


def usage_shares(airlines: Sequence[Mapping[str, Any]]) -> list[float]:
    """Each airline's usage index: the mean of its shares of flights, passengers and flight hours.

    Flights stand for runway and gate movements, passengers for terminal use and flight hours
    (flights x average duration) for aircraft size; each counts for a third. The shares sum to 1.
    """
    measures = [
        [a["flights_per_month"] for a in airlines],
        [a["passengers_per_month"] for a in airlines],
        [a["flights_per_month"] * a["avg_flight_hours"] for a in airlines],
    ]
    shares = [0.0] * len(airlines)
    used = 0
    for values in measures:
        total = sum(values)
        if total > 0:  # a measure nobody has (no passengers at all) says nothing
            used += 1
            for i, v in enumerate(values):
                shares[i] += v / total
    if not used:
        return [1 / len(airlines)] * len(airlines)
    return [s / used for s in shares]


def to_split(weights: Sequence[float]) -> Split:
    """Non-negative weights as percentages with 2 decimals summing to exactly 100.

    Largest-remainder rounding in hundredths of a percent (ties to the lower seat).
    """
    total = sum(weights)
    exact = [w / total * WHOLE for w in weights] if total > 0 else [WHOLE / len(weights)] * len(weights)
    cents = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - cents[i]), i))
    for i in order[: WHOLE - sum(cents)]:
        cents[i] += 1
    return [from_cents(c) for c in cents]


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Total absolute difference between two splits, in percentage points."""
    return sum(abs(x - y) for x, y in zip(a, b))


def proposals_by_round(obs: Obs) -> list[list[Split]]:
    """The revealed proposals of every round so far (each a split per proposer seat)."""
    return [ev["data"]["proposals"] for ev in obs["log"] if ev["phase"] == "proposals"]


def fair_split(obs: Obs) -> Split:
    """The split proportional to the usage index, from the public airline data."""
    return to_split(usage_shares(obs["public"]["airlines"]))


def closest(proposals: Sequence[Split], target: Sequence[float]) -> int:
    """The proposer seat whose split is closest to `target` (lowest seat on a tie)."""
    return min(range(len(proposals)), key=lambda s: (round(distance(proposals[s], target), 6), s))


class CostSharingAgent(ScriptedAgent):
    """Shared plumbing: dispatch on the phase."""

    def decide(self, request: Request) -> dict[str, Any]:
        obs = request.observation
        if request.phase == "propose":
            return {"split": self.propose(obs, request.seat)}
        return {"proposal": self.vote(obs, request.seat, proposals_by_round(obs)[-1])}

    @abstractmethod
    def propose(self, obs: Obs, seat: int) -> Split:
        """The split to propose this round."""

    @abstractmethod
    def vote(self, obs: Obs, seat: int, proposals: list[Split]) -> int:
        """The proposer seat to vote for, given this round's proposals."""


class Proportional(CostSharingAgent):
    """Proposes the usage-proportional split every round; votes for the proposal closest to it."""

    strategy = "cost_sharing/proportional"

    def propose(self, obs: Obs, seat: int) -> Split:
        return fair_split(obs)

    def vote(self, obs: Obs, seat: int, proposals: list[Split]) -> int:
        return closest(proposals, fair_split(obs))


class Greedy(CostSharingAgent):
    """Asks to pay `discount` less than its fair share; votes for whatever makes it pay least.

    The share it sheds is spread over the others in proportion to their fair shares. A vote tie
    goes to the proposal closest to the fair split, then to the lowest seat.
    """

    strategy = "cost_sharing/greedy"
    defaults = {"discount": 0.2}

    def __init__(self, params: Mapping[str, Any], rng: Any, name: str):
        super().__init__(params, rng, name)
        d = self.params["discount"]
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 <= d <= 1:
            raise ValueError(f"cost_sharing/greedy: discount must be a number in [0, 1], got {d!r}")

    def propose(self, obs: Obs, seat: int) -> Split:
        fair = usage_shares(obs["public"]["airlines"])
        mine = fair[seat] * (1 - self.params["discount"])
        rest = sum(f for s, f in enumerate(fair) if s != seat)
        if rest <= 0:
            return to_split(fair)
        weights = [mine if s == seat else f / rest * (1 - mine) for s, f in enumerate(fair)]
        return to_split(weights)

    def vote(self, obs: Obs, seat: int, proposals: list[Split]) -> int:
        fair = fair_split(obs)
        return min(range(len(proposals)),
                   key=lambda s: (to_cents(proposals[s])[seat], round(distance(proposals[s], fair), 6), s))


class Conceding(CostSharingAgent):
    """Starts fair, then each round moves `step` of the way towards the others' average proposal.

    Votes for the proposal closest to the average of all current proposals, so conceding
    airlines, who see the same proposals, always vote alike and agree at once among themselves.
    """

    strategy = "cost_sharing/conceding"
    defaults = {"step": 0.5}

    def __init__(self, params: Mapping[str, Any], rng: Any, name: str):
        super().__init__(params, rng, name)
        step = self.params["step"]
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 <= step <= 1:
            raise ValueError(f"cost_sharing/conceding: step must be a number in [0, 1], got {step!r}")

    def propose(self, obs: Obs, seat: int) -> Split:
        rounds = proposals_by_round(obs)
        if not rounds:
            return fair_split(obs)
        last = rounds[-1]
        mine = last[seat]
        others = [p for s, p in enumerate(last) if s != seat]
        average = [sum(p[i] for p in others) / len(others) for i in range(len(mine))]
        step = self.params["step"]
        return to_split([m + step * (a - m) for m, a in zip(mine, average)])

    def vote(self, obs: Obs, seat: int, proposals: list[Split]) -> int:
        average = [sum(p[i] for p in proposals) / len(proposals) for i in range(len(proposals[0]))]
        return closest(proposals, average)


STRATEGIES = [Proportional, Greedy, Conceding]
