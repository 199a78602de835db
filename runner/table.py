"""One game with people at some seats: dealing it, seating people and agents, writing its replay.

`gamenight play` (site_builder/play) deals a table here and serves its human seats; tests play a
table with scripted channels. A table is a one-game tournament with a lineup of its seats, planned
before it is dealt: the plan's seed (the one given, or a random one) fixes the game's seed as
`gamenight run` derives it, and the finished game is written with that plan (`tournament.toml`)
in a folder of its own, so the submission check plans the game again (docs/submit.md). Its deal,
chance draws and built-in agents are drawn from the game's seed exactly as the runner draws them.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runner import games
from runner.agents.base import Agent
from runner.agents.human import Channel, HumanAgent, check_name
from runner.games.base import Game, SetupError, State
from runner.plan import AgentSpec, Matchup, PlannedGame, Tournament
from runner.play import DEFAULT_MAX_ATTEMPTS, Seating, play
from runner.replay.format import encode, write_atomic
from runner.rerun.plans import PLAN_FILE
from runner.run import Seats
from runner.seeds import rng_for
from runner.tournament import PlanError, resolve_agent

#: The start of the tournament name (and folder under replays/) of a game people played with
#: `gamenight play`: play-<first person's name>-<plan seed>.
TOURNAMENT = "play"
#: Plan seeds tried, from the given one up, for a deal that gives each --role person their role.
ROLE_TRIES = 1000


@dataclass(frozen=True)
class Person:
    """Who sits where: a seat dealt by the plan (neither given: the game that may be submitted), or
    for a practice game a seat number, or a role to be dealt (the first free seat of that role)."""

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
    plan: Tournament  # the one-game tournament this game is (its seed is the plan's, `seed` the game's)
    planned: PlannedGame

    @property
    def tournament(self) -> str:
        return self.plan.name

    @property
    def players(self) -> int:
        return len(self.names)


def deal(game_name: str, rules: Mapping[str, Any], seed: int | None, people: Sequence[Person],
         against: Sequence[str] = (), *, probes: bool = True, agents: Mapping[str, AgentSpec] | None = None) -> Table:
    """Plan and deal a game and seat people and agents; PlanError (a clear message) for anything wrong.

    `seed` is the plan's seed (random if None): the game's seed is derived from it and the lineup
    as `gamenight run` derives a planned game's. People given neither a seat nor a role are dealt
    their seats: the plan's lineup (the people in order, then the agents) has `seats = "dealt"`, and
    the game's seed draws which seat each takes (runner.plan.dealt_seats), so the plan alone
    says where everyone sits. The others are practice games: a person with a seat (`Person.seat`)
    takes it, and one asking for a role (`Person.role`) takes a free seat whose deal gives them
    that role: the plan seeds from `seed` up are tried in order (their seats, then the next seed)
    and the first that fits is the plan's.
    `against` names the agents of the other seats (built-in strategies or `provider:model[@url]`),
    given in seat order and repeated as needed; the default is a built-in player of the game.
    `agents` are named agents `against` may name too (a tournament file's `[agents]`).
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
        raise PlanError("nobody to play: give --name for each person (their seats dealt by the plan), or "
                        "--seat or --role (a practice game)")
    base = random.SystemRandom().randrange(2**31) if seed is None else seed
    n = game.players(params)
    names: list[str] = []
    for person in people:
        try:
            names.append(check_name(person.name))
        except ValueError as exc:
            raise PlanError(f"--name: {exc}") from None
    if len(set(names)) < len(names):
        raise PlanError("--name: each person at the table needs their own name")
    refs = against or [games.facts_of(game.name).default_opponent]
    specs = [resolve_agent(ref, agents or {}, "--against") for ref in refs]
    clash = sorted(set(names) & {spec.name for spec in specs})
    if clash:
        raise PlanError(f"--name: {clash[0]!r} is the name of an agent at another seat; choose another")
    dealt = [p.seat is None and p.role is None for p in people]
    if any(dealt):
        if not all(dealt):
            raise PlanError("--name: give every person a --seat or --role (a practice game), or none of them "
                            "(seats dealt by the plan)")
        return _dealt_table(game, params, base, names, specs, probes)
    seated: dict[int, str] = {}
    for person, name in zip(people, names):
        if person.seat is not None:
            seated[_free_seat(person.seat, n, seated)] = name
    wanting = [(p.role, name) for p, name in zip(people, names) if p.seat is None]
    for role, _ in wanting:
        if role not in game.roles:
            raise PlanError(f"--role {role!r}: {game.name} has the roles {', '.join(game.roles)}")
    free = [s for s in range(n) if s not in seated]
    for plan_seed in range(base, base + (ROLE_TRIES if wanting else 1)):
        for places in itertools.permutations(free, len(wanting)):
            sitting = {**seated, **{seat: name for seat, (_, name) in zip(places, wanting)}}
            others = {seat: specs[i % len(specs)] for i, seat in enumerate(s for s in range(n) if s not in sitting)}
            lineup = [AgentSpec(sitting[s], {"human": True}) if s in sitting else others[s] for s in range(n)]
            plan = _one_game_plan(game.name, params, lineup, plan_seed, names[0], probes)
            planned = plan.plan()[0]
            setup = game.deal(params, rng_for(planned.seed, "deal"))
            roles = [game.role_of(params, setup, s) for s in range(n)]
            if all(roles[seat] == role for seat, (role, _) in zip(places, wanting)):
                return Table(game, params, setup, planned.seed, game.seat_names(params, setup), roles, sitting,
                             others, plan, planned)
    asked = ", ".join(role for role, _ in wanting)
    raise PlanError(f"--role {asked}: no deal of the {ROLE_TRIES} plan seeds from {base} gives "
                    "each person the role asked for")


def _dealt_table(game: Game, params: dict[str, Any], seed: int, names: Sequence[str], specs: Sequence[AgentSpec],
                 probes: bool) -> Table:
    """The table of people whose seats the plan deals: the lineup is the people, then the agents."""
    n = game.players(params)
    if len(names) > n:
        raise PlanError(f"--name: {len(names)} people for {n} seats")
    people = [AgentSpec(name, {"human": True}) for name in names]
    lineup = people + [specs[i % len(specs)] for i in range(n - len(people))]
    plan = _one_game_plan(game.name, params, lineup, seed, names[0], probes, seats="dealt")
    planned = plan.plan()[0]
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    roles = [game.role_of(params, setup, s) for s in range(n)]
    agents = [planned.agent_for(s, roles[s]) for s in range(n)]
    return Table(game, params, setup, planned.seed, game.seat_names(params, setup), roles,
                 {s: a.name for s, a in enumerate(agents) if a.is_human},
                 {s: a for s, a in enumerate(agents) if not a.is_human}, plan, planned)


def _one_game_plan(game: str, params: Mapping[str, Any], lineup: Sequence[AgentSpec], seed: int, first: str,
                   probes: bool, seats: str | None = None) -> Tournament:
    slug = re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-")[:40] or "guest"
    return Tournament(f"{TOURNAMENT}-{slug}-{seed:x}", seed, None, DEFAULT_MAX_ATTEMPTS, probes,
                      [Matchup(game, dict(params), 1, lineup=list(lineup), seats=seats)])


def _free_seat(seat: int, n: int, taken: Mapping[int, str]) -> int:
    if not 0 <= seat < n:
        raise PlanError(f"--seat {seat}: this game has seats 0 to {n - 1}")
    if seat in taken:
        raise PlanError(f"--seat {seat}: two people cannot share a seat")
    return seat


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
    return await play(table.game, table.params, table.setup, seating, seed=table.seed, tournament=table.tournament,
                      game_id=table.planned.game_id, matchup=table.planned.matchup.label, created=created,
                      max_attempts=max_attempts, probes=probes, watch=watch)


def write_replay(records: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """Write a finished game's replay into `out`, as `run` does: all of it or nothing."""
    path = out / f"{records[0]['game_id']}.jsonl"
    write_atomic(path, encode(list(records)))
    return path


PLAN_NOTE = ("# The plan of this folder's one game, written by gamenight play: a person's seat is played\n"
             "# with `gamenight play`, not run; the submission check plans the game again from this file.\n")


def folder_for(table: Table, root: Path) -> Path:
    """Where a table's game goes: a folder of its own under `root`, named after its plan; refused
    (PlanError) if that folder holds anything already (the same plan seed played before)."""
    folder = root / table.tournament
    if folder.exists() and any(folder.iterdir()):
        raise PlanError(f"{folder} holds a game already: this plan seed was played; give another --seed")
    return folder


def write_played(records: Sequence[Mapping[str, Any]], table: Table, root: Path) -> Path:
    """Write a finished game with its plan into its own folder under `root`: the replay, then
    `tournament.toml` (a folder with its replay and plan is whole; an unfinished game writes nothing)."""
    folder = root / table.tournament
    path = write_replay(records, folder)
    write_atomic(folder / PLAN_FILE, table.plan.plan_file(PLAN_NOTE).encode("utf-8"))
    return path
