"""Released prompt sets: every folder is registered, none has changed since its release, and an
agent can only be prompted with a released set."""

from __future__ import annotations

import random

import pytest

from runner.agents.llm import PROMPT_VERSION, make_llm_agent
from runner.agents.llm.render import PROMPTS, PromptSet, UnknownPromptSet, current_version, prompt_set, register


def test_every_folder_is_a_registered_set_and_the_current_one_is_released():
    folders = sorted(p.name for p in PROMPTS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    assert folders == sorted(register()["sets"])
    assert PROMPT_VERSION == current_version() in folders


@pytest.mark.parametrize("version", sorted(register()["sets"]))
def test_a_released_set_never_changes(version):
    """Replays name the set their prompts came from; a set edited after its release would make
    them fail (or, worse, pass with other prompts). Change wording in a new set (docs/prompts.md)."""
    expected = register()["sets"][version]["sha256"]
    assert PromptSet(version, PROMPTS / version).digest() == expected, (
        f"prompt set {version} differs from its release: copy it to a new folder, edit that one, "
        f"register it in {PROMPTS / 'sets.toml'} and make it current")


def test_only_released_sets_prompt_an_agent():
    with pytest.raises(UnknownPromptSet, match="not a released prompt set"):
        prompt_set("1.f4a372105e")
    with pytest.raises(ValueError, match="not a released prompt set"):
        make_llm_agent({"provider": "openai", "model": "m"}, model=None, game="chameleon", seat=0,  # type: ignore[arg-type]
                       rng=random.Random(0), name="m", prompt_version="9")
    agent = make_llm_agent({"provider": "openai", "model": "m"}, model=None, game="chameleon", seat=0,  # type: ignore[arg-type]
                           rng=random.Random(0), name="m")
    assert agent.description["prompt_version"] == PROMPT_VERSION and agent.prompts.version == PROMPT_VERSION


def _cost_sharing_prompts(version: str, rules: dict) -> list[str]:
    """The system prompt, the vote question, and the observation after a vote on equal splits of
    seats 0 and 1, as set `version` renders them for seat 0."""
    from runner.agents.llm.render import Scene, observation, system_prompt
    from runner.games import get

    game = get("cost_sharing")
    params = game.params(rules)
    state = game.start(params, game.deal(params, random.Random(3)))
    for seat, split in enumerate([[40, 30, 30], [40, 30, 30], [50, 25, 25]]):
        state.act(seat, {"split": split})
    names = tuple(game.seat_names(params, state.setup))
    ask = Scene("cost_sharing", 0, names, state.observe(0), prompt_set(version))
    prompts = [system_prompt(ask, None), ask.render("ask/cost_sharing_vote.j2", legal=state.legal(0))]
    for seat, target in enumerate([0, 1, 0]):
        state.act(seat, {"proposal": target})
    return prompts + [observation(Scene("cost_sharing", 0, names, state.observe(0), prompt_set(version)))]


def test_set_3_renders_the_default_rules_as_set_2_and_states_the_equal_split_rule():
    assert _cost_sharing_prompts("3", {}) == _cost_sharing_prompts("2", {})
    rules, ask, seen = _cost_sharing_prompts("3", {"agreement": "same_split"})
    assert "equal proposals of different airlines" in rules
    assert "even of different airlines" in ask
    assert "Agreement on the equal proposals of Airline A (you) and Airline B." in seen
    assert "No agreement." in _cost_sharing_prompts("3", {})[2]
