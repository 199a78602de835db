"""Language-model agents: prompts per game and role, strict answer parsing, the papers' designs.

`make_llm_agent` builds the agent of one seat from a tournament's agent table (minus secrets)
and a `ChatModel` from `runner.llm`. Its description follows the replay schema's `llmAgent`
and records the design, its parameters and the prompt version; never a key.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from runner import games
from runner.agents.llm.agent import LLMAgent
from runner.agents.llm.designs import DESIGNS, check_design, make_design
from runner.agents.llm.formats import AnswerStyle
from runner.agents.llm.render import current_version, prompt_set
from runner.llm.types import ChatModel

#: Recorded in every description: the released prompt set new games are played with
#: (runner/agents/llm/prompts/sets.toml), so that games played with different prompts are never
#: taken for the same agent, and the validator can render every recorded prompt again.
PROMPT_VERSION = current_version()
#: Settings of the agent table copied into the description when given.
_SETTINGS = ("base_url", "temperature", "max_tokens", "seed", "top_p", "stop", "reasoning_effort", "thinking_budget",
             "structured_output", "structured_reasoning", "extra_body", "system_role")


def make_llm_agent(spec: Mapping[str, Any], model: ChatModel, *, game: str, seat: int,
                   rng: random.Random, name: str, prompt_version: str | None = None) -> LLMAgent:
    """The agent of seat `seat` in `game`, prompted with the released set `prompt_version` (default:
    the current one); ValueError naming the field if the spec cannot work."""
    if game not in games.available():
        raise ValueError(f"game: unknown game {game!r}; known games: {', '.join(games.available())}")
    for key in ("provider", "model"):
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise ValueError(f"{key}: a language-model agent needs a non-empty {key!r}")
    design_name = spec.get("design") or "vanilla"
    params = spec.get("design_params") or {}
    prompts = prompt_set(prompt_version)  # UnknownPromptSet (a ValueError) if it is not released
    design = make_design(design_name, params, rng)
    description = _description(spec, name, design.name, design.params, prompts.version)
    style = AnswerStyle(structured=spec.get("structured_output") is not None,
                        reasoning_chars=int(spec.get("structured_reasoning") or 0),
                        described=prompts.describes_answers)
    return LLMAgent(model, description, design, game=game, seat=seat, style=style, prompts=prompts)


def describe_llm_agent(spec: Mapping[str, Any], name: str, prompt_version: str | None = None) -> dict[str, Any]:
    """The description a replay header records for this agent, without playing: what
    `make_llm_agent` gives its seat before the first reply adds `model_reported`. Design parameters
    a design draws per game (b5p's trait levels) are drawn from a fixed generator: they are named
    in `design_params.drawn` and are not part of the agent's identity."""
    design = make_design(spec.get("design") or "vanilla", spec.get("design_params") or {}, random.Random(0))
    return _description(spec, name, design.name, design.params, prompt_set(prompt_version).version)


def _description(spec: Mapping[str, Any], name: str, design: str, design_params: Mapping[str, Any],
                 prompt_version: str) -> dict[str, Any]:
    description: dict[str, Any] = {"name": name, "kind": "llm", "provider": spec["provider"], "model": spec["model"]}
    description.update({key: spec[key] for key in _SETTINGS if spec.get(key) is not None})
    description.update(design=design, design_params=design_params, prompt_version=prompt_version)
    return description


__all__ = ["DESIGNS", "PROMPT_VERSION", "LLMAgent", "check_design", "describe_llm_agent", "make_llm_agent"]
