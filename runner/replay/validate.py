"""Checking a replay: schema, structure, then a re-simulation with the rules engine.

The claimed outcome and every derived event in the file are compared with what the rules
produce from the recorded actions and chance draws; a file is valid only if they agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runner import games
from runner.games.base import GameError, IllegalAction, SetupError, State
from runner.replay.format import Problem, Record, parse_lines, read_file, schema_problems

#: Fields of event records that the runner adds and the rules do not produce.
RUNNER_FIELDS = ("type", "n", "attempts", "evidence")


@dataclass
class Checked:
    """The result of checking one replay."""

    path: str
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    state: State | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def header(self) -> dict[str, Any] | None:
        return self.records[0].data if self.records and self.records[0].data.get("type") == "header" else None

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The outcome recomputed by the rules (only for a valid replay)."""
        if not self.ok or self.state is None:
            return None
        return self.state.outcome()


def check_file(path: str | os.PathLike[str]) -> Checked:
    """Check one replay file."""
    records, problems = read_file(path)
    return _check(str(path), records, problems)


def check_bytes(path: str, raw: bytes) -> Checked:
    """Check replay content held in memory (`path` is used in messages)."""
    records, problems = parse_lines(path, raw)
    return _check(path, records, problems)


def _check(path: str, records: list[Record], problems: list[Problem]) -> Checked:
    checked = Checked(path, records, list(problems))
    if problems:
        return checked
    for record in records:
        checked.problems.extend(schema_problems(path, record))
    if checked.problems:
        return checked
    checked.problems.extend(_structure(path, records))
    if checked.problems:
        return checked
    try:
        checked.state = _resimulate(path, records, checked.problems)
    except RecursionError:
        checked.problems.append(Problem(path, 0, "the replay is nested too deeply to check"))
    return checked


def _structure(path: str, records: list[Record]) -> list[Problem]:
    problems = []
    kinds = [r.data["type"] for r in records]
    if kinds[0] != "header":
        problems.append(Problem(path, records[0].line, "the first line must be the header", "type"))
    if kinds[-1] != "outcome":
        problems.append(Problem(path, records[-1].line, "the last line must be the outcome "
                                "(the file may be truncated)", "type"))
    for record, kind in zip(records[1:], kinds[1:]):
        if kind == "header":
            problems.append(Problem(path, record.line, "a second header", "type"))
    for record, kind in zip(records[:-1], kinds[:-1]):
        if kind == "outcome":
            problems.append(Problem(path, record.line, "the outcome must be the last line", "type"))
    return problems


def _header_problems(path: str, record: Record) -> tuple[Any, dict[str, Any] | None, list[Problem]]:
    header = record.data
    line = record.line
    try:
        game = games.get(header["game"])
    except KeyError as exc:
        return None, None, [Problem(path, line, str(exc.args[0]), "game")]
    try:
        params = game.params(header["variant"])
    except SetupError as exc:
        return game, None, [Problem(path, line, exc.message, exc.field.replace("params", "variant", 1))]
    problems = []
    diff = first_difference(params, header["variant"])
    if diff:
        where, expected, _ = diff
        problems.append(Problem(path, line, f"must list every rule parameter in normal form "
                                f"(expected {expected!r})", f"variant{where}"))
    players = header["players"]
    n = game.players(params)
    if len(players) != n:
        problems.append(Problem(path, line, f"{game.title} with these rules has {n} players, "
                                f"the header lists {len(players)}", "players"))
        return game, params, problems
    for i, player in enumerate(players):
        if player["seat"] != i:
            problems.append(Problem(path, line, f"players must be listed by seat; expected seat {i}",
                                    f"players[{i}].seat"))
    try:
        game.check_setup(params, header["setup"])
    except SetupError as exc:
        problems.append(Problem(path, line, exc.message, exc.field))
        return game, params, problems
    for i, player in enumerate(players):
        role = game.role_of(params, header["setup"], i)
        if player["role"] != role:
            problems.append(Problem(path, line, f"the setup makes seat {i} the {role}, "
                                    f"not the {player['role']}", f"players[{i}].role"))
    names = game.seat_names(params, header["setup"])
    for i, player in enumerate(players):
        if player["name"] != names[i]:
            problems.append(Problem(path, line, f"seat {i} is named {names[i]!r} by the rules",
                                    f"players[{i}].name"))
    return game, params, problems


def _resimulate(path: str, records: Sequence[Record], problems: list[Problem]) -> State | None:
    """Replay every recorded input through the rules; append problems; the final state."""
    header = records[0]
    game, params, header_problems = _header_problems(path, header)
    problems.extend(header_problems)
    if header_problems or game is None or params is None:
        return None
    state = game.start(params, header.data["setup"])
    produced = 0  # engine events already matched against the file
    expected_n = 0
    for record in records[1:-1]:
        data = record.data
        if data["type"] == "probe":
            problem = _check_probe(path, record, state, produced)
            if problem:
                problems.append(problem)
                return None
            continue
        if data["n"] != expected_n:
            problems.append(Problem(path, record.line, f"events must be numbered in order; expected {expected_n}", "n"))
            return None
        expected_n += 1
        event = {k: v for k, v in data.items() if k not in RUNNER_FIELDS}
        if produced == len(state.events):
            # Nothing left to match: this line must be an input the rules accept.
            error = _apply_input(state, event)
            if error:
                problems.append(Problem(path, record.line, error[1], error[0]))
                return None
        if produced >= len(state.events):
            problems.append(Problem(path, record.line, "the rules produce no event here", "kind"))
            return None
        diff = first_difference(state.events[produced], event)
        if diff:
            where, expected, actual = diff
            problems.append(Problem(path, record.line, f"does not match the rules: expected {expected!r}, "
                                    f"found {actual!r}", where.lstrip(".") or "event"))
            return None
        if data.get("attempts") and event["kind"] not in ("action", "forfeit"):
            problems.append(Problem(path, record.line, "only actions and forfeits have attempts", "attempts"))
            return None
        produced += 1
    outcome_record = records[-1]
    if produced < len(state.events):
        missing = state.events[produced]
        problems.append(Problem(path, outcome_record.line, f"the rules produce a further event before the end: "
                                f"{missing['kind']} in phase {missing['phase']!r}", "type"))
        return None
    if not state.terminal:
        problems.append(Problem(path, outcome_record.line, f"the game is not over: it still waits for "
                                f"{state.pending().phase!r}", "type"))
        return None
    claimed = {k: v for k, v in outcome_record.data.items() if k != "type"}
    diff = first_difference(state.outcome(), claimed)
    if diff:
        where, expected, actual = diff
        problems.append(Problem(path, outcome_record.line, f"the claimed outcome differs from the rules: "
                                f"expected {expected!r}, found {actual!r}", where.lstrip(".") or "outcome"))
        return None
    return state


def _apply_input(state: State, event: Mapping[str, Any]) -> tuple[str, str] | None:
    """Apply an action, chance draw or forfeit; (field, message) if the rules refuse it."""
    kind = event["kind"]
    try:
        if kind == "action":
            if event["seat"] is None:
                return "seat", "an action needs a seat"
            state.act(event["seat"], event["data"])
        elif kind == "chance":
            data = event["data"]
            if "outcome" not in data:
                return "data.outcome", "a chance event needs its outcome"
            state.chance(data["outcome"])
        elif kind == "forfeit":
            reason = event["data"].get("reason")
            if event["seat"] is None or not isinstance(reason, str):
                return "data.reason", "a forfeit needs a seat and a reason"
            state.forfeit(event["seat"], reason)
        else:
            return "kind", f"the rules produce no {kind!r} event here"
    except IllegalAction as exc:
        return ("data" if kind == "action" else "kind"), f"illegal {kind}: {exc}"
    except GameError as exc:
        return "data", f"refused by the rules: {exc}"
    return None


def _check_probe(path: str, record: Record, state: State, produced: int) -> Problem | None:
    data = record.data
    if produced != len(state.events):
        return Problem(path, record.line, "a probe cannot come between an action and its consequences", "type")
    if data["seat"] >= state.game.players(state.params):
        return Problem(path, record.line, "no such seat", "seat")
    try:
        state.check_probe(data["seat"], data["probe"], data["answer"])
    except IllegalAction as exc:
        return Problem(path, record.line, str(exc), "answer")
    return None


def first_difference(expected: Any, actual: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ: (path, expected, actual), or None.

    Numbers compare by value but booleans never equal numbers, as in JSON.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        same_kind = isinstance(expected, bool) and isinstance(actual, bool)
        return None if same_kind and expected == actual else (where, expected, actual)
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in expected:
            if key not in actual:
                return (f"{where}.{key}", expected[key], "(missing)")
            diff = first_difference(expected[key], actual[key], f"{where}.{key}")
            if diff:
                return diff
        for key in actual:
            if key not in expected:
                return (f"{where}.{key}", "(no such field)", actual[key])
        return None
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return (where, list(expected), list(actual))
        for i, (a, b) in enumerate(zip(expected, actual)):
            diff = first_difference(a, b, f"{where}[{i}]")
            if diff:
                return diff
        return None
    numbers = (int, float)
    if isinstance(expected, numbers) and isinstance(actual, numbers):
        return None if expected == actual else (where, expected, actual)
    if type(expected) is not type(actual) or expected != actual:
        return (where, expected, actual)
    return None
