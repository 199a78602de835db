"""A suite's deals: the seed of each, the candidate's role and seat in it, and the seeds that
therefore belong to the shipped suites.

A deal's seed follows from the suite's name and version, the game and the deal's index alone:
the first of a sequence of draws that deals the candidate's role at the candidate's seat
(runner/suite.py reads a suite's file whole and seats the players). Those seeds are the suite's:
an ordinary tournament may not play one for that game (`reserved_problem`: runner/tournament.py
refuses a matchup's own seed, and a submitted or validated plan is refused for any game it plans,
runner/rerun/plans.py), so no tournament can play a suite's deal before, or instead of, its rows.
"""

from __future__ import annotations

import functools
import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from runner import games
from runner.seeds import rng_for

#: Seeds tried per deal for the wanted role at the wanted seat (a Werewolf seat holds a given role
#: one time in eleven, so a miss after this many is a broken game, not bad luck).
MAX_DEAL_TRIES = 10_000
#: Most stages one plan may hold (a plan of 1,000 stages of 23 games is far past any budget); the
#: seeds of every deal of these stages are reserved.
MAX_STAGES = 1_000
FILE_NAME = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_-]*?)-(?P<version>[1-9][0-9]*)\.toml$")


class NoDraw(ValueError):
    """No draw of MAX_DEAL_TRIES deals the candidate's role to the candidate's seat."""


@dataclass(frozen=True)
class Dealing:
    """How a suite deals one game: its variant, deals per stage, the candidate's roles in turn
    (empty when every seat has the same role) and its number of seats."""

    game: str
    rules: Mapping[str, Any]
    deals_per_stage: int
    roles: tuple[str, ...]
    players: int

    def slot(self, index: int) -> tuple[str | None, int]:
        """The candidate's role (None: the game's only one) and seat in deal `index`: the roles
        take turns deal by deal, and the seat moves on once every role has had it, so that every
        R x N deals (R roles, N seats) the candidate plays every role at every seat once."""
        if not self.roles:
            return None, index % self.players
        return self.roles[index % len(self.roles)], (index // len(self.roles)) % self.players


def deal_seed(suite: str, version: int, game: str, index: int, attempt: int) -> int:
    """The seed of a deal's `attempt`-th draw: from the suite's name and version, the game and the
    deal's index (and nothing a contributor chooses), a 60-bit number like a tournament's seeds."""
    digest = hashlib.sha256(f"gamenight-suite\n{suite}\n{version}\n{game}\n{index}\n{attempt}".encode())
    return int(digest.hexdigest()[:15], 16)


def first_draw(suite: str, version: int, dealing: Dealing, index: int) -> int:
    """The seed of deal `index`: its first draw that deals the candidate's role at the candidate's
    seat (the very first draw when every seat has the same role)."""
    role, seat = dealing.slot(index)
    if role is None:
        return deal_seed(suite, version, dealing.game, index, 0)
    rules, game = dict(dealing.rules), games.get(dealing.game)
    for attempt in range(MAX_DEAL_TRIES):
        seed = deal_seed(suite, version, dealing.game, index, attempt)
        if game.role_of(rules, game.deal(rules, rng_for(seed, "deal")), seat) == role:
            return seed
    raise NoDraw(f"games.{dealing.game}: no draw of {MAX_DEAL_TRIES:,} deals {role} to seat {seat}")


def shipped_suites() -> dict[str, dict[int, str]]:
    """The suites shipped in runner/suites/: name -> version -> file name."""
    found: dict[str, dict[int, str]] = {}
    for entry in resources.files("runner").joinpath("suites").iterdir():
        match = FILE_NAME.match(entry.name)
        if match:
            found.setdefault(match["name"], {})[int(match["version"])] = entry.name
    return found


# -- the seeds the shipped suites deal -------------------------------------------------------

@dataclass(frozen=True)
class ReservedDeal:
    """A seed a shipped suite deals: which suite, and which of the game's deals."""

    suite: str
    version: int
    index: int
    stage: int


def reserved_problem(game: str, seed: int) -> str | None:
    """Why an ordinary tournament may not play `seed` for `game` (a deal of a shipped suite), or None."""
    found = reserved(game).get(seed)
    if found is None:
        return None
    return (f"{seed} is the seed of {game} deal {found.index} (stage {found.stage}) of the suite "
            f"{found.suite}-{found.version}: a suite's deals are played only in its rows (`gamenight run --suite "
            f"{found.suite}`), so no other tournament may play one")


@functools.cache
def reserved(game: str) -> Mapping[int, ReservedDeal]:
    """Every seed the shipped suites deal for `game` in stages 1..MAX_STAGES, computed once (the
    games of one role cost a hash a deal; those whose roles are dealt, a few deals a deal)."""
    found: dict[int, ReservedDeal] = {}
    for suite, version, dealings in _shipped_dealings():
        for dealing in dealings:
            if dealing.game != game:
                continue
            for index in range(MAX_STAGES * dealing.deals_per_stage):
                try:
                    seed = first_draw(suite, version, dealing, index)
                except NoDraw:
                    break  # a deal no draw deals is played by nobody (the suite cannot be loaded)
                found.setdefault(seed, ReservedDeal(suite, version, index, index // dealing.deals_per_stage + 1))
    return found


@functools.cache
def _shipped_dealings() -> tuple[tuple[str, int, tuple[Dealing, ...]], ...]:
    """Each shipped suite's name, version and dealings, read as far as dealing goes (the maintainers'
    own files, which runner/suite.py checks whole when one is played)."""
    found = []
    for versions in shipped_suites().values():
        for file_name in versions.values():
            raw = tomllib.loads(resources.files("runner").joinpath("suites", file_name).read_text(encoding="utf-8"))
            found.append((raw["name"], raw["version"], tuple(dealing(g, spec) for g, spec in raw["games"].items())))
    return tuple(found)


def dealing(game: str, table: Mapping[str, Any]) -> Dealing:
    """A suite file's table of one game, as far as dealing goes; its rules with the game's defaults."""
    rules = games.get(game).params(table.get("rules", {}))
    return Dealing(game, rules, table["deals_per_stage"], tuple(table.get("roles", ())), games.get(game).players(rules))
