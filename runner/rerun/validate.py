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
from runner.plan import PlannedGame
from runner.replay.compare import first_difference
from runner.replay.format import (MAX_PROBLEMS, Problem, Record, agent_kind, limit_problems, parse_lines,
                                  read_file, schema_problems, show, version_2_uses,
                                  version_3_uses, version_4_uses, version_5_uses,
                                  version_6_uses, version_7_uses)
from runner.rerun.derive import Derivation

#: Fields of event records that the runner adds and the rules do not produce.
RUNNER_FIELDS = ("type", "n", "attempts", "evidence", "took_ms")
_MISSING = object()


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
        """The first line if it is a header object (even when the file has problems)."""
        if not self.records or self.records[0].line != 1:
            return None
        first = self.records[0].data
        return first if isinstance(first, dict) and first.get("type") == "header" else None

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The outcome recomputed by the rules (only for a valid replay)."""
        if not self.ok or self.state is None:
            return None
        return self.state.outcome()


def check_file(path: str | os.PathLike[str], *, derive: bool = True, probes: bool | None = None,
               planned: PlannedGame | None = None) -> Checked:
    """Check one replay file (`derive`, `probes`, `planned`: see `check_bytes`)."""
    records, problems = read_file(path)
    return _check(str(path), records, problems, derive, probes, planned)


def check_bytes(path: str, raw: bytes, *, derive: bool = True, probes: bool | None = None,
                planned: PlannedGame | None = None) -> Checked:
    """Check replay content held in memory (`path` is used in messages).

    With `derive` (always, but for hand-dealt test games), the deal, every chance draw and every
    move and belief of a built-in agent must also be what the seed gives, and every prompt, move
    and belief of a model seat what its agent makes of the recorded replies (runner/rerun/derive.py).
    `probes` says whether the tournament asked belief probes (its plan knows); None: a run either
    asked every probe or none, whichever the file shows. `planned` is the game of the file's id in
    its folder's plan (runner/rerun/plans.py): the header must be that game.
    """
    records, problems = parse_lines(path, raw)
    return _check(path, records, problems, derive, probes, planned)


class _Cursor:
    """The line being re-simulated, so that an engine failure can be pinned to it."""

    line = 1


def _check(path: str, records: list[Record], problems: list[Problem], derive: bool = True,
           probes: bool | None = None, planned: PlannedGame | None = None) -> Checked:
    checked = Checked(path, records, list(problems))
    if problems:
        return checked
    for record in records:
        checked.problems.extend(schema_problems(path, record))
        if len(checked.problems) > MAX_PROBLEMS:
            break
    if checked.problems:
        checked.problems = limit_problems(path, checked.problems)
        return checked
    checked.problems.extend(_structure(path, records))
    version = records[0].data["version"] if not checked.problems else None
    if version == 1:
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 2; this file says version 1",
                    field) for i, field, what in version_2_uses(r.data for r in records))
    if version in (1, 2):
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 3; this file says version {version}",
                    field) for i, field, what in version_3_uses(r.data for r in records))
    if version in (1, 2, 3):
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 4; this file says version {version}",
                    field) for i, field, what in version_4_uses(r.data for r in records))
    if version in (1, 2, 3, 4):
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 5; this file says version {version}",
                    field) for i, field, what in version_5_uses(r.data for r in records))
    if version in (1, 2, 3, 4, 5):
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 6; this file says version {version}",
                    field) for i, field, what in version_6_uses(r.data for r in records))
    if version in (1, 2, 3, 4, 5, 6):
        checked.problems.extend(
            Problem(path, records[i].line, f"{what} needs replay format version 7; this file says version {version}",
                    field) for i, field, what in version_7_uses(r.data for r in records))
    if not checked.problems:
        checked.problems.extend(_human_fields(path, records))
    if checked.problems:
        return checked
    cursor = _Cursor()
    try:
        checked.state = _resimulate(path, records, checked.problems, cursor, derive, probes, planned)
    except RecursionError:
        checked.problems.append(Problem(path, cursor.line, "the data is nested too deeply to check"))
    except Exception as exc:  # a stranger's file must never end the check with a traceback
        checked.problems.append(Problem(path, cursor.line, f"the rules engine failed on this line "
                                        f"({type(exc).__name__}: {exc}); the replay holds something the "
                                        "rules cannot handle"))
    if checked.problems:
        checked.state = None
    return checked


def _structure(path: str, records: list[Record]) -> list[Problem]:
    problems = []
    kinds = [r.data["type"] for r in records]
    if kinds[0] != "header":
        problems.append(Problem(path, records[0].line, f"the first line must be the header, not {kinds[0]!r}",
                                "type"))
    for record, kind in zip(records[1:], kinds[1:]):
        if kind == "header":
            problems.append(Problem(path, record.line, "a second header: a replay holds exactly one game", "type"))
    outcomes = [i for i, kind in enumerate(kinds) if kind == "outcome"]
    for i in outcomes[:-1]:
        problems.append(Problem(path, records[i].line, "the outcome must be the last line "
                                "(only judge annotations may follow it)", "type"))
    end = outcomes[-1] if outcomes else len(records)
    if any(kind != "judge" for kind in kinds[end + 1:]):
        problems.append(Problem(path, records[end].line, "the outcome must be the last line "
                                "(only judge annotations may follow it)", "type"))
    for record, kind in zip(records[:end], kinds[:end]):
        if kind == "judge":
            problems.append(Problem(path, record.line, "a judge annotation must come after the outcome", "type"))
    if not outcomes:
        problems.append(Problem(path, records[-1].line, "the file ends without an outcome line "
                                "(it may be truncated)", "type"))
    return problems


def outcome_index(records: Sequence[Record]) -> int:
    """The position of the outcome line in a structurally sound replay."""
    return max(i for i, r in enumerate(records) if r.data["type"] == "outcome")


def _header_problems(path: str, record: Record) -> tuple[Any, dict[str, Any] | None, list[Problem]]:
    header = record.data
    line = record.line
    name = header["game"]
    if name not in games.GAME_MODULES:
        return None, None, [Problem(path, line, f"unknown game {name!r}; the games are "
                                    f"{', '.join(games.GAME_MODULES)}", "game")]
    try:
        game = games.get(name)
    except ImportError as exc:  # registered, but its engine cannot be loaded here
        return None, None, [Problem(path, line, f"the rules engine of {name!r} cannot be loaded "
                                    f"in this installation ({exc})", "game")]
    try:
        params = game.params(header["variant"])
    except SetupError as exc:
        return game, None, [Problem(path, line, exc.message, exc.field.replace("params", "variant", 1))]
    problems = []
    diff = first_difference(params, header["variant"])
    if diff:
        where, expected, _ = diff
        problems.append(Problem(path, line, f"must list every rule parameter in normal form "
                                f"(expected {show(expected)})", f"variant{where}"))
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
            problems.append(Problem(path, line, f"seat {i} is named {show(names[i])} by the rules",
                                    f"players[{i}].name"))
    return game, params, problems


def _waiting(state: State) -> str:
    """What the rules wait for now, in words."""
    pending = state.pending()
    if pending is None:
        return "the game is over"
    if pending.kind == "chance":
        return f"the rules wait for a chance draw in phase {pending.phase!r}"
    seats = ", ".join(str(s) for s in pending.seats)
    return f"the rules wait for an action of seat {seats} in phase {pending.phase!r}"


def _resimulate(path: str, records: Sequence[Record], problems: list[Problem], cursor: _Cursor,
                derive: bool = True, probes: bool | None = None, planned: PlannedGame | None = None
                ) -> State | None:
    """Replay every recorded input through the rules (and the runner's generators and built-in
    agents, with `derive`); append problems; the final state."""
    header = records[0]
    game, params, header_problems = _header_problems(path, header)
    problems.extend(header_problems)
    if header_problems or game is None or params is None:
        return None
    derivation = Derivation(game, params, header.data, planned) if derive else None
    if derivation is not None:
        diff = derivation.players() or derivation.game_id() or derivation.setup()
        if diff:
            problems.append(Problem(path, header.line, diff[1], diff[0]))
            return None
    state = game.start(params, header.data["setup"])
    produced = 0  # engine events already matched against the file
    expected_n = 0
    probes_here: set[tuple[Any, ...]] = set()  # probe questions answered since the last event
    end = outcome_index(records)
    # With the runner's generators and agents at hand, the probes are checked as a whole too: a
    # run either asks none, or asks every question at every point where the rules allow probes.
    probes_on = derivation is not None and (probes if probes is not None
                                            else any(r.data["type"] == "probe" for r in records[1:end]))
    asked: list[tuple[Any, ...]] = []  # (seat, probe, about) recorded since the last event
    batch: set[int] = set()  # seats of a simultaneous decision the runner asked together, not yet recorded
    for record in records[1:end]:
        cursor.line = record.line
        data = record.data
        if data["type"] == "probe":
            if probes is False:
                problems.append(Problem(path, record.line, "this tournament asks no probes (its plan says "
                                        "probes = false)", "type"))
                return None
            problem = _check_probe(path, record, state, produced, probes_here)
            diff = derivation.probe(state, data) if derivation is not None and problem is None else None
            if diff:
                problem = Problem(path, record.line, diff[1], diff[0])
            if problem:
                problems.append(problem)
                return None
            answer = data["answer"]
            asked.append((data["seat"], data["probe"], answer.get("of") if answer else data.get("about")))
            continue
        probes_here = set()
        if data["n"] != expected_n:
            problems.append(Problem(path, record.line, f"events must be numbered 0, 1, 2, ... in order; "
                                    f"expected {expected_n}, found {data['n']}", "n"))
            return None
        expected_n += 1
        event = {k: v for k, v in data.items() if k not in RUNNER_FIELDS}
        if produced == len(state.events):
            # Nothing left to match: this line must be an input the rules accept (and, with
            # `derive`, the draw or built-in move the seed gives).
            if probes_on and not batch:  # where the runner asks its probes, before the next input
                assert derivation is not None
                diff = _probes_difference(derivation.questions(state, answered=asked), asked)
                if diff:
                    problems.append(Problem(path, record.line, diff[1], diff[0]))
                    return None
            batch = _batch_after(state, data, batch)
            diff = _derived(derivation, state, data) if derivation is not None else None
            if diff:
                problems.append(Problem(path, record.line, diff[1], diff[0]))
                return None
            error = _apply_input(state, event)
            if error:
                problems.append(Problem(path, record.line, error[1], error[0]))
                return None
        asked = []
        if produced >= len(state.events):
            problems.append(Problem(path, record.line, "the rules produce no event here", "kind"))
            return None
        diff = first_difference(state.events[produced], event)
        if diff:
            problems.append(_event_difference(path, record.line, state.events[produced], diff))
            return None
        if data.get("attempts") and event["kind"] not in ("action", "forfeit"):
            problems.append(Problem(path, record.line, "only actions and forfeits have attempts", "attempts"))
            return None
        produced += 1
    outcome_record = records[end]
    cursor.line = outcome_record.line
    if produced < len(state.events):
        missing = state.events[produced]
        problems.append(Problem(path, outcome_record.line, f"the rules produce a further event before the end: "
                                f"{missing['kind']} in phase {missing['phase']!r}", "type"))
        return None
    if not state.terminal:
        problems.append(Problem(path, outcome_record.line, f"the game is not over: {_waiting(state)}", "type"))
        return None
    claimed = {k: v for k, v in outcome_record.data.items() if k != "type"}
    diff = first_difference(state.outcome(), claimed)
    if diff:
        where, expected, actual = diff
        problems.append(Problem(path, outcome_record.line, f"the claimed outcome differs from the rules: "
                                f"expected {show(expected)}, found {show(actual)}", where.lstrip(".") or "outcome"))
        return None
    if asked:
        problems.append(Problem(path, outcome_record.line - 1, "the runner asks no probe once the game is over",
                                "type"))
        return None
    diff = derivation.finish() if derivation is not None else None
    if diff:
        problems.append(Problem(path, header.line, diff[1], diff[0]))
        return None
    for record in records[end + 1:]:
        cursor.line = record.line
        problem = _check_judge(path, record, state)
        if problem:
            problems.append(problem)
            return None
    return state


#: Which optional fields each judge dimension fills (the Werewolf paper's EWAVM, and the suspicions of version 4);
#: the others must be null.
JUDGE_FIELDS = {"engagement": "score", "wonder": "score", "attraction": "score",
                "variation": "mentions", "memorability": "highlights", "suspicion": "suspects"}
#: Dimensions read per round of statements: their records name the round.
PER_ROUND = ("variation", "suspicion")


def _check_judge(path: str, record: Record, state: State) -> Problem | None:
    """A judge annotation must fill exactly its dimension's field (none when it records a failed
    evaluation) and point at real things."""
    data = record.data
    dimension = data["dimension"]
    failed = data.get("failure") is not None
    filled = None if failed else JUDGE_FIELDS[dimension]
    names = ("score", "mentions", "highlights", "suspects") if dimension == "suspicion" else (
        "score", "mentions", "highlights")
    if dimension == "suspicion" and "suspects" not in data:
        return Problem(path, record.line, "a suspicion judgement has the field suspects (null when it failed)",
                       "suspects")
    if dimension != "suspicion" and "suspects" in data:
        return Problem(path, record.line, f"only a suspicion judgement has this field, not {dimension}", "suspects")
    for name in names:
        if (data[name] is None) == (name == filled):
            if failed:
                need = "must be null in a failed evaluation"
            else:
                need = "must be given" if name == filled else "must be null"
            return Problem(path, record.line, f"for the {dimension} dimension this field {need}", name)
    if dimension in PER_ROUND and data["round"] is None:
        return Problem(path, record.line, f"a {dimension} judgement names the round it read", "round")
    players = state.game.players(state.params)
    suspects = data.get("suspects")
    if suspects is not None:
        if len(suspects) != players:
            return Problem(path, record.line, f"give one entry per seat ({players}), not {len(suspects)}", "suspects")
        for seat, about in enumerate(suspects):
            if about is not None and about >= players:
                return Problem(path, record.line, f"this game has seats 0 to {players - 1}", f"suspects[{seat}]")
            if about == seat:
                return Problem(path, record.line, "a player points at another player or at nobody (null)",
                               f"suspects[{seat}]")
    for i, mention in enumerate(data["mentions"] or []):
        where = f"mentions[{i}]"
        if mention["by"] >= players or mention["about"] >= players:
            return Problem(path, record.line, f"this game has seats 0 to {players - 1}", where)
        if mention["by"] == mention["about"]:
            return Problem(path, record.line, "a mention is about another player", where)
        if mention["role"] not in state.game.roles:
            return Problem(path, record.line, f"role must be one of {', '.join(state.game.roles)}", f"{where}.role")
    spoken = {n for n, ev in enumerate(state.events) if ev["kind"] == "action" and ev["seat"] is not None}
    for i, n in enumerate(data["highlights"] or []):
        if n not in spoken:
            return Problem(path, record.line, f"event {n} is not a player's action", f"highlights[{i}]")
    return None


def _event_difference(path: str, line: int, expected_event: Mapping[str, Any],
                      diff: tuple[str, Any, Any]) -> Problem:
    where, expected, actual = diff
    if where == ".kind":
        return Problem(path, line, f"the rules produce {_a(expected)} event here (phase "
                       f"{expected_event['phase']!r}), not {_a(actual)}", "kind")
    return Problem(path, line, f"does not match the rules: expected {show(expected)}, found {show(actual)}",
                   where.lstrip(".") or "event")


def _a(word: Any) -> str:
    word = str(word)
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _batch_after(state: State, data: Mapping[str, Any], batch: set[int]) -> set[int]:
    """The seats of a simultaneous decision still to be recorded once this input is: the runner
    asks them all at once and asks no probe in between."""
    if batch:
        return batch - {data["seat"]}
    pending = state.pending()
    if data["kind"] in ("action", "forfeit") and pending is not None and pending.kind == "act" and pending.simultaneous:
        return set(pending.seats) - {data["seat"]}
    return set()


def _human_fields(path: str, records: Sequence[Record]) -> list[Problem]:
    """A person's time is recorded on their own decisions only, and nothing of a model's evidence is."""
    players = records[0].data["players"]
    humans = {p["seat"] for p in players if agent_kind(p["agent"]) == "human"}
    problems = []
    for record in records[1:]:
        data = record.data
        if data["type"] not in ("event", "probe"):
            continue
        human = data.get("seat") in humans
        if "took_ms" in data and not (human and (data["type"] == "probe" or data["kind"] in ("action", "forfeit"))):
            problems.append(Problem(path, record.line, "only the decisions of a seat played by a person (agent kind "
                                    "'human') record the time they took", "took_ms"))
        if human and "evidence" in data:
            problems.append(Problem(path, record.line, "a seat played by a person has no model calls or design notes",
                                    "evidence"))
    return problems


def _probes_difference(expected: list[tuple[int, str, int | None]],
                       found: list[tuple[Any, ...]]) -> tuple[str, str] | None:
    """Where the probes recorded before an input differ from those the runner asks there."""
    if expected == found:
        return None
    def words(questions: Sequence[tuple[Any, ...]]) -> str:
        return ", ".join(f"seat {s} {k}" + (f" about seat {a}" if a is not None else "") for s, k, a in questions) \
            or "none"
    missing = [q for q in expected if q not in found]
    if missing:
        return "type", (f"the runner asks every probe at every point where the rules allow them, once it asks any: "
                        f"before this line it asks {words(expected)}; the replay lacks {words(missing)}")
    return "type", (f"the probes before this line are not those the runner asks, in its order: it asks "
                    f"{words(expected)}; the replay records {words(found)}")


def _derived(derivation: Derivation, state: State, data: Mapping[str, Any]) -> tuple[str, str] | None:
    """Where an input differs from what the seed gives: a chance draw, or a built-in seat's move.

    Inputs the rules refuse are left for `_apply_input` to report.
    """
    pending = state.pending()
    if pending is None:
        return None
    if data["kind"] == "chance" and pending.kind == "chance":
        outcome = data["data"].get("outcome", _MISSING)
        if outcome is _MISSING or not any(first_difference(o, outcome) is None for o in pending.options):
            return None
        return derivation.chance_draw(pending, outcome)
    if data["kind"] in ("action", "forfeit") and pending.kind == "act" and data["seat"] in pending.seats:
        return derivation.move(state, data["seat"], data)
    return None


def _apply_input(state: State, event: Mapping[str, Any]) -> tuple[str, str] | None:
    """Apply an action, chance draw or forfeit; (field, message) if the rules refuse it."""
    kind = event["kind"]
    pending = state.pending()
    seat = event["seat"]
    if kind == "info":
        return "kind", f"the rules produce no info event here: {_waiting(state)}"
    if kind == "chance":
        if pending is None or pending.kind != "chance":
            return "kind", f"the rules do not draw by chance here: {_waiting(state)}"
        outcome = event["data"].get("outcome", _MISSING)
        if outcome is _MISSING:
            return "data.outcome", "a chance event needs its outcome"
        # Compared as JSON values (true is not 1), not by Python equality.
        if not any(first_difference(option, outcome) is None for option in pending.options):
            return "data.outcome", (f"the chance outcome {show(outcome)} is not one of the options "
                                    f"{show(list(pending.options))}")
        state.chance(outcome)
        return None
    if pending is None or pending.kind != "act":
        return "kind", f"the rules accept no {kind} here: {_waiting(state)}"
    if seat is None or seat not in pending.seats:
        return "seat", f"seat {show(seat)} is not to act here: {_waiting(state)}"
    try:
        if kind == "action":
            state.act(seat, event["data"])
        else:
            reason = event["data"].get("reason")
            if not isinstance(reason, str):
                return "data.reason", "a forfeit needs its reason as a string"
            state.forfeit(seat, reason)
    except IllegalAction as exc:
        return "data", f"illegal {kind}: {exc}"
    except GameError as exc:
        return "data", f"refused by the rules: {exc}"
    return None


def _check_probe(path: str, record: Record, state: State, produced: int,
                 answered: set[tuple[Any, ...]]) -> Problem | None:
    data = record.data
    seat, kind, answer = data["seat"], data["probe"], data["answer"]
    if produced != len(state.events):
        return Problem(path, record.line, "a probe cannot come between an action and its consequences", "type")
    if seat >= state.game.players(state.params):
        return Problem(path, record.line, f"no such seat: the game has {state.game.players(state.params)} seats",
                       "seat")
    allowed = state.probes()
    if kind not in allowed:
        where = f"only {', '.join(map(repr, allowed))} here" if allowed else "no probe is asked at this point"
        return Problem(path, record.line, f"probe {kind!r} is not asked here: {where}", "probe")
    if answer is None:  # unanswered: only the question must make sense
        about = data.get("about")
        if kind == "suspect_of" and about is None:
            return Problem(path, record.line, "an unanswered suspect_of probe must say which seat it asked about",
                           "about")
        if kind != "suspect_of" and about is not None:
            return Problem(path, record.line, f"a {kind!r} probe is not about another seat", "about")
        if about is not None and (about == seat or about >= state.game.players(state.params)):
            return Problem(path, record.line, f"seat {seat} cannot be asked about seat {about}", "about")
        question = (seat, kind, about)
    else:
        try:
            state.check_probe(seat, kind, answer)
        except IllegalAction as exc:
            return Problem(path, record.line, str(exc), "answer")
        question = (seat, kind, answer.get("of"))  # "of" is a seat once the answer is well-formed
    if question in answered:
        return Problem(path, record.line, f"seat {seat} already answered this {kind!r} probe here", "probe")
    answered.add(question)
    return None
