"""What is said of a game beside its rules, kept next to its engine (the rules never read it).

Each engine module defines `FACTS` next to its `GAME`: the winning rule in words, the phases that
make the roles and the setup public, how an outcome reads in a few words, which private fields name
a partner, and the built-in agent that fills the other seats by default. The site, the replay
viewer and `gamenight play` read them here, so a new game brings its facts with its engine.
"""

from __future__ import annotations

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
class Facts:
    """The facts of one game that are not its rules."""

    #: What winning means, in a line (the home page's per-game tables say it).
    winning: str
    outcome: Outcome
    #: The built-in agent at the seats nobody else takes in `gamenight play`: a sound player of the game.
    default_opponent: str
    #: For a game with hidden roles: the phase whose first event makes every role public, and the
    #: phase whose first event makes the whole setup public (None: nothing before the outcome).
    roles_public_at: str | None = None
    setup_public_at: str | None = None
    #: Private fields that name another seat whose role the holder knows (it shares the role).
    partner_fields: tuple[str, ...] = ()
