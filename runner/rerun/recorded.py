"""Language-model seats played again from their recorded replies, as the validator's re-derivation.

A model's replies cannot be re-derived, but everything gamenight made of them can. The agent of
each language-model seat is rebuilt from the header (its design, settings and generator, prompted
with the released prompt set its `prompt_version` names) and asked for every decision and belief
the replay records, in the runner's order; a `RecordedModel` answers each call with the recorded
reply. So every prompt must be the one the templates render from the seat's observation, every
move, refused try and belief must be what the agent reads from its replies, and what the design
computed must be the recorded `notes`. The first difference is reported at its line and field.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from runner.agents.base import Decision, ProbeRequest, Request
from runner.errors import ProviderError
from runner.games.base import Game, IllegalAction, Pending, State
from runner.play import _check_without_applying, _jsonable, probe_record
from runner.replay.compare import first_difference
from runner.replay.format import AgentDescription, Event, show
from runner.rerun.identity import model_spec
from runner.seeds import rng_for

from runner.llm.types import Completion  # no SDK: the adapters (and their SDKs) load only for a model seat

if TYPE_CHECKING:
    from runner.llm.types import Message

#: (field, message) of the first thing that does not follow.
Difference = tuple[str, str]
#: Characters of context shown around the first difference of two prompts.
_CONTEXT = 40


class Replayed(Exception):
    """Replaying a seat met something the runner would not have done; (field, message)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class RecordedModel:
    """A ChatModel that answers with the calls recorded for one decision, in order, and refuses a
    request whose messages or structured-output mode are not the recorded ones."""

    def __init__(self, structured_output: str | None):
        self.structured_output = structured_output
        self.calls: Sequence[Any] = ()
        self.used = 0

    def load(self, evidence: Any) -> None:
        """The calls of the next decision or probe (its `evidence`)."""
        calls = evidence.get("calls") if isinstance(evidence, Mapping) else None
        self.calls = calls if isinstance(calls, list) else []
        self.used = 0

    def leftover(self) -> Difference | None:
        """A recorded call the agent did not make."""
        if self.used < len(self.calls):
            return (f"evidence.calls[{self.used}]", f"the agent makes {self.used} call(s) here; this recorded call "
                                                     "is one it never makes")
        return None

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None = None) -> Completion:
        index = self.used
        if index >= len(self.calls):
            raise Replayed("evidence.calls", f"the agent makes a call here (call {index + 1}) that the replay does "
                                             f"not record; it records {len(self.calls)}")
        call = self.calls[index]
        self.used += 1
        where = f"evidence.calls[{index}]"
        sent = [{"role": m.role, "content": m.content} for m in messages]
        difference = message_difference(sent, call.get("messages"))
        if difference:
            raise Replayed(where + difference[0], difference[1])
        structured = self.structured_output if schema is not None else None
        if call.get("structured") != structured:
            raise Replayed(f"{where}.structured", f"the agent asks this call with structured output "
                                                  f"{show(structured)}, the replay says {show(call.get('structured'))}")
        if call.get("reply") is None:
            raise Replayed(f"{where}.reply", "a call without a reply: the runner abandons a game whose provider "
                                             "does not answer, it never records one")
        return Completion(call["reply"], call.get("finish_reason"), call.get("model_reported"),
                          call.get("input_tokens"), call.get("output_tokens"), call.get("latency_ms") or 0.0,
                          error=call.get("error"), retries=call.get("retries") or 0, reasoning=call.get("reasoning"),
                          structured=call.get("structured"), reasoning_tokens=call.get("reasoning_tokens"),
                          cached_input_tokens=call.get("cached_input_tokens"),
                          cache_write_input_tokens=call.get("cache_write_input_tokens"), cached=bool(call.get("cached")))


def message_difference(sent: list[dict[str, str]], recorded: Any) -> Difference | None:
    """Where the messages the agent sends differ from the recorded ones: (field suffix, message)."""
    if not isinstance(recorded, list):
        return ".messages", "must be the list of messages sent"
    for i, message in enumerate(sent):
        if i >= len(recorded):
            return ".messages", f"the agent sends {len(sent)} messages here, the replay records {len(recorded)}"
        other = recorded[i]
        if not isinstance(other, Mapping) or other.get("role") != message["role"]:
            found = other.get("role") if isinstance(other, Mapping) else other
            return f".messages[{i}].role", f"the agent sends a {message['role']} message here, the replay says {show(found)}"
        text, found = message["content"], other.get("content")
        if text != found:
            return f".messages[{i}].content", _text_difference(text, found)
    if len(recorded) > len(sent):
        return ".messages", f"the agent sends {len(sent)} messages here, the replay records {len(recorded)}"
    return None


def _text_difference(expected: str, found: Any) -> str:
    """Where a recorded prompt first differs from the rendered one, with a little of each around it."""
    if not isinstance(found, str):
        return f"must be the prompt text, not {show(found)}"
    at = next((i for i, (a, b) in enumerate(zip(expected, found)) if a != b), min(len(expected), len(found)))
    start = max(0, at - _CONTEXT)
    return (f"is not the prompt gamenight renders here (first difference at character {at}): the prompt set "
            f"gives {show(expected[start:at + _CONTEXT], 2 * _CONTEXT + 10)}, the replay says "
            f"{show(found[start:at + _CONTEXT], 2 * _CONTEXT + 10)}")


def finished(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The result of an agent's coroutine whose model answers at once (a RecordedModel)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a replayed agent waited for something other than its recorded calls")


class ModelSeat:
    """One language-model seat of a replay, played again from its recorded replies."""

    def __init__(self, game: Game, seat: int, description: AgentDescription, seed: int):
        # The prompts, parsers and designs: loaded only when a replay has a model seat.
        from runner.agents.llm import make_llm_agent

        self.seat = seat
        self.description = description
        version = description.get("prompt_version")
        if not isinstance(version, str):
            raise Replayed("prompt_version", "a language-model seat names the prompt set that prompted it "
                                             "(gamenight run records it)")
        spec = model_spec(description)
        self.model = RecordedModel(spec.get("structured_output") if isinstance(spec.get("structured_output"), str)
                                   else None)
        try:
            self.agent = make_llm_agent(spec, self.model, game=game.name, seat=seat,
                                        rng=rng_for(seed, f"agent-{seat}"), name=str(description.get("name")),
                                        prompt_version=version)
        except ValueError as exc:
            field = "prompt_version" if "prompt set" in str(exc) else str(exc).split(":", 1)[0]
            raise Replayed(field, f"this agent cannot be made again: {exc}") from None
        made = {k: v for k, v in self.agent.description.items() if k != "model_reported"}
        told = {k: v for k, v in description.items() if k != "model_reported"}
        difference = first_difference(made, told)
        if difference:
            where, expected, found = difference
            raise Replayed(where.lstrip("."), f"gamenight describes this agent with {show(expected)} here, the "
                                              f"replay says {show(found)}")

    def move(self, game: Game, state: State, pending: Pending, event: Event, names: tuple[str, ...],
             max_attempts: int) -> Difference | None:
        """Where the seat's recorded decision (its tries, move and evidence) differs from what the
        agent makes of the recorded replies here."""
        seat = self.seat
        attempts = event.get("attempts") or []
        forfeit = event["kind"] == "forfeit"
        if forfeit and len(attempts) != max_attempts:
            return ("attempts", f"a seat forfeits after {max_attempts} refused tries (max_attempts); the replay "
                                f"records {len(attempts)}")
        if not forfeit and len(attempts) >= max_attempts:
            return ("attempts", f"a seat is asked at most {max_attempts} times (max_attempts); the replay records "
                                f"{len(attempts)} refused tries before this move")
        observation, legal = state.observe(seat), state.legal(seat)
        self.model.load(event.get("evidence"))
        calls: list[Any] = []
        notes: Any = None
        errors: tuple[str, ...] = ()
        for i in range(len(attempts) + (0 if forfeit else 1)):
            request = Request(game.name, seat, pending.phase, observation, legal, errors, names)
            decision = self._ask(self.agent.act(request))
            if decision.evidence:
                calls.extend(decision.evidence.get("calls", []))
                notes = decision.evidence.get("notes", notes)
            error = decision.error or _check_without_applying(state, seat, decision.action)
            if i < len(attempts):
                if error is None:
                    return (f"attempts[{i}]", f"the recorded reply gives the legal move {show(decision.action)}, "
                                              "which the runner takes; the replay records it as refused")
                tried = {"action": _jsonable(decision.action), "raw": decision.raw, "error": error}
                difference = first_difference(tried, attempts[i])
                if difference:
                    where, expected, found = difference
                    return (f"attempts[{i}]{where}", f"the agent's try here is {show(expected)}, the replay says "
                                                     f"{show(found)}")
                errors = errors + (error,)
            elif error is not None:
                return ("data", f"the recorded reply gives no legal move here ({error}); the replay records "
                                f"{show(event['data'])}")
            else:
                try:
                    found = state.check(seat, event["data"])
                except IllegalAction:
                    return None  # the rules report the recorded move
                expected = state.check(seat, decision.action)
                if expected != found:
                    return ("data", f"the recorded reply gives the move {show(expected)}; the replay says "
                                    f"{show(found)}")
        return self.model.leftover() or _evidence_difference(calls, notes, event.get("evidence"))

    def probe(self, game: Game, state: State, record: Mapping[str, Any], names: tuple[str, ...]) -> Difference | None:
        """Where a recorded belief (its answer, error and evidence) differs from what the agent
        makes of the recorded reply."""
        seat, kind = self.seat, record["probe"]
        answer = record.get("answer")
        about = answer.get("of") if isinstance(answer, Mapping) else record.get("about")
        request = ProbeRequest(game.name, seat, kind, state.observe(seat), game.roles, about, names=names)
        self.model.load(record.get("evidence"))
        decision = self._ask(self.agent.probe(request))
        assert decision is not None  # a model agent answers every probe
        made = probe_record(state, seat, kind, about, decision)
        leftover = self.model.leftover()
        if leftover:
            return leftover
        difference = first_difference(made, dict(record))
        if difference:
            where, expected, found = difference
            return (where.lstrip("."), f"the agent's belief here is {show(expected)}, the replay says {show(found)}")
        return None

    def reported(self) -> Difference | None:
        """The model id the header reports must be the first one the recorded calls report."""
        made, told = self.agent.description.get("model_reported"), self.description.get("model_reported")
        if made == told:
            return None
        return ("model_reported", f"the recorded calls first report the model {show(made)}, the header says "
                                  f"{show(told)}")

    def _ask(self, coroutine: Coroutine[Any, Any, Decision | None]) -> Decision:
        try:
            return finished(coroutine)
        except ProviderError as exc:  # a recorded call with an error and no reply
            raise Replayed(f"evidence.calls[{self.model.used - 1}]", f"a call without a reply ({exc}): the runner "
                                                                     "abandons such a game, it never records one") from None


def _evidence_difference(calls: list[Any], notes: Any, recorded: Any) -> Difference | None:
    """Where a decision's recorded evidence differs from the agent's (its calls, then its notes)."""
    made = None if not calls else ({"calls": calls, "notes": notes} if notes is not None else {"calls": calls})
    difference = first_difference(made, recorded)
    if difference is None:
        return None
    where, expected, found = difference
    return (f"evidence{where}", f"the agent's evidence here is {show(expected)}, the replay says {show(found)}")
