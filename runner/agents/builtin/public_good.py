"""Built-in Public Good strategies: free rider, full contributor and conditional cooperator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.agents.base import Request, ScriptedAgent

Obs = Mapping[str, Any]


def past_contributions(obs: Obs) -> list[list[int]]:
    """Every seat's contribution in each finished round, as revealed to all."""
    return [ev["data"]["contributions"] for ev in obs["log"] if ev["phase"] == "round_result"]


class FreeRider(ScriptedAgent):
    """Never contributes: keeps everything and takes its share of the others' pool."""

    strategy = "public_good/free_rider"

    def decide(self, request: Request) -> dict[str, Any]:
        return {"contribution": 0}


class FullContributor(ScriptedAgent):
    """Gives endowment/rounds each round (rounded down) and whatever is left in the last round."""

    strategy = "public_good/full_contributor"

    def decide(self, request: Request) -> dict[str, Any]:
        public = request.observation["public"]
        left = request.legal["max"]
        if request.legal["round"] == public["rounds"]:
            return {"contribution": left}
        return {"contribution": min(left, public["endowment"] // public["rounds"])}


class Conditional(ScriptedAgent):
    """Gives `start` first, then the others' average contribution of the previous round.

    The average is rounded half up to a whole point and capped by what it has left.
    """

    strategy = "public_good/conditional"
    defaults = {"start": 20}

    def __init__(self, params: Mapping[str, Any], rng: Any, name: str):
        super().__init__(params, rng, name)
        start = self.params["start"]
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            raise ValueError(f"public_good/conditional: start must be a whole number >= 0, got {start!r}")

    def decide(self, request: Request) -> dict[str, Any]:
        rounds = past_contributions(request.observation)
        if not rounds:
            wanted = self.params["start"]
        else:
            others = [c for s, c in enumerate(rounds[-1]) if s != request.seat]
            wanted = (2 * sum(others) + len(others)) // (2 * len(others))
        return {"contribution": min(wanted, request.legal["max"])}


STRATEGIES = [FreeRider, FullContributor, Conditional]
