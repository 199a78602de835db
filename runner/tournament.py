"""Tournament plans: which agents play which game, how often, with which seeds and ids.

A tournament is read from a TOML file (see runner/tournaments/builtin.toml and docs) or built
from command-line flags; either way it becomes a list of `PlannedGame`s whose seeds and ids
are derived deterministically, so a plan run twice (or resumed) names the same games.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import games
from runner.agents.builtin import strategies
from runner.games.base import SetupError
from runner.play import DEFAULT_MAX_ATTEMPTS

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
TOP_KEYS = {"name", "seed", "created", "max_attempts", "probes", "agents", "matchups"}
MATCHUP_KEYS = {"game", "rules", "games", "roles", "lineup"}


class PlanError(ValueError):
    """A tournament description that cannot be played; the message says where and why."""


@dataclass(frozen=True)
class AgentSpec:
    """A named agent: a built-in strategy with parameters (LLM specs come with providers)."""

    name: str
    spec: Mapping[str, Any]

    def canonical(self) -> str:
        return json.dumps({"name": self.name, **self.spec}, sort_keys=True)


@dataclass(frozen=True)
class Matchup:
    """One pairing of agents for one game, played `games` times."""

    game: str
    rules: Mapping[str, Any]
    games: int
    roles: Mapping[str, AgentSpec] = field(default_factory=dict)
    lineup: Sequence[AgentSpec] = ()

    @property
    def label(self) -> str:
        """A readable description, recorded in each replay header."""
        if self.lineup:
            return "lineup: " + ", ".join(a.name for a in self.lineup)
        return "; ".join(f"{role}: {agent.name}" for role, agent in self.roles.items())

    def key(self) -> str:
        """Everything that identifies this matchup, canonically (for seeds and ids)."""
        return json.dumps({"game": self.game, "rules": self.rules,
                           "roles": {r: a.canonical() for r, a in self.roles.items()},
                           "lineup": [a.canonical() for a in self.lineup]}, sort_keys=True)


@dataclass(frozen=True)
class PlannedGame:
    """One game to play: everything needed to play it and to name its replay."""

    tournament: str
    matchup: Matchup
    index: int
    seed: int
    game_id: str

    def agent_for(self, seat: int, role: str) -> AgentSpec:
        """The agent that sits at `seat`, whose dealt role is `role`."""
        if self.matchup.lineup:
            lineup = self.matchup.lineup
            return lineup[(seat - self.index) % len(lineup)]  # rotate so each agent sits everywhere
        return self.matchup.roles.get(role) or self.matchup.roles["*"]


@dataclass(frozen=True)
class Tournament:
    name: str
    seed: int
    created: str | None
    max_attempts: int
    probes: bool
    matchups: Sequence[Matchup]

    def plan(self) -> list[PlannedGame]:
        """Every game of the tournament, in a stable order."""
        planned = []
        for matchup in self.matchups:
            for index in range(matchup.games):
                seed = derive_seed(self.seed, matchup.key(), index)
                digest = hashlib.sha256(f"{self.name}\n{matchup.key()}\n{seed}".encode()).hexdigest()[:12]
                game_id = f"{self.name}-{matchup.game}-{digest}"
                planned.append(PlannedGame(self.name, matchup, index, seed, game_id))
        return planned


def derive_seed(base: int, matchup_key: str, index: int) -> int:
    """A 63-bit game seed from the tournament seed, the matchup and the game's index."""
    digest = hashlib.sha256(f"{base}\n{matchup_key}\n{index}".encode()).hexdigest()
    return int(digest[:15], 16)


def load(path: str | Path) -> Tournament:
    """Read and check a tournament TOML file."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlanError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PlanError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path}: not valid TOML: {exc}") from None
    return from_dict(raw, str(path))


def from_dict(raw: Mapping[str, Any], where: str = "tournament") -> Tournament:
    """Check a tournament description (as parsed from TOML) and build it."""
    unknown = sorted(set(raw) - TOP_KEYS)
    if unknown:
        raise PlanError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(TOP_KEYS)}")
    name = raw.get("name")
    if not isinstance(name, str) or not SLUG.match(name):
        raise PlanError(f"{where}: name: must be a short slug (letters, digits, . _ -), got {name!r}")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise PlanError(f"{where}: seed: must be a non-negative integer")
    created = raw.get("created")
    if created is not None:
        created = str(created)
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", created):
            raise PlanError(f"{where}: created: must be a date YYYY-MM-DD")
    attempts = raw.get("max_attempts", DEFAULT_MAX_ATTEMPTS)
    if not isinstance(attempts, int) or isinstance(attempts, bool) or not 1 <= attempts <= 20:
        raise PlanError(f"{where}: max_attempts: must be an integer from 1 to 20")
    probes = raw.get("probes", True)
    if not isinstance(probes, bool):
        raise PlanError(f"{where}: probes: must be true or false")
    agents = _agents(raw.get("agents", {}), where)
    matchups_raw = raw.get("matchups")
    if not isinstance(matchups_raw, list) or not matchups_raw:
        raise PlanError(f"{where}: matchups: needs at least one [[matchups]] table")
    matchups = [_matchup(m, agents, f"{where}: matchups[{i}]") for i, m in enumerate(matchups_raw)]
    return Tournament(name, seed, created, attempts, probes, matchups)


def _agents(raw: Any, where: str) -> dict[str, AgentSpec]:
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: agents: must be a table of named agents")
    known = strategies()
    found = {}
    for name, spec in raw.items():
        if not SLUG.match(name):
            raise PlanError(f"{where}: agents.{name}: agent names must be short slugs")
        if not isinstance(spec, Mapping) or "builtin" not in spec:
            raise PlanError(f"{where}: agents.{name}: needs builtin = \"<strategy>\" "
                            f"(known: {', '.join(sorted(known))})")
        if spec["builtin"] not in known:
            raise PlanError(f"{where}: agents.{name}.builtin: unknown strategy {spec['builtin']!r}; "
                            f"known: {', '.join(sorted(known))}")
        params = {k: v for k, v in spec.items() if k != "builtin"}
        defaults = known[spec["builtin"]].defaults
        bad = sorted(set(params) - set(defaults))
        if bad:
            raise PlanError(f"{where}: agents.{name}: {spec['builtin']} has no parameter(s) {bad}; "
                            f"it takes {sorted(defaults) or 'none'}")
        found[name] = AgentSpec(name, {"builtin": spec["builtin"], "params": params})
    return found


def resolve_agent(ref: Any, agents: Mapping[str, AgentSpec], where: str) -> AgentSpec:
    """A named agent from the tournament's table, or a built-in strategy named directly."""
    if not isinstance(ref, str):
        raise PlanError(f"{where}: must name an agent, got {ref!r}")
    if ref in agents:
        return agents[ref]
    if ref in strategies():
        return AgentSpec(ref, {"builtin": ref, "params": {}})
    raise PlanError(f"{where}: {ref!r} is neither an agent of this tournament "
                    f"({', '.join(sorted(agents)) or 'none defined'}) nor a built-in strategy")


def _matchup(raw: Any, agents: Mapping[str, AgentSpec], where: str) -> Matchup:
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: must be a table")
    unknown = sorted(set(raw) - MATCHUP_KEYS)
    if unknown:
        raise PlanError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(MATCHUP_KEYS)}")
    name = raw.get("game")
    try:
        game = games.get(name) if isinstance(name, str) else None
    except KeyError as exc:
        raise PlanError(f"{where}: game: {exc.args[0]}") from None
    if game is None:
        raise PlanError(f"{where}: game: must name a game ({', '.join(games.available())})")
    try:
        rules = game.params(raw.get("rules", {}))
    except SetupError as exc:
        raise PlanError(f"{where}: rules: {exc}") from None
    count = raw.get("games", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 100_000:
        raise PlanError(f"{where}: games: must be an integer from 1 to 100000")
    if ("roles" in raw) == ("lineup" in raw):
        raise PlanError(f"{where}: give either roles = {{role = agent}} or lineup = [agents by seat]")
    if "lineup" in raw:
        lineup_raw = raw["lineup"]
        n = game.players(rules)
        if not isinstance(lineup_raw, list) or len(lineup_raw) != n:
            raise PlanError(f"{where}: lineup: {game.title} with these rules seats {n} agents")
        lineup = [resolve_agent(a, agents, f"{where}: lineup[{i}]") for i, a in enumerate(lineup_raw)]
        for i, agent in enumerate(lineup):
            _check_plays(agent, game.name, f"{where}: lineup[{i}]")
        return Matchup(game.name, rules, count, lineup=lineup)
    roles_raw = raw["roles"]
    if not isinstance(roles_raw, Mapping):
        raise PlanError(f"{where}: roles: must map roles to agents")
    bad = sorted(set(roles_raw) - set(game.roles) - {"*"})
    if bad:
        raise PlanError(f"{where}: roles: {game.title} has no role(s) {bad}; roles: {', '.join(game.roles)} "
                        "(\"*\" for every other role)")
    missing = [r for r in game.roles if r not in roles_raw]
    if missing and "*" not in roles_raw:
        raise PlanError(f"{where}: roles: no agent for {missing} (name them or use \"*\")")
    roles = {r: resolve_agent(a, agents, f"{where}: roles.{r}") for r, a in roles_raw.items()}
    for role, agent in roles.items():
        _check_plays(agent, game.name, f"{where}: roles.{role}")
    return Matchup(game.name, rules, count, roles=roles)


def _check_plays(agent: AgentSpec, game: str, where: str) -> None:
    strategy = agent.spec.get("builtin", "")
    if "/" in strategy and not strategy.startswith(game + "/"):
        raise PlanError(f"{where}: {agent.name} ({strategy}) does not play {game}")


def from_flags(name: str, game: str, roles: Sequence[str], lineup: str | None, rules: Mapping[str, Any],
               count: int, seed: int, created: str | None = None) -> Tournament:
    """A one-matchup tournament from command-line flags (role=agent pairs or a lineup)."""
    matchup: dict[str, Any] = {"game": game, "games": count, "rules": dict(rules)}
    if lineup:
        matchup["lineup"] = [a.strip() for a in lineup.split(",") if a.strip()]
    if roles:
        pairs = {}
        for item in roles:
            role, sep, agent = item.partition("=")
            if not sep:
                raise PlanError(f"--role {item!r}: expected ROLE=AGENT")
            pairs[role.strip()] = agent.strip()
        matchup["roles"] = pairs
    raw = {"name": name, "seed": seed, "matchups": [matchup]}
    if created:
        raw["created"] = created
    return from_dict(raw, "command line")
