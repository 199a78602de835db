"""A suite's deals: the seed of each, the candidate's role and seat in it, and the seeds that
therefore belong to the shipped suites.

A deal's seed follows from the suite's name and version, the game and the deal's index alone:
the first of a sequence of draws that deals the candidate's role at the candidate's seat
(runner/suite.py reads a suite's file whole and seats the players). Those seeds are the suite's:
an ordinary tournament may not play one for that game (`reserved_problem`: runner/tournament.py
refuses a matchup's own seed, and a submitted or validated plan is refused for any game it plans,
runner/rerun/plans.py), so no tournament can play a suite's deal before, or instead of, its rows.

A seed is a SHA-256 digest, so a deal cannot be read back from a seed: reserving them means
knowing every deal's seed. Dealing is the costly part of that (finding the draw that deals the
candidate's role: 40,000 deals for Werewolf's 6,000, a second of CPU), so each suite ships the
attempt each deal's first draw is beside its file (`ranked-1.draws`, written by
`python -m runner.deals`; tests/test_deals.py holds it equal to the derivation). The seeds are still
hashed from the suite; only which draw dealt the role is read. A table that is missing, or made for
another text of the suite file, is not used: the deals are dealt again.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping, Sequence
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
#: The table of a suite's draws is its file with this suffix instead of .toml.
DRAWS_SUFFIX = ".draws"


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
    return deal_seed(suite, version, dealing.game, index, first_attempt(suite, version, dealing, index))


def first_attempt(suite: str, version: int, dealing: Dealing, index: int) -> int:
    """Which draw deal `index`'s seed is: the first that deals the candidate's role at the
    candidate's seat (0 when every seat has the same role)."""
    role, seat = dealing.slot(index)
    if role is None:
        return 0
    rules, game = dict(dealing.rules), games.get(dealing.game)
    for attempt in range(MAX_DEAL_TRIES):
        seed = deal_seed(suite, version, dealing.game, index, attempt)
        if game.role_of(rules, game.deal(rules, rng_for(seed, "deal")), seat) == role:
            return attempt
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
    """Every seed the shipped suites deal for `game` in stages 1..MAX_STAGES, computed once: a hash
    a deal, with each deal's draw read from the suite's table of draws (dealt again without one)."""
    groups = []
    for shipped in _shipped_dealings():
        for dealing in shipped.dealings:
            if dealing.game == game:
                attempts = shipped.draws.get(game) if shipped.draws is not None else None
                indices: dict[int, int] = {}
                for index, seed in _first_draws(shipped.name, shipped.version, dealing, attempts):
                    indices.setdefault(seed, index)
                groups.append((shipped.name, shipped.version, dealing.deals_per_stage, indices))
    return _Reserved(tuple(groups))


class _Reserved(Mapping[int, ReservedDeal]):
    """Seed -> ReservedDeal over each suite's seed -> deal index (an int a seed, not an object:
    23,000 of them are made in every process that reads a plan); the first suite's deal wins."""

    def __init__(self, groups: tuple[tuple[str, int, int, Mapping[int, int]], ...]) -> None:
        self._groups = groups

    def get(self, seed: int, default: ReservedDeal | None = None) -> ReservedDeal | None:  # type: ignore[override]
        for suite, version, per_stage, indices in self._groups:
            index = indices.get(seed)
            if index is not None:
                return ReservedDeal(suite, version, index, index // per_stage + 1)
        return default

    def __getitem__(self, seed: int) -> ReservedDeal:
        found = self.get(seed)
        if found is None:
            raise KeyError(seed)
        return found

    def __contains__(self, seed: object) -> bool:
        return any(seed in indices for *_, indices in self._groups)

    def __iter__(self) -> Iterator[int]:
        return iter(dict.fromkeys(seed for *_, indices in self._groups for seed in indices))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _first_draws(suite: str, version: int, dealing: Dealing,
                 attempts: Sequence[int] | None) -> Iterator[tuple[int, int]]:
    """Each deal's index and seed in stages 1..MAX_STAGES: the draw `attempts` names (a table of
    draws), else found by dealing; up to a deal no draw deals (nobody plays it: the suite cannot be
    loaded)."""
    for index in range(MAX_STAGES * dealing.deals_per_stage):
        if attempts is not None:
            yield index, deal_seed(suite, version, dealing.game, index, attempts[index])
            continue
        try:
            yield index, first_draw(suite, version, dealing, index)
        except NoDraw:
            return


@dataclass(frozen=True)
class ShippedSuite:
    """A shipped suite as far as dealing goes: its dealings, and its table of draws (game -> each
    deal's attempt, for the games whose roles are dealt), None if it has none for this file."""

    name: str
    version: int
    dealings: tuple[Dealing, ...]
    draws: Mapping[str, tuple[int, ...]] | None


@functools.cache
def _shipped_dealings() -> tuple[ShippedSuite, ...]:
    """Each shipped suite's name, version, dealings and table of draws, read as far as dealing goes
    (the maintainers' own files, which runner/suite.py checks whole when one is played)."""
    folder = resources.files("runner").joinpath("suites")
    found = []
    for versions in shipped_suites().values():
        for file_name in versions.values():
            data = folder.joinpath(file_name).read_bytes()
            raw = tomllib.loads(data.decode("utf-8"))
            dealings = tuple(dealing(g, spec) for g, spec in raw["games"].items())
            table = folder.joinpath(draws_name(file_name))
            draws = read_draws(table.read_text(encoding="utf-8"), _digest(data), dealings) if table.is_file() else None
            found.append(ShippedSuite(raw["name"], raw["version"], dealings, draws))
    return tuple(found)


# -- the table of a suite's draws ------------------------------------------------------------

def draws_name(file_name: str) -> str:
    """The file name of a suite file's table of draws (ranked-1.toml: ranked-1.draws)."""
    return file_name.removesuffix(".toml") + DRAWS_SUFFIX


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def render_draws(file_name: str, data: bytes) -> str:
    """The table of draws of a suite file (`data`, its bytes): its digest, then a line a stage for
    each game whose roles are dealt, `GAME STAGE A1 A2 ...`, the attempt each deal's seed is."""
    raw = tomllib.loads(data.decode("utf-8"))
    lines = [f"# Which draw is each deal's seed in {file_name} (runner/deals.py): the attempt of the first",
             "# draw that deals the candidate's role at the candidate's seat, a line a stage (GAME STAGE",
             "# ATTEMPT ...), for the games whose roles are dealt. Written by `python -m runner.deals`;",
             "# tests/test_deals.py holds it equal to the derivation. Never edit it by hand.",
             f"sha256 {_digest(data)}"]
    for game, spec in raw["games"].items():
        dealt = dealing(game, spec)
        if not dealt.roles:
            continue
        per_stage = dealt.deals_per_stage
        for stage in range(MAX_STAGES):
            attempts = (first_attempt(raw["name"], raw["version"], dealt, index)
                        for index in range(stage * per_stage, (stage + 1) * per_stage))
            lines.append(f"{game} {stage + 1} " + " ".join(map(str, attempts)))
    return "\n".join(lines) + "\n"


def read_draws(text: str, digest: str, dealings: Sequence[Dealing]) -> dict[str, tuple[int, ...]] | None:
    """A table of draws (`render_draws`): game -> each deal's attempt in order; None unless it was
    made for the suite file of this digest and lists stages 1..MAX_STAGES of each of its games whose
    roles are dealt, in turn, each stage's deals_per_stage attempts."""
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    if not lines or lines[0] != f"sha256 {digest}":
        return None
    per_stage = {d.game: d.deals_per_stage for d in dealings if d.roles}
    found: dict[str, list[int]] = {game: [] for game in per_stage}
    for line in lines[1:]:
        game, stage, *attempts = line.split(" ") if line.count(" ") >= 2 else ("", "")
        if game not in per_stage or stage != str(len(found[game]) // per_stage[game] + 1):
            return None
        if len(attempts) != per_stage[game] or not all(_attempt(a) for a in attempts):
            return None
        found[game].extend(map(int, attempts))
    if any(len(attempts) != MAX_STAGES * per_stage[game] for game, attempts in found.items()):
        return None
    return {game: tuple(attempts) for game, attempts in found.items()}


def _attempt(text: str) -> bool:
    return text.isascii() and text.isdigit() and int(text) < MAX_DEAL_TRIES


def write_draws() -> list[str]:
    """Write the table of draws of every shipped suite beside its file; the paths written."""
    folder = resources.files("runner").joinpath("suites")
    written = []
    for versions in shipped_suites().values():
        for file_name in versions.values():
            target = folder.joinpath(draws_name(file_name))
            text = render_draws(file_name, folder.joinpath(file_name).read_bytes())
            with open(str(target), "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            written.append(str(target))
    return written


def dealing(game: str, table: Mapping[str, Any]) -> Dealing:
    """A suite file's table of one game, as far as dealing goes; its rules with the game's defaults."""
    rules = games.get(game).params(table.get("rules", {}))
    return Dealing(game, rules, table["deals_per_stage"], tuple(table.get("roles", ())), games.get(game).players(rules))


def main() -> None:
    """`python -m runner.deals`: write the tables of draws of the shipped suites (after adding one)."""
    if sys.argv[1:]:
        sys.exit("usage: python -m runner.deals   (writes runner/suites/<suite>.draws for every shipped suite)")
    try:
        written = write_draws()
    except NoDraw as exc:
        sys.exit(f"a shipped suite cannot be dealt: {exc}")
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
