"""Built-in Prisoner's Dilemma strategies."""

from __future__ import annotations

from typing import Any

from runner.agents.base import Request, ScriptedAgent


def past_rounds(request: Request) -> list[list[str]]:
    """Choices of every seat in each finished round, as seen in the observation."""
    return [ev["data"]["choices"] for ev in request.observation["log"] if ev["phase"] == "round_result"]


def others_defected(choices: list[str], seat: int) -> bool:
    return any(c == "defect" for s, c in enumerate(choices) if s != seat)


class AlwaysDefect(ScriptedAgent):
    """Defects every round."""

    strategy = "prisoners_dilemma/always_defect"

    def decide(self, request: Request) -> dict[str, Any]:
        return {"choice": "defect"}


class AlwaysCooperate(ScriptedAgent):
    """Cooperates every round."""

    strategy = "prisoners_dilemma/always_cooperate"

    def decide(self, request: Request) -> dict[str, Any]:
        return {"choice": "cooperate"}


class TitForTat(ScriptedAgent):
    """Cooperates first, then defects exactly after a round in which someone else defected."""

    strategy = "prisoners_dilemma/tit_for_tat"

    def decide(self, request: Request) -> dict[str, Any]:
        rounds = past_rounds(request)
        betrayed = bool(rounds) and others_defected(rounds[-1], request.seat)
        return {"choice": "defect" if betrayed else "cooperate"}


class GrimTrigger(ScriptedAgent):
    """Cooperates until anyone else defects once, then defects for the rest of the game."""

    strategy = "prisoners_dilemma/grim_trigger"

    def decide(self, request: Request) -> dict[str, Any]:
        betrayed = any(others_defected(r, request.seat) for r in past_rounds(request))
        return {"choice": "defect" if betrayed else "cooperate"}


STRATEGIES = [AlwaysDefect, AlwaysCooperate, TitForTat, GrimTrigger]
