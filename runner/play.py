"""Plays one game between agents and returns its replay records (pure apart from the agents)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from runner import __version__
from runner.agents.base import Agent, Decision, ProbeRequest, Request
from runner.games import IllegalAction, State
from runner.games.base import Game
from runner.replay.format import FORMAT_NAME, lowest_version
from runner.seeds import rng_for

T = TypeVar("T")

#: How many times an agent is asked for one decision before the game ends invalid.
DEFAULT_MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Seating:
    """Who plays which seat of one game."""

    agents: Sequence[Agent]
    names: Sequence[str]
    roles: Sequence[str]


async def play(game: Game, params: Mapping[str, Any], setup: Mapping[str, Any], seating: Seating,
               *, seed: int, tournament: str, game_id: str, matchup: str, created: str,
               max_attempts: int = DEFAULT_MAX_ATTEMPTS, probes: bool = True,
               watch: Callable[[State], None] | None = None, suite: Mapping[str, Any] | None = None,
               verify: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Play to the end and return the replay records: header, events and probes, outcome.

    `watch`, if given, is called with the state at the start and after every change of it (the
    play server shows each person what their seat now sees as it happens).

    The game's id and matchup label come from its plan (runner/plan.py), which names every
    game, a table of people included (runner/table.py). A deal of a ranked suite passes `suite`
    (name, version, stage, deal, seat), recorded in the header; a deal of a verification passes
    `verify` (runner/plan.py `verify_header`).
    """
    state = game.start(params, setup)
    header = {
        "type": "header", "format": FORMAT_NAME, "version": 1,  # raised below if version-2 fields are used
        "game_id": game_id, "game": game.name, "variant": dict(params), "seed": seed,
        "tournament": tournament, "matchup": matchup,
        "players": [{"seat": s, "name": seating.names[s], "role": seating.roles[s],
                     "agent": seating.agents[s].description} for s in range(len(seating.agents))],
        "setup": dict(setup), "max_attempts": max_attempts,
        "provenance": {"runner": "gamenight", "runner_version": __version__, "created": created},
    }
    if suite is not None:
        header["suite"] = dict(suite)
    if verify is not None:
        header["verify"] = dict(verify)
    body: list[dict[str, Any]] = []
    chance_rng = rng_for(seed, "chance")
    probed_at: set[int] = set()
    if watch is not None:
        watch(state)
    while (pending := state.pending()) is not None:
        if probes and state.probes() and len(state.events) not in probed_at:
            probed_at.add(len(state.events))
            body.extend(await _ask_probes(game, state, seating.agents, tuple(seating.names)))
        if pending.kind == "chance":
            start = len(state.events)
            state.chance(chance_rng.choice(pending.options))
            body.extend(_event_records(state, start, _count_events(body)))
            if watch is not None:
                watch(state)
            continue
        seats = pending.seats if pending.simultaneous else pending.seats[:1]
        # Simultaneous seats all decide from the same observation, before any of them acts.
        requests = [(seat, state.observe(seat), state.legal(seat)) for seat in seats]
        results = await all_or_nothing([
            _decide(game, state, seating.agents[seat], seat, pending.phase, obs, legal, max_attempts,
                    tuple(seating.names))
            for seat, obs, legal in requests])
        # Legal actions first, then a forfeit: the forfeit ends the game, and the others' moves
        # (and the model calls behind them) must not be lost with it.
        decided = sorted(zip(seats, results), key=lambda item: item[1][0] is None)
        for seat, (action, attempts, evidence, took_ms) in decided:
            start = len(state.events)
            if action is None:
                state.forfeit(seat, f"no legal action after {max_attempts} attempts")
            else:
                state.act(seat, action)
            records = _event_records(state, start, _count_events(body))
            first = records[0]
            if attempts:
                first["attempts"] = attempts
            if evidence:
                first["evidence"] = evidence
            if took_ms is not None:  # a person's seat: the time it took, and nothing else about them
                first["took_ms"] = took_ms
            body.extend(records)
            if watch is not None:
                watch(state)
            if action is None:
                break
    outcome = {"type": "outcome", **state.outcome()}
    _report_models(header, body)
    records = [header, *body, outcome]
    header["version"] = lowest_version(records)
    return records


def _report_models(header: dict[str, Any], body: list[dict[str, Any]]) -> None:
    """Each model seat's `model_reported` as its recorded calls first give it.

    An agent notes the id from its first answered call, but a call whose decision is not written
    (a second seat failing in the same simultaneous phase as a forfeit) must not be the header's
    source: the validator reads the id back from the recorded calls.
    """
    for player in header["players"]:
        agent = dict(player["agent"])
        if "model_reported" not in agent:
            continue
        del agent["model_reported"]
        reported = next((call.get("model_reported") for record in body if record.get("seat") == player["seat"]
                         for call in (record.get("evidence") or {}).get("calls", []) if call.get("model_reported")),
                        None)
        if reported:
            agent["model_reported"] = reported
        player["agent"] = agent


async def all_or_nothing(coroutines: Sequence[Awaitable[T]]) -> list[T]:
    """The results of running `coroutines` together; if one raises (a provider failure, say),
    the others are cancelled and that exception propagates as it is."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _count_events(body: list[dict[str, Any]]) -> int:
    return sum(1 for r in body if r["type"] == "event")


def _event_records(state: State, start: int, n0: int) -> list[dict[str, Any]]:
    """Replay records for the engine events from index `start` on, numbered from `n0`."""
    return [{"type": "event", "n": n0 + i, **ev} for i, ev in enumerate(state.events[start:])]


async def _decide(game: Game, state: State, agent: Agent, seat: int, phase: str,
                  observation: Mapping[str, Any], legal: Mapping[str, Any], max_attempts: int,
                  names: tuple[str, ...] = ()
                  ) -> tuple[dict[str, Any] | None, list[dict[str, Any]], dict[str, Any] | None, int | None]:
    """Ask until the rules accept the action or the attempts run out.

    Returns the accepted action (None if none was), the refused attempts, the evidence of the
    accepted one (LLM exchanges) merged over all attempts, and a person's time over it (or None).
    """
    attempts: list[dict[str, Any]] = []
    calls: list[Any] = []
    took_ms: int | None = None
    notes: dict[str, Any] | None = None  # what an agent design computed (made on the first attempt)
    errors: tuple[str, ...] = ()

    def evidence() -> dict[str, Any] | None:
        if not calls:
            return None
        return {"calls": calls, "notes": notes} if notes is not None else {"calls": calls}

    for _ in range(max_attempts):
        request = Request(game.name, seat, phase, observation, legal, errors, names,
                          sample=lambda rng: state.random_action(seat, rng),
                          check=lambda action: _check_without_applying(state, seat, action))
        decision: Decision = await agent.act(request)
        took_ms = decision.took_ms
        if decision.evidence:
            calls.extend(decision.evidence.get("calls", []))
            notes = decision.evidence.get("notes", notes)
        error = decision.error or _check_without_applying(state, seat, decision.action)
        if error is None:
            return decision.action, attempts, evidence(), took_ms
        attempts.append({"action": _jsonable(decision.action), "raw": decision.raw, "error": error})
        errors = errors + (error,)
    return None, attempts, evidence(), took_ms


def _check_without_applying(state: State, seat: int, action: Any) -> str | None:
    """The rules' refusal message for `action`, or None if it is legal (state unchanged)."""
    try:
        state.check(seat, action)
    except IllegalAction as exc:
        return str(exc)
    return None


def _jsonable(value: Any) -> Any:
    """`value` if it is plain JSON data, else its repr (refused actions are recorded as given)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return repr(value)


async def _ask_probes(game: Game, state: State, agents: Sequence[Agent],
                      names: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Ask every seat the probes allowed now; the answers, and the unusable ones marked as such.

    A probe whose answer cannot be read or is not a well-formed belief is kept with `answer`
    null and the reason in `error`, so its model calls stay in the replay (and in the usage and
    cost); the metrics skip it.
    """
    records: list[dict[str, Any]] = []
    for seat in range(len(agents)):
        observation = state.observe(seat)
        for kind, about in probe_questions(game, state, seat):
            request = ProbeRequest(game.name, seat, kind, observation, game.roles, about, names=names,
                                   check=lambda answer, s=seat, k=kind, a=about: _probe_problem(state, s, k, a, answer))
            decision = await agents[seat].probe(request)
            if decision is not None:
                records.append(probe_record(state, seat, kind, about, decision))
    return records


def probe_questions(game: Game, state: State, seat: int) -> list[tuple[str, int | None]]:
    """The probes a seat is asked now, in order: (kind, the seat asked about or None). A seat is
    not asked what its own role already answers (`Game.asks`); `suspect_of` is asked about every
    other seat."""
    role = game.role_of(state.params, state.setup, seat)
    n = game.players(state.params)
    questions: list[tuple[str, int | None]] = []
    for kind in state.probes():
        if not game.asks(role, kind):
            continue
        if kind == "suspect_of":
            questions.extend((kind, other) for other in range(n) if other != seat)
        else:
            questions.append((kind, None))
    return questions


def probe_record(state: State, seat: int, kind: str, about: int | None, decision: Decision) -> dict[str, Any]:
    """The replay record of a seat's answer to a probe: its belief, or (when the answer is not a
    usable belief) null with the reason, and the evidence either way."""
    record: dict[str, Any] = {"type": "probe", "seat": seat, "probe": kind}
    error = decision.error or _probe_problem(state, seat, kind, about, decision.action)
    if error is None:
        record["answer"] = dict(decision.action)
    else:
        record["answer"] = None
        if about is not None:
            record["about"] = about
        record["error"] = error[:2000]
    if decision.evidence:
        record["evidence"] = decision.evidence
    if decision.took_ms is not None:
        record["took_ms"] = decision.took_ms
    return record


def _probe_problem(state: State, seat: int, kind: str, about: int | None, answer: Any) -> str | None:
    """Why a probe answer is not a usable belief, or None."""
    try:
        state.check_probe(seat, kind, answer)
        if kind == "suspect_of" and answer["of"] != about:
            raise IllegalAction(f"the probe asked about seat {about}")
    except IllegalAction as exc:
        return str(exc) or "not a usable belief"
    return None
