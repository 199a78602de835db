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
