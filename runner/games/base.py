"""The contract every rules engine implements.

A game is a pure, deterministic state machine. It never reads files, clocks or the global
random module: the dealt setup is drawn from a generator passed in by the caller, and chance
during play (such as a vote tie-break) is *asked for* through `Pending(kind="chance")` and
applied with `State.chance(outcome)`, so the runner can draw it from a seeded generator and
the replay can record it.

Every change of state is appended to `State.events` as a plain JSON-able dict:

    {"kind": "action" | "chance" | "info" | "forfeit",
     "phase": str, "seat": int | None, "data": {...}, "vis": "all" | [seats]}

`vis` says who could see the event. A player's observation is its private information plus
the events it could see, so hidden information can only leak through a wrong `vis`, which the
conformance tests look for.
"""

from __future__ import annotations

import copy
import itertools
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

Seat = int
Vis = Literal["all"] | list[int]
Action = dict[str, Any]
Event = dict[str, Any]


#: The answer fields of each probe kind (docs/replay-format.md, "Probes").
PROBE_FIELDS: dict[str, set[str]] = {"suspect": {"seat"}, "suspect_of": {"of", "seat"}, "self_role": {"role"},
                                     "secret": {"word"}, "suspected": {"seat"}}


class GameError(Exception):
    """Base class of the errors a rules engine raises for bad input."""


class IllegalAction(GameError):
    """An action that the rules do not allow at this point; the message says why."""


class SetupError(GameError):
    """A dealt setup or parameter set that does not fit the game; `field` names where."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Pending:
    """What the game waits for next: actions from some seats, or a chance draw."""

    kind: Literal["act", "chance"]
    phase: str
    #: For "act": the seats whose action is still awaited. In a simultaneous phase these are
    #: all asked from the same observation; a seat leaves the tuple once it has acted.
    seats: tuple[Seat, ...] = ()
    simultaneous: bool = False
    #: For "chance": the outcomes, drawn uniformly.
    options: tuple[Any, ...] = ()


class State(ABC):
    """One game in progress; mutated by `act`, `chance` and `forfeit`."""

    game: "Game"

    def __init__(self, game: "Game", params: Mapping[str, Any], setup: Mapping[str, Any]):
        self.game = game
        self.params = dict(params)
        self.setup = copy.deepcopy(dict(setup))
        self.events: list[Event] = []
        self._forfeit: dict[str, Any] | None = None
        self._pending_memo: tuple[int, Pending | None] | None = None  # (events then, what was pending)
        self._observed: dict[Seat, tuple[int, list[Event]]] = {}  # seat -> (events read, its log)

    # -- what the game waits for -------------------------------------------------------
    def pending(self) -> Pending | None:
        """The next thing the game needs, or None once the game is over."""
        if self._forfeit is not None:
            return None
        # Asked many times between two moves (checks, observations, probes): worked out once.
        # Every change of state logs an event, and act/chance forget the memo after applying.
        memo = self._pending_memo
        if memo is None or memo[0] != len(self.events):
            memo = self._pending_memo = (len(self.events), self._pending())
        return memo[1]

    @abstractmethod
    def _pending(self) -> Pending | None:
        """The next thing the rules need, ignoring forfeits."""

    def public_turn(self, seat: Seat) -> tuple[Seat, ...]:
        """The seats `seat` may know the game waits for now: whose turn it is in a sequential phase
        whose moves every player sees (a clue, a day statement), once `seat` has seen the latest
        event (else the turn would tell it when a move it did not see was made: the Seer's look at
        night). Empty when the game waits for a chance draw, a simultaneous decision (who has
        decided is not seen) or a move only its maker sees (who acts at night is a secret of the deal)."""
        pending = self.pending()
        if pending is None or pending.kind != "act" or pending.simultaneous:
            return ()
        if self.events and self.events[-1]["vis"] != "all" and seat not in self.events[-1]["vis"]:
            return ()
        return tuple(s for s in pending.seats if self._action_vis(s, pending.phase) == "all")

    @property
    def terminal(self) -> bool:
        return self.pending() is None

    @abstractmethod
    def legal(self, seat: Seat) -> dict[str, Any]:
        """A JSON description of the actions `seat` may take now (for agents and prompts)."""

    # -- changing the state ------------------------------------------------------------
    def act(self, seat: Seat, action: Any) -> Action:
        """Check and apply one action; returns it normalised. Raises IllegalAction."""
        normalised = self.check(seat, action)
        pending = self.pending()
        assert pending is not None
        vis: Vis = [seat] if pending.simultaneous else self._action_vis(seat, pending.phase)
        self._emit("action", pending.phase, seat, normalised, vis)
        self._apply(seat, pending.phase, normalised)
        self._pending_memo = None
        return normalised

    def check(self, seat: Seat, action: Any) -> Action:
        """The action normalised if `seat` may take it now; raises IllegalAction. No change."""
        pending = self.pending()
        if pending is None:
            raise IllegalAction("the game is over")
        if pending.kind != "act":
            raise IllegalAction(f"the game waits for a chance draw ({pending.phase}), not an action")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in pending.seats:
            raise IllegalAction(f"seat {seat!r} is not to act in phase {pending.phase!r}")
        if not isinstance(action, Mapping):
            raise IllegalAction(f"an action must be an object, got {type(action).__name__}")
        return self._check(seat, pending.phase, dict(action))

    def chance(self, outcome: Any) -> None:
        """Apply the outcome of the chance draw the game asked for."""
        pending = self.pending()
        if pending is None or pending.kind != "chance":
            raise IllegalAction("the game is not waiting for a chance draw")
        if outcome not in pending.options:
            raise IllegalAction(f"chance outcome {outcome!r} is not one of {list(pending.options)!r}")
        self.events.append(
            {"kind": "chance", "phase": pending.phase, "seat": None,
             "data": {"options": list(pending.options), "outcome": outcome}, "vis": "all"}
        )
        self._apply_chance(pending.phase, outcome)
        self._pending_memo = None

    def forfeit(self, seat: Seat, reason: str) -> None:
        """End the game as invalid: `seat` never produced a legal action."""
        pending = self.pending()
        if pending is None or pending.kind != "act" or seat not in pending.seats:
            raise IllegalAction(f"seat {seat!r} is not to act, so it cannot forfeit")
        self._forfeit = {"seat": seat, "phase": pending.phase, "reason": reason}
        self.events.append(
            {"kind": "forfeit", "phase": pending.phase, "seat": seat,
             "data": {"reason": reason}, "vis": "all"}
        )

    @abstractmethod
    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        """Validate an action for `phase`; return it normalised or raise IllegalAction."""

    @abstractmethod
    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        """Apply a checked action (its own event is already logged), appending derived events."""

    def _action_vis(self, seat: Seat, phase: str) -> Vis:
        """Who sees an action of a sequential phase; simultaneous actions are private."""
        return "all"

    def _apply_chance(self, phase: str, outcome: Any) -> None:
        raise IllegalAction(f"{self.game.name} has no chance phase {phase!r}")

    # -- helpers for subclasses --------------------------------------------------------
    def _emit(self, kind: str, phase: str, seat: Seat | None, data: Mapping[str, Any], vis: Vis) -> None:
        self.events.append({"kind": kind, "phase": phase, "seat": seat, "data": dict(data),
                            "vis": vis if vis == "all" else sorted(vis)})

    # -- what players see --------------------------------------------------------------
    @abstractmethod
    def private(self, seat: Seat) -> dict[str, Any]:
        """What `seat` was dealt and may know from the start (its role, word, ...)."""

    @abstractmethod
    def public(self) -> dict[str, Any]:
        """What every player knows from the start (card, payoffs, seat names, ...)."""

    def observe(self, seat: Seat) -> dict[str, Any]:
        """Everything `seat` may know now: its private info, public info and visible events
        (read-only: the events are shared with the seat's other observations)."""
        # Observed again and again as a game goes on: each seat's visible log grows from where
        # it was (events are only ever appended), so every event is read once per seat.
        read, log = self._observed.setdefault(seat, (0, []))
        if read < len(self.events):
            log.extend({k: v for k, v in ev.items() if k != "vis"}
                       for ev in itertools.islice(self.events, read, None)
                       if ev["vis"] == "all" or seat in ev["vis"])
            self._observed[seat] = (len(self.events), log)
        return {"game": self.game.name, "seat": seat, "private": self.private(seat),
                "public": self.public(), "log": list(log)}

    # -- result ------------------------------------------------------------------------
    def outcome(self) -> dict[str, Any]:
        """The result of a finished game: status, winners (seats) and game-specific detail."""
        if self.pending() is not None:
            raise GameError("the game is not over")
        if self._forfeit is not None:
            return {"status": "invalid", "winners": [], "result": {"forfeit": dict(self._forfeit)}}
        winners, result = self._result()
        return {"status": "complete", "winners": sorted(winners), "result": result}

    @abstractmethod
    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        """Winners and detail of a game that ended normally."""

    # -- probes (belief questions asked outside the rules, for the metrics) ------------
    def probes(self) -> tuple[str, ...]:
        """Probe kinds that may be asked of every seat now (empty: none)."""
        return ()

    def check_probe(self, seat: Seat, kind: str, answer: Any) -> None:
        """Raise IllegalAction unless `answer` is a well-formed answer to probe `kind`."""
        if kind not in self.probes():
            raise IllegalAction(f"probe {kind!r} is not asked at this point")
        if not isinstance(answer, Mapping):
            raise IllegalAction("a probe answer must be an object")
        seats = range(self.game.players(self.params))
        expected = PROBE_FIELDS[kind]
        if set(answer) != expected:
            raise IllegalAction(f"probe {kind!r} answer needs exactly the fields {sorted(expected)}")
        for key in expected & {"seat", "of"}:
            value = answer[key]
            # "Whom does o suspect?" and "whom do the others suspect?" may rightly be answered
            # "me", so only `of` and the first-order suspect must be other players.
            may_be_self = kind in ("suspect_of", "suspected") and key == "seat"
            if (not isinstance(value, int) or isinstance(value, bool) or value not in seats
                    or (value == seat and not may_be_self)):
                raise IllegalAction(f"probe field {key!r} must be another player's seat, got {value!r}")
        if kind == "suspect_of" and answer["of"] == answer["seat"]:
            raise IllegalAction("probe 'suspect_of' cannot say a player suspects itself")
        if kind == "self_role" and answer["role"] not in self.game.roles:
            raise IllegalAction(f"probe role must be one of {list(self.game.roles)}")
        if kind == "secret":
            self._check_secret(answer["word"])

    def _check_secret(self, word: Any) -> None:
        """IllegalAction unless `word` may be the game's secret (games that ask the `secret` probe)."""
        raise IllegalAction(f"{self.game.name} asks no 'secret' probe")

    # -- conformance support -----------------------------------------------------------
    @abstractmethod
    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        """A uniformly drawn legal action for `seat` (random agents, conformance tests)."""

    @abstractmethod
    def illegal_examples(self, seat: Seat) -> list[Any]:
        """Actions that must be refused for `seat` now (conformance tests)."""


class Game(ABC):
    """A game's rules: parameters, dealing, and the factory of states."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: Roles an agent can be assigned to in a matchup ("slots"), in display order.
    roles: ClassVar[tuple[str, ...]]
    #: Whether every seat wins or loses together (Cost Sharing): no seat outranks another, so the
    #: boards rank its agents by how often their tables succeed, never by a rating of draws.
    cooperative: ClassVar[bool] = False
    #: Phases whose events deliberately reveal hidden information (the final result).
    reveal_phases: ClassVar[frozenset[str]] = frozenset()
    #: The probes a seat of each role is asked (role -> kinds): only questions its role does not
    #: already answer (the Chameleon knows it is one, so it is not asked who the chameleon is).
    #: A role left out is asked every probe of the point; see `asks`.
    probe_roles: ClassVar[Mapping[str, frozenset[str]]] = {}
    #: Rule options whose default is left out of the normal form (added after replays were
    #: shipped): option -> its values, the default first. Listed by `gamenight games`.
    options: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def asks(self, role: str, kind: str) -> bool:
        """Whether a seat of `role` is asked probe `kind` (a question it can be wrong about)."""
        allowed = self.probe_roles.get(role)
        return allowed is None or kind in allowed

    @abstractmethod
    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and check rule parameters; raise SetupError naming the field."""

    @abstractmethod
    def players(self, params: Mapping[str, Any]) -> int:
        """Number of seats."""

    @abstractmethod
    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Draw a setup (roles, words, order, payoffs, ...) from `rng` and the shipped content."""

    @abstractmethod
    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        """Raise SetupError unless `setup` is a consistent setup for these parameters."""

    @abstractmethod
    def role_of(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat) -> str:
        """The role (matchup slot) that `seat` plays in this setup."""

    @abstractmethod
    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        """A fresh state at the beginning of play."""

    @abstractmethod
    def counterfactuals(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat,
                        rng: random.Random) -> list[dict[str, Any]]:
        """Other setups that differ from `setup` only in what `seat` cannot know.

        Used by the conformance tests: along the same actions, `seat` must observe exactly the
        same things in each of them until a phase in `reveal_phases` starts.
        """

    def seat_names(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> list[str]:
        """Display names of the seats."""
        return [f"Player {i + 1}" for i in range(self.players(params))]


class RoundsGame(Game):
    """A game of a fixed number of seats, one role, no hidden setup, and `rounds` to play.

    Cost Sharing, Prisoner's Dilemma and Public Good share this shape: only the order of
    simultaneous moves is hidden, which the conformance kit checks separately.
    """

    seats: ClassVar[int] = 3
    max_rounds: ClassVar[int] = 50

    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(raw, [], "params", optional=["rounds"])
        rounds = raw.get("rounds", 5)
        require(is_int(rounds) and 1 <= rounds <= self.max_rounds, "params.rounds",
                f"must be an integer from 1 to {self.max_rounds}")
        return {"rounds": rounds}

    def players(self, params: Mapping[str, Any]) -> int:
        return self.seats

    def role_of(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat) -> str:
        return self.roles[0]

    def counterfactuals(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat,
                        rng: random.Random) -> list[dict[str, Any]]:
        return []


def require(condition: bool, field: str, message: str) -> None:
    """Raise SetupError(field, message) unless `condition` holds."""
    if not condition:
        raise SetupError(field, message)


def probe_schedule(raw: Mapping[str, Any], allowed: Sequence[str]) -> dict[str, str]:
    """The `probe_schedule` rule parameter, checked: {} for the default (the first of `allowed`),
    which is left out of the normal form so that replays written before the option existed keep
    their exact `variant`; {"probe_schedule": value} otherwise."""
    value = raw.get("probe_schedule", allowed[0])
    require(isinstance(value, str) and value in allowed, "params.probe_schedule",
            f"must be one of {list(allowed)}")
    return {} if value == allowed[0] else {"probe_schedule": value}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and value == value and value not in (float("inf"), float("-inf")))


def check_keys(obj: Any, required: Sequence[str], field: str, optional: Sequence[str] = ()) -> None:
    """Raise SetupError unless `obj` is an object with exactly these keys."""
    require(isinstance(obj, Mapping), field, "must be an object")
    missing = [k for k in required if k not in obj]
    require(not missing, field, f"missing field(s) {missing}")
    unknown = [k for k in obj if k not in required and k not in optional]
    require(not unknown, field, f"unknown field(s) {unknown}")


def action_fields(action: Mapping[str, Any], fields: Sequence[str]) -> None:
    """Raise IllegalAction unless `action` has exactly `fields`."""
    if set(action) != set(fields):
        raise IllegalAction(f"the action needs exactly the field(s) {sorted(fields)}, got {sorted(action)}")


def majority(votes: Mapping[Seat, Seat]) -> list[Seat]:
    """The seats with the most votes (several on a tie), in seat order."""
    counts: dict[Seat, int] = {}
    for target in votes.values():
        counts[target] = counts.get(target, 0) + 1
    top = max(counts.values())
    return sorted(seat for seat, n in counts.items() if n == top)
