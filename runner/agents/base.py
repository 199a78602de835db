"""The one small interface every agent implements, scripted or LLM."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Request:
    """A decision the game needs from one seat.

    `observation` is exactly what the seat may know (see `State.observe`); `legal` describes the
    allowed actions; `errors` lists why earlier tries at this same decision were refused.
    `names` are the seats' public display names. `sample` draws a legal action uniformly (for
    random baselines only).
    """

    game: str
    seat: int
    phase: str
    observation: Mapping[str, Any]
    legal: Mapping[str, Any]
    errors: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    sample: Callable[[random.Random], dict[str, Any]] | None = field(default=None, compare=False)
    #: The rules' refusal message for an action, or None if they accept it (the state unchanged);
    #: a person's seat uses it to ask again at once rather than spend one of the game's attempts.
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ProbeRequest:
    """A belief question asked outside the rules, for the Reasoning / Self-awareness metrics.

    kind "suspect": whom do you suspect; "suspect_of": whom does seat `about` suspect;
    "self_role": what is your own role. `roles` lists the game's role names.
    """

    game: str
    seat: int
    kind: str
    observation: Mapping[str, Any]
    roles: tuple[str, ...]
    about: int | None = None
    errors: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    #: Why an answer is not a usable belief, or None (as `Request.check`, for a person's seat).
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)


@dataclass
class Decision:
    """An agent's answer: the action (checked by the rules), and evidence of how it was made.

    An agent that could not even read a move out of its model's reply sets `error` (what was
    wrong, in words the model can act on) and leaves `action` None; the runner then asks again.
    """

    action: Any
    raw: str | None = None
    evidence: dict[str, Any] | None = None
    error: str | None = None
    #: How long a person took over this decision, in milliseconds (recorded for human seats only).
    took_ms: int | None = None


class Agent(ABC):
    """Plays one seat of one game. `description` is recorded verbatim in the replay header."""

    description: dict[str, Any]

    @abstractmethod
    async def act(self, request: Request) -> Decision:
        """Choose an action."""

    async def probe(self, request: ProbeRequest) -> Decision | None:
        """Answer a belief probe; None means this agent does not answer probes."""
        return None


class ScriptedAgent(Agent):
    """A built-in offline agent: a plain synchronous strategy with its own seeded generator."""

    #: Stable name used in tournament files, e.g. "prisoners_dilemma/tit_for_tat".
    strategy: str = ""
    #: Default strategy parameters; tournament files may override them.
    defaults: Mapping[str, Any] = {}

    def __init__(self, params: Mapping[str, Any], rng: random.Random, name: str):
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(f"builtin agent {self.strategy!r} has no parameter(s) {unknown}; "
                             f"it takes {sorted(self.defaults) or 'none'}")
        self.params = {**self.defaults, **params}
        self.rng = rng
        self.description = {"name": name, "kind": "builtin", "strategy": self.strategy,
                            "params": dict(self.params)}

    @classmethod
    def cannot_play(cls, rules: Mapping[str, Any]) -> str | None:
        """Why this strategy cannot play a game with these rules (as the game's `params` returns
        them), or None; asked when a tournament is planned, so a misfit stops it before any game."""
        return None

    async def act(self, request: Request) -> Decision:
        return Decision(self.decide(request))

    async def probe(self, request: ProbeRequest) -> Decision | None:
        answer = self.answer_probe(request)
        return None if answer is None else Decision(answer)

    @abstractmethod
    def decide(self, request: Request) -> dict[str, Any]:
        """The action for this request."""

    def answer_probe(self, request: ProbeRequest) -> dict[str, Any] | None:
        """The probe answer (`probe_answer`), or None. A probe is asked outside the game, so answering must
        not change how the agent plays on: any draw the belief makes from the agent's generator is
        made on its saved state, which is put back (the runner and the validator's re-derivation
        both call this)."""
        saved = self.rng.getstate()
        try:
            return self.probe_answer(request)
        finally:
            self.rng.setstate(saved)

    def probe_answer(self, request: ProbeRequest) -> dict[str, Any] | None:
        """The strategy's answer to a probe, or None if it has no beliefs to report."""
        return None
