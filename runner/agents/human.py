"""A person at a seat: an agent like any other, whose decisions come from outside through a channel.

The agent hands each decision (the seat's observation, the legal moves as the rules state them,
any belief probe) to a `Channel` and waits for the answer. An answer the rules refuse (an empty
clue, a vote for oneself, ...) goes back to the person with the rules' own message and is asked
again at once: a person's slip is not one of the game's bounded attempts, which would end the game
invalid. A probe may be skipped. The replay records the agent kind `human`, the name the person
chose and the time each decision took, and nothing else about them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from runner.agents.base import Agent, Decision, ProbeRequest, Request

#: A person's name: what the board and the matchup label show. No commas, colons or semicolons,
#: which would break the matchup label (`lineup: a, b`), and no control characters.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._'-]{0,39}\Z")


def check_name(name: str) -> str:
    """`name` stripped, or ValueError saying what a person's name may be."""
    name = name.strip() if isinstance(name, str) else name
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValueError(f"a player's name is 1 to 40 letters, digits, spaces, dots, hyphens, underscores or "
                         f"apostrophes, starting with a letter or digit; got {name!r}")
    return name


@dataclass(frozen=True)
class Question:
    """One thing a person is asked: a move (`kind` "move") or a belief probe (`kind` "probe").

    `refused` lists the rules' messages for the earlier answers to this same question.
    """

    kind: str
    seat: int
    phase: str
    observation: Mapping[str, Any]
    legal: Mapping[str, Any] = field(default_factory=dict)
    probe: str | None = None
    about: int | None = None
    roles: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


class Channel(Protocol):
    """Where a person's questions go and answers come from (the play server, a test's script).

    A channel may also have `accepted(question, answer)`, called with each answer the rules took
    (the play server shows a person's own beliefs in their history, never a refused one).
    """

    async def ask(self, question: Question) -> Any:
        """The person's answer: an action object for a move; a belief object, or None to skip, for a probe."""
        ...


class HumanAgent(Agent):
    """A seat played by a person through `channel`."""

    def __init__(self, name: str, channel: Channel):
        self.description = {"name": check_name(name), "kind": "human"}
        self.channel = channel

    async def act(self, request: Request) -> Decision:
        started = time.monotonic()
        refused = tuple(request.errors)
        while True:
            answer = await self.channel.ask(Question("move", request.seat, request.phase, request.observation,
                                                     request.legal, refused=refused))
            error = request.check(answer) if request.check is not None else None
            if error is None:
                return Decision(answer, took_ms=_ms_since(started))
            refused = refused + (error,)

    async def probe(self, request: ProbeRequest) -> Decision | None:
        started = time.monotonic()
        refused: tuple[str, ...] = ()
        while True:
            question = Question("probe", request.seat, request.kind, request.observation, probe=request.kind,
                                about=request.about, roles=request.roles, refused=refused)
            answer = await self.channel.ask(question)
            if answer is None:
                return None  # skipped: no line, as for an agent without beliefs
            error = request.check(answer) if request.check is not None else None
            if error is None:
                self._accepted(question, answer)
                return Decision(dict(answer), took_ms=_ms_since(started))
            refused = refused + (error,)

    def _accepted(self, question: Question, answer: Any) -> None:
        accepted = getattr(self.channel, "accepted", None)
        if accepted is not None:
            accepted(question, answer)


def _ms_since(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))
