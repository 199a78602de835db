"""One game with people at some seats: dealing it, seating people and agents, writing its replay.

`gamenight play` (site_builder/play) deals a table here and serves its human seats; tests play a
table with scripted channels. A table is a game played on its own, like `run --game` with one
game: it is named as a lineup of its seats, its deal, chance draws and built-in agents are drawn
from its seed exactly as the runner draws them, so the validator derives them again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runner import games
from runner.agents.base import Agent
from runner.agents.human import Channel, HumanAgent, check_name
from runner.games.base import Game, SetupError, State
from runner.play import DEFAULT_MAX_ATTEMPTS, Seating, play
from runner.replay.format import encode, write_atomic
from runner.run import Seats
from runner.seeds import rng_for
from runner.tournament import AgentSpec, PlanError, resolve_agent

#: The tournament name (and folder under replays/) of games people played with `gamenight play`.
TOURNAMENT = "play"
#: The agents at the other seats when none are given: a sound built-in player of each game.
DEFAULT_AGAINST = {
    "chameleon": "chameleon/associative", "undercover": "undercover/associative",
    "cost_sharing": "cost_sharing/proportional", "prisoners_dilemma": "prisoners_dilemma/tit_for_tat",
    "public_good": "public_good/conditional", "werewolf": "werewolf/strategic",
}


@dataclass(frozen=True)
class Person:
    """Who sits where: a seat number, or a role to be dealt (the first free seat of that role)."""

    name: str
    seat: int | None = None
    role: str | None = None


@dataclass
class Table:
    """A dealt game: who sits at each seat, and what the seed drew."""

    game: Game
    params: dict[str, Any]
    setup: dict[str, Any]
    seed: int
    names: list[str]
    roles: list[str]
    people: dict[int, str]  # seat -> the person's chosen name
    others: dict[int, AgentSpec]  # seat -> the agent playing it

    @property
    def players(self) -> int:
        return len(self.names)


def deal(game_name: str, rules: Mapping[str, Any], seed: int | None, people: Sequence[Person],
         against: Sequence[str] = ()) -> Table:
    """Deal a game and seat people and agents; PlanError (a clear message) for anything wrong.

    `against` names the agents of the other seats (built-in strategies or `provider:model[@url]`),
    given in seat order and repeated as needed; the default is a built-in player of the game.
    """
    try:
        game = games.get(game_name)
    except KeyError:
        raise PlanError(f"--game: unknown game {game_name!r}; the games are {', '.join(sorted(games.GAME_MODULES))}") from None
    try:
        params = game.params(dict(rules))
    except SetupError as exc:
        raise PlanError(f"--rule {exc.field}: {exc.message}") from None
    if not people:
        raise PlanError("nobody to play: give --seat or --role for at least one person")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    roles = [game.role_of(params, setup, s) for s in range(n)]
    seated: dict[int, str] = {}
    for person in people:
        try:
            name = check_name(person.name)
        except ValueError as exc:
            raise PlanError(f"--name: {exc}") from None
        seat = _seat_for(person, roles, seated, game)
        seated[seat] = name
    specs = [resolve_agent(ref, {}, "--against") for ref in (against or [DEFAULT_AGAINST[game.name]])]
    others = {}
    for i, seat in enumerate(s for s in range(n) if s not in seated):
        others[seat] = specs[i % len(specs)]
    clash = sorted(set(seated.values()) & {spec.name for spec in others.values()})
    if clash:
        raise PlanError(f"--name: {clash[0]!r} is the name of an agent at another seat; choose another")
    if len(set(seated.values())) < len(seated):
        raise PlanError("--name: each person at the table needs their own name")
    return Table(game, params, setup, seed, game.seat_names(params, setup), roles, seated, others)


def _seat_for(person: Person, roles: Sequence[str], taken: Mapping[int, str], game: Game) -> int:
    if person.seat is not None:
        if not 0 <= person.seat < len(roles):
            raise PlanError(f"--seat {person.seat}: this game has seats 0 to {len(roles) - 1}")
        if person.seat in taken:
            raise PlanError(f"--seat {person.seat}: two people cannot share a seat")
        return person.seat
    if person.role not in game.roles:
        raise PlanError(f"--role {person.role!r}: {game.name} has the roles {', '.join(game.roles)}")
    free = [s for s, r in enumerate(roles) if r == person.role and s not in taken]
    if not free:
        raise PlanError(f"--role {person.role}: no free seat of that role in this deal")
    return free[0]


def seat_agents(table: Table, channel_for: Callable[[int], Channel], seats: Seats | None = None) -> list[Agent]:
    """The agent of every seat: a person through their channel, or the agent named for it."""
    seats = seats or Seats()
    agents: list[Agent] = []
    for seat in range(table.players):
        if seat in table.people:
            agents.append(HumanAgent(table.people[seat], channel_for(seat)))
        else:
            agents.append(seats.agent(table.others[seat], table.game.name, seat, rng_for(table.seed, f"agent-{seat}")))
    return agents


async def play_table(table: Table, agents: Sequence[Agent], *, probes: bool = True,
                     max_attempts: int = DEFAULT_MAX_ATTEMPTS, created: str | None = None,
                     watch: Callable[[State], None] | None = None) -> list[dict[str, Any]]:
    """Play the table to the end; its replay records (named as a lineup of its seats). `watch` is
    called with the state after every change (see runner.play.play)."""
    created = created or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    seating = Seating(agents, table.names, table.roles)
    return await play(table.game, table.params, table.setup, seating, seed=table.seed, tournament=TOURNAMENT,
                      created=created, max_attempts=max_attempts, probes=probes, watch=watch)


def write_replay(records: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """Write a finished game's replay into `out`, as `run` does: all of it or nothing."""
    path = out / f"{records[0]['game_id']}.jsonl"
    write_atomic(path, encode(list(records)))
    return path
