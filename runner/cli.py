"""The `gamenight` command line."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sys
import textwrap
from collections import Counter
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import click

from runner import __version__, games
from runner.agents.builtin import strategies
from runner.llm.prompt_cache import ANTHROPIC_MIN_TOKENS
from runner.plan import AgentSpec, Price, Tournament
from runner.progress import Progress
from runner.replay.format import JUDGE_DIMENSIONS, Problem, iter_replay_files
from runner.rerun.plans import PLAN_FILE, Plan, game_problems, missing_games, read_plan
from runner.rerun.validate import check_file
from runner.run import (CHARS_PER_TOKEN, ESTIMATE_SAMPLE, REPLY_TOKENS, CannotStart, Estimate, EstimateError,
                        Summary, Usage, default_cache_dir, estimate, estimated_stage_cost, run)
from runner.tournament import (MAX_SEED, PlanError, from_flags, key_option, load, price_option, reading_key,
                               with_key_env)
from runner.written import RECORD

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from runner.judge import JudgeReport
    from runner.suite import Candidate, Suite

BUILTIN_TOURNAMENT = "builtin.toml"


#: Entry-point group through which other packages (the site builder) add commands, so that
#: the runner never imports them.
COMMAND_GROUP = "gamenight.commands"


class Commands(click.Group):
    """The command group, extended by the commands registered under COMMAND_GROUP."""

    @functools.cached_property
    def _plugins(self) -> dict[str, EntryPoint]:
        """The registered commands by name, read once (the installed packages' metadata takes tens
        of milliseconds to read, and `--help` asks for each command); each is imported when asked
        for. A command of the runner's own never reads them."""
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=COMMAND_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in (plugins := self._plugins):
            command = plugins[name].load()
        return command


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gamenight")
def main() -> None:
    """Play multi-agent language games, check replays, and build the leaderboard."""


def _builtin_tournament() -> Tournament:
    path = resources.files("runner").joinpath("tournaments", BUILTIN_TOURNAMENT)
    with resources.as_file(path) as real:
        return load(real)


def _parse_rules(items: tuple[str, ...]) -> dict:
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


def _cache_location_help() -> str:
    """The default cache folder as --help shows it."""
    if os.environ.get("XDG_CACHE_HOME"):
        return "$XDG_CACHE_HOME/gamenight/responses"
    return "~/.cache/gamenight/responses"


@main.command("run")
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
                   "it, openai reads OPENAI_API_KEY, anthropic ANTHROPIC_API_KEY, and openai_compatible sends no "
                   "key unless its agent names api_key_env.")
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
def run_command(tournament_file, out, game_name, roles, lineup, rules, name, count, seed, parallel, dry_run,
                cache_dir, no_cache, only_mine, suite_ref, model_ref, label, key_env, stages, until_width, budget,
                price_text):
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
    chosen = who = None
    try:
        stepping = until_width is not None or budget is not None
        variable = key_option(key_env) if key_env is not None else None
        if label is not None and not suite_ref:
            raise PlanError("--label names a row of the suite: it goes with --suite and --model")
        if suite_ref or model_ref or price_text or stepping or stages is not None:
            if tournament_file or game_name or count or seed is not None or roles or lineup or rules:
                raise PlanError("--suite plays the suite's own deals: give no tournament file, --game, --games, "
                                "--seed, --role, --lineup or --rule with it")
            if not (suite_ref and model_ref):
                raise PlanError("--suite and --model go together: gamenight run --suite ranked --model "
                                "provider:model[@base_url]")
            if stepping and dry_run:
                raise PlanError("--until-width and --budget play until a stage boundary; --dry-run prices "
                                "stages 1..--stages instead")
            chosen, who = _suite_candidate(suite_ref, model_ref, label, variable)
            tournament = _suite_tournament(chosen, who, 1 if stepping else stages or 1, price_text, out)
            if budget is not None and not tournament.prices:
                raise PlanError("--budget needs the model's --price IN/OUT (a built-in candidate costs nothing)")
        elif game_name:
            if tournament_file:
                raise PlanError("give either a tournament file or --game flags, not both")
            tournament = from_flags(name, game_name, roles, lineup, _parse_rules(rules),
                                    count or 1, seed or 0)
        else:
            if roles or lineup or rules:
                raise PlanError("--role, --lineup and --rule go with --game")
            tournament = load(tournament_file) if tournament_file else _builtin_tournament()
            if count or seed is not None:
                tournament = _override(tournament, count, seed)
        if variable is not None and tournament.suite is None:
            tournament = with_key_env(tournament, variable)
        people = sorted({a.name for m in tournament.matchups for a in (*m.roles.values(), *m.lineup) if a.is_human})
        if people:
            raise PlanError(f"{', '.join(people)}: a person's seat is played with `gamenight play`, not run")
    except PlanError as exc:
        raise click.ClickException(str(exc)) from None
    if dry_run:
        tournament = _table_prices(tournament)
        if tournament.suite is not None:
            _print_suite_estimate(tournament)
        else:
            _print_estimate(tournament)
        return
    out = out or Path("replays") / tournament.name
    record = cache_dir or default_cache_dir()
    if tournament.suite is not None:
        _check_suite_start(tournament, out, record)
    if tournament.suite is not None and (until_width is not None or budget is not None):
        _play_until(tournament, out, parallel, cache_dir, no_cache, only_mine, chosen, who,
                    stages or 1000, until_width, budget)
        return
    plan = tournament.plan()
    click.echo(f"tournament {tournament.name}: {len(plan)} games -> {out}", err=True)
    cache = None if no_cache else record
    try:
        summary = asyncio.run(_run_with_progress(tournament, out, parallel, len(plan), cache, record, only_mine))
    except CannotStart as exc:  # a missing key variable, an unusable endpoint, games of others with --only-mine...
        raise click.ClickException(f"cannot start: {exc}") from None
    _print_summary(summary)
    _print_usage(summary.usage, tournament.prices, summary.spent)
    _exit_if_failed(summary)


def _exit_if_failed(summary) -> None:
    """Name every failed game and provider failure, then exit with status 1 (a run that failed)."""
    if not summary.ok:
        for failure in summary.failures:
            click.echo(f"failed: {failure}", err=True)
        _print_provider_failures(summary)
        sys.exit(1)


def _suite_candidate(suite_ref: str, model_ref: str, label: str | None,
                     variable: str | None) -> tuple[Suite, Candidate]:
    """The suite `--suite` names and the candidate of `--model` (under `--label`, reading `--key-env`)."""
    from runner import suite as suites

    chosen = suites.find(suite_ref)
    return chosen, suites.candidate(chosen, model_ref, label, variable)


def _check_suite_start(tournament: Tournament, out: Path, record: Path) -> None:
    """Before a suite's row is priced or played: the folder is this row's and nobody else's, and
    the candidate's key and server answer (one cheap request); a one-line error otherwise."""
    from runner.run import check_models, check_plan_folder, row_refusal

    try:
        check_plan_folder(tournament, out)
        refusal = row_refusal(tournament, out, record)
        if refusal is not None:
            raise CannotStart(refusal)
        models = tournament.llm_agents()
        if models:  # a slow server takes up to CHECK_TIMEOUT_S to answer: say what is waited for
            with Progress() as progress, progress.task("checking the model's key and server"):
                asyncio.run(check_models(models, tournament.providers))
    except CannotStart as exc:
        raise click.ClickException(f"cannot start: {exc}") from None


def _suite_tournament(chosen: Suite, who: Candidate, stages: int, price_text: str | None,
                      out: Path | None) -> Tournament:
    """Stages 1..N of a suite for the candidate `who` (never fewer than the output folder's
    plan already holds: a smaller --stages must not orphan games played before), with its price."""
    from dataclasses import replace

    from runner import suite as suites

    name = suites.tournament_name(chosen, who.label)
    planned = _planned_stages(out or Path("replays") / name, name)
    if planned > stages:
        click.echo(f"the folder already plans stages 1..{planned} of this row; keeping them all", err=True)
    tournament = suites.tournament_for(chosen, who, max(stages, planned))
    if price_text:
        models = {agent.spec["model"] for agent in tournament.llm_agents()}
        if not models:
            raise PlanError("--price: a built-in candidate costs nothing")
        price = price_option(price_text)
        tournament = replace(tournament, prices={model: price for model in models})
    return tournament


def _table_prices(tournament: Tournament) -> Tournament:
    """The tournament with the price table's list price (runner/prices.toml) for each model it
    gives no price (neither --price nor [prices]), each such price said on stderr."""
    from dataclasses import replace

    from runner import prices as table

    try:
        known = table.load()
    except table.PriceTableError as exc:
        raise click.ClickException(str(exc)) from None
    added = {}
    for agent in tournament.llm_agents():
        model = agent.spec.get("model")
        entry = known.find(agent.spec.get("provider"), model)
        if entry is not None and model not in tournament.prices and model not in added:
            added[model] = entry.price
            click.echo(f"{_cell(str(model), 60)}: priced from the price table ({entry.key}, read {entry.read}, "
                       f"{entry.source})", err=True)
    return replace(tournament, prices={**tournament.prices, **added}) if added else tournament


def _planned_stages(out: Path, name: str) -> int:
    """The stages the suite plan in `out` holds for tournament `name` (0 if none is there)."""
    from runner import tomlfile
    from runner.run import PLAN_FILE as RUN_PLAN

    try:
        raw = tomlfile.parse((out / RUN_PLAN).read_bytes(), 1024 * 1024)
    except (OSError, tomlfile.TomlError):
        return 0  # none, or unreadable: the run itself says why when it writes its plan
    suite = raw.get("suite")
    stages = suite.get("stages") if isinstance(suite, dict) and raw.get("name") == name else None
    return stages if isinstance(stages, int) and not isinstance(stages, bool) and 0 < stages <= 1000 else 0


def _print_suite_estimate(tournament: Tournament) -> None:
    """The dry run of a suite: per stage, games, expected calls, tokens and cost of the candidate."""
    assert tournament.suite is not None
    try:
        estimates = asyncio.run(estimate(tournament, sample=1))
    except EstimateError as exc:
        raise click.ClickException(str(exc)) from None
    ref = tournament.suite
    click.echo(f"dry run of {tournament.name}: stages 1..{ref.stages} of the suite {ref.name}-{ref.version} with "
               f"{ref.model} in the candidate's seat; nothing is played and no API key is needed")
    click.echo(f"{'stage':>5}  {'games':>6}{'calls':>10}{'input tok':>13}{'of which cached':>17}{'output tok':>13}"
               f"{'cost USD':>11}{'uncached USD':>14}")
    by_stage: dict[int, tuple[int, dict[str, Estimate]]] = {}
    for matchup, figures in zip(tournament.matchups, estimates):
        assert matchup.deal is not None
        games_, models = by_stage.setdefault(matchup.deal.stage, (0, {}))
        for model, part in figures.models.items():
            models.setdefault(model, Estimate()).add(part)
        by_stage[matchup.deal.stage] = (games_ + figures.games, models)
    everything: dict[str, Estimate] = {}
    for stage, (games_, models) in sorted(by_stage.items()):
        row = Estimate()
        for model, part in models.items():
            row.add(part)
            everything.setdefault(model, Estimate()).add(part)
        click.echo(f"{stage:>5}  {games_:>6,}{row.calls:>10,.0f}{row.input_tokens:>13,.0f}"
                   f"{row.cached_input_tokens:>17,.0f}{row.output_tokens:>13,.0f}"
                   f"{_estimate_cost(models, tournament.prices):>11}"
                   f"{_estimate_cost(models, tournament.prices, caching=False):>14}")
    total = Estimate()
    for part in everything.values():
        total.add(part)
    click.echo(f"{'total':>5}  {len(tournament.matchups):>6,}{total.calls:>10,.0f}{total.input_tokens:>13,.0f}"
               f"{total.cached_input_tokens:>17,.0f}{total.output_tokens:>13,.0f}"
               f"{_estimate_cost(everything, tournament.prices):>11}"
               f"{_estimate_cost(everything, tournament.prices, caching=False):>14}")
    if everything and not all(tournament.prices.get(m) for m in everything):
        click.echo("(no price for the model in the price table: give --price IN/OUT, USD per million tokens)")
    click.echo("\n" + textwrap.fill(
        "Assumptions: every deal is dealt as it will be and played offline with random legal moves, the model "
        "making the very calls of its design on its real prompts, every decision answered at the first attempt. "
        f"Input tokens = prompt characters / {CHARS_PER_TOKEN}; output tokens = {REPLY_TOKENS} per reply, or "
        "max_tokens if lower. See docs/llm.md.", width=100))


def _play_until(first: Tournament, out: Path, parallel: int, cache_dir: Path | None, no_cache: bool,
                only_mine: bool, chosen: Suite, who: Candidate, most: int, until_width: float | None,
                budget: float | None) -> None:
    """Play a suite row stage after stage (each a run of stages 1..k, which plays only stage k's
    new games) until the stages `until_width` asks for are played (`suite.stages_for_width`: the
    fewest after which a row winning half of every game has an interval narrower than it, decided
    before any game, so that stopping tells nothing about the results), the next stage would pass
    `budget`, or `most` stages are planned; it stops at stage boundaries only."""
    from dataclasses import replace

    from runner import suite as suites

    target = suites.stages_for_width(chosen, until_width, most) if until_width is not None else None
    if until_width is not None:
        click.echo(f"--until-width {until_width:g}: " + (
            f"{target} stage{'s' if target != 1 else ''}, after which a row winning half of every game has a 95% "
            f"interval narrower than {until_width:g} (the number of stages depends on the width alone, so stopping "
            "cannot bias the score)" if target else
            f"no number of stages up to {most} (--stages) makes every row's interval narrower than {until_width:g}; "
            f"playing up to {most}"))
    record = cache_dir or default_cache_dir()
    spent = last_stage = 0.0
    stage = first.suite.stages if first.suite else 1  # a folder's plan may hold more stages already
    while True:
        tournament = replace(suites.tournament_for(chosen, who, stage), prices=first.prices)
        if budget is not None and not last_stage:  # no stage played yet: its price is the dry run's
            last_stage = estimated_stage_cost(tournament, stage)
            if spent + last_stage > budget:
                click.echo(f"stopped: stage {stage} (about USD {last_stage:,.2f} by the dry run) would pass the "
                           f"budget of USD {budget:,.2f}")
                return
        try:
            summary = asyncio.run(_run_with_progress(tournament, out, parallel, len(tournament.matchups),
                                                     None if no_cache else record, record, only_mine))
        except CannotStart as exc:
            raise click.ClickException(f"cannot start: {exc}") from None
        _print_usage(summary.usage, tournament.prices, summary.spent)
        _exit_if_failed(summary)
        cost = sum(u.cost(tournament.prices.get(m)) or 0.0 for m, u in summary.usage.items())
        spent += cost
        last_stage = cost or last_stage  # the stage just played, or (all of it kept) the last price known
        now = suites.standing(out, tournament.name, chosen)
        click.echo(f"stage {stage}: {now.games} games, the model won {now.wins}; its ranked score {now.score:.3f} "
                   f"(95% interval {now.low:.3f} to {now.high:.3f}, width {now.width:.3f}, as the board shows it); "
                   f"spent by this command: USD {spent:,.2f}")
        if target is not None and stage >= target:
            click.echo(f"stopped: the {target} stage{'s' if target != 1 else ''} --until-width {until_width:g} asks "
                       "for are played")
            return
        if budget is not None and spent + last_stage > budget:
            click.echo(f"stopped: another stage (about USD {last_stage:,.2f}) would pass the budget of USD {budget:,.2f}")
            return
        if stage >= most:
            click.echo(f"stopped: stage {most} (--stages) is played")
            return
        stage += 1


def _print_provider_failures(summary: Summary) -> None:
    """Games the providers could not serve: the cause once (not once per game), and what to do."""
    if summary.stopped is not None:
        click.echo(f"stopped: the provider failed, not the model: {summary.stopped}", err=True)
    reasons = Counter(message for _, message in summary.not_played if message != summary.stopped)
    for message, count in sorted(reasons.items()):
        click.echo(f"not played ({count} game{'s' if count != 1 else ''}): the provider failed: {message}", err=True)
    missing = len(summary.not_played) + summary.never_started
    if missing:
        click.echo(f"{missing} game{'s were' if missing != 1 else ' was'} not played and nothing was written for "
                   f"{'them' if missing != 1 else 'it'}; run the same command again to play "
                   f"{'them' if missing != 1 else 'it'}.", err=True)


def _override(tournament: Tournament, count: int | None, seed: int | None) -> Tournament:
    from dataclasses import replace

    # A matchup with its own seed is one deal (one game id), as the file reader holds it: --games
    # leaves it at one game rather than play the same seed again.
    matchups = ([m if m.seed is not None else replace(m, games=count) for m in tournament.matchups] if count
                else tournament.matchups)
    return replace(tournament, matchups=matchups, seed=tournament.seed if seed is None else seed)


async def _run_with_progress(tournament: Tournament, out: Path, parallel: int, total: int,
                             cache_dir: Path | None = None, record: Path | None = None,
                             only_mine: bool = False) -> Summary:
    """The run, its games counted on stderr as they are played (those kept count at once)."""
    with Progress() as progress, progress.task("playing", total=total, unit="games") as playing:
        return await run(tournament, out, parallel,
                         lambda planned, status: playing.advance(skipped=status == "skipped"),
                         cache_dir=cache_dir, record=record, only_mine=only_mine,
                         on_foreign=lambda summary: _warn_foreign(out, summary, record))


def _warn_foreign(out: Path, summary: Summary, record: Path | None) -> None:
    """The loud warning, before anything is played, that the run keeps games it did not write."""
    count = len(summary.foreign)
    click.echo(f"warning: {count:,} of the finished games kept in {_cell(str(out))} "
               f"{'were' if count != 1 else 'was'} not written by a run on this machine (by its record in "
               f"{_cell(str(Path(record or '') / RECORD))}):", err=True)
    for label, names in summary.foreign_sources:
        click.echo(f"  {len(names):,} {_cell(label, 300)}", err=True)
    click.echo(f"{'They are' if count != 1 else 'It is'} kept as found and counted as played: check "
               f"{'them' if count != 1 else 'it'} before relying on {'them' if count != 1 else 'it'}, or run "
               "again with --only-mine to refuse games this machine did not write.", err=True)



def _print_summary(summary: Summary) -> None:
    names = sorted(set(summary.played) | set(summary.skipped), key=_game_order)
    click.echo(f"{'game':<20}{'played':>8}{'kept':>8}{'forfeited':>11}")
    for name in names:
        click.echo(f"{name:<20}{summary.played[name]:>8}{summary.skipped[name]:>8}{summary.invalid[name]:>11}")
    click.echo(f"{'total':<20}{sum(summary.played.values()):>8}{sum(summary.skipped.values()):>8}"
               f"{sum(summary.invalid.values()):>11}")
    if summary.replaced:
        click.echo(f"({summary.replaced} replay{'s' if summary.replaced != 1 else ''} that an older runner wrote as "
                   "forfeits for provider failures were played again)")
    if summary.foreign:
        sources = "; ".join(f"{len(names):,} {_cell(label, 300)}" for label, names in summary.foreign_sources)
        click.echo(f"WARNING: {len(summary.foreign):,} of the {sum(summary.skipped.values()):,} games kept were not "
                   f"written by a run on this machine: {sources}")
    if summary.unrecorded:
        click.echo(f"warning: {summary.unrecorded:,} game(s) written now could not be noted in the record of this "
                   "machine's games (the cache folder is not writable?): a later run will take them for games it "
                   "did not write", err=True)
    if summary.appearances:
        click.echo("\nwins by agent in the games played now (seats that won / seats played):")
        for (game, agent), seats in sorted(summary.appearances.items(), key=lambda kv: (_game_order(kv[0][0]), kv[0][1])):
            won = summary.wins[(game, agent)]
            click.echo(f"  {game:<20}{agent:<34}{won:>5} / {seats:<5} ({won / seats:.0%})")


def _print_usage(usage: Mapping[str, Usage], prices: Mapping[str, Price],
                 spent: Mapping[str, Mapping[str, int]] | None = None) -> None:
    """Calls, tokens and (where a price is known) cost per model, summed from the evidence.

    "cached" counts calls answered from the response cache: they are in the replays (and in the
    token columns, as recorded) but were not paid for again, so the cost leaves them out. Calls
    the providers answered for games that were then abandoned are in no replay: `spent` (what
    the providers answered in this run) shows them on a line of their own.
    """
    _print_unrecorded(usage, prices, spent or {})
    if not usage:
        return
    click.echo("\nmodel calls in the games played now:")
    click.echo(f"  {'model':<36}{'calls':>8}{'cached':>8}{'input tok':>13}{'output tok':>13}{'cost USD':>11}")
    total, costs, unpriced = Usage(), [], []
    for model in sorted(usage):
        used = usage[model]
        cost = used.cost(prices.get(model))
        costs.append(cost)
        if cost is None:
            unpriced.append(model)
        click.echo(f"  {_cell(model, 35):<36}{used.calls:>8,}{used.replayed_calls:>8,}{used.input_tokens:>13,}"
                   f"{used.output_tokens:>13,}{_money(cost):>11}")
        for name in ("calls", "replayed_calls", "input_tokens", "output_tokens", "cached_input_tokens",
                     "cache_write_input_tokens", "reasoning_tokens"):
            setattr(total, name, getattr(total, name) + getattr(used, name))
    known = sum(c for c in costs if c is not None)
    click.echo(f"  {'total':<36}{total.calls:>8,}{total.replayed_calls:>8,}{total.input_tokens:>13,}"
               f"{total.output_tokens:>13,}{_money(known if costs and not unpriced else None, known):>11}")
    if total.cached_input_tokens or total.cache_write_input_tokens or total.reasoning_tokens:
        click.echo(f"  of which: {total.cached_input_tokens:,} input tokens read from the providers' prompt caches, "
                   f"{total.cache_write_input_tokens:,} written to them, "
                   f"{total.reasoning_tokens:,} output tokens spent thinking")
    if unpriced:
        click.echo(f"  no [prices] table for: {', '.join(_cell(m, 60) for m in unpriced)} (the total cost leaves them out)")
    _print_caching({model: (used.cached_input_tokens, used.cache_write_input_tokens, used.cost(prices.get(model)),
                            used.cost(prices.get(model), caching=False)) for model, used in usage.items()})


def _print_caching(models: Mapping[str, tuple[float, float, float | None, float | None]]) -> None:
    """Per model whose prompts were cached: tokens read and written, the cost with and without caching."""
    cached = {m: row for m, row in models.items() if row[0] or row[1]}
    if not cached:
        return
    click.echo("\nprompt caching (input tokens read from / written to the provider's cache):")
    for model in sorted(cached):
        read, written, cost, uncached = cached[model]
        saving = (f", {_money(uncached)} without caching ({(uncached - cost) / uncached:.0%} saved)"
                  if cost is not None and uncached else "")
        click.echo(f"  {_cell(model, 40)}: {read:,.0f} read, {written:,.0f} written; {_money(cost)} USD{saving}")


def _print_unrecorded(usage: Mapping[str, Usage], prices: Mapping[str, Price],
                      spent: Mapping[str, Mapping[str, int]]) -> None:
    """The calls made for games that were not written (a provider failure abandoned them)."""
    for model, made in sorted(spent.items()):
        recorded = usage.get(model)
        extra = Usage(calls=made["calls"], input_tokens=made["input_tokens"], output_tokens=made["output_tokens"],
                      cached_input_tokens=made["cached_input_tokens"],
                      cache_write_input_tokens=made.get("cache_write_input_tokens", 0))
        if recorded is not None:
            paid = recorded.replayed or Usage()
            extra.calls -= recorded.calls - paid.calls
            extra.input_tokens -= recorded.input_tokens - paid.input_tokens
            extra.output_tokens -= recorded.output_tokens - paid.output_tokens
            extra.cached_input_tokens -= recorded.cached_input_tokens - paid.cached_input_tokens
            extra.cache_write_input_tokens -= recorded.cache_write_input_tokens - paid.cache_write_input_tokens
        if extra.calls > 0:
            click.echo(f"\n{_cell(model, 60)}: {extra.calls:,} more call(s) ({extra.input_tokens:,} input and "
                       f"{extra.output_tokens:,} output tokens, {_money(extra.cost(prices.get(model)))} USD) were made "
                       "for games that were abandoned and not written; the response cache keeps them for the next run")


def _print_estimate(tournament: Tournament) -> None:
    """The dry run: per matchup and in total, games, expected calls, tokens and cost."""

    try:
        estimates = asyncio.run(estimate(tournament))
    except EstimateError as exc:
        raise click.ClickException(str(exc)) from None
    games_total = sum(m.games for m in estimates)
    click.echo(f"dry run of tournament {tournament.name}: {games_total:,} games in {len(estimates)} "
               "matchup(s); nothing is played and no API key is needed")
    click.echo(f"{'#':>3}  {'game':<18}{'games':>7}{'calls':>10}{'input tok':>13}{'output tok':>13}{'cost USD':>11}")
    by_model: dict[str, Estimate] = {}
    for i, matchup in enumerate(estimates, start=1):
        row = matchup.total()
        click.echo(f"{i:>3}  {matchup.game:<18}{matchup.games:>7,}{row.calls:>10,.0f}{row.input_tokens:>13,.0f}"
                   f"{row.output_tokens:>13,.0f}{_estimate_cost(matchup.models, tournament.prices):>11}")
        click.echo(f"     {_cell(matchup.label, 90)}")
        for model, part in matchup.models.items():
            by_model.setdefault(model, Estimate()).add(part)
    total = Estimate()
    for part in by_model.values():
        total.add(part)
    click.echo(f"{'':>3}  {'total':<18}{games_total:>7,}{total.calls:>10,.0f}{total.input_tokens:>13,.0f}"
               f"{total.output_tokens:>13,.0f}{_estimate_cost(by_model, tournament.prices):>11}")
    if by_model:
        click.echo("\nby model:")
        for model in sorted(by_model):
            part = by_model[model]
            price = tournament.prices.get(model)
            click.echo(f"  {_cell(model, 40):<41}{part.calls:>10,.0f}{part.input_tokens:>13,.0f}"
                       f"{part.output_tokens:>13,.0f}{_money(part.cost(price)):>11}"
                       + ("" if price else "  (no [prices] table)"))
        _print_caching({model: (part.cached_input_tokens, part.cache_write_input_tokens,
                                part.cost(tournament.prices.get(model)),
                                part.cost(tournament.prices.get(model), caching=False))
                        for model, part in by_model.items()})
    click.echo("\n" + textwrap.fill(
        f"Assumptions: {ESTIMATE_SAMPLE} games of each matchup are dealt as they will be and played offline "
        "with random legal moves, the language-model agents making the very calls of their design (PGM "
        "belief analyses, strategy choices, favor updates) on their real prompts; every decision is "
        "answered at the first attempt (each re-ask would add a call). Input tokens = prompt characters / "
        f"{CHARS_PER_TOKEN}; output tokens = {REPLY_TOKENS} per reply, or max_tokens if lower. Prompt caching: "
        "each seat's calls through Anthropic's cache as the agent marks it (prefixes of at least "
        f"{ANTHROPIC_MIN_TOKENS:,} tokens) or OpenAI's automatic one; none for other servers. Cost = tokens "
        "x [prices] (USD per million tokens). See docs/llm.md.", width=100))


def _estimate_cost(models: Mapping[str, Estimate], prices: Mapping[str, Price], caching: bool = True) -> str:
    """The cost of these models' estimates (with the provider's prompt cache as estimated, or
    without it); "≥ x" when some model has no price, "n/a" when none has."""
    costs = [part.cost(prices.get(model), caching) for model, part in models.items()]
    known = sum(c for c in costs if c is not None)
    return _money(None if None in costs else known, known)


def _money(cost: float | None, partial: float | None = None) -> str:
    if cost is None:
        return f"≥{partial:,.2f}" if partial else "n/a"
    return f"{cost:,.2f}"


def _cell(text: str, width: int | None = None) -> str:
    """`text` on one line, control characters escaped, cut to `width` characters if given."""
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def _game_order(name: str) -> int:
    order = list(games.GAME_MODULES)
    return order.index(name) if name in order else len(order)


@main.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems and the total.")
def validate_command(paths, quiet):
    """Check replay files (or folders of *.jsonl) against the format and the rules.

    Every replay is re-simulated with the rules engine; each problem is printed as
    FILE:LINE: FIELD: MESSAGE. A folder holding a tournament's plan (tournament.toml, written by
    `gamenight run`) must hold exactly the games it plans. Exits with status 1 if any replay or
    plan has a problem.
    """
    # A folder's replays take a while (a second or more per hundred): its progress is shown.
    with Progress(quiet=quiet or not any(Path(p).is_dir() for p in paths)) as progress:
        problems, checked, bad, bad_plans = validate_paths(paths, progress)
    for problem in problems:
        click.echo(str(problem))
    if not quiet or bad or bad_plans:
        plans = f"; {bad_plans} tournament plan(s) with problems" if bad_plans else ""
        click.echo(f"checked {checked} replay(s): {checked - bad} accepted, {bad} with problems{plans}",
                   err=bool(bad or bad_plans))
    if checked == 0:
        raise click.ClickException("no *.jsonl replay files found")
    if bad or bad_plans:
        sys.exit(1)


def validate_paths(paths, progress: Progress | None = None) -> tuple[list[Problem], int, int, int]:
    """Check every replay under `paths`, and each tournament folder against its plan, counted in
    `progress`; (problems, files checked, files with problems, plans with problems)."""
    problems: list[Problem] = []
    owners: dict[str, str] = {}
    plans: dict[Path, Plan | None] = {}
    present: dict[Path, set[str]] = {}
    checked = bad = 0
    files = list(iter_replay_files(paths))
    for path in (progress or Progress(quiet=True)).each(files, "checking replays", unit="replays"):
        checked += 1
        folder = path.parent
        if folder not in plans:
            plans[folder] = _plan_in(folder)
        plan = plans[folder] if plans[folder] is not None and plans[folder].tournament is not None else None
        result = check_file(path, probes=plan.tournament.probes if plan is not None else None,
                            planned=plan.games.get(path.stem) if plan is not None else None)
        file_problems = list(result.problems)
        header = result.header
        if header is not None and isinstance(header.get("game_id"), str):
            game_id = header["game_id"]
            if path.name != f"{game_id}.jsonl":
                file_problems.append(Problem(str(path), 1, f"the file must be named {game_id}.jsonl "
                                             "after its game id", "game_id"))
            if game_id in owners:
                file_problems.append(Problem(str(path), 1, f"game id already used by {owners[game_id]}",
                                             "game_id"))
            else:
                owners[game_id] = str(path)
            if plan is not None and result.ok:
                file_problems.extend(game_problems(plan, str(path), header))
        present.setdefault(folder, set()).add(path.stem)
        if file_problems:
            bad += 1
            problems.extend(file_problems)
    whole = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    bad_plans = 0
    for folder, plan in plans.items():
        if plan is None:
            continue
        plan_problems = list(plan.problems)
        if plan.tournament is not None and any(root == folder.resolve() or root in folder.resolve().parents
                                               for root in whole):
            missing = missing_games(plan, present.get(folder, set()))
            plan_problems.extend([missing] if missing else [])
        if plan_problems:
            bad_plans += 1
            problems.extend(plan_problems)
    return problems, checked, bad, bad_plans


def _plan_in(folder: Path) -> Plan | None:
    """The tournament plan `gamenight run` wrote into a folder of replays, read and planned; None if none."""
    path = folder / PLAN_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        plan = Plan(str(path), folder.name)
        plan.problems.append(Problem(str(path), 0, f"cannot read the tournament plan: {exc.strerror or exc}"))
        return plan
    return read_plan(str(path), folder.name, raw)


@main.command("games")
def games_command():
    """List the games, their roles and default rules."""
    for name in games.available():
        game = games.get(name)
        click.echo(f"{name:<20}{game.title}")
        click.echo(f"{'':<20}roles: {', '.join(game.roles)}")
        click.echo(f"{'':<20}rules: {json.dumps(game.params({}))}")
        for option, values in game.options.items():
            click.echo(f"{'':<20}option {option}: {' | '.join(values)} (default {values[0]}, not written "
                       "into the variant)")


@main.command("agents")
def agents_command():
    """List the built-in scripted agents and their parameters."""
    for name, cls in sorted(strategies().items()):
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        params = ", ".join(f"{k}={v!r}" for k, v in cls.defaults.items())
        click.echo(f"{name:<40}{doc}" + (f"  [{params}]" if params else ""))


@main.command("judge")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--judge", "judge_name", required=True, metavar="AGENT",
              help="The language-model agent of the tournament file that judges.")
@click.option("--tournament", "tournament_file", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The tournament file defining the judge agent (and its [providers] limits, [prices]); "
                   "it needs no matchups.")
@click.option("--dimension", "dimensions", multiple=True, type=click.Choice(JUDGE_DIMENSIONS),
              help="Only these dimensions (repeatable; default: all six).")
@click.option("--parallel", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Replays judged concurrently (1 for a local server: a game's questions share its "
                   "prompt cache).")
@click.option("--retry-failed", is_flag=True,
              help="Ask again the evaluations this judge tried and failed (recorded as failed); "
                   "by default they are skipped like those it made.")
@click.option("--key-env", "key_env", metavar="VAR",
              help="The environment variable holding the judge's API key (over its api_key_env).")
def judge_command(paths, judge_name, tournament_file, dimensions, parallel, retry_failed, key_env):
    """Evaluate Werewolf replays with an LLM judge (the Werewolf paper) and append judge lines.

    For every valid, complete Werewolf replay under PATHS: one engagement, wonder and attraction
    score, the who-is-what mentions of each round (variation), the 10 most memorable statements
    (memorability) — the Werewolf paper's EWAVM — and whom each player's statement of each round points at as
    the Werewolf (suspicion, for Judgement Variation). An evaluation the judge failed (cut off,
    refused, unreadable after its re-asks) is recorded as failed, with why. The game lines are
    never changed; each file is rewritten atomically; evaluations this judge already made or
    tried are skipped, so a second run resumes.
    """
    from runner.judge import FAILURES  # the judge loads the prompt templates: only for this command

    try:
        tournament = load(tournament_file, matchups_required=False)
        variable = key_option(key_env) if key_env is not None else None
    except PlanError as exc:
        raise click.ClickException(str(exc)) from None
    agent = tournament.agents.get(judge_name)
    if agent is None or not agent.is_llm:
        known = ", ".join(sorted(a.name for a in tournament.agents.values() if a.is_llm)) or "none"
        what = "is not a language-model agent" if agent else "is not an agent"
        raise click.ClickException(f"--judge {judge_name!r} {what} of {tournament_file} "
                                   f"(its language-model agents: {known})")
    if variable is not None:
        agent = reading_key(agent, variable)
    files = list(iter_replay_files(paths))
    if not files:
        raise click.ClickException("no *.jsonl replay files found")
    try:
        report = asyncio.run(_judge_with_progress(files, agent, tournament, dimensions or JUDGE_DIMENSIONS, parallel,
                                                  retry_failed))
    except CannotStart as exc:
        raise click.ClickException(f"cannot start: {exc}") from None
    for line in report.skipped:
        click.echo(f"skipped {_cell(line)}", err=True)
    for line in report.unreadable:
        click.echo(f"not recorded: {_cell(line)}", err=True)
    for tally in report.games:
        click.echo(f"{_cell(tally.path)}: {tally.summary()}")
    added = ", ".join(f"{report.added[d]} {d}" for d in JUDGE_DIMENSIONS if report.added[d]) or "none"
    click.echo(f"judged {len(report.changed)} of {report.files} replay(s) with {judge_name}: lines added: {added}; "
               f"{report.already} evaluation(s) already there; {len(report.skipped)} replay(s) skipped; "
               f"{len(report.unreadable)} evaluation(s) not recorded"
               + (" (" + ", ".join(f"{report.failed[k]} {FAILURES[k]}" for k in FAILURES if report.failed[k]) + ")"
                  if report.failed else "")
               + (f", {report.failures_written} of them recorded as failed" if report.failures_written else ""))
    _print_usage(report.usage, tournament.prices)
    if not report.ok:
        sys.exit(1)


async def _judge_with_progress(files: list[Path], agent: AgentSpec, tournament: Tournament,
                               dimensions: tuple[str, ...], parallel: int, retry_failed: bool) -> JudgeReport:
    from runner.judge import run_judge

    with Progress() as progress, progress.task("judging", total=len(files), unit="replays") as judging:
        return await run_judge(files, agent, tournament.providers, dimensions=dimensions, parallel=parallel,
                               retry_failed=retry_failed, on_done=lambda path: judging.advance())


from runner.verify_cli import verify_command  # noqa: E402 - a light module: it imports what it needs when it runs

main.add_command(verify_command)
