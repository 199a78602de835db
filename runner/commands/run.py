"""`gamenight run`: play a tournament file, the built-in tournament, one matchup described by
flags, or a ranked suite's row (runner/commands/run_suite.py), and write one replay per game."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

import click

from runner.commands import run_suite
from runner.commands.estimates import print_estimate, print_suite_estimate, table_prices
from runner.commands.playing import Playing, play
from runner.llm.providers import PROVIDERS
from runner.plan import Tournament
from runner.run import default_cache_dir
from runner.tournament import MAX_SEED, PlanError, from_flags, key_option, load, with_key_env

BUILTIN_TOURNAMENT = "builtin.toml"


@dataclass(frozen=True)
class Matchups:
    """The options of `run` that say what to play outside a suite: a tournament file (the built-in
    one without it), or one matchup described by --game flags; with --games and --seed over either."""

    tournament_file: Path | None
    game_name: str | None
    roles: tuple[str, ...]
    lineup: str | None
    rules: tuple[str, ...]
    name: str
    count: int | None
    seed: int | None

    @property
    def given(self) -> bool:
        """Whether any of these options is given (a suite's row takes none)."""
        return bool(self.tournament_file or self.game_name or self.count or self.seed is not None or self.roles
                    or self.lineup or self.rules)


@dataclass(frozen=True)
class RunRequest:
    """`gamenight run`'s options: what to play (matchups or a suite's row), and how."""

    matchups: Matchups
    suite: run_suite.SuiteRequest
    out: Path | None
    parallel: int
    cache_dir: Path | None
    no_cache: bool
    only_mine: bool
    key_env: str | None
    dry_run: bool

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> RunRequest:
        """The request from click's parameters, each taken by its name (every one of them)."""
        parts = {"matchups": Matchups, "suite": run_suite.SuiteRequest}
        names = {kind: [f.name for f in fields(kind)] for kind in parts.values()}
        own = [f.name for f in fields(cls) if f.name not in parts]
        taken = {name for group in names.values() for name in group} | set(own)
        assert taken == set(given), f"options without a field, or fields without an option: {taken ^ set(given)}"
        return cls(**{part: kind(**{n: given[n] for n in names[kind]}) for part, kind in parts.items()},
                   **{n: given[n] for n in own})

    def playing(self, tournament: Tournament) -> Playing:
        """Where the tournament is played: --out or replays/<name>, the cache unless --no-cache."""
        record = self.cache_dir or default_cache_dir()
        return Playing(self.out or Path("replays") / tournament.name, self.parallel,
                       None if self.no_cache else record, record, self.only_mine)


def _builtin_tournament() -> Tournament:
    """The tournament `run` plays with no arguments (runner/tournaments/builtin.toml)."""
    path = resources.files("runner").joinpath("tournaments", BUILTIN_TOURNAMENT)
    with resources.as_file(path) as real:
        return load(real)


def parse_rules(items: tuple[str, ...]) -> dict:
    """`--rule KEY=VALUE` items as rule parameters (a value is JSON if it parses, a string otherwise)."""
    rules = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r}: expected KEY=VALUE", param_hint="--rule")
        try:
            rules[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            rules[key.strip()] = value
    return rules


def _default_keys_help() -> str:
    """Which variable each provider reads without --key-env, as --help says it."""
    keyed = [p for p in PROVIDERS.values() if p.key_variable]
    read = [f"{p.name} {'reads ' if i == 0 else ''}{p.key_variable}" for i, p in enumerate(keyed)]
    keyless = " and ".join(p.name for p in PROVIDERS.values() if not p.key_variable)
    return f"{', '.join(read)}, and {keyless} sends no key unless its agent names api_key_env"


def _cache_location_help() -> str:
    """The default cache folder as --help shows it."""
    if os.environ.get("XDG_CACHE_HOME"):
        return "$XDG_CACHE_HOME/gamenight/responses"
    return "~/.cache/gamenight/responses"


@click.command("run")
@click.argument("tournament_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the replays (default: replays/<tournament name>).")
@click.option("--game", "game_name", help="Play one matchup of this game, described by flags.")
@click.option("--role", "roles", multiple=True, metavar="ROLE=AGENT",
              help="With --game: the agent for a role ('*' for every other role). Repeatable.")
@click.option("--lineup", metavar="A,B,C", help="With --game: agents by seat, rotated across games.")
@click.option("--rule", "rules", multiple=True, metavar="KEY=VALUE", help="With --game: a rule parameter.")
@click.option("--name", default="adhoc", show_default=True, help="With --game: the tournament name.")
@click.option("--games", "count", type=click.IntRange(1, 100_000),
              help="Games per matchup (overrides the file).")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), help="Tournament seed (overrides the file).")
@click.option("--parallel", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Games played concurrently.")
@click.option("--dry-run", is_flag=True,
              help="Print the games, expected model calls, tokens and cost per matchup; play nothing "
                   "(no API key needed).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="GAMENIGHT_CACHE_DIR",
              show_envvar=True,
              help="Where model replies are cached, so a killed or repeated run does not pay for them again "
                   f"[default: {_cache_location_help()}].")
@click.option("--no-cache", is_flag=True,
              help="Send every model call to the provider; read and write no cached reply (the record of the "
                   "games this machine wrote is kept all the same).")
@click.option("--only-mine", is_flag=True,
              help="Keep only finished games that a run on this machine wrote; stop with an error naming any "
                   "other game in the output folder.")
@click.option("--suite", "suite_ref", metavar="NAME",
              help="Play a ranked suite (its newest version; NAME-VERSION or a suite file's path also work) "
                   "with --model in the candidate's seat, into replays/<suite>-<version>-<model label>/.")
@click.option("--model", "model_ref", metavar="PROVIDER:MODEL[@URL]",
              help="With --suite: the candidate, e.g. openai:gpt-4o-mini, "
                   "openai_compatible:gemma-3-270m@http://127.0.0.1:8000/v1, an agent of a tournament file "
                   "with its settings (runner/tournaments/local-cpu.toml#gemma3-270m), or builtin:<reference> "
                   "(a reference row of the suite; builtin:random).")
@click.option("--label", metavar="NAME",
              help="With --suite: your row's own label, naming its folder replays/<suite>-<version>-NAME/ and the "
                   "model's agent [default: the model's name].")
@click.option("--key-env", "key_env", metavar="VAR",
              help="The environment variable holding the API key of the run's language model(s): of --model, or of "
                   "every model of a tournament file or --game (over their api_key_env; one server only). Without "
                   f"it, {_default_keys_help()}.")
@click.option("--stages", type=click.IntRange(1, 1000),
              help="With --suite: play stages 1..N (those already played are kept) [default: 1; with "
                   "--until-width or --budget, the most stages to play, default 1000].")
@click.option("--until-width", "until_width", type=click.FloatRange(0, 1, min_open=True),
              help="With --suite: play the stages after which the 95%% interval of the ranked score of a row "
                   "winning half of every game is narrower than this (decided before any game, so that stopping "
                   "cannot bias the score; --stages caps them).")
@click.option("--budget", type=click.FloatRange(0, min_open=True), metavar="USD",
              help="With --suite and --price: play stage after stage while the next stage (priced like the last "
                   "one played, the first by the dry run) stays within this many USD spent by this command.")
@click.option("--price", "price_text", metavar="IN/OUT[/CACHED]",
              help="With --suite: the model's USD per million input / output [/ cached input] tokens, "
                   "e.g. 0.15/0.60/0.075, for the dry run and the totals (the dry run takes the price table's, "
                   "runner/prices.toml, when it is not given).")
def run_command(**given: Any) -> None:
    """Play a tournament and write one JSONL replay per game.

    With no arguments, plays the built-in offline tournament (all six games, scripted agents, no
    API key needed). Finished games already in the output folder are kept and not replayed, so an
    interrupted run resumes where it stopped. Every game a run writes is noted in the cache folder,
    and a run warns when it keeps games that no run on this machine wrote, with the commits that
    added them (--only-mine refuses them instead; --suite refuses a folder holding another owner's
    replays). Language-model agents read their keys from the environment variables their tournament
    file names, or --key-env; every model's key and server are checked before anything is played or
    written (docs/llm.md).
    """
    request = RunRequest.of(given)
    try:
        tournament, row = _plan(request)
    except PlanError as exc:
        raise click.ClickException(str(exc)) from None
    if request.dry_run:
        tournament = table_prices(tournament)
        if tournament.suite is not None:
            print_suite_estimate(tournament)
        else:
            print_estimate(tournament)
        return
    if row is not None:
        run_suite.play_row(tournament, row, request.playing(tournament))
    else:
        play(tournament, request.playing(tournament))


def _plan(request: RunRequest) -> tuple[Tournament, run_suite.SuiteRow | None]:
    """The tournament to play or price, and the suite's row when it is one; PlanError otherwise."""
    variable = key_option(request.key_env) if request.key_env is not None else None
    if request.suite.label is not None and not request.suite.suite_ref:
        raise PlanError("--label names a row of the suite: it goes with --suite and --model")
    row = None
    if request.suite.asked:
        if request.matchups.given:
            raise PlanError("--suite plays the suite's own deals: give no tournament file, --game, --games, "
                            "--seed, --role, --lineup or --rule with it")
        tournament, row = run_suite.plan_row(request.suite, variable, request.out, request.dry_run)
    elif request.matchups.game_name:
        tournament = _from_flags(request.matchups)
    else:
        tournament = _from_file(request.matchups)
    if variable is not None and tournament.suite is None:
        tournament = with_key_env(tournament, variable)
    people = sorted({a.name for m in tournament.matchups for a in (*m.roles.values(), *m.lineup) if a.is_human})
    if people:
        raise PlanError(f"{', '.join(people)}: a person's seat is played with `gamenight play`, not run")
    return tournament, row


def _from_flags(given: Matchups) -> Tournament:
    """One matchup described by --game, --role, --lineup and --rule."""
    if given.tournament_file:
        raise PlanError("give either a tournament file or --game flags, not both")
    return from_flags(given.name, given.game_name, given.roles, given.lineup, parse_rules(given.rules),
                      given.count or 1, given.seed or 0)


def _from_file(given: Matchups) -> Tournament:
    """A tournament file, or the built-in tournament, with --games and --seed over it."""
    if given.roles or given.lineup or given.rules:
        raise PlanError("--role, --lineup and --rule go with --game")
    tournament = load(given.tournament_file) if given.tournament_file else _builtin_tournament()
    if given.count or given.seed is not None:
        tournament = _override(tournament, given.count, given.seed)
    return tournament


def _override(tournament: Tournament, count: int | None, seed: int | None) -> Tournament:
    """The tournament with --games and --seed over the file's."""
    # A matchup with its own seed is one deal (one game id), as the file reader holds it: --games
    # leaves it at one game rather than play the same seed again.
    matchups = ([m if m.seed is not None else replace(m, games=count) for m in tournament.matchups] if count
                else tournament.matchups)
    return replace(tournament, matchups=matchups, seed=tournament.seed if seed is None else seed)

