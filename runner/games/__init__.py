"""The registry of rules engines, by stable name."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from runner.games.base import Game, GameError, IllegalAction, Pending, SetupError, State
from runner.games.facts import Facts

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
    return _module(name).GAME


def facts_of(name: str) -> Facts:
    """What is said of game `name` beside its rules (runner/games/facts.py); KeyError as `get`."""
    return _module(name).FACTS


def _module(name: str) -> ModuleType:
    """The module of game `name`, which defines its GAME and FACTS."""
    if name not in GAME_MODULES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(GAME_MODULES)}")
    return import_module(GAME_MODULES[name])


__all__ = ["Facts", "Game", "GameError", "IllegalAction", "Pending", "SetupError", "State", "available",
           "facts_of", "get"]
