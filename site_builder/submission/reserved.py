"""The plans shipped in runner/tournaments/ are the maintainers': their names, game ids and model agents.

A shipped tournament file is a plan the maintainers play, now or later: `gamenight run
runner/tournaments/magic-003.toml` writes its games under its name, with its game ids, and its
language-model agents. Ownership goes to whoever adds games first (site_builder/submission/ownership.py), so a
stranger who submitted made-up games of a plan not yet played would own its name and its agents,
and the maintainers' own run would then keep the stranger's games as finished ones. This module
reserves all of it before anyone plays: every tournament name (and any name that folds or looks like
one), every game id the plans plan, and the agent key (site_builder.scoring.model.agent_key) of every
language-model agent, described as the runner records it in a replay header, for every released
prompt set.

The shipped files are read from the installed `runner` package, as the runner reads its content:
the submission check runs the base branch's installed gamenight, so the plans it protects are those
of the base branch, never a pull request's.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from runner import roster
from runner import suite as suites
from runner.agents.llm import describe_llm_agent
from runner.agents.llm.render import released
from runner.plan import AgentSpec
from runner.replay.format import Problem, agent_kind
from runner.rerun.plans import PLAN_FILE, Plan
from runner.tournament import from_dict
from site_builder import names
from site_builder.scoring.model import agent_key

#: Where the shipped plans are, in the repository and in the `runner` package.
SHIPPED = "runner/tournaments"
#: Reserved game ids or agents named in one problem before "and N more".
MAX_LISTED = 3


@dataclass(frozen=True)
class ReservedAgent:
    """A language-model agent of shipped plans: its name there and the plans that hold it."""

    name: str
    plans: tuple[str, ...]

    @property
    def where(self) -> str:
        return _plans(self.plans)


@dataclass(frozen=True)
class Reserved:
    """What the shipped plans reserve. Read-only maps; see `reserved()`."""

    #: tournament name -> the shipped plan that plans it
    names: Mapping[str, str]
    #: every folded form of a reserved name (case, separators, look-alikes) -> the name
    forms: Mapping[str, str]
    #: planned game id -> the shipped plan that plans it
    game_ids: Mapping[str, str]
    #: agent key -> the agent
    agents: Mapping[str, ReservedAgent]

    def name(self, name: str) -> str | None:
        """The reserved tournament name that `name` is, or folds or looks like; None if it is free."""
        if name in self.names:
            return name
        return next((self.forms[form] for form in sorted(_forms(name)) if form in self.forms), None)

    def game(self, game_id: str) -> str | None:
        """The shipped plan that plans the game `game_id`, or None."""
        return self.game_ids.get(game_id)

    def agent(self, key: str) -> ReservedAgent | None:
        """The shipped language-model agent whose agent key is `key`, or None."""
        return self.agents.get(key)


@cache
def reserved() -> Reserved:
    """What the plans shipped in the installed `runner` package reserve (read once per process)."""
    folder = resources.files("runner").joinpath("tournaments")
    files = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".toml")), key=lambda e: e.name)
    return read((f"{SHIPPED}/{entry.name}", entry.read_text(encoding="utf-8")) for entry in files)


def read(plans: Iterable[tuple[str, str]]) -> Reserved:
    """What the plans reserve, given as (where, TOML text); PlanError if one cannot be planned."""
    found_names: dict[str, str] = {}
    forms: dict[str, str] = {}
    game_ids: dict[str, str] = {}
    agents: dict[str, tuple[str, list[str]]] = {}  # agent key -> its name in the first plan, the plans
    for where, text in plans:
        tournament = from_dict(tomllib.loads(text), where)
        found_names.setdefault(tournament.name, where)
        for form in _forms(tournament.name):
            forms.setdefault(form, tournament.name)
        for planned in tournament.plan():
            game_ids.setdefault(planned.game_id, where)
        for spec in tournament.llm_agents():
            for version in released():
                holders = agents.setdefault(llm_key(spec, version), (spec.name, []))[1]
                if where not in holders:
                    holders.append(where)
    return Reserved(MappingProxyType(found_names), MappingProxyType(forms), MappingProxyType(game_ids),
                    MappingProxyType({key: ReservedAgent(name, tuple(plans)) for key, (name, plans) in agents.items()}))


def llm_key(spec: AgentSpec, prompt_version: str | None = None) -> str:
    """The agent key of a plan's language-model agent as its games would record it (with the prompt
    set `prompt_version`, default the current one): built, never played."""
    return agent_key(describe_llm_agent(spec.spec, spec.name, prompt_version))


def _forms(name: str) -> frozenset[str]:
    """The forms a tournament name is compared in: its readings (`names.readings`: case,
    separators, TR39 look-alikes and digits for letters), so that a name is reserved exactly when it
    looks like a reserved one (`names.lookalike`), as the ownership check compares the board's names:
    `magic_003`, `Magic.003`, `rnagic-003`, `magic-0O3` and `l0cal-cpu` all meet a shipped name."""
    return names.readings(name)


def _plans(plans: tuple[str, ...]) -> str:
    return ("the maintainers' shipped plan " if len(plans) == 1 else "the maintainers' shipped plans ") + \
        " and ".join(plans)


# -- why a submitted tournament folder may not use them --------------------------------------------

def problems(reserved: Reserved, folder: str, plan: Plan | None,
             headers: Iterable[tuple[str, Mapping[str, Any]]], maintainers: bool = False) -> list[Problem]:
    """Everything a submitted tournament folder takes from the shipped plans: `folder` is its name
    under replays/, `plan` its tournament.toml as read (runner.rerun.plans.read_plan), `headers`
    the (path, header) of its replays. The plan's problems are the plan file's, each replay's its own.
    `maintainers`: the submission is the maintainers' run's, which alone may add a verification."""
    plan_path = plan.path if plan is not None else f"replays/{folder}/{PLAN_FILE}"
    problem = name_problem(reserved, folder, maintainers)
    found = [Problem(plan_path, 0, problem, "name")] if problem else []
    if plan is not None and plan.tournament is not None:
        found.extend(plan_problems(reserved, plan, checked_name=folder, maintainers=maintainers))
    for path, header in headers:
        found.extend(header_problems(reserved, path, header, maintainers))
    return found


#: Tournament names that start like this (in any reading: case, separators, look-alikes) are the
#: maintainers' verifications of suite rows (`gamenight verify`, runner/verify.py): evidence about
#: another row, so never a submission's.
VERIFY_PREFIX = "verify"


def verification_problem(name: str) -> str | None:
    """Why a submission may not use `name` (a tournament, its folder) as a verification's, or None."""
    if any(form.startswith(VERIFY_PREFIX) for form in _forms(name)):
        return (f"{name!r} starts like replays/verify-<row>/, the maintainers' verifications of suite rows "
                "(`gamenight verify`: their own games, on deals nobody can play in advance): a submission may not "
                "add one. Choose a tournament name of your own")
    return None


#: The maintainers' roster, read from the installed `runner` package like the shipped plans.
ROSTER = "runner/roster.toml"


@cache
def roster_rows() -> Mapping[str, str]:
    """Every reading (`names.readings`) of the row names the roster's models are played under
    (replays/<suite>-<version>-<label>/, runner/suite.py) -> the row name. The maintainers' run plays
    them; a stranger who sent one first would own the folder, and the run, which writes only its own
    rows, could then never put that model on the board."""
    with resources.as_file(resources.files("runner").joinpath("roster.toml")) as path:
        listed = roster.load(path, ROSTER)
    found: dict[str, str] = {}
    for model in listed.models:
        row = suites.tournament_name(listed.suite, model.label)
        for form in _forms(row):
            found.setdefault(form, row)
    return MappingProxyType(found)


def roster_problem(name: str) -> str | None:
    """Why a submission (not the maintainers' run) may not use the tournament name `name`, or None."""
    rows = roster_rows()
    row = name if name in rows.values() else next((rows[f] for f in sorted(_forms(name)) if f in rows), None)
    if row is None:
        return None
    like = "is" if row == name else f"looks like {row!r}, which is"
    return (f"the tournament name {name!r} {like} a row of the maintainers' roster ({ROSTER}): the "
            "maintainers' run plays that model under that name. Give your row a label of your own (`gamenight "
            "run --suite ... --label NAME`)")


def name_problem(reserved: Reserved, name: str, maintainers: bool = False) -> str | None:
    """Why a submission may not use the tournament name `name`, or None (a verification's name is the
    maintainers' run's to use)."""
    problem = None if maintainers else verification_problem(name)
    if problem:
        return problem
    taken = reserved.name(name)
    if taken is None:
        return None
    plan = reserved.names[taken]
    if taken == name:
        return (f"the tournament name {name!r} is reserved for {_plans((plan,))}: its games are the maintainers' "
                "to play (their run of it would keep yours as finished). Choose a name of your own, and a "
                "new seed")
    return (f"the tournament name {name!r} looks like {taken!r}, which is reserved for {_plans((plan,))}: "
            "choose a name that cannot be mistaken for it")


def plan_problems(reserved: Reserved, plan: Plan, checked_name: str | None = None,
                  maintainers: bool = False) -> list[Problem]:
    """What a submitted plan (read and planned) takes from the shipped plans: its name (unless it is
    `checked_name`, already judged as the folder's), the game ids it plans, its model agents."""
    assert plan.tournament is not None
    found: list[Problem] = []
    name = plan.tournament.name
    if name != checked_name and (problem := name_problem(reserved, name, maintainers)):
        found.append(Problem(plan.path, 0, problem, "name"))
    if plan.tournament.verify is not None and not maintainers:
        found.append(Problem(plan.path, 0, "a verification's plan (a verify table) is the maintainers' to play, with "
                                           "`gamenight verify`; a submission may not add one", "verify"))
    taken = [(game_id, where) for game_id in plan.games if (where := reserved.game(game_id)) is not None]
    if taken:
        listed = ", ".join(repr(game_id) for game_id, _ in taken[:MAX_LISTED])
        more = f" and {len(taken) - MAX_LISTED:,} more" if len(taken) > MAX_LISTED else ""
        whose = _plans(tuple(sorted({where for _, where in taken})))
        found.append(Problem(plan.path, 0, f"plans {len(taken):,} game(s) of {whose} ({listed}{more}): those games "
                                           "are the maintainers' to play", "matchups"))
    for spec in plan.tournament.llm_agents():
        agent = reserved.agent(llm_key(spec))
        if agent is not None:
            found.append(Problem(plan.path, 0, agent_message(spec.name, agent), f"agents.{spec.name}"))
    return found


def header_problems(reserved: Reserved, path: str, header: Mapping[str, Any],
                    maintainers: bool = False) -> list[Problem]:
    """What one submitted replay takes from the shipped plans: its tournament name, its game id,
    the language-model agents of its seats."""
    found: list[Problem] = []
    tournament = header.get("tournament")
    if isinstance(tournament, str) and (problem := name_problem(reserved, tournament, maintainers)):
        found.append(Problem(path, 1, problem, "tournament"))
    if "verify" in header and not maintainers:
        found.append(Problem(path, 1, "a game of a verification (the header field 'verify') is the maintainers' to "
                                      "play, with `gamenight verify`; a submission may not add one", "verify"))
    game_id = header.get("game_id")
    if isinstance(game_id, str) and (where := reserved.game(game_id)):
        found.append(Problem(path, 1, f"the game {game_id!r} is planned by {_plans((where,))}: it is the "
                                      "maintainers' to play", "game_id"))
    players = header.get("players")
    for i, player in enumerate(players if isinstance(players, list) else ()):
        description = player.get("agent") if isinstance(player, Mapping) else None
        if not isinstance(description, Mapping) or agent_kind(description) != "llm":
            continue
        agent = reserved.agent(agent_key(description))
        if agent is not None:
            found.append(Problem(path, 1, agent_message(str(description.get("name", "")), agent),
                                 f"players[{i}].agent"))
    return found


def agent_message(label: str, agent: ReservedAgent) -> str:
    """Why a submission may not bring games of a reserved language-model agent."""
    theirs = "" if label == agent.name else f" (its agent {agent.name!r})"
    return (f"the agent {label!r} is reserved for {agent.where}{theirs}: this model with these settings and this "
            "design is the maintainers' agent, with any released prompt set, even before they play it. Change "
            "something that is part of the agent (its seed, say) and it is a new agent of your own")
