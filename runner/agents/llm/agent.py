"""The language-model agent: prompts from the templates, one strict answer per call, evidence of all.

A decision is a fresh two-message conversation (system: the rules; user: what the seat knows
and what is asked), preceded by the design's pre-calls. When the runner asks again (the
request carries the errors of the refused tries), the same conversation goes on: the model's
previous reply and the reason it was refused are added, and the question is asked again.

A call the provider could not answer (after the provider layer's retries) raises
`ProviderError`: the game is abandoned and not written, since a provider failure says nothing
about how the model plays. Only replies the model did give can cost it the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.agents.base import Agent, Decision, ProbeRequest, Request
from runner.agents.llm.copies import refusal
from runner.agents.llm.designs import Design, Notes
from runner.agents.llm.formats import AnswerStyle
from runner.agents.llm.parse import ParseError, answer_object, read_action, read_probe
from runner.agents.llm.render import PromptSet, Scene, observation, prompt_set, system_prompt
from runner.agents.llm.schemas import action_schema, probe_schema, without_reasoning
from runner.llm.types import ChatModel, Completion, Message


@dataclass
class _Thread:
    """The conversation of the decision being asked, kept for re-asks."""

    key: tuple[str, int]
    messages: list[Message]
    expected: str
    replies: list[str | None] = field(default_factory=list)


def scene_of(game: str, seat: int, names: tuple[str, ...], observation_: Mapping[str, Any],
             prompts: PromptSet | None = None) -> Scene:
    """The prompt base of one request (in the current prompt set unless `prompts` names one); the
    runner always sends the seats' display names."""
    if len(names) <= seat:
        raise ValueError(f"the request for seat {seat} does not carry the seats' names")
    return Scene(game, seat, tuple(names), observation_, prompts or prompt_set())


def decision_messages(scene: Scene, request: Request, notes: Notes, persona: str | None,
                      style: AnswerStyle = AnswerStyle()) -> list[Message]:
    """The first messages of a decision: the rules, then what the seat knows and what is asked."""
    ask = scene.render(f"ask/{scene.game}_{request.phase}.j2", legal=request.legal)
    prompt = scene.render("decision.j2", observation=observation(scene), ask=ask,
                          answer_rule=style.rule(style.action(request.legal)), errors=list(request.errors),
                          decision=True, **notes.context())
    return [Message("system", system_prompt(scene, persona, style.structured)), Message("user", prompt)]


def probe_messages(scene: Scene, request: ProbeRequest, notes: Notes, persona: str | None,
                   style: AnswerStyle = AnswerStyle()) -> list[Message]:
    """The messages of a belief probe."""
    prompt = scene.render("probe.j2", observation=observation(scene), kind=request.kind, about=request.about,
                          roles=list(request.roles), answer_rule=style.rule(style.probe(request.kind, request.roles)),
                          errors=list(request.errors), **notes.context())
    return [Message("system", system_prompt(scene, persona, style.structured)), Message("user", prompt)]


class LLMAgent(Agent):
    """Plays one seat of one game through a chat model, in one of the papers' designs."""

    def __init__(self, model: ChatModel, description: dict[str, Any], design: Design, *, game: str, seat: int,
                 style: AnswerStyle = AnswerStyle(), prompts: PromptSet | None = None):
        self.model = model
        self.prompts = prompts or prompt_set()
        self.description = description
        self.design = design
        self.game = game
        self.seat = seat
        self.style = style
        self._thread: _Thread | None = None

    async def call(self, messages: list[Message], calls: list[dict[str, Any]],
                   schema: Mapping[str, Any] | None = None) -> Completion:
        """One model call, recorded in `calls`; ProviderError if the provider gave no reply.

        `schema` constrains the reply when the agent uses structured outputs (ignored otherwise).
        The first reply's model id is kept in the description as metadata (never identity).
        """
        completion = await self.model.complete(list(messages), schema if self.style.structured else None)
        completion.raise_for_error()
        calls.append(completion.evidence(list(messages)))
        if completion.model_reported and "model_reported" not in self.description:
            self.description["model_reported"] = completion.model_reported
        return completion

    def answer(self, completion: Completion, expected: str) -> dict[str, Any]:
        """The answer object of a reply (ParseError if none); a structured reply's reasoning field,
        which is the model's thinking, is set aside."""
        found = answer_object(completion.text, completion.finish_reason, expected)
        return without_reasoning(found) if self.style.structured else found

    async def act(self, request: Request) -> Decision:
        calls: list[dict[str, Any]] = []
        scene = scene_of(request.game, request.seat, request.names, request.observation, self.prompts)
        key = (request.phase, len(request.observation.get("log", ())))
        thread = self._continued(request, key)
        notes = None
        if thread is None:
            notes = await self.design.prepare(self, scene, request.phase, calls)
            thread = self._open(scene, request, key, notes)
        self._thread = thread
        schema = action_schema(request.legal, scene.names, self.style.reasoning_chars) if self.style.structured else None
        completion = await self.call(thread.messages, calls, schema)
        evidence = _evidence(calls, notes)
        thread.replies.append(completion.text)
        try:
            answer = self.answer(completion, thread.expected)
            action = read_action(answer, request.legal, scene.names, thread.expected)
        except ParseError as exc:
            return Decision(None, raw=completion.text, evidence=evidence, error=str(exc))
        # A clue or statement that copies the question is refused like an illegal move (set 4 on);
        # the attempt keeps the copied move beside the reason.
        copied = refusal(action, self.prompts, request.game, thread.expected)
        return Decision(action, raw=completion.text, evidence=evidence, error=copied)

    def _continued(self, request: Request, key: tuple[str, int]) -> _Thread | None:
        """The conversation to go on with for a re-ask, extended with the refusal; None if fresh."""
        thread = self._thread
        if not request.errors or thread is None or thread.key != key or len(thread.replies) != len(request.errors):
            return None
        reask = self.prompts.render("reask.j2", error=request.errors[-1], answer_rule=self.style.rule(thread.expected))
        thread.messages = [*thread.messages, Message("assistant", thread.replies[-1] or ""), Message("user", reask)]
        return thread

    def _open(self, scene: Scene, request: Request, key: tuple[str, int], notes: Notes) -> _Thread:
        """A fresh conversation for this decision (earlier refusals listed, if any)."""
        messages = decision_messages(scene, request, notes, self.design.persona(), self.style)
        return _Thread(key, messages, self.style.action(request.legal))

    async def probe(self, request: ProbeRequest) -> Decision | None:
        scene = scene_of(request.game, request.seat, request.names, request.observation, self.prompts)
        # The design's pre-calls made for this probe are part of its evidence, like a decision's.
        calls: list[dict[str, Any]] = []
        notes = await self.design.prepare(self, scene, None, calls)
        expected = self.style.probe(request.kind, request.roles)
        messages = probe_messages(scene, request, notes, self.design.persona(), self.style)
        words = tuple(scene.observation.get("public", {}).get("words", ()))  # the Chameleon's card
        schema = (probe_schema(request.kind, request.about, request.seat, request.roles, scene.names,
                               self.style.reasoning_chars, words) if self.style.structured else None)
        completion = await self.call(messages, calls, schema)
        evidence = _evidence(calls, notes)
        try:
            answer = self.answer(completion, expected)
            belief = read_probe(answer, request.kind, request.about, request.roles, scene.names, expected, words)
        except ParseError as exc:
            return Decision(None, raw=completion.text, evidence=evidence, error=str(exc))
        return Decision(belief, raw=completion.text, evidence=evidence)


def _evidence(calls: list[dict[str, Any]], notes: Notes | None) -> dict[str, Any]:
    """A decision's or probe's evidence: its calls, and what the design computed for it."""
    evidence: dict[str, Any] = {"calls": calls}
    if notes is not None and notes.record is not None:
        evidence["notes"] = dict(notes.record)
    return evidence
