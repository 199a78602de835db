"""Simplified One Night Ultimate Werewolf (the Werewolf paper): eight players, no role switching.

Night: the Seer names two other players and learns whether the Werewolf is one of them; the
two Masons know each other from the start. Day: three rounds of public statements in seat
order. Vote: simultaneous; the most-voted player is out (a tie is drawn at random) and the
voted-out player's role decides which team wins.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from runner import content
from runner.games.base import (Action, Game, IllegalAction, Pending, Seat, State, Vis,
                               action_fields, check_keys, is_int, require)
from runner.games.facts import Facts, HiddenRole, Outcome

PLAYERS = 8
ROUNDS = 3
MAX_WORDS = 120
MAX_CHARS = 2000
MAX_NAME_CHARS = 40
ROLES = ("seer", "mason", "villager", "werewolf", "minion", "tanner")
#: The eight role cards dealt to the seats.
DECK = ("seer", "mason", "mason", "villager", "villager", "werewolf", "minion", "tanner")
TEAM = {"seer": "village", "mason": "village", "villager": "village",
        "werewolf": "werewolf", "minion": "werewolf", "tanner": "tanner"}
TIES = ("random",)
#: Filler words for random statements (random agents and conformance tests).
_RANDOM_WORDS = ("I", "think", "we", "should", "vote", "carefully", "someone", "is", "lying",
                 "maybe", "trust", "nobody", "today", "the", "quiet", "ones", "worry", "me")


def winning_team(role_out: str) -> str:
    """The team that wins when a player with role `role_out` is voted out."""
    if role_out == "werewolf":
        return "village"
    if role_out == "tanner":
        return "tanner"
    return "werewolf"  # any village role, or the Minion


def count_words(text: str) -> int:
    """Words of a statement: runs of non-whitespace."""
    return len(text.split())


def _deck_summary(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{counts.get(role, 0)} {role}" for role in ROLES)


class WerewolfState(State):
    """Night look, 24 statements, a simultaneous vote, maybe a tie-break draw, the result."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.roles: list[str] = list(self.setup["roles"])
        self.seer = self.roles.index("seer")
        self.werewolf = self.roles.index("werewolf")
        self.looked: list[Seat] | None = None
        self.statements = 0
        self.votes: dict[Seat, Seat] = {}
        self.top: list[Seat] = []
        self.voted_out: Seat | None = None

    def _pending(self) -> Pending | None:
        if self.voted_out is not None:
            return None
        if self.looked is None:
            return Pending("act", "night", (self.seer,))
        if self.statements < ROUNDS * PLAYERS:
            return Pending("act", "day", (self.statements % PLAYERS,))
        if len(self.votes) < PLAYERS:
            waiting = tuple(s for s in range(PLAYERS) if s not in self.votes)
            return Pending("act", "vote", waiting, simultaneous=True)
        return Pending("chance", "tie_break", options=tuple(self.top))

    def round(self) -> int:
        """The statement round in progress (1..3); 3 also once the day is over."""
        return min(self.statements // PLAYERS + 1, ROUNDS)

    def legal(self, seat: Seat) -> dict[str, Any]:
        pending = self.pending()
        if pending is None or pending.kind != "act" or seat not in pending.seats:
            return {"phase": pending.phase if pending else None, "field": None}
        others = [s for s in range(PLAYERS) if s != seat]
        if pending.phase == "night":
            return {"phase": "night", "field": "look", "count": 2, "options": others}
        if pending.phase == "day":
            return {"phase": "day", "field": "text", "round": self.round(), "rounds": ROUNDS,
                    "max_words": MAX_WORDS, "max_chars": MAX_CHARS}
        return {"phase": "vote", "field": "vote", "options": others}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        if phase == "night":
            action_fields(action, ["look"])
            look = action["look"]
            if not isinstance(look, list) or len(look) != 2:
                raise IllegalAction("look must be a list of exactly two seats")
            for target in look:
                self._check_other(seat, target, "look")
            if look[0] == look[1]:
                raise IllegalAction("the Seer must look at two different players")
            return {"look": sorted(look)}
        if phase == "day":
            action_fields(action, ["text"])
            text = action["text"]
            if not isinstance(text, str):
                raise IllegalAction(f"text must be a string, got {type(text).__name__}")
            if len(text) > MAX_CHARS:
                raise IllegalAction(f"a statement is at most {MAX_CHARS} characters, got {len(text)}")
            words = count_words(text)
            if words == 0:
                raise IllegalAction("a statement cannot be empty")
            if words > MAX_WORDS:
                raise IllegalAction(f"a statement is at most {MAX_WORDS} words, got {words}")
            return {"text": text.strip()}
        action_fields(action, ["vote"])
        self._check_other(seat, action["vote"], "vote")
        return {"vote": action["vote"]}

    @staticmethod
    def _check_other(seat: Seat, target: Any, field: str) -> None:
        """Refuse anything but another player's seat number."""
        if not is_int(target) or not 0 <= target < PLAYERS:
            raise IllegalAction(f"{field} must name a seat from 0 to {PLAYERS - 1}, got {target!r}")
        if target == seat:
            raise IllegalAction(f"{field} must name another player, not yourself")

    def _action_vis(self, seat: Seat, phase: str) -> Vis:
        return [seat] if phase == "night" else "all"

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        if phase == "night":
            self.looked = list(action["look"])
            self._emit("info", "night", seat,
                       {"looked": list(self.looked), "werewolf_among": self.werewolf in self.looked}, [seat])
        elif phase == "day":
            self.statements += 1
        else:
            self.votes[seat] = action["vote"]
            if len(self.votes) == PLAYERS:
                self._count()

    def _count(self) -> None:
        """Reveal every vote; the single top-voted player is out, else a draw is needed."""
        tally = self.tally()
        best = max(tally)
        self.top = [s for s in range(PLAYERS) if tally[s] == best]
        self._emit("info", "count", None,
                   {"votes": self.vote_list(), "tally": tally, "top": list(self.top)}, "all")
        if len(self.top) == 1:
            self._finish(self.top[0])

    def _apply_chance(self, phase: str, outcome: Any) -> None:
        if phase != "tie_break":
            super()._apply_chance(phase, outcome)
        self._finish(outcome)

    def _finish(self, out: Seat) -> None:
        self.voted_out = out
        role = self.roles[out]
        team = winning_team(role)
        self._emit("info", "result", None,
                   {"voted_out": out, "role": role, "winning_team": team, "tie": self.tied,
                    "winners": self.winners(), "roles": list(self.roles)}, "all")

    @property
    def tied(self) -> bool:
        return len(self.top) > 1

    def vote_list(self) -> list[Seat]:
        return [self.votes[s] for s in range(PLAYERS)]

    def tally(self) -> list[int]:
        """Votes received by each seat."""
        received = [0] * PLAYERS
        for target in self.votes.values():
            received[target] += 1
        return received

    def winners(self) -> list[Seat]:
        assert self.voted_out is not None
        team = winning_team(self.roles[self.voted_out])
        return [s for s in range(PLAYERS) if TEAM[self.roles[s]] == team]

    def private(self, seat: Seat) -> dict[str, Any]:
        role = self.roles[seat]
        info: dict[str, Any] = {"role": role, "team": TEAM[role]}
        if role == "mason":
            info["fellow_mason"] = next(s for s in range(PLAYERS) if s != seat and self.roles[s] == "mason")
        return info

    def public(self) -> dict[str, Any]:
        return {"names": list(self.setup["names"]), "deck": list(DECK), "teams": dict(TEAM),
                "rounds": ROUNDS, "max_words": MAX_WORDS, "max_chars": MAX_CHARS,
                "ties": self.params["ties"]}

    def probes(self) -> tuple[str, ...]:
        # Once after each completed round of statements: before rounds 2 and 3 and before the vote.
        # The Werewolf knows who the Werewolf is; it is asked whom the others suspect instead
        # (Werewolf.probe_roles).
        if self.voted_out is not None or self.looked is None:
            return ()
        if self.statements in (PLAYERS, 2 * PLAYERS):
            return ("suspect", "suspected")
        if self.statements == ROUNDS * PLAYERS and not self.votes:
            return ("suspect", "suspected")
        return ()

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        assert self.voted_out is not None
        role = self.roles[self.voted_out]
        return self.winners(), {"voted_out": self.voted_out, "voted_out_role": role,
                                "winning_team": winning_team(role), "tie": self.tied,
                                "votes": self.vote_list(), "tally": self.tally(),
                                "roles": list(self.roles)}

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        others = [s for s in range(PLAYERS) if s != seat]
        phase = self._pending_phase()
        if phase == "night":
            return {"look": sorted(rng.sample(others, 2))}
        if phase == "day":
            return {"text": " ".join(rng.choice(_RANDOM_WORDS) for _ in range(rng.randint(1, 12)))}
        return {"vote": rng.choice(others)}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        other = (seat + 1) % PLAYERS
        third = (seat + 2) % PLAYERS
        phase = self._pending_phase()
        if phase == "night":
            return [{"look": [seat, other]}, {"look": [other, other]}, {"look": [other]},
                    {"look": [other, third, (seat + 3) % PLAYERS]}, {"look": [other, PLAYERS]},
                    {"look": [other, -1]}, {"look": [True, other]}, {"look": f"{other},{third}"},
                    {"look": [other, third], "vote": other}, {}, "look"]
        if phase == "day":
            return [{"text": ""}, {"text": "   \n "}, {"text": " ".join(["word"] * (MAX_WORDS + 1))},
                    {"text": "x" * (MAX_CHARS + 1)}, {"text": 7}, {"text": ["hi"]}, {},
                    {"text": "hello", "vote": other}, "hello"]
        return [{"vote": seat}, {"vote": PLAYERS}, {"vote": -1}, {"vote": str(other)},
                {"vote": True}, {"vote": float(other)}, {"vote": [other]}, {},
                {"vote": other, "text": "x"}, other]

    def _pending_phase(self) -> str | None:
        pending = self.pending()
        return pending.phase if pending is not None else None


class Werewolf(Game):
    """Eight seats, a dealt role each, eight dealt names; rule variant: how vote ties break."""

    name = "werewolf"
    title = "One Night Ultimate Werewolf (simplified)"
    roles = ROLES
    probe_roles = {**{role: frozenset({"suspect"}) for role in ("seer", "mason", "villager", "minion", "tanner")},
                   "werewolf": frozenset({"suspected"})}
    reveal_phases = frozenset({"result"})

    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(raw, [], "params", optional=["ties", "players"])
        # The player count is not a parameter: 8 is accepted for clarity and not recorded.
        players = raw.get("players", PLAYERS)
        require(is_int(players) and players == PLAYERS, "params.players",
                f"this game is played by exactly {PLAYERS} players, got {players!r}")
        ties = raw.get("ties", "random")
        require(isinstance(ties, str) and ties in TIES, "params.ties", f"must be one of {list(TIES)}")
        return {"ties": ties}

    def players(self, params: Mapping[str, Any]) -> int:
        return PLAYERS

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        roles = list(DECK)
        rng.shuffle(roles)
        names = rng.sample(content.load("werewolf_names")["names"], PLAYERS)
        return {"roles": roles, "names": names}

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["roles", "names"], "setup")
        roles, names = setup["roles"], setup["names"]
        require(isinstance(roles, list) and len(roles) == PLAYERS, "setup.roles",
                f"must be a list of {PLAYERS} roles, one per seat")
        for i, role in enumerate(roles):
            require(isinstance(role, str) and role in ROLES, f"setup.roles[{i}]",
                    f"must be one of {list(ROLES)}, got {role!r}")
        counts = Counter(roles)
        require(counts == Counter(DECK), "setup.roles",
                f"must hold exactly {_deck_summary(Counter(DECK))}; found {_deck_summary(counts)}")
        require(isinstance(names, list) and len(names) == PLAYERS, "setup.names",
                f"must be a list of {PLAYERS} names, one per seat")
        seen: dict[str, int] = {}
        for i, name in enumerate(names):
            field = f"setup.names[{i}]"
            require(isinstance(name, str) and name.strip() != "", field, "must be a non-empty string")
            require(len(name) <= MAX_NAME_CHARS, field, f"must be at most {MAX_NAME_CHARS} characters")
            require(name == name.strip() and name.isprintable(), field,
                    "must have no surrounding spaces and no control characters")
            # Statements refer to players by name, so names must differ even ignoring case.
            key = name.casefold()
            require(key not in seen, field, f"repeats setup.names[{seen.get(key)}] (ignoring case)")
            seen[key] = i

    def role_of(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat) -> str:
        return setup["roles"][seat]

    def seat_names(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> list[str]:
        return list(setup["names"])

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return WerewolfState(self, params, setup)

    def counterfactuals(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat,
                        rng: random.Random) -> list[dict[str, Any]]:
        roles = list(setup["roles"])
        # The Seer stays put for every seat: it is the only night actor, so moving it would
        # make the recorded night action illegal rather than test what `seat` can see.
        fixed = {seat, roles.index("seer")}
        if roles[seat] == "mason":
            fixed |= {s for s, r in enumerate(roles) if r == "mason"}
        if roles[seat] == "seer":
            fixed.add(roles.index("werewolf"))  # its night result depends on where the Werewolf sits
        free = [s for s in range(PLAYERS) if s not in fixed]
        variants: list[dict[str, Any]] = []
        seen = {tuple(roles)}
        for _ in range(20):
            shuffled = [roles[s] for s in free]
            rng.shuffle(shuffled)
            new = list(roles)
            for s, role in zip(free, shuffled):
                new[s] = role
            if tuple(new) not in seen:
                seen.add(tuple(new))
                variants.append({"roles": new, "names": list(setup["names"])})
            if len(variants) == 4:
                break
        return variants


GAME = Werewolf()

FACTS = Facts(
    winning="the village wins by voting out the Werewolf, the Tanner by being voted out, the Werewolf's "
            "team otherwise",
    outcome=Outcome("winning_team", {"village": "village wins", "werewolf": "werewolf team wins",
                                     "tanner": "tanner wins"}),
    default_opponent="werewolf/strategic",
    goals={
        **dict.fromkeys(("seer", "mason", "villager"), "You are of the village: get the Werewolf voted out."),
        **dict.fromkeys(("werewolf", "minion"), "You are of the werewolf team: get anyone but the Werewolf "
                                                "and the Tanner voted out."),
        "tanner": "You are the Tanner: get yourself voted out.",
    },
    roles_public_at="result", setup_public_at="result",
    partner_fields=("fellow_mason",),
    teams=TEAM,
    hidden=HiddenRole("werewolf", called="a Werewolf", told=True, talk=("day",)),
)
