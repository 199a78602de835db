"""The shipped plans' names, game ids and model agents are the maintainers' (site_builder/submission/reserved.py).

The attack it answers: made-up games of the shipped, not yet played runner/tournaments/magic-003.toml
(its name, seeds, game ids and GPT-4 agents, the replies from a fake server). Its ingredients are
made here for real: the first games of magic-003 played by the runner with its GPT-4 agents, the
OpenAI endpoint pointed at the fake server of tests/llm/fakes.py (as a forger would point theirs).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from runner.agents.llm import PROMPT_VERSION, describe_llm_agent
from runner.agents.llm.render import released
from runner.plan import Tournament
from runner.rerun.plans import PLAN_FILE, read_plan
from runner.run import run
from runner.tournament import from_dict
from site_builder.submission import reserved as reserving
from site_builder.submission.reserved import Reserved, llm_key, problems, reserved
from site_builder.scoring.model import agent_key
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply

MAGIC = "runner/tournaments/magic-003.toml"
KEY = "sk-test-reserved-5e1f0c2a9b7d4e83"


def shipped() -> dict[str, Tournament]:
    """Every plan shipped in the installed runner package, by repository path."""
    folder = resources.files("runner").joinpath("tournaments")
    return {f"runner/tournaments/{entry.name}": from_dict(tomllib.loads(entry.read_text(encoding="utf-8")))
            for entry in folder.iterdir() if entry.name.endswith(".toml")}


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def headers(out: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(f"replays/{out.name}/{path.name}", records(path)[0]) for path in sorted(out.glob("*.jsonl"))]


def plan_of(out: Path):
    return read_plan(f"replays/{out.name}/{PLAN_FILE}", out.name, (out / PLAN_FILE).read_bytes())


def first_games(tournament: Tournament, positions: tuple[int, ...], name: str | None = None) -> Tournament:
    """The tournament cut to one game of each matchup at `positions` (a matchup's games are named
    and seeded by its index, not by how many it has: these are the plan's very first games)."""
    matchups = [dataclasses.replace(tournament.matchups[i], games=1) for i in positions]
    return dataclasses.replace(tournament, matchups=matchups, name=name or tournament.name)


@pytest.fixture(scope="module")
def forged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """magic-003's first Chameleon game and first Prisoner's Dilemma game of the PGM challenger, played
    with its GPT-4 agents against a fake OpenAI server; and the same under a name of one's own."""
    import runner.llm.openai_api as openai_api

    magic = shipped()[MAGIC]
    chameleon = next(i for i, m in enumerate(magic.matchups) if m.game == "chameleon")
    pgm_pd = next(i for i, m in enumerate(magic.matchups)
                  if m.game == "prisoners_dilemma" and m.lineup[0].spec["design"] == "pgm")
    root = tmp_path_factory.mktemp("forged")
    with FakeOpenAI(legal_reply) as server, pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_api, "OPENAI_URL", server.base_url)  # the forger's endpoint, not OpenAI's
        played = {}
        for name in ("magic-003", "mallory-003"):
            out = root / name
            summary = asyncio.run(run(first_games(magic, (chameleon, pgm_pd), name), out,
                                      environ={"OPENAI_API_KEY": KEY}))
            assert summary.ok and sum(summary.played.values()) == 2, summary
            played[name] = out
    return played


# -- what is reserved ---------------------------------------------------------------------------

def test_every_shipped_plan_reserves_its_name_games_and_model_agents():
    plans = shipped()
    found = reserved()
    assert set(found.names) == {t.name for t in plans.values()}
    assert all(found.names[t.name] == where for where, t in plans.items())
    assert set(found.game_ids) == {p.game_id for t in plans.values() for p in t.plan()}
    assert len(found.game_ids) == sum(len(t.plan()) for t in plans.values())  # no two plans share an id
    for where, tournament in plans.items():
        for spec in tournament.llm_agents():
            for version in released():  # a replay may name any released prompt set
                agent = found.agent(llm_key(spec, version))
                assert agent is not None and where in agent.plans, (where, spec.name, version)
    # Scripted agents are nobody's: only language-model agents are reserved.
    assert all(json.loads(key)["kind"] == "llm" for key in found.agents)
    assert len(found.agents) == len(released()) * len({llm_key(s) for t in plans.values() for s in t.llm_agents()})


def test_reserved_is_read_once_and_cannot_be_changed():
    assert reserved() is reserved()
    with pytest.raises(dataclasses.FrozenInstanceError):
        reserved().names = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        reserved().game_ids["mine"] = "x"  # type: ignore[index]


def test_planning_every_shipped_plan_is_quick():
    reserving.read([])  # the imports a check has made anyway
    texts = [(f"runner/tournaments/{e.name}", e.read_text(encoding="utf-8"))
             for e in resources.files("runner").joinpath("tournaments").iterdir() if e.name.endswith(".toml")]
    reserving.read(texts)
    start = time.perf_counter()
    again = reserving.read(texts)
    took = time.perf_counter() - start
    assert len(again.game_ids) > 4000
    assert took < 3.0, f"{took:.2f} s to plan the shipped files"  # measured: 0.1 to 0.25 s on 2 busy cores


@pytest.mark.parametrize("name", ["magic-003", "magic_003", "MAGIC-003", "Magic.003", "magic003", "rnagic-003",
                                  "magic-0O3", "builtin", "Built_In", "local", "locaI", "chameleon-002",
                                  # a digit for a letter, and a letter for a digit (issue 41)
                                  "l0cal-cpu", "local-cpu", "L0CAL_CPU", "bui1t1n", "chame1e0n-oo2"])
def test_a_shipped_name_and_its_look_alikes_are_reserved(name):
    assert reserved().name(name) is not None
    assert reserving.name_problem(reserved(), name) is not None


@pytest.mark.parametrize("name", ["magic-003-mallory", "mallory-003", "magic-004", "gpt-4o-2026-11", "builtins"])
def test_other_names_are_free(name):
    assert reserved().name(name) is None and reserving.name_problem(reserved(), name) is None


def test_a_look_alike_is_named_with_the_plan_it_imitates():
    problem = reserving.name_problem(reserved(), "magic_003")
    assert "'magic_003' looks like 'magic-003'" in problem and MAGIC in problem
    exact = reserving.name_problem(reserved(), "magic-003")
    assert "'magic-003' is reserved for the maintainers' shipped plan runner/tournaments/magic-003.toml" in exact


# -- the description is the one a played game records ------------------------------------------

DESIGNS = {
    "plain": {"design": "vanilla"},
    "seeded": {"design": "vanilla", "seed": 7, "top_p": 0.9, "stop": ["\n\n\n"]},
    "pgm": {"design": "pgm"},
    "persona": {"design": "b5p", "design_params": {"openness": 6}},  # four traits drawn per game
    "favor": {"design": "favor"},
    "strategy": {"design": "strategy"},
}


def test_the_description_built_without_playing_is_the_recorded_one(tmp_path):
    with FakeOpenAI(legal_reply) as server:
        agents = {name: {"provider": "openai_compatible", "model": "m", "base_url": server.base_url,
                         "api_key_env": "TEST_LLM_KEY", "temperature": 0.0, "max_tokens": 300, **extra}
                  for name, extra in DESIGNS.items()}
        roles = dict(zip(("werewolf", "seer", "mason", "minion", "tanner", "villager"), agents))
        tournament = from_dict({"name": "described", "seed": 3, "created": "2026-11-21", "agents": agents,
                                "matchups": [{"game": "werewolf", "games": 1, "roles": roles},
                                             {"game": "prisoners_dilemma", "games": 1, "rules": {"rounds": 2},
                                              "lineup": ["pgm", "persona", "seeded"]}]})
        summary = asyncio.run(run(tournament, tmp_path, environ={"TEST_LLM_KEY": KEY}))
    assert summary.ok, (summary.not_played, summary.failures, summary.stopped)
    seen = set()
    for path in tmp_path.glob("*.jsonl"):
        for player in records(path)[0]["players"]:
            recorded = player["agent"]
            spec = tournament.agents[recorded["name"]]
            built = describe_llm_agent(spec.spec, spec.name)
            assert agent_key(built) == agent_key(recorded) == llm_key(spec)
            drawn = set(recorded["design_params"].get("drawn", []))
            without = {k: v for k, v in recorded.items() if k != "model_reported"}
            without["design_params"] = {k: v for k, v in recorded["design_params"].items() if k not in drawn}
            built["design_params"] = {k: v for k, v in built["design_params"].items() if k not in drawn}
            assert built == without  # field for field, apart from what the first reply and the draw add
            assert recorded["prompt_version"] == PROMPT_VERSION
            seen.add(recorded["name"])
    assert seen == set(DESIGNS)


# -- the magic-003 attack ------------------------------------------------------------------------

def test_the_forged_magic_003_games_are_refused_for_name_ids_and_gpt4(forged):
    out = forged["magic-003"]
    plan = plan_of(out)
    assert plan.tournament is not None and not plan.problems
    games = headers(out)
    magic_ids = {planned.game_id for planned in shipped()[MAGIC].plan()}
    assert {h["game_id"] for _, h in games} <= magic_ids  # the very games the maintainers will play
    gpt4 = next(p["agent"] for _, h in games for p in h["players"] if p["agent"].get("model") == "gpt-4-0613")
    assert "base_url" not in gpt4 and gpt4["provider"] == "openai"  # nothing in the file tells the fake server
    # The three ingredients, each reserved on its own.
    assert reserved().name("magic-003") == "magic-003"
    assert reserved().game(games[0][1]["game_id"]) == MAGIC
    agent = reserved().agent(agent_key(gpt4))
    assert agent is not None and agent.name == "gpt4-defender" and MAGIC in agent.plans

    found = problems(reserved(), "magic-003", plan, games)
    by_field = {(p.path, p.field) for p in found}
    assert (plan.path, "name") in by_field and (plan.path, "matchups") in by_field
    assert {(plan.path, f"agents.{name}") for name in ("gpt4-defender", "challenger", "challenger-pgm")} <= by_field
    for path, header in games:
        mine = [p for p in found if p.path == path]
        assert {p.field for p in mine} >= {"tournament", "game_id"}
        model_seats = {f"players[{p['seat']}].agent" for p in header["players"] if p["agent"]["kind"] == "llm"}
        assert model_seats == {p.field for p in mine if p.field.startswith("players")}  # every seat is a model
    message = next(p.message for p in found if p.field.startswith("players") and "gpt4-defender" in p.message)
    assert "the agent 'gpt4-defender' is reserved for the maintainers' shipped plans" in message and MAGIC in message
    plan_games = next(p.message for p in found if p.field == "matchups")
    assert plan_games.startswith("plans 2 game(s) of the maintainers' shipped plan runner/tournaments/magic-003.toml")


def test_renamed_the_forgery_still_takes_the_maintainers_gpt4_agents(forged):
    """Under a name of one's own the ids are new (they follow from the name), but not the agents."""
    out = forged["mallory-003"]
    found = problems(reserved(), "mallory-003", plan_of(out), headers(out))
    assert found and all(p.field.startswith(("agents.", "players[")) for p in found)
    assert {p.field for p in found if p.path.endswith(PLAN_FILE)} == {"agents.gpt4-defender", "agents.challenger",
                                                                       "agents.challenger-pgm"}


def test_an_agent_of_ones_own_passes(forged):
    """The same model with its own seed is another agent, in a tournament of another name and seed."""
    magic = shipped()[MAGIC]
    agents = {name: {**{k: v for k, v in spec.spec.items() if v is not None}, "seed": 42}
              for name, spec in magic.agents.items()}
    mine = from_dict({"name": "mallory-gpt4", "seed": 1, "agents": agents,
                      "matchups": [{"game": "prisoners_dilemma", "games": 3, "lineup": list(agents)}]})
    plan = read_plan(f"replays/mallory-gpt4/{PLAN_FILE}", "mallory-gpt4", mine.plan_file().encode())
    assert plan.tournament is not None
    assert problems(reserved(), "mallory-gpt4", plan, []) == []


def test_odd_headers_are_judged_without_a_traceback():
    odd: list[Mapping[str, Any]] = [{}, {"players": "x"}, {"players": [1, {"agent": "x"}, {"agent": {"kind": "llm"}}]},
                                    {"tournament": 3, "game_id": None}]
    assert problems(reserved(), "fine-name", None, [(f"f{i}", h) for i, h in enumerate(odd)]) == []
    # A folder without a usable plan is still judged by its name, on the plan's path.
    found = problems(reserved(), "magic_003", None, [])
    assert [(p.path, p.field) for p in found] == [("replays/magic_003/tournament.toml", "name")]


def test_read_reserves_exactly_the_plans_it_is_given():
    toml = ('name = "house-1"\nseed = 4\n[agents.m]\nprovider = "openai"\nmodel = "gpt-x"\ntemperature = 0.0\n'
            '[[matchups]]\ngame = "prisoners_dilemma"\ngames = 2\nlineup = ["m", "random", "random"]\n')
    found = reserving.read([("plans/house.toml", toml)])
    assert isinstance(found, Reserved)
    assert dict(found.names) == {"house-1": "plans/house.toml"}
    assert len(found.game_ids) == 2 and set(found.game_ids.values()) == {"plans/house.toml"}
    assert len(found.agents) == len(released())
    assert {a.name for a in found.agents.values()} == {"m"}
    assert found.name("HOUSE_1") == "house-1" and found.name("house-2") is None
