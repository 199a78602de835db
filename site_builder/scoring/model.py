"""What the metrics read: replays re-simulated by the rules and reduced to plain data."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.replay.format import AgentDescription, agent_kind


#: Description fields that do not make an agent: its display name, and the model id the API
#: reported (only known after the seat's first answered call, so a seat that forfeited before
#: would otherwise split one model into two rows; it is metadata shown on the agent's page).
NOT_IDENTITY = ("name", "model_reported")


def agent_key(description: AgentDescription) -> str:
    """The identity of an agent on the leaderboard: what the tournament file said it is.

    Two seats are the same agent iff they have the same strategy/model, settings, parameters
    and design. Design parameters drawn at random per game (listed in `design_params.drawn`,
    e.g. Big Five trait levels) are the same design playing, so they are left out too.
    """
    if agent_kind(description) == "human":
        # A person is known only by the name they chose: each name is its own row.
        return json.dumps({"kind": "human", "name": description.get("name")}, sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))
    identity = {k: v for k, v in description.items() if k not in NOT_IDENTITY}
    params = identity.get("design_params")
    if isinstance(params, Mapping) and isinstance(params.get("drawn"), list):
        drawn = {str(k) for k in params["drawn"]}
        identity["design_params"] = {k: v for k, v in params.items() if k != "drawn" and k not in drawn}
    return json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SeatInfo:
    """One seat of one game."""

    seat: int
    name: str
    role: str
    agent: str  # agent_key
    won: bool


@dataclass(frozen=True)
class ScoredGame:
    """One valid replay, re-simulated: the outcome here is the one the rules recomputed.

    `events` are the replay's events without runner evidence: dicts with n, kind, phase, seat,
    data, vis. `probes` are dicts with seat, probe, answer and `after` (how many events came
    before the probe). `usage` sums the LLM evidence per seat: calls, input_tokens,
    output_tokens, cached_input_tokens, cache_write_input_tokens, latency_ms (zeros for scripted
    agents). `judgements` are the LLM-judge annotations (the Werewolf paper's EWAVM and the
    suspicions of Judgement Variation): dimension, judge (agent
    key), round, score, mentions, highlights, suspects, and failure (why a failed evaluation has no
    value, else None).
    """

    game_id: str
    game: str
    variant: Mapping[str, Any]
    setup: Mapping[str, Any]
    tournament: str
    created: str
    content_hash: str
    status: str  # "complete" or "invalid"
    seats: tuple[SeatInfo, ...]
    winners: tuple[int, ...]
    result: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...]
    probes: tuple[Mapping[str, Any], ...]
    usage: tuple[Mapping[str, float], ...]
    judgements: tuple[Mapping[str, Any], ...] = ()
    #: Per-game values the metrics read, computed once from the events (scoring/digest.py); a
    #: cached game keeps these instead of its events, probes and judgements.
    digest: Mapping[str, Any] = field(default_factory=dict)
    #: The ranked suite's deal this game is (the header's `suite`: name, version, stage, deal, seat;
    #: docs/replay-format.md), None for any other game.
    suite: Mapping[str, Any] | None = None
    #: The verification's deal this game is (the header's `verify`: row, suite, version, stage,
    #: deal, seat, and `held_out` for a held-out deal; runner/verify.py), None for any other game.
    verify: Mapping[str, Any] | None = None
    #: What the candidate's seat of a suite's or a verification's deal produced, as digests in order
    #: (`runner.verify.trace`: `replies`, `moves`), which a verification compares; None for other games.
    trace: Mapping[str, Any] | None = None

    def piece(self, name: str, compute: Callable[["ScoredGame"], Any]) -> Any:
        """A per-game value of the metrics: from the digest if the game carries one (a cached game
        has no events to compute it from), else computed."""
        return self.digest[name] if self.digest else compute(self)

    def __post_init__(self) -> None:
        # Read millions of times by the aggregations: computed once.
        object.__setattr__(self, "valid", self.status == "complete")
        object.__setattr__(self, "_agents", {s.agent for s in self.seats})

    #: False for a game that ended invalid (an agent never produced a legal move).
    valid: bool = field(init=False, repr=False, compare=False)

    @property
    def forfeiter(self) -> str | None:
        """The agent whose seat forfeited an invalid game (None for a complete game)."""
        if self.valid:
            return None
        seat = (self.result.get("forfeit") or {}).get("seat")
        return self.seats[seat].agent if isinstance(seat, int) and 0 <= seat < len(self.seats) else None

    def counts_for(self, agent: str) -> bool:
        """Whether this game enters `agent`'s rates: every complete game, and the invalid games
        it forfeited (as losses of all its seats); another agent's forfeit leaves it out."""
        return self.valid or self.forfeiter == agent

    def seats_of(self, agent: str) -> list[SeatInfo]:
        return [s for s in self.seats if s.agent == agent] if agent in self._agents else []

    def role_of(self, seat: int) -> str:
        return self.seats[seat].role

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id, "game": self.game, "variant": dict(self.variant),
            "setup": dict(self.setup), "tournament": self.tournament, "created": self.created,
            "content_hash": self.content_hash, "status": self.status,
            "seats": [s.__dict__ for s in self.seats], "winners": list(self.winners),
            "result": dict(self.result), "events": list(self.events), "probes": list(self.probes),
            "usage": list(self.usage), "judgements": list(self.judgements), "digest": dict(self.digest),
            "suite": dict(self.suite) if self.suite is not None else None,
            "verify": dict(self.verify) if self.verify is not None else None,
            "trace": dict(self.trace) if self.trace is not None else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ScoredGame":
        return cls(
            game_id=data["game_id"], game=data["game"], variant=data["variant"], setup=data["setup"],
            tournament=data["tournament"], created=data["created"], content_hash=data["content_hash"],
            status=data["status"],
            # One string per agent, however many seats and games (a large corpus holds 100,000s).
            seats=tuple(SeatInfo(s["seat"], s["name"], s["role"], sys.intern(s["agent"]), s["won"])
                        for s in data["seats"]),
            winners=tuple(data["winners"]), result=data["result"], events=tuple(data["events"]),
            probes=tuple(data["probes"]), usage=tuple(data["usage"]),
            judgements=tuple(data.get("judgements", ())), digest=data.get("digest", {}),
            suite=data.get("suite"), verify=data.get("verify"), trace=data.get("trace"),
        )


@dataclass(frozen=True)
class AgentInfo:
    """An agent on the leaderboard: its key, a display label and its full description."""

    key: str
    label: str
    description: Mapping[str, Any]
    reported: tuple[str, ...] = ()  # model ids the APIs answered with, over all its games

    @property
    def kind(self) -> str:
        return agent_kind(self.description) or ""

    @property
    def provider(self) -> str:
        """"builtin" for scripted agents, "human" for people, else the LLM provider."""
        if self.kind in ("builtin", "human"):
            return self.kind
        return str(self.description.get("provider", ""))

    @property
    def design(self) -> str:
        """The agent design ("vanilla" unless the description names one, e.g. "pgm")."""
        return str(self.description.get("design", "vanilla"))

    @property
    def base_key(self) -> str:
        """The key without the design: agents sharing it are the same model, differently designed."""
        base = {k: v for k, v in self.description.items() if k not in ("name", "design", "design_params")}
        return json.dumps(base, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def games_by_agent(games: Iterable[ScoredGame]) -> dict[str, list[ScoredGame]]:
    """The games each agent sat in, in the given order (one pass, however many agents)."""
    out: dict[str, list[ScoredGame]] = {}
    for game in games:
        for key in dict.fromkeys(s.agent for s in game.seats):
            out.setdefault(key, []).append(game)
    return out
