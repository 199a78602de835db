"""What is said of a game beside its rules, kept next to its engine (the rules never read it).

Each engine module defines `FACTS` next to its `GAME` (as OpenSpiel keeps `_GAME_TYPE` beside each
game): the winning rule in words, a person's goal by role, the phases that make the roles and the
setup public, how an outcome reads in a few words, which private fields name a partner, the teams,
the hidden role the suspicion questions are about, where the points are, whether MAgIC scores the
game, and the built-in agent that fills the other seats by default. The site, the replay viewer,
`gamenight play`, the ranked score and the language-model designs read them here, so a new game
brings its facts with its engine; tests/games/test_facts.py holds them to the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Outcome:
    """How a complete game's result reads in a few words: one field of the result, and words per value."""

    field: str
    words: Mapping[Any, str]
    #: The words for a value not in `words` (None: the value itself).
    otherwise: str | None = None

    def read(self, result: Mapping[str, Any]) -> str:
        """The outcome in words ("village wins", "no agreement"...); the replay list filters on them."""
        value = result.get(self.field)
        return self.words.get(value, str(value) if self.otherwise is None else self.otherwise)


@dataclass(frozen=True)
class HiddenRole:
    """The role a game hides, which its suspicion questions and the PGM design's beliefs are about."""

    role: str
    #: Its holder as the prompts name it ("the chameleon", "a Werewolf").
    called: str
    #: Whether every seat is told its own role (in Undercover nobody is: its word is all it has).
    told: bool
    #: The public moves that say something of their maker (clues, day statements), after which
    #: the PGM design's suspicions are rated again.
    talk: tuple[str, ...]


@dataclass(frozen=True)
class Facts:
    """The facts of one game that are not its rules."""

    #: What winning means, in a line (the home page's per-game tables say it).
    winning: str
    outcome: Outcome
    #: The built-in agent at the seats nobody else takes in `gamenight play`: a sound player of the game.
    default_opponent: str
    #: What a person plays for, in a sentence, by the role the seat is told (None: a role it is not
    #: told, or the game's only one); `gamenight play` shows it above the rules.
    goals: Mapping[str | None, str]
    #: For a game with hidden roles: the phase whose first event makes every role public, and the
    #: phase whose first event makes the whole setup public (None: nothing before the outcome).
    roles_public_at: str | None = None
    setup_public_at: str | None = None
    #: Private fields that name another seat whose role the holder knows (it shares the role).
    partner_fields: tuple[str, ...] = ()
    #: The team of each role, where roles play in teams that a seat is told (its private `team`).
    teams: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: The hidden role, in a game of hidden roles (None: every role is public).
    hidden: HiddenRole | None = None
    #: The result's field of each seat's points, in a game won by the most points (None: won or lost).
    points: str | None = None
    #: Whether the game is one of the five of MAgIC (Xu et al. 2024), which its metrics score.
    magic: bool = False
