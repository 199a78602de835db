"""Tournament plans: parsing, checking and deterministic seeds and ids."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest

from runner.plan import derive_seed
from runner.tournament import PlanError, from_dict, from_flags, load

PD_LINEUP = ["prisoners_dilemma/tit_for_tat", "defector", "random"]


def plan_dict(**overrides):
    raw = {
        "name": "t1",
        "seed": 7,
        "agents": {"defector": {"builtin": "prisoners_dilemma/always_defect"}},
        "matchups": [{"game": "prisoners_dilemma", "games": 4, "lineup": PD_LINEUP}],
    }
    raw.update(overrides)
    return raw


def test_plan_is_deterministic_and_ids_are_unique_and_file_safe():
    first = from_dict(plan_dict()).plan()
    second = from_dict(plan_dict()).plan()
    assert [(p.seed, p.game_id) for p in first] == [(p.seed, p.game_id) for p in second]
    ids = [p.game_id for p in first]
    assert len(set(ids)) == len(ids) == 4
    assert all(i.startswith("t1-prisoners_dilemma-") and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_ids_and_seeds_change_with_tournament_seed_and_agents():
    base = {p.game_id for p in from_dict(plan_dict()).plan()}
    assert base.isdisjoint({p.game_id for p in from_dict(plan_dict(seed=8)).plan()})
    changed = plan_dict(agents={"defector": {"builtin": "prisoners_dilemma/grim_trigger"}})
    assert base.isdisjoint({p.game_id for p in from_dict(changed).plan()})


def test_derive_seed_fits_in_63_bits_and_depends_on_every_input():
    seeds = {derive_seed(1, "m", 0), derive_seed(2, "m", 0), derive_seed(1, "n", 0), derive_seed(1, "m", 1)}
    assert len(seeds) == 4 and all(0 <= s < 2**63 for s in seeds)


def test_lineup_rotates_so_every_agent_sits_at_every_seat():
    plan = from_dict(plan_dict(matchups=[{"game": "prisoners_dilemma", "games": 3, "lineup": PD_LINEUP}])).plan()
    seats_of_tft = set()
    for planned in plan:
        names = [planned.agent_for(seat, "player").name for seat in range(3)]
        assert sorted(names) == sorted(PD_LINEUP)
        seats_of_tft.add(names.index("prisoners_dilemma/tit_for_tat"))
    assert seats_of_tft == {0, 1, 2}


@pytest.mark.parametrize("overrides, message", [
    ({"name": "bad name!"}, "name"),
    ({"seed": -1}, "seed"),
    ({"surprise": 1}, "unknown key"),
    ({"max_attempts": 0}, "max_attempts"),
    ({"created": "yesterday"}, "created"),
    ({"matchups": []}, "matchups"),
    ({"matchups": [{"game": "chess", "lineup": PD_LINEUP}]}, "unknown game 'chess'"),
    ({"matchups": [{"game": "prisoners_dilemma", "lineup": PD_LINEUP[:2]}]}, "seats 3 agents"),
    ({"matchups": [{"game": "prisoners_dilemma", "lineup": ["nobody", "random", "random"]}]},
     "'nobody' is neither"),
    ({"matchups": [{"game": "prisoners_dilemma"}]}, "either roles"),
    ({"matchups": [{"game": "prisoners_dilemma", "roles": {"player": "random"}, "lineup": PD_LINEUP}]},
     "either roles"),
    ({"matchups": [{"game": "prisoners_dilemma", "roles": {"judge": "random"}}]}, "no role(s) ['judge']"),
    ({"matchups": [{"game": "prisoners_dilemma", "rules": {"rounds": 0}, "lineup": PD_LINEUP}]},
     "rules: params.rounds"),
    ({"matchups": [{"game": "prisoners_dilemma", "games": 0, "lineup": PD_LINEUP}]}, "games"),
    ({"agents": {"x": {"builtin": "prisoners_dilemma/psychic"}}}, "unknown strategy"),
    ({"agents": {"x": {"builtin": "prisoners_dilemma/always_defect", "mood": 1}}}, "no parameter(s) ['mood']"),
    ({"agents": {"x": {"temperature": 0}}}, "needs either builtin"),
    ({"agents": {"x": {"model": "gpt"}}}, "agents.x.provider: must be one of"),
])
def test_bad_plans_are_refused_with_the_place_named(overrides, message):
    with pytest.raises(PlanError) as info:
        from_dict(plan_dict(**overrides), "my.toml")
    assert message in str(info.value)
    assert str(info.value).startswith("my.toml")


def test_agent_for_another_game_is_refused():
    raw = plan_dict(matchups=[{"game": "prisoners_dilemma",
                               "lineup": ["prisoners_dilemma/tit_for_tat", "random", "public_good/free_rider"]}])
    with pytest.raises(PlanError, match="does not play prisoners_dilemma"):
        from_dict(raw)


CHAMELEON_FOUR = ["chameleon/ambiguity"] * 4


@pytest.mark.parametrize("rules, agent, message", [
    ({"clue": "word"}, "chameleon/ambiguity", "plays only the 'subset' clue variant (this game uses 'word' clues)"),
    ({"clue": "subset", "players": 4, "words": 16}, "chameleon/ambiguity", "16 words do not split into groups of N+1 = 5"),
    ({"clue": "subset"}, "chameleon/associative", "not 'subset' clues"),
], ids=["ambiguity-without-subsets", "ambiguity-words-do-not-split", "associative-with-subsets"])
def test_a_strategy_that_cannot_play_the_rules_is_refused_when_planned(rules, agent, message):
    raw = plan_dict(matchups=[{"game": "chameleon", "rules": rules, "lineup": [agent] * 4}])
    with pytest.raises(PlanError) as info:
        from_dict(raw, "my.toml")
    assert str(info.value).startswith(f"my.toml: matchups[0]: lineup[0]: {agent}: ") and message in str(info.value)


def test_the_rules_a_strategy_fits_are_planned():
    raw = plan_dict(matchups=[{"game": "chameleon", "rules": {"clue": "subset", "players": 4, "words": 15},
                               "lineup": CHAMELEON_FOUR},
                              {"game": "chameleon", "rules": {"clue": "sentence"}, "roles": {"*": "chameleon/associative"}}])
    assert len(from_dict(raw).plan()) == 2


def test_load_reports_bad_toml_with_the_file_name(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = 'x'\n[[matchups]\n", encoding="utf-8")
    with pytest.raises(PlanError, match="broken.toml:2: not valid TOML"):
        load(path)
    with pytest.raises(PlanError, match="cannot read"):
        load(tmp_path / "missing.toml")
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(PlanError, match="not UTF-8"):
        load(path)


def test_a_file_of_agents_only_loads_where_matchups_are_not_needed(tmp_path):
    path = tmp_path / "judges.toml"
    path.write_text('name = "j"\n[agents.judge]\nprovider = "openai"\nmodel = "gpt-4o"\n', encoding="utf-8")
    assert load(path, matchups_required=False).agents["judge"].is_llm
    with pytest.raises(PlanError, match="matchups: needs at least one"):
        load(path)


def test_from_flags_builds_a_one_matchup_tournament():
    tournament = from_flags("adhoc", "prisoners_dilemma", [], "random,random,random", {"rounds": 2}, 5, 3)
    assert len(tournament.plan()) == 5 and tournament.matchups[0].rules == {"rounds": 2}
    with pytest.raises(PlanError, match="expected ROLE=AGENT"):
        from_flags("adhoc", "prisoners_dilemma", ["player"], None, {}, 1, 0)


# -- language-model agents, provider limits and prices -------------------------------------

GPT = {"provider": "openai", "model": "gpt-4o", "api_key_env": "OPENAI_API_KEY"}


def llm_plan(agent: dict | None = None, **overrides):
    agents = {"m": {**GPT, **(agent or {})}}
    return plan_dict(agents=agents, matchups=[{"game": "prisoners_dilemma", "games": 2,
                                               "lineup": ["m", "random", "random"]}], **overrides)


def test_llm_agent_spec_holds_the_played_settings_normalised_and_no_access_details():
    tournament = from_dict(llm_plan({"temperature": 0, "max_tokens": 300, "timeout_s": 30}))
    agent = tournament.agents["m"]
    assert agent.is_llm and tournament.llm_agents() == [agent]
    assert agent.spec == {"provider": "openai", "model": "gpt-4o", "base_url": None, "temperature": 0.0,
                          "max_tokens": 300, "seed": None, "design": "vanilla", "design_params": {}}
    assert agent.access == {"api_key_env": "OPENAI_API_KEY", "timeout_s": 30}
    assert "OPENAI_API_KEY" not in agent.canonical()
    settings = agent.settings()
    assert (settings.model, settings.api_key_env, settings.timeout_s, settings.temperature) == \
        ("gpt-4o", "OPENAI_API_KEY", 30, 0.0)


def test_game_ids_follow_the_played_settings_but_not_how_the_model_is_reached():
    def ids(**agent):
        return {p.game_id for p in from_dict(llm_plan(agent)).plan()}

    base = ids()
    assert ids(temperature=0) == ids(temperature=0.0)  # the same setting written two ways
    assert ids(design="vanilla") == base
    assert ids(api_key_env="OTHER_KEY", timeout_s=5) == base
    for changed in ({"model": "gpt-4o-mini"}, {"temperature": 0.5}, {"max_tokens": 10}, {"seed": 1},
                    {"design": "pgm"}, {"design": "b5p", "design_params": {"openness": 6}},
                    {"base_url": "https://proxy.example/v1"}):
        assert base.isdisjoint(ids(**changed)), changed


@pytest.mark.parametrize("agent, message", [
    ({"api_key": "sk-live-123456"}, "agents.m.api_key: a tournament file must never hold a key"),
    ({"apiKey": "abc"}, "agents.m.apiKey: a tournament file must never hold a key"),
    ({"token": "abc"}, "agents.m.token"),
    ({"password": "abc"}, "agents.m.password"),
    ({"headers": {"Authorization": "Bearer abc"}}, "agents.m.headers"),
    ({"design_params": {"secret": "abc"}}, "agents.m.design_params.secret"),
    ({"api_key_env": "sk-proj-abcdef0123456789"}, "must be the NAME of an environment variable"),
    ({"api_key_env": "AIzaSyA1b2C3d4E5f6G7h8"}, "must be the NAME of an environment variable"),
    ({"api_key_env": "x8Hk2mQ9vL4pR7tW1zY6bN3c"}, "must be the NAME of an environment variable"),
    ({"base_url": "https://user:sk-abc@proxy.example/v1"}, "carries credentials"),
    ({"base_url": "https://proxy.example/v1?api_key=abc"}, "carries credentials"),
])
def test_secrets_are_refused_without_echoing_them(agent, message):
    with pytest.raises(PlanError) as info:
        from_dict(llm_plan(agent), "t.toml")
    text = str(info.value)
    assert message in text and ("api_key_env" in text or "NAME" in text)
    for value in agent.values():
        if isinstance(value, str):
            assert value not in text


@pytest.mark.parametrize("agent, message", [
    ({"provider": "openia"}, "agents.m.provider: must be one of"),
    ({"model": ""}, "agents.m.model"),
    ({"provider": "openai_compatible"}, "needs the server's URL"),
    ({"base_url": "localhost:8000"}, "agents.m.base_url: must be an http(s) URL"),
    ({"temperature": 3}, "agents.m.temperature: must be a number from 0 to 2"),
    ({"temperature": "hot"}, "agents.m.temperature"),
    ({"max_tokens": 0}, "agents.m.max_tokens"),
    ({"max_tokens": 1.5}, "agents.m.max_tokens"),
    ({"seed": True}, "agents.m.seed"),
    ({"timeout_s": 0}, "agents.m.timeout_s"),
    ({"design": "clever"}, "agents.m.design: must be one of"),
    ({"design_params": 3}, "agents.m.design_params: must be a table"),
    ({"top_k": 40}, "unknown key(s) ['top_k']"),
    ({"top_p": 1.5}, "agents.m.top_p"),
    ({"provider": "anthropic", "top_p": 0.9}, "top_p cannot be set for provider anthropic"),
    ({"stop": [1]}, "agents.m.stop: must be a string or a list of strings"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop must be a list of 1 to 4"),
    ({"reasoning_effort": "extreme"}, "reasoning_effort for provider openai must be one of"),
    ({"thinking_budget": 2048}, "thinking_budget is Anthropic's extended thinking"),
    ({"provider": "anthropic", "thinking_budget": 512, "max_tokens": 4000}, "at least 1024"),
    ({"structured_output": "json_object"}, "structured_output for provider openai must be one of json_schema"),
    ({"provider": "anthropic", "structured_output": "tool", "thinking_budget": 2048, "max_tokens": 4000},
     "cannot be combined with thinking_budget"),
    ({"structured_reasoning": 200}, "goes with structured_output"),
    ({"extra_body": {"top_k": 40}}, "extra_body is for provider openai_compatible only"),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:1/v1", "extra_body": {"model": "x"}},
     "extra_body must not set model"),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:1/v1", "extra_body": {"api_key": "x"}},
     "agents.m.extra_body.api_key: a tournament file must never hold a key"),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:1/v1",
      "extra_body": {"opts": [{"api_key": "x"}]}}, "agents.m.extra_body.opts[0].api_key: a tournament file"),
    ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:1/v1",
      "extra_body": {"foo": "sk-proj-A1b2C3d4E5f6G7h8I9"}}, "agents.m.extra_body.foo: this value looks like an API key"),
    ({"provider": "openai_compatible", "base_url": "https://llm.example.org/v1?key=sk-proj-A1b2C3d4E5f6G7h8I9"},
     "the URL carries credentials"),
    ({"provider": "openai_compatible", "base_url": "https://llm.example.org/v1?key=abc"}, "the URL carries credentials"),
    ({"provider": "openai_compatible", "base_url": "https://llm.example.org/sk-proj-A1b2C3d4E5f6G7h8I9/v1"},
     "the URL carries credentials"),
    ({"builtin": "random"}, "not both"),
    ({"provider": "anthropic", "temperature": 0.5}, "temperature cannot be set for provider anthropic"),
])
def test_bad_llm_agents_are_refused_naming_the_field(agent, message):
    with pytest.raises(PlanError, match=re.escape(message)):
        from_dict(llm_plan(agent), "t.toml")


def test_provider_limits_and_prices_are_read_and_checked():
    tournament = from_dict(llm_plan(providers={"openai": {"max_concurrency": 16, "requests_per_minute": 500},
                                               "http://127.0.0.1:8000/v1": {"max_retries": 0}},
                                    prices={"gpt-4o": {"input": 2.5, "output": 10}}))
    assert tournament.providers == {"openai": {"max_concurrency": 16, "requests_per_minute": 500.0},
                                    "http://127.0.0.1:8000/v1": {"max_retries": 0}}
    price = tournament.prices["gpt-4o"]
    assert price.cost(1_000_000, 100_000) == pytest.approx(3.5)


@pytest.mark.parametrize("overrides, message", [
    ({"providers": {"opneai": {}}}, "providers.opneai: name a provider"),
    ({"providers": {"openai": {"burst": 3}}}, "unknown key(s) ['burst']"),
    ({"providers": {"openai": {"max_concurrency": 0}}}, "providers.openai.max_concurrency"),
    ({"providers": {"openai": {"requests_per_minute": -5}}}, "providers.openai.requests_per_minute"),
    ({"providers": {"openai": {"api_key": "sk-123"}}}, "providers.openai.api_key: a tournament file must never"),
    ({"prices": {"gpt-4o": {"input": 1}}}, 'prices."gpt-4o": needs input'),
    ({"prices": {"gpt-4o": {"input": 1, "output": 2, "cache": 1}}}, 'prices."gpt-4o": needs input'),
    ({"prices": {"gpt-4o": {"input": 1, "output": 2, "cached_input": -1}}}, 'prices."gpt-4o".cached_input: must be'),
    ({"prices": {"gpt-4o": {"input": -1, "output": 1}}}, 'prices."gpt-4o".input'),
])
def test_bad_provider_and_price_tables_are_refused(overrides, message):
    with pytest.raises(PlanError, match=re.escape(message)):
        from_dict(llm_plan(**overrides), "t.toml")


@pytest.mark.parametrize("path", sorted(resources.files("runner").joinpath("tournaments").iterdir(), key=str),
                         ids=lambda p: p.name)
def test_the_plan_file_plans_the_same_games_and_holds_nothing_of_the_machine(path):
    """`gamenight run` writes Tournament.plan_file() beside the replays; a submission carries it and
    the check plans the tournament again from it, so it must give exactly the same games."""
    tournament = load(str(path))
    text = tournament.plan_file()
    again = from_dict(tomllib.loads(text), "plan")
    assert [(g.game_id, g.seed, g.matchup.label) for g in again.plan()] == \
           [(g.game_id, g.seed, g.matchup.label) for g in tournament.plan()]
    assert again.plan_file() == text
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    for word in ("api_key_env", "timeout_s", "[providers", "[prices"):
        assert word not in body


def test_a_model_written_compactly_on_the_command_line_is_a_language_model_agent():
    from runner.tournament import from_flags

    tournament = from_flags("t", "public_good", [], "openai_compatible:gemma-3-270m@http://127.0.0.1:8000/v1,random,random",
                            {}, 1, 0)
    model = tournament.matchups[0].lineup[0]
    assert model.name == "gemma-3-270m" and model.is_llm
    assert model.spec["provider"] == "openai_compatible" and model.spec["base_url"] == "http://127.0.0.1:8000/v1"
    with pytest.raises(PlanError, match="name the model"):
        from_flags("t", "public_good", ["*=openai:"], None, {}, 1, 0)


def test_the_builtin_tournament_plays_every_game():
    """`gamenight run` with no arguments plays "every game" (builtin.toml says so): a game registered
    later is not in it until the file plays it too."""
    from runner import games
    from runner.commands.run import _builtin_tournament

    assert {m.game for m in _builtin_tournament().matchups} == set(games.available())
