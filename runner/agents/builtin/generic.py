"""Strategies that play any game."""

from __future__ import annotations

from typing import Any

from runner.agents.base import Request, ScriptedAgent


class RandomAgent(ScriptedAgent):
    """Draws a legal action uniformly at random (the rules' own sampler)."""

    strategy = "random"

    def decide(self, request: Request) -> dict[str, Any]:
        assert request.sample is not None, "the runner always provides a sampler"
        return request.sample(self.rng)


STRATEGIES = [RandomAgent]
