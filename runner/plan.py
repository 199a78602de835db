"""The plan's data model: which agents play which game, how often, with which seeds and ids.

A `Tournament` (read from a TOML file or built from command-line flags by runner/tournament.py,
or dealt by a suite, runner/suite.py) becomes a list of `PlannedGame`s whose seeds and ids are
derived deterministically, so a plan run twice (or resumed) names the same games, and the
validator (runner/rerun/identity.py) can derive an id again from a replay's header.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runner.llm.types import ModelSettings
from runner.seeds import rng_for

#: A lineup's `seats` rule: "dealt" deals the lineup's agents to the seats afresh each game, by a
#: shuffle drawn from the game's seed (`dealt_seats`); without it a lineup is rotated by one seat a
#: game, or, holding a person, kept in seat order (a person's practice game: they chose the seat).
SEAT_RULES = ("dealt",)
#: Keys of a language-model agent table. The played settings go into `AgentSpec.spec` (and so
#: into the game ids); how to reach the endpoint (`api_key_env`, `timeout_s`) does not.
LLM_PLAY_KEYS = ("provider", "model", "base_url", "temperature", "max_tokens", "seed", "design", "design_params",
                 "top_p", "stop", "reasoning_effort", "thinking_budget", "structured_output", "structured_reasoning",
                 "extra_body", "system_role")
#: Played keys written into `AgentSpec.spec` only when given, so that adding them kept the ids
#: of every tournament that does not use them.
LLM_OPTIONAL_KEYS = ("top_p", "stop", "reasoning_effort", "thinking_budget", "structured_output",
                     "structured_reasoning", "extra_body", "system_role")


@dataclass(frozen=True)
class AgentSpec:
    """A named agent: a built-in strategy with parameters, or a language model and its design.

    `spec` is what is played (and recorded): `{"builtin", "params"}` for a scripted agent, the
    LLM_PLAY_KEYS for a model. `access` says how to reach the model (the NAME of the variable
    holding its key, the timeout); it changes nothing in play, so it is not part of game ids.
    """

    name: str
    spec: Mapping[str, Any]
    access: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_llm(self) -> bool:
        return "provider" in self.spec

    @property
    def is_human(self) -> bool:
        """A person's seat (a plan `gamenight play` wrote): known by the name they chose alone."""
        return self.spec.get("human") is True

    def canonical(self) -> str:
        return json.dumps({"name": self.name, **self.spec}, sort_keys=True)

    def settings(self) -> ModelSettings:
        """The model settings of a language-model agent."""
        extra = {k: v for k, v in self.access.items() if v is not None}
        spec = self.spec
        stop = spec.get("stop")
        return ModelSettings(provider=spec["provider"], model=spec["model"],
                             base_url=spec["base_url"], temperature=spec["temperature"],
                             max_tokens=spec["max_tokens"], seed=spec["seed"], top_p=spec.get("top_p"),
                             stop=tuple(stop) if isinstance(stop, list) else stop,
                             reasoning_effort=spec.get("reasoning_effort"), thinking_budget=spec.get("thinking_budget"),
                             structured_output=spec.get("structured_output"), extra_body=spec.get("extra_body"),
                             system_role=spec.get("system_role", True), **extra)


@dataclass(frozen=True)
class SuiteDeal:
    """Where a matchup stands in a suite (runner/suite.py): its stage, the deal's index among the
    game's deals of the suite, and the seat the candidate plays in it."""

    stage: int
    index: int
    seat: int
    #: In a verification's plan (runner/verify.py): a held-out deal (its seed from the epoch's
    #: secret, runner/holdout.py) rather than one of the row's own deals played again.
    held_out: bool = False


@dataclass(frozen=True)
class VerifyRef:
    """What a verification's plan (its `verify` table, runner/verify.py) verifies: the suite row,
    its suite, and for its held-out deals the epoch, the epoch's commitment and the row's merge
    commit they are derived from; `deals` held-out deals and `replays` of the row's own deals."""

    row: str
    suite: str
    version: int
    epoch: int
    commitment: str
    commit: str
    deals: int
    replays: int


@dataclass(frozen=True)
class SuiteRef:
    """The suite a tournament plays (its `suite` table): the suite's name and version, how many of
    its stages the plan holds (stages 1..`stages`) and the label of the model in the candidate's seat."""

    name: str
    version: int
    stages: int
    model: str


@dataclass(frozen=True)
class Matchup:
    """One pairing of agents for one game, played `games` times."""

    game: str
    rules: Mapping[str, Any]
    games: int
    roles: Mapping[str, AgentSpec] = field(default_factory=dict)
    lineup: Sequence[AgentSpec] = ()
    seats: str | None = None  # a SEAT_RULES rule of a lineup, or None
    #: The game's own seed (a one-game matchup: a suite's deal, the same for every model), instead
    #: of one derived from the tournament's seed and the matchup (which names its agents).
    seed: int | None = None
    deal: SuiteDeal | None = None  # set in a suite's tournament

    @property
    def label(self) -> str:
        """A readable description, recorded in each replay header (and read back by the validator)."""
        if self.lineup:
            dealt = ", seats dealt" if self.seats == "dealt" else ""
            return f"lineup{dealt}: " + ", ".join(a.name for a in self.lineup)
        return "; ".join(f"{role}: {agent.name}" for role, agent in self.roles.items())

    def key(self) -> str:
        """Everything that identifies this matchup, canonically (for seeds and ids); the seat rule
        only when set, so the ids of every plan without one stay as they were."""
        key: dict[str, Any] = {"game": self.game, "rules": self.rules,
                               "roles": {r: a.canonical() for r, a in self.roles.items()},
                               "lineup": [a.canonical() for a in self.lineup]}
        if self.seats is not None:
            key["seats"] = self.seats
        return json.dumps(key, sort_keys=True)


@dataclass(frozen=True)
class PlannedGame:
    """One game to play: everything needed to play it and to name its replay."""

    tournament: str
    matchup: Matchup
    index: int
    seed: int
    game_id: str
    suite: SuiteRef | None = None  # the tournament's, when it plays a suite
    verify: VerifyRef | None = None  # the tournament's, when it verifies a suite's row

    def suite_header(self) -> dict[str, Any] | None:
        """The replay header's `suite` (format version 5) of a suite's deal; None for any other game."""
        deal = self.matchup.deal
        if self.suite is None or deal is None:
            return None
        return {"name": self.suite.name, "version": self.suite.version, "stage": deal.stage, "deal": deal.index,
                "seat": deal.seat}

    def verify_header(self) -> dict[str, Any] | None:
        """The replay header's `verify` (format version 7) of a verification's deal: the row, the
        suite, the deal and the candidate's seat, and for a held-out deal what its seed is derived
        from (epoch, commitment, the row's merge commit); None for any other game."""
        deal, ref = self.matchup.deal, self.verify
        if ref is None or deal is None:
            return None
        found: dict[str, Any] = {"row": ref.row, "suite": ref.suite, "version": ref.version, "stage": deal.stage,
                                 "deal": deal.index, "seat": deal.seat}
        if deal.held_out:
            found["held_out"] = {"epoch": ref.epoch, "commitment": ref.commitment, "commit": ref.commit}
        return found

    def agent_for(self, seat: int, role: str) -> AgentSpec:
        """The agent that sits at `seat`, whose dealt role is `role`."""
        if self.matchup.lineup:
            lineup = self.matchup.lineup
            if self.matchup.seats == "dealt":
                return lineup[dealt_seats(self.seed, len(lineup))[seat]]
            if any(a.is_human for a in lineup):
                return lineup[seat]  # a person chose their seat (a practice game): the lineup is not rotated
            return lineup[(seat - self.index) % len(lineup)]  # rotate so each agent sits everywhere
        return self.matchup.roles.get(role) or self.matchup.roles["*"]


def dealt_seats(seed: int, players: int) -> list[int]:
    """For a lineup whose seats are dealt: the lineup position of the agent at each seat, a shuffle
    drawn from the game's seed (its own generator, apart from the deal's and the chance draws')."""
    order = list(range(players))
    rng_for(seed, "seats").shuffle(order)
    return order


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model, for cost estimates and totals."""

    input: float
    output: float
    cached_input: float | None = None  # input tokens read from the provider's prompt cache (default: input)
    #: Input tokens written to the provider's prompt cache (Anthropic's cache_creation_input_tokens);
    #: default 1.25 times input, Anthropic's price of a 5-minute cache write. Either default never
    #: prices a cached token below what it may have cost.
    cache_write_input: float | None = None

    def cost(self, input_tokens: float, output_tokens: float, cached_input_tokens: float = 0,
             cache_write_input_tokens: float = 0) -> float:
        """USD for these tokens; `cached_input_tokens` (read from the cache) and `cache_write_input_tokens`
        (written to it) are part of `input_tokens`, priced at cached_input and cache_write_input."""
        cached = min(cached_input_tokens, input_tokens)
        written = min(cache_write_input_tokens, input_tokens - cached)
        cached_price = self.input if self.cached_input is None else self.cached_input
        write_price = self.input * 1.25 if self.cache_write_input is None else self.cache_write_input
        return ((input_tokens - cached - written) * self.input + cached * cached_price + written * write_price
                + output_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class Tournament:
    name: str
    seed: int
    created: str | None
    max_attempts: int
    probes: bool
    matchups: Sequence[Matchup]
    agents: Mapping[str, AgentSpec] = field(default_factory=dict)
    #: `[providers.<name>]` limit tables, checked, as keyword arguments of ProviderLimits.
    providers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prices: Mapping[str, Price] = field(default_factory=dict)
    suite: SuiteRef | None = None
    verify: VerifyRef | None = None

    def plan_file(self, note: str | None = None) -> str:
        """The tournament as a TOML file that plans exactly the same games (the same seeds and ids),
        holding only what is played: no key variables, timeouts, provider limits or prices, which
        belong to the machine that ran it. `gamenight run` writes it beside the replays as
        `tournament.toml`, and a submission carries it (docs/submit.md)."""
        import tomli_w

        agents: dict[str, dict[str, Any]] = {}
        for matchup in self.matchups:
            for agent in (*matchup.roles.values(), *matchup.lineup):
                if agent.name in agents or (not agent.is_llm and not agent.is_human
                                            and agent.name == agent.spec["builtin"] and not agent.spec["params"]):
                    continue  # a built-in strategy named directly needs no table
                if agent.is_human:
                    agents[agent.name] = {"human": True}
                elif agent.is_llm:
                    agents[agent.name] = {k: v for k, v in agent.spec.items() if v is not None}
                else:
                    agents[agent.name] = {"builtin": agent.spec["builtin"], **agent.spec["params"]}
        matchups = []
        for matchup in self.matchups:
            table: dict[str, Any] = {"game": matchup.game, "rules": dict(matchup.rules), "games": matchup.games}
            if matchup.seed is not None:
                table["seed"] = matchup.seed
            if matchup.deal is not None:
                table["deal"] = {"stage": matchup.deal.stage, "index": matchup.deal.index, "seat": matchup.deal.seat}
                if matchup.deal.held_out:
                    table["deal"]["held_out"] = True
            if matchup.lineup:
                table["lineup"] = [a.name for a in matchup.lineup]
                if matchup.seats is not None:
                    table["seats"] = matchup.seats
            else:
                table["roles"] = {role: a.name for role, a in matchup.roles.items()}
            matchups.append(table)
        raw: dict[str, Any] = {"name": self.name, "seed": self.seed}
        if self.created is not None:
            raw["created"] = self.created
        raw.update(max_attempts=self.max_attempts, probes=self.probes)
        if self.suite is not None:
            raw["suite"] = {"name": self.suite.name, "version": self.suite.version, "stages": self.suite.stages,
                            "model": self.suite.model}
        if self.verify is not None:
            v = self.verify
            raw["verify"] = {"row": v.row, "suite": v.suite, "version": v.version, "epoch": v.epoch,
                             "commitment": v.commitment, "commit": v.commit, "deals": v.deals, "replays": v.replays}
        raw.update(agents=agents, matchups=matchups)
        return (note or "# The plan of this folder's games, written by gamenight run: `gamenight run` on this file "
                        "plays\n# them again with the same seeds and game ids (add api_key_env to the model tables).\n"
                ) + tomli_w.dumps(raw)

    def llm_agents(self) -> list[AgentSpec]:
        """The language-model agents that play in some matchup, each once, in plan order."""
        found: dict[str, AgentSpec] = {}
        for matchup in self.matchups:
            for agent in (*matchup.roles.values(), *matchup.lineup):
                if agent.is_llm:
                    found.setdefault(agent.name, agent)
        return list(found.values())

    def plan(self) -> list[PlannedGame]:
        """Every game of the tournament, in a stable order."""
        return [game for i in range(len(self.matchups)) for game in self.plan_matchup(i)]

    def plan_matchup(self, position: int) -> Iterator[PlannedGame]:
        """The games of the matchup at `position`, in order."""
        matchup = self.matchups[position]
        key = matchup.key()
        for index in range(matchup.games):
            seed = derive_seed(self.seed, key, index) if matchup.seed is None else matchup.seed
            yield PlannedGame(self.name, matchup, index, seed, game_id(self.name, matchup.game, key, seed), self.suite,
                              self.verify)


def game_id(tournament: str, game: str, matchup_key: str, seed: int) -> str:
    """A game's id: its tournament, its game and a digest of tournament, matchup and seed (so one
    id names one deal of one matchup, and the validator can derive it again)."""
    digest = hashlib.sha256(f"{tournament}\n{matchup_key}\n{seed}".encode()).hexdigest()[:12]
    return f"{tournament}-{game}-{digest}"


def derive_seed(base: int, matchup_key: str, index: int) -> int:
    """A 63-bit game seed from the tournament seed, the matchup and the game's index."""
    digest = hashlib.sha256(f"{base}\n{matchup_key}\n{index}".encode()).hexdigest()
    return int(digest[:15], 16)
