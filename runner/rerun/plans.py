"""A tournament's folder against its plan: exactly the games the plan holds, as it planned them.

`gamenight run` writes the tournament's plan (runner.plan.Tournament.plan_file) beside the
replays as `tournament.toml`. `gamenight validate` and the pull-request check plan the tournament
again from it: every planned game must be in the folder and nothing else, so nobody can play many
seeds and keep the games that flatter a model (the check requires this of every submission).
A plan that says it plays a suite (runner/suite.py) must moreover be exactly stages 1..k of it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runner import games, tomlfile
from runner.deals import reserved_problem
from runner.games.base import SetupError
from runner.plan import AgentSpec, PlannedGame, Tournament
from runner.replay.format import Problem
from runner.seeds import rng_for
from runner.tournament import PlanError, from_dict

PLAN_FILE = "tournament.toml"
#: Largest plan file read (a plan of many matchups and agents stays far below).
MAX_PLAN_BYTES = 256 * 1024
#: Game ids listed when many planned games are missing.
MAX_LISTED = 10


@dataclass
class Plan:
    """One submitted tournament's plan, read and planned again (tournament None if it cannot be)."""

    path: str
    folder: str
    tournament: Tournament | None = None
    games: dict[str, PlannedGame] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def read_plan(path: str, folder: str, raw: bytes, max_games: int | None = None) -> Plan:
    """The plan in a folder's `tournament.toml`: parsed, checked and planned by this gamenight
    (refused unread past `max_games` planned games, before anything is planned or dealt)."""
    plan = Plan(path, folder)
    try:
        table = tomlfile.parse(raw, MAX_PLAN_BYTES)
    except tomlfile.TomlError as exc:
        plan.problems.append(Problem(path, exc.line, exc.message))
        return plan
    try:
        tournament = from_dict(table, path)
    except PlanError as exc:
        message = tomlfile.one_line(str(exc).removeprefix(f"{path}: "))
        field_name, sep, rest = message.partition(": ")
        plan.problems.append(Problem(path, 0, rest, field_name) if sep and " " not in field_name
                             else Problem(path, 0, message))
        return plan
    except Exception as exc:  # noqa: BLE001 - a stranger's file must never end the check with a traceback
        plan.problems.append(Problem(path, 0, tomlfile.one_line(f"cannot be planned ({type(exc).__name__}: {exc})")))
        return plan
    planned_games = sum(m.games for m in tournament.matchups)
    if max_games is not None and planned_games > max_games:
        plan.problems.append(Problem(path, 0, f"plans {planned_games:,} games; a submission holds at most "
                                              f"{max_games:,}: submit a smaller tournament", "matchups"))
        return plan
    if tournament.suite is not None or tournament.verify is not None:
        if tournament.suite is not None:
            from runner.suite import plan_problems
        else:
            from runner.verify import plan_problems  # type: ignore[assignment]

        found = plan_problems(tournament)
        if found:
            plan.problems.extend(Problem(path, 0, why, field_name) for field_name, why in found)
            return plan
    for position, matchup in enumerate(tournament.matchups):
        problem = _undealt(tournament, position)
        if problem:
            plan.problems.append(Problem(path, 0, problem, f"matchups[{position}].rules"))
            return plan
    for position in range(len(tournament.matchups)):
        for planned in tournament.plan_matchup(position):
            problem = drawn_reserved_seed(tournament, planned)
            if problem:
                plan.problems.append(Problem(path, 0, problem, f"matchups[{position}]"))
                plan.games = {}
                return plan
            plan.games[planned.game_id] = planned
    plan.tournament = tournament
    return plan


def drawn_reserved_seed(tournament: Tournament, planned: PlannedGame) -> str | None:
    """Why an ordinary tournament may not play this game, whose seed it drew from the tournament's
    seed: the seed of a shipped suite's deal of the game (runner/deals.py; a matchup's own seed is
    refused as the tournament is read, runner/tournament.py), or None."""
    dealt = tournament.suite is not None or tournament.verify is not None  # seeds the suite's, held to them
    problem = None if dealt else reserved_problem(planned.matchup.game, planned.seed)
    return problem and (f"game {planned.index + 1} draws its seed from the tournament's seed, and "
                        f"{problem}; choose another tournament seed")


def _undealt(tournament: Tournament, position: int) -> str | None:
    """Why the matchup's games cannot be dealt from the shipped content (a card size there is none
    of, say), or None; the runner would fail every one of them."""
    for planned in itertools.islice(tournament.plan_matchup(position), 1):
        game = games.get(planned.matchup.game)
        try:
            game.deal(dict(planned.matchup.rules), rng_for(planned.seed, "deal"))
        except SetupError as exc:
            return f"cannot be dealt from gamenight's content: {exc}"
    return None


def bots_only(plan: Plan) -> list[Problem]:
    """The plan's matchups with games in which no seat is a language model (a submission brings
    games of models: anyone can play the bots' games for free, and the maintainers' built-in
    tournament is where they play)."""
    assert plan.tournament is not None
    found: dict[int, int] = {}
    for position in range(len(plan.tournament.matchups)):
        for planned in plan.tournament.plan_matchup(position):
            if not model_seats(planned):
                found[position] = found.get(position, 0) + 1
    return [Problem(plan.path, 0, (f"plans {count} game(s) of {plan.tournament.matchups[position].game} in which no "
                                   f"seat is a language model ({plan.tournament.matchups[position].label}): a "
                                   "submission brings games of models; the bots play in the maintainers' built-in "
                                   "tournament"), f"matchups[{position}]")
            for position, count in sorted(found.items())]


def model_seats(planned: PlannedGame) -> list[int]:
    """The seats a language model or a person holds in a planned game (dealt from its seed, as the
    runner deals it): the seats that make a game worth submitting."""
    game = games.get(planned.matchup.game)
    params = dict(planned.matchup.rules)
    if planned.matchup.lineup:  # every agent of a lineup sits in every game
        return [s for s in range(game.players(params)) if _not_bot(planned.agent_for(s, ""))]
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    return [s for s in range(game.players(params)) if _not_bot(planned.agent_for(s, game.role_of(params, setup, s)))]


def people_seats_dealt(plan: Plan) -> bool:
    """Whether every matchup of a read plan that seats a person deals its seats from the game's
    seed (`seats = "dealt"`, as `gamenight play` plans a game given names only): no person chose
    their seat or role. A practice game (`--seat`, `--role`: a lineup in seat order, or a person
    named for a role) is not."""
    assert plan.tournament is not None
    return all(matchup.lineup and matchup.seats == "dealt" for matchup in plan.tournament.matchups
               if any(agent.is_human for agent in (*matchup.roles.values(), *matchup.lineup)))


def _not_bot(agent: AgentSpec) -> bool:
    return agent.is_llm or agent.is_human


def game_problems(plan: Plan, path: str, header: Mapping[str, Any]) -> list[Problem]:
    """Where a replay of the folder is not one of its plan's games, as the plan has it."""
    assert plan.tournament is not None
    planned = plan.games.get(header.get("game_id"))  # type: ignore[arg-type]
    if planned is None:
        return [Problem(path, 1, f"is not a game of the plan {plan.path}: a tournament's folder holds exactly the "
                                 "games its plan holds", "game_id")]
    problems = []
    if header.get("max_attempts") != plan.tournament.max_attempts:
        problems.append(Problem(path, 1, f"the plan asks each decision at most {plan.tournament.max_attempts} "
                                         "times", "max_attempts"))
    created = (header.get("provenance") or {}).get("created")
    if plan.tournament.created and isinstance(created, str) and created[:10] != plan.tournament.created:
        problems.append(Problem(path, 1, f"the plan dates its games {plan.tournament.created}",
                                "provenance.created"))
    return problems


def missing_games(plan: Plan, present: set[str]) -> Problem | None:
    """The planned games a submission lacks, as one problem of the plan file."""
    missing = [game_id for game_id in plan.games if game_id not in present]
    if not missing:
        return None
    listed = ", ".join(missing[:MAX_LISTED]) + (f" and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED
                                                 else "")
    return Problem(plan.path, 0, f"plans {len(plan.games)} games; {len(missing)} of them are missing ({listed}): "
                                 "a tournament comes whole, with every game it plans (finish the run: `gamenight run` "
                                 "plays only the missing games)")
