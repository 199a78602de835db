"""The papers' agent designs: what each one asks the model before a move, and adds to its prompts.

- `vanilla`: nothing; one call per decision.
- `pgm` (003, section 4): a belief call asks for the two-hop analysis (the agent's view of every
  other player, and what it thinks each of them believes about the others); the decision call
  and the probes at the same point of the game include that analysis. One belief call is made
  per point of the game (per length of the visible log), shared by the probes and the decision
  asked there.
- `b5p` (004): a Big Five persona in the system prompt of every call; no extra call.
- `favor` (004): a favor level per other player, updated by a rating call whenever something
  happened since the last update (new events other than the agent's own moves and night
  information), before a decision or probe; the levels, in words, are part of every prompt.
- `strategy` (004): before each move that is speaking or voting, a call picks one strategy from
  the game's menu (`strategies.py`) and the decision call is told to follow it. The Chameleon's
  guess and the Seer's night look get no strategy call. Probes get none either.

All designs apply to every game. A pre-call whose reply cannot be read is not fatal: the agent
goes on without that note (the call is still in the evidence). A pre-call the provider could
not answer raises `ProviderError`, like any call: the game is abandoned, not written.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from runner.agents.llm import favor, persona, strategies
from runner.agents.llm.formats import AnswerStyle, favor_format, strategy_format
from runner.agents.llm.parse import ParseError, read_ratings, read_strategy
from runner.agents.llm.render import Scene, observation, render, system_prompt
from runner.agents.llm.schemas import favor_schema, strategy_schema
from runner.agents.llm.strategies import Strategy
from runner.llm.types import Completion, Message


class Caller(Protocol):
    """What a design needs from its agent: how it answers, a way to call the model and record the
    call, and a way to read an answer object from a reply."""

    style: AnswerStyle

    async def call(self, messages: list[Message], calls: list[dict[str, Any]],
                   schema: Mapping[str, Any] | None = None) -> Completion:
        """One model call recorded in `calls`; raises ProviderError when the provider gives no reply."""

    def answer(self, completion: Completion, expected: str) -> dict[str, Any]:
        """The answer object of a reply; ParseError if it has none."""


@dataclass(frozen=True)
class Notes:
    """What a design adds to the prompts of one decision or probe."""

    favor: tuple[str, ...] = ()
    analysis: str | None = None
    strategy: Strategy | None = None

    def context(self) -> dict[str, Any]:
        return {"favor": list(self.favor), "analysis": self.analysis, "strategy": self.strategy}


class Design:
    """`vanilla`: no persona, no pre-calls."""

    name: ClassVar[str] = "vanilla"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        self.params: dict[str, Any] = self.check(params)

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """The design's parameters, checked and completed; ValueError naming a bad field."""
        if params:
            raise ValueError(f"design_params: design {cls.name!r} takes no parameters, got {sorted(params)}")
        return {}

    def persona(self) -> str | None:
        """Text added to every system prompt."""
        return None

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        """Make the design's pre-calls for a decision in `phase` (None: a probe); return its notes."""
        return Notes()

    def _system(self, scene: Scene, caller: Caller) -> Message:
        return Message("system", system_prompt(scene, self.persona(), caller.style.structured))


class PGM(Design):
    """003's PGM-aware agent: a two-hop belief analysis before acting."""

    name = "pgm"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        super().__init__(params, rng)
        self._analysis: tuple[int, str | None] | None = None  # (log length, analysis)

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        point = len(scene.observation.get("log", ()))
        if self._analysis is None or self._analysis[0] != point:
            prompt = render("pgm/belief.j2", **scene.context(observation=observation(scene), **Notes().context()))
            completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls)
            text = (completion.text or "").strip() or None
            if text is not None and completion.finish_reason == "length":
                text += " [cut off]"
            self._analysis = (point, text)
        return Notes(analysis=self._analysis[1])


class BigFive(Design):
    """004's Big Five persona: trait levels (fixed or drawn from the agent's generator) as text."""

    name = "b5p"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        fixed = persona.check_levels(params)
        levels = persona.draw_levels(fixed, rng)
        # Drawn levels are recorded too, and which ones were drawn, so the persona can be rebuilt.
        self.params = {**levels, "drawn": [t for t in persona.TRAITS if t not in fixed]}
        self._text = persona.describe(levels, rng)

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(persona.check_levels(params))

    def persona(self) -> str | None:
        return self._text


class Favor(Design):
    """004's Favor Dynamics: favor levels towards the others, updated after each turn."""

    name = "favor"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        super().__init__(params, rng)
        self.levels: dict[int, float] | None = None
        self._seen = 0  # visible events already taken into account

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(favor.check_params(params))

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        if self.levels is None:
            self.levels = {s: float(self.params["initial"]) for s in range(len(scene.names)) if s != scene.seat}
        log = list(scene.observation.get("log", ()))
        # Only what others did (or what the rules revealed) can change how the agent feels about them.
        fresh = [ev for ev in log[self._seen:] if ev.get("seat") != scene.seat]
        if fresh:
            await self._update(caller, scene, calls)
            self._seen = len(log)
        return Notes(favor=tuple(favor.statements(self.levels, scene.names)))

    async def _update(self, caller: Caller, scene: Scene, calls: list[dict[str, Any]]) -> None:
        assert self.levels is not None
        others = [scene.names[s] for s in sorted(self.levels)]
        expected = favor_format(others)
        prompt = render("favor.j2", **scene.context(
            observation=observation(scene, new_from=self._seen),
            favor=favor.statements(self.levels, scene.names), answer_rule=caller.style.rule(expected)))
        schema = favor_schema(others, caller.style.reasoning_chars)
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls, schema)
        try:
            obj = caller.answer(completion, expected)
            ratings = read_ratings(obj, scene.names, scene.seat, expected)
        except ParseError:
            return  # an unreadable rating leaves the levels as they were (004 keeps what it can read)
        self.levels = favor.updated(self.levels, ratings, float(self.params["swing"]))


class StrategyDecision(Design):
    """004's Strategy Decision: choose a named strategy before speaking or voting."""

    name = "strategy"

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        options = strategies.menu(scene.game, phase, scene.observation.get("private", {})) if phase else ()
        if not options:
            return Notes()
        expected = strategy_format()
        prompt = render("strategy.j2", **scene.context(
            observation=observation(scene), situation=strategies.SITUATIONS[str(phase)],
            options=options, answer_rule=caller.style.rule(expected), **Notes().context()))
        schema = strategy_schema([o.name for o in options], caller.style.reasoning_chars)
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls, schema)
        try:
            obj = caller.answer(completion, expected)
            chosen = read_strategy(obj, [o.name for o in options], expected)
        except ParseError:
            return Notes()  # decide without a strategy; the failed choice stays in the evidence
        return Notes(strategy=next(o for o in options if o.name == chosen))


#: Every design by its name in tournament files.
DESIGNS: dict[str, type[Design]] = {cls.name: cls for cls in (Design, PGM, BigFive, Favor, StrategyDecision)}


def check_design(name: Any, params: Any) -> None:
    """ValueError naming the field unless `name` is a design and `params` suit it."""
    if name not in DESIGNS:
        raise ValueError(f"design: must be one of {list(DESIGNS)}, got {name!r}")
    if not isinstance(params, Mapping):  # a user's table: ValueError like every other bad setting
        raise ValueError(f"design_params: must be a table, got {type(params).__name__}")  # noqa: TRY004
    DESIGNS[name].check(params)


def make_design(name: str, params: Mapping[str, Any], rng: random.Random) -> Design:
    """The design object of one agent (b5p draws its missing trait levels from `rng`)."""
    check_design(name, params)
    return DESIGNS[name](params, rng)
