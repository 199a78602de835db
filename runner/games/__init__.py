"""The registry of rules engines, by stable name."""

from __future__ import annotations

from importlib import import_module

from runner.games.base import Game, GameError, IllegalAction, Pending, SetupError, State

#: Stable game names, in display order, and the modules that define them.
GAME_MODULES = {
    "chameleon": "runner.games.chameleon",
    "undercover": "runner.games.undercover",
    "cost_sharing": "runner.games.cost_sharing",
    "prisoners_dilemma": "runner.games.prisoners_dilemma",
    "public_good": "runner.games.public_good",
    "werewolf": "runner.games.werewolf",
}


def available() -> list[str]:
    """Names of every game, in display order."""
    return list(GAME_MODULES)


def get(name: str) -> Game:
    """The engine of game `name`; KeyError with the known names if there is none."""
    if name not in GAME_MODULES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(GAME_MODULES)}")
    return import_module(GAME_MODULES[name]).GAME


__all__ = ["Game", "GameError", "IllegalAction", "Pending", "SetupError", "State", "available", "get"]
