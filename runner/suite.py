"""The ranked suite: one protocol for every model, read from a versioned file the maintainers own.

A suite (runner/suites/<name>-<version>.toml) fixes, for each of its games, the variant, the
built-in opponents, and which role and seat the candidate plays in each deal. Its deals come in
stages of a fixed size, played in order. A deal's seed follows from the suite's name, version, game
and the deal's index alone, so every model plays exactly the same deals against exactly the same
opponents (as every table of duplicate bridge plays the same hands), and no contributor chooses a
seed. `tournament_for` expands stages 1..N for one candidate into an ordinary tournament (a
one-game lineup matchup per deal, with the deal's own seed), which the runner plays and resumes, and
`plan_problems` says where a submitted plan is not exactly that expansion.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from runner import games, tomlfile
from runner.deals import MAX_STAGES, Dealing, NoDraw, first_draw, shipped_suites
from runner.deals import deal_seed as draw_seed
from runner.games.base import SetupError, is_int
from runner.llm.providers import NAMES
from runner.plan import AgentSpec, Matchup, SuiteDeal, SuiteRef, Tournament
from runner.play import DEFAULT_MAX_ATTEMPTS
from runner.agents.builtin import strategies
from runner.tournament import (MAX_FILE_BYTES, SLUG, PlanError, _check_plays, agents_table, compact_model,
                               reading_key, resolve_agent)
from runner.tournament import load as load_tournament

TOP_KEYS = {"name", "version", "max_attempts", "probes", "agents", "games", "references"}
GAME_KEYS = {"rules", "deals_per_stage", "roles", "opponents"}
#: How a built-in reference row is asked for on the command line (`--model builtin:<reference>`).
BUILTIN_PREFIX = "builtin:"


class SuiteError(PlanError):
    """A suite file that cannot be played, or a suite asked for that does not exist."""


@dataclass(frozen=True)
class SuiteGame(Dealing):
    """One game of a suite: how it is dealt (its variant, deals per stage, the candidate's roles in
    turn and seats: runner/deals.py) and the opponents, from the seat after the candidate's on."""

    opponents: tuple[AgentSpec, ...]


@dataclass(frozen=True)
class Suite:
    name: str
    version: int
    max_attempts: int
    probes: bool
    games: Sequence[SuiteGame]
    #: Built-in reference rows: name -> the built-in agent in the candidate's seat, per game.
    references: Mapping[str, Mapping[str, AgentSpec]]
    where: str

    @property
    def stage_size(self) -> int:
        return sum(g.deals_per_stage for g in self.games)


@dataclass(frozen=True)
class Deal:
    """One deal of a suite: the game, its stage, its index among the game's deals, its seed, and
    the candidate's role and seat."""

    game: SuiteGame
    stage: int
    index: int
    seed: int
    seat: int
    role: str | None


@dataclass(frozen=True)
class Candidate:
    """Who takes the candidate's seat: a language model (the same agent in every game) or a built-in
    reference row (one agent per game), under the label that names its row and folder."""

    label: str
    agents: Mapping[str, AgentSpec]  # game -> agent; "*" for every game

    def agent(self, game: str) -> AgentSpec:
        return self.agents.get(game) or self.agents["*"]


# -- finding and reading a suite ---------------------------------------------------------------

def find(ref: str) -> Suite:
    """A suite by name (its newest shipped version), by `name-version`, or by a file's path."""
    shipped = shipped_suites()
    name, _, version = ref.rpartition("-")
    if ref in shipped:
        file_name = shipped[ref][max(shipped[ref])]
    elif name in shipped and version.isdigit() and int(version) in shipped[name]:
        file_name = shipped[name][int(version)]
    elif ref.endswith(".toml") or os.sep in ref or "/" in ref:
        return load(ref)
    else:
        known = ", ".join(f"{n} (versions {', '.join(map(str, sorted(v)))})" for n, v in sorted(shipped.items()))
        raise SuiteError(f"--suite {ref!r}: no such suite; shipped: {known or 'none'}, or give a suite file's path")
    with resources.as_file(resources.files("runner").joinpath("suites", file_name)) as path:
        return load(path, f"runner/suites/{file_name}")


def shipped(name: str, version: int) -> Suite | None:
    """The shipped suite of this name and version, or None."""
    file_name = shipped_suites().get(name, {}).get(version)
    if file_name is None:
        return None
    with resources.as_file(resources.files("runner").joinpath("suites", file_name)) as path:
        return load(path, f"runner/suites/{file_name}")


def load(path: str | Path, shown: str | None = None) -> Suite:
    """Read and check a suite file; anything wrong is a SuiteError of one line naming the file and
    the field (and the line of the game's table, where the problem is in one)."""
    return tomlfile.read_checked(path, MAX_FILE_BYTES, shown or str(path), from_dict, SuiteError, PlanError, "a suite")


def from_dict(raw: Mapping[str, Any], where: str = "suite", text: str = "") -> Suite:
    """Check a suite description (as parsed from TOML; `text`, the file, only to name lines)."""
    unknown = sorted(set(raw) - TOP_KEYS)
    if unknown:
        raise SuiteError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(TOP_KEYS)}")
    name, version = raw.get("name"), raw.get("version")
    if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$", name) or name.endswith("-"):
        raise SuiteError(f"{where}: name: must be a short slug (letters, digits, _ and -), got {name!r}")
    if not is_int(version) or not 1 <= version <= 100_000:
        raise SuiteError(f"{where}: version: must be a whole number from 1 to 100000, got {version!r}")
    attempts = raw.get("max_attempts", DEFAULT_MAX_ATTEMPTS)
    if not is_int(attempts) or not 1 <= attempts <= 20:
        raise SuiteError(f"{where}: max_attempts: must be a whole number from 1 to 20")
    probes = raw.get("probes", True)
    if not isinstance(probes, bool):
        raise SuiteError(f"{where}: probes: must be true or false")
    agents = agents_table(raw.get("agents", {}), where)
    table = raw.get("games")
    if not isinstance(table, Mapping) or not table:
        raise SuiteError(f"{where}: games: needs a [games.<game>] table per game")
    suite_games = [_game(game, spec, agents, _at(where, text, f"games.{game}")) for game, spec in table.items()]
    references = _references(raw.get("references", {}), agents, suite_games, where, text)
    return Suite(name, version, attempts, probes, suite_games, references, where)


def _at(where: str, text: str, table: str) -> str:
    """`where` with the line of `[table]` in the file, when it can be found."""
    pattern = re.compile(r"^[ \t]*\[[ \t]*" + r"[ \t]*\.[ \t]*".join(re.escape(p) for p in table.split("."))
                         + r"[ \t]*\]", re.MULTILINE)
    found = pattern.search(text)
    return f"{where}:{text.count(chr(10), 0, found.start()) + 1}: {table}" if found else f"{where}: {table}"


def _game(name: Any, spec: Any, agents: Mapping[str, AgentSpec], here: str) -> SuiteGame:
    if name not in games.available():
        raise SuiteError(f"{here}: no such game; games: {', '.join(games.available())}")
    if not isinstance(spec, Mapping):
        raise SuiteError(f"{here}: must be a table")
    unknown = sorted(set(spec) - GAME_KEYS)
    if unknown:
        raise SuiteError(f"{here}: unknown key(s) {unknown}; allowed: {sorted(GAME_KEYS)}")
    game = games.get(name)
    try:
        rules = game.params(spec.get("rules", {}))
    except SetupError as exc:
        raise SuiteError(f"{here}.rules: {exc}") from None
    players = game.players(rules)
    roles = spec.get("roles", [])
    dealt = len(game.roles) > 1
    if dealt and (not isinstance(roles, list) or sorted(roles) != sorted(game.roles)):
        raise SuiteError(f"{here}.roles: the candidate's roles in turn must list each role of {game.title} once "
                         f"({', '.join(game.roles)}), so that every model plays every role equally often")
    if not dealt and roles:
        raise SuiteError(f"{here}.roles: every seat of {game.title} has the same role; the candidate moves seat "
                         "by seat instead")
    per_stage = spec.get("deals_per_stage")
    cycle = len(roles) if dealt else players
    if not is_int(per_stage) or not 1 <= per_stage <= 10_000 or per_stage % cycle:
        what = f"its {cycle} roles" if dealt else f"its {players} seats"
        raise SuiteError(f"{here}.deals_per_stage: must be a whole multiple of {cycle} (a stage gives "
                         f"{what} to the candidate equally often), got {per_stage!r}")
    opponents_raw = spec.get("opponents")
    if not isinstance(opponents_raw, list) or len(opponents_raw) != players - 1:
        raise SuiteError(f"{here}.opponents: {game.title} with these rules seats {players}: name the "
                         f"{players - 1} opponents, from the seat after the candidate's on")
    opponents = tuple(resolve_agent(a, agents, f"{here}.opponents[{i}]") for i, a in enumerate(opponents_raw))
    for i, agent in enumerate(opponents):
        if agent.is_llm or agent.is_human:
            raise SuiteError(f"{here}.opponents[{i}]: {agent.name} is not a built-in agent: a suite's opponents are "
                             "built-in, so that every move of theirs is derived again from the seed and no "
                             "contributor pays for them")
        _check_builtin(agent, name, rules, f"{here}.opponents[{i}]")
    return SuiteGame(name, rules, per_stage, tuple(roles), players, opponents)


def _check_builtin(agent: AgentSpec, game: str, rules: Mapping[str, Any], here: str) -> None:
    try:
        _check_plays(agent, game, rules, here)
    except PlanError as exc:
        raise SuiteError(str(exc)) from None


def _references(raw: Any, agents: Mapping[str, AgentSpec], suite_games: Sequence[SuiteGame], where: str,
                text: str) -> dict[str, dict[str, AgentSpec]]:
    """`[references.<name>]`: a built-in agent per game, the reference rows of the ranked board."""
    if not isinstance(raw, Mapping):
        raise SuiteError(f"{where}: references: must be tables like [references.scripted]")
    found = {}
    for name, table in raw.items():
        here = _at(where, text, f"references.{name}")
        if not isinstance(name, str) or not re.match(r"^[a-z0-9][a-z0-9-]{0,30}$", name):
            raise SuiteError(f"{here}: a reference's name is a short lowercase slug")
        if not isinstance(table, Mapping) or set(table) != {g.game for g in suite_games}:
            raise SuiteError(f"{here}: name one built-in agent for each game of the suite "
                             f"({', '.join(g.game for g in suite_games)})")
        found[name] = {}
        for game in suite_games:
            agent = resolve_agent(table[game.game], agents, f"{here}.{game.game}")
            if agent.is_llm or agent.is_human:
                raise SuiteError(f"{here}.{game.game}: a reference row is a built-in agent")
            _check_builtin(agent, game.game, game.rules, f"{here}.{game.game}")
            found[name][game.game] = agent
    return found


# -- deals and the plan of a candidate --------------------------------------------------------

def deal_seed(suite: Suite, game: str, index: int, attempt: int) -> int:
    """The seed of a deal's `attempt`-th draw (runner/deals.py)."""
    return draw_seed(suite.name, suite.version, game, index, attempt)


def deal(suite: Suite, game: SuiteGame, index: int) -> Deal:
    """Deal `index` of a game: the first of its draws that deals the candidate's role at the
    candidate's seat (every draw when the game has one role)."""
    role, seat = game.slot(index)
    try:
        seed = first_draw(suite.name, suite.version, game, index)
    except NoDraw as exc:
        raise SuiteError(f"{suite.where}: {exc}") from None
    return Deal(game, index // game.deals_per_stage + 1, index, seed, seat, role)


def deals(suite: Suite, stages: int) -> list[Deal]:
    """Every deal of stages 1..`stages`, stage by stage, each stage in the suite's order of games."""
    return [deal(suite, game, index)
            for stage in range(stages) for game in suite.games
            for index in range(stage * game.deals_per_stage, (stage + 1) * game.deals_per_stage)]


def candidate(suite: Suite, model: str, label: str | None = None, key_env: str | None = None) -> Candidate:
    """The candidate `--model` names: `provider:model[@base_url]`, an agent of a tournament file
    (`file.toml#agent`, with its settings), or `builtin:<reference>` (a reference row of the suite)
    or `builtin:<strategy>` (one that plays every game, like random).

    `label` (`--label`) names a language model's row, its folder and its agent instead of the model's
    own name; `key_env` (`--key-env`) is the variable its key is read from. Neither changes how it
    plays; the label is part of its game ids (as an agent's name always is), the key variable is not."""
    if model.startswith(BUILTIN_PREFIX):
        if label is not None or key_env is not None:
            option = "--label" if label is not None else "--key-env"
            raise SuiteError(f"{option}: --model {model} is a built-in row of the suite, named by the suite and "
                             "reading no key")
        return _builtin_candidate(suite, model)
    path, hash_, name = model.rpartition("#")[0], "#" in model, model.rpartition("#")[2]
    if hash_ and path.endswith(".toml"):
        agent = _agent_from_file(path, name, model)
    elif model.partition(":")[0] not in NAMES:
        raise SuiteError(f"--model {model!r}: name a model as provider:model[@base_url] (providers: "
                         f"{', '.join(NAMES)}), or a reference row as builtin:<reference>")
    else:
        agent = compact_model(model, "--model")
    if label is not None:
        agent = AgentSpec(_label(label), agent.spec, agent.access)
    if key_env is not None:
        agent = reading_key(agent, key_env)
    return Candidate(agent.name, {"*": agent})


def _label(label: str) -> str:
    """A row's own label (`--label`): a slug that is not a reference row's name."""
    if not SLUG.match(label) or len(label) > 60:
        raise SuiteError(f"--label {label!r}: a label is a short slug (letters, digits, . _ -, at most 60)")
    if label.startswith("builtin-"):
        raise SuiteError(f"--label {label!r}: labels starting with builtin- name the suite's built-in rows")
    return label


def _builtin_candidate(suite: Suite, model: str) -> Candidate:
    """`builtin:<reference>` or `builtin:<strategy>`: a built-in row of the suite."""
    name = model[len(BUILTIN_PREFIX):]
    if name in suite.references:
        return Candidate(f"builtin-{name}", dict(suite.references[name]))
    if name in strategies() and "/" not in name:
        agent = AgentSpec(name, {"builtin": name, "params": {}})
        for game in suite.games:
            _check_builtin(agent, game.game, game.rules, f"--model {model}")
        return Candidate(f"builtin-{name.replace('_', '-')}", {"*": agent})
    raise SuiteError(f"--model {model!r}: the suite {suite.name}-{suite.version} has no reference {name!r}; "
                     f"its references: {', '.join(sorted(suite.references)) or 'none'} (or builtin:random)")


def _agent_from_file(path: str, name: str, model: str) -> AgentSpec:
    """A language-model agent of a tournament file (`file.toml#agent`): the model with every
    setting that file gives it (structured outputs, temperature, design, ...), named as there."""
    agents = load_tournament(path, matchups_required=False).agents
    agent = agents.get(name)
    if agent is None or not agent.is_llm:
        known = ", ".join(sorted(n for n, a in agents.items() if a.is_llm)) or "none"
        raise SuiteError(f"--model {model!r}: {path} has no language-model agent {name!r} (its models: {known})")
    return agent


def tournament_name(suite: Suite, label: str) -> str:
    name = f"{suite.name}-{suite.version}-{label}"
    if not SLUG.match(name):
        raise SuiteError(f"--model: the tournament name {name!r} is too long; name a model of at most "
                         f"{79 - len(suite.name) - len(str(suite.version)) - 2} characters")
    return name


def tournament_for(suite: Suite, who: Candidate, stages: int) -> Tournament:
    """Stages 1..`stages` of the suite with `who` in the candidate's seat, as an ordinary tournament:
    one one-game lineup matchup per deal, in seat order, with the deal's own seed."""
    if not 1 <= stages <= MAX_STAGES:
        raise SuiteError(f"--stages: must be from 1 to {MAX_STAGES}, got {stages}")
    matchups = []
    for one in deals(suite, stages):
        matchups.append(Matchup(one.game.game, one.game.rules, 1, lineup=seated(one.game, who.agent(one.game.game),
                                                                                one.seat),
                                seed=one.seed, deal=SuiteDeal(one.stage, one.index, one.seat)))
    agents = {a.name: a for m in matchups for a in m.lineup if a.is_llm}
    return Tournament(tournament_name(suite, who.label), 0, None, suite.max_attempts, suite.probes, matchups, agents,
                      suite=SuiteRef(suite.name, suite.version, stages, who.label))


def seated(game: SuiteGame, candidate: AgentSpec, seat: int) -> list[AgentSpec]:
    """A deal's lineup in seat order: the candidate at `seat`, the suite's opponents from the seat
    after it on (wrapping round)."""
    n = game.players
    lineup: list[AgentSpec] = [candidate] * n
    for offset, opponent in enumerate(game.opponents, start=1):
        lineup[(seat + offset) % n] = opponent
    return lineup


# -- is a plan exactly the suite's? -----------------------------------------------------------

def plan_problems(tournament: Tournament) -> list[tuple[str, str]]:
    """Where a plan that says it plays a suite is not exactly stages 1..k of that suite for its
    model: (field, why) pairs, empty when it is. The candidate is read from the plan (the agent at
    the candidate's seat of each deal); everything else must be the suite's own."""
    ref = tournament.suite
    assert ref is not None
    suite = shipped(ref.name, ref.version)
    if suite is None:
        known = ", ".join(f"{n}-{v}" for n, vs in sorted(shipped_suites().items()) for v in sorted(vs))
        return [("suite", f"no suite {ref.name}-{ref.version} is shipped with gamenight (shipped: {known or 'none'})")]
    if not tournament.matchups:
        return [("matchups", "a suite's plan holds its deals")]
    in_seat = [(m.game, m.lineup[m.deal.seat]) for m in tournament.matchups
               if m.deal is not None and m.deal.seat < len(m.lineup)]
    seated = dict(reversed(in_seat))  # each game's first deal's
    if any(seated[game] != agent for game, agent in in_seat):
        return [("matchups", "the candidate's seat holds the same agent in every deal of a game")]
    who, problem = _candidate_of(suite, ref.model, seated)
    if problem:
        return [problem]
    try:
        expected = tournament_for(suite, who, ref.stages)
    except PlanError as exc:
        return [("suite", str(exc))]
    problems = []
    for key, mine, theirs in (("name", tournament.name, expected.name),
                              ("max_attempts", tournament.max_attempts, expected.max_attempts),
                              ("probes", tournament.probes, expected.probes)):
        if mine != theirs:
            problems.append((key, f"the suite {ref.name}-{ref.version} for {ref.model} has {theirs!r}"))
    if len(tournament.matchups) != len(expected.matchups):
        problems.append(("matchups", f"stages 1..{ref.stages} of the suite {ref.name}-{ref.version} are "
                                     f"{len(expected.matchups)} deals; the plan has {len(tournament.matchups)}"))
    for i, (mine, theirs) in enumerate(zip(tournament.matchups, expected.matchups)):
        found = _matchup_difference(mine, theirs)
        if found:
            problems.append((f"matchups[{i}].{found[0]}", found[1]))
            break  # the first difference says what was changed; the rest follow from it
    return problems


def _candidate_of(suite: Suite, label: str, seated: Mapping[str, AgentSpec]
                  ) -> tuple[Candidate, tuple[str, str] | None]:
    """The candidate a plan seats, and why it is not one a suite row can have (or None): one
    language model in every game, named by the row's label, or a reference row of the suite."""
    who = Candidate(label, dict(seated))
    models = {a.canonical() for a in seated.values() if a.is_llm or a.is_human}
    if models:
        if len(models) > 1 or len(models) != len({a.canonical() for a in seated.values()}):
            return who, ("matchups", "the candidate's seat holds one language model in every deal of the suite")
        agent = next(iter(seated.values()))
        if agent.is_human:
            return who, ("matchups", "a person's games are played with `gamenight play`, not a suite")
        if agent.name != label:
            return who, ("suite.model", f"the row's label is its model's agent name, {agent.name!r}")
        return who, None
    for name, agents in suite.references.items():
        if label == f"builtin-{name}" and all(seated.get(g) == a for g, a in agents.items()):
            return who, None
    if len({a.canonical() for a in seated.values()}) == 1:
        agent = next(iter(seated.values()))
        if label == f"builtin-{agent.name.replace('_', '-')}" and "/" not in agent.name:
            return who, None
    return who, ("suite.model", f"built-in agents take the candidate's seat only as a reference row of the suite "
                                f"({', '.join(f'builtin-{n}' for n in sorted(suite.references))}) or as one "
                                "strategy that plays every game (builtin-random)")


def _matchup_difference(mine: Matchup, theirs: Matchup) -> tuple[str, str] | None:
    assert theirs.deal is not None
    if mine.deal is not None and mine.deal.stage != theirs.deal.stage:
        return "deal.stage", (f"the suite's deal here is of stage {theirs.deal.stage}: a suite's plan holds stages "
                              "1, 2, ... in order, none skipped")
    if mine.game != theirs.game or mine.deal is None or mine.deal.index != theirs.deal.index:
        return "game", f"the suite's deal here is {theirs.game} deal {theirs.deal.index} (stage {theirs.deal.stage})"
    if dict(mine.rules) != dict(theirs.rules):
        return "rules", f"the suite plays {theirs.game} with the rules {dict(theirs.rules)}"
    if mine.seed != theirs.seed:
        return "seed", (f"the suite deals {theirs.game} deal {theirs.deal.index} with seed {theirs.seed}: a deal's "
                        "seed follows from the suite alone")
    if mine.deal.seat != theirs.deal.seat:
        return "deal.seat", f"the candidate plays seat {theirs.deal.seat} in this deal of the suite"
    if mine.seats is not None or len(mine.lineup) != len(theirs.lineup):
        return "lineup", "the suite seats its agents by a lineup in seat order"
    for seat, (a, b) in enumerate(zip(mine.lineup, theirs.lineup)):
        if a.canonical() != b.canonical():
            return f"lineup[{seat}]", (f"the suite seats {b.name!r} here" + (" (its candidate's seat is "
                                       f"{theirs.deal.seat})" if seat != theirs.deal.seat else ""))
    return None


# -- how well a row is measured so far (printed by --until-width and --budget) -----------------

@dataclass(frozen=True)
class Standing:
    """The candidate's score over the suite games in a folder, with its 95% interval: the very
    score and interval of the ranked board (runner/suite_score.py)."""

    games: int
    wins: int
    score: float
    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low


def standing(out: Path, tournament: str, suite: Suite | None = None) -> Standing:
    """The candidate's standing from the replays of `tournament` in `out`, counted as the board
    counts it: each deal's value (`suite_score.deal_value`; a deal the candidate forfeited is worth
    0), a deal another seat forfeited left out (that tells nothing of the candidate), the games'
    slots those of `suite` (by default the shipped suite the replays name). `wins` counts the
    deals whose outcome names the candidate's seat among its winners."""
    import json

    from runner.suite_score import cycles_of, deal_value, score

    deals: dict[str, dict[int, float]] = {}
    wins, named = 0, None
    for path in sorted(out.glob("*.jsonl")):
        header, outcome = None, None
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # a damaged file: `gamenight validate` says what is wrong with it
                break
            if isinstance(record, dict) and record.get("type") == "header":
                header = record
            elif isinstance(record, dict) and record.get("type") == "outcome":
                outcome = record
        if not header or not outcome or header.get("tournament") != tournament or "suite" not in header:
            continue
        seat = header["suite"]["seat"]
        named = named or header["suite"]
        forfeit = (outcome.get("result") or {}).get("forfeit") if outcome.get("status") == "invalid" else None
        if forfeit is not None and forfeit.get("seat") != seat:
            continue
        winners = outcome.get("winners", ()) if forfeit is None else ()
        wins += seat in winners
        deals.setdefault(header["game"], {})[int(header["suite"]["deal"])] = deal_value(
            header["game"], outcome.get("result") or {}, winners, seat, forfeited=forfeit is not None)
    games_ = sum(len(d) for d in deals.values())
    if not games_:
        return Standing(0, 0, 0.0, 0.0, 1.0)
    if suite is None and named is not None:
        suite = shipped(str(named.get("name")), int(named.get("version", 0)))
    row = score(deals, cycles_of(suite.games) if suite else None)
    return Standing(games_, wins, row["value"], *row["ci"])


def stages_for_width(suite: Suite, width: float, most: int) -> int | None:
    """The stages `--until-width` plays: the fewest (at most `most`) after which a row winning half
    of every game has an interval narrower than `width` (runner/suite_score.py: a number that
    depends on the suite and the width alone, so that stopping there cannot bias the score)."""
    from runner.suite_score import stages_for_width as fewest

    return fewest({g.game: g.deals_per_stage for g in suite.games}, width, most)
