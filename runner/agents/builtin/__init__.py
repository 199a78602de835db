"""Registry of built-in scripted strategies, by stable name ("<game>/<strategy>" or "random")."""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache
from importlib import import_module
from typing import Any

from runner.agents.base import ScriptedAgent
from runner.games import GAME_MODULES


def _modules() -> list[str]:
    return ["runner.agents.builtin.generic"] + [f"runner.agents.builtin.{g}" for g in GAME_MODULES]


def strategies() -> dict[str, type[ScriptedAgent]]:
    """Every built-in strategy by name."""
    return dict(_registry())


@cache  # asked for every replay checked
def _registry() -> dict[str, type[ScriptedAgent]]:
    found: dict[str, type[ScriptedAgent]] = {}
    for module in _modules():
        for cls in import_module(module).STRATEGIES:
            found[cls.strategy] = cls
    return found


def games_of(strategy: str) -> list[str] | None:
    """The games a strategy can play (None: every game)."""
    game = strategy.split("/", 1)[0]
    return [game] if "/" in strategy else None


def make(strategy: str, params: Mapping[str, Any], rng: random.Random, name: str, game: str) -> ScriptedAgent:
    """Instantiate a built-in strategy for `game`; ValueError with a clear message if it cannot."""
    known = strategies()
    if strategy not in known:
        raise ValueError(f"unknown builtin agent {strategy!r}; known: {', '.join(sorted(known))}")
    allowed = games_of(strategy)
    if allowed is not None and game not in allowed:
        raise ValueError(f"builtin agent {strategy!r} plays {allowed[0]}, not {game}")
    return known[strategy](params, rng, name)
