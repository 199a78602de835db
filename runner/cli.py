"""The `gamenight` command line."""

from __future__ import annotations

import asyncio
import json
import sys
from importlib import resources
from pathlib import Path

import click

from runner import __version__, games
from runner.agents.builtin import strategies
from runner.replay.format import Problem, iter_replay_files
from runner.replay.validate import check_file
from runner.run import Summary, run
from runner.tournament import PlanError, Tournament, from_flags, load

BUILTIN_TOURNAMENT = "builtin.toml"


#: Entry-point group through which other packages (the site builder) add commands, so that
#: the runner never imports them.
COMMAND_GROUP = "gamenight.commands"


class Commands(click.Group):
    """The command group, extended by the commands registered under COMMAND_GROUP."""

    def _plugins(self) -> dict[str, click.Command]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=COMMAND_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in (plugins := self._plugins()):
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
@click.option("--seed", type=click.IntRange(0), help="Tournament seed (overrides the file).")
@click.option("--parallel", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Games played concurrently.")
def run_command(tournament_file, out, game_name, roles, lineup, rules, name, count, seed, parallel):
    """Play a tournament and write one JSONL replay per game.

    With no arguments, plays the built-in offline tournament (all six games, scripted agents, no
    API key needed). Finished games already in the output folder are kept and not replayed, so an
    interrupted run resumes where it stopped.
    """
    try:
        if game_name:
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
    except PlanError as exc:
        raise click.ClickException(str(exc)) from None
    out = out or Path("replays") / tournament.name
    plan = tournament.plan()
    click.echo(f"tournament {tournament.name}: {len(plan)} games -> {out}", err=True)
    summary = asyncio.run(_run_with_progress(tournament, out, parallel, len(plan)))
    _print_summary(summary)
    if not summary.ok:
        for failure in summary.failures:
            click.echo(f"failed: {failure}", err=True)
        sys.exit(1)


def _override(tournament: Tournament, count: int | None, seed: int | None) -> Tournament:
    from dataclasses import replace

    matchups = [replace(m, games=count) for m in tournament.matchups] if count else tournament.matchups
    return replace(tournament, matchups=matchups, seed=tournament.seed if seed is None else seed)


async def _run_with_progress(tournament: Tournament, out: Path, parallel: int, total: int) -> Summary:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, disable=not console.is_terminal) as progress:
        task = progress.add_task("playing", total=total)
        return await run(tournament, out, parallel, lambda planned, status: progress.advance(task))


def _print_summary(summary: Summary) -> None:
    names = sorted(set(summary.played) | set(summary.skipped), key=_game_order)
    click.echo(f"{'game':<20}{'played':>8}{'kept':>8}{'invalid':>9}")
    for name in names:
        click.echo(f"{name:<20}{summary.played[name]:>8}{summary.skipped[name]:>8}{summary.invalid[name]:>9}")
    click.echo(f"{'total':<20}{sum(summary.played.values()):>8}{sum(summary.skipped.values()):>8}"
               f"{sum(summary.invalid.values()):>9}")
    if summary.appearances:
        click.echo("\nwins by agent in the games played now (seats that won / seats played):")
        for (game, agent), seats in sorted(summary.appearances.items(), key=lambda kv: (_game_order(kv[0][0]), kv[0][1])):
            won = summary.wins[(game, agent)]
            click.echo(f"  {game:<20}{agent:<34}{won:>5} / {seats:<5} ({won / seats:.0%})")


def _game_order(name: str) -> int:
    order = list(games.GAME_MODULES)
    return order.index(name) if name in order else len(order)


@main.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems and the total.")
def validate_command(paths, quiet):
    """Check replay files (or folders of *.jsonl) against the format and the rules.

    Every replay is re-simulated with the rules engine; each problem is printed as
    FILE:LINE: FIELD: MESSAGE. Exits with status 1 if any replay has a problem.
    """
    problems, checked, bad = validate_paths(paths)
    for problem in problems:
        click.echo(str(problem))
    if not quiet or bad:
        click.echo(f"checked {checked} replay(s): {checked - bad} valid, {bad} with problems",
                   err=bool(bad))
    if checked == 0:
        raise click.ClickException("no *.jsonl replay files found")
    if bad:
        sys.exit(1)


def validate_paths(paths) -> tuple[list[Problem], int, int]:
    """Check every replay under `paths`; (problems, files checked, files with problems)."""
    problems: list[Problem] = []
    owners: dict[str, str] = {}
    checked = bad = 0
    for path in iter_replay_files(paths):
        checked += 1
        result = check_file(path)
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
        if file_problems:
            bad += 1
            problems.extend(file_problems)
    return problems, checked, bad


@main.command("games")
def games_command():
    """List the games, their roles and default rules."""
    for name in games.available():
        game = games.get(name)
        click.echo(f"{name:<20}{game.title}")
        click.echo(f"{'':<20}roles: {', '.join(game.roles)}")
        click.echo(f"{'':<20}rules: {json.dumps(game.params({}))}")


@main.command("agents")
def agents_command():
    """List the built-in scripted agents and their parameters."""
    for name, cls in sorted(strategies().items()):
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        params = ", ".join(f"{k}={v!r}" for k, v in cls.defaults.items())
        click.echo(f"{name:<40}{doc}" + (f"  [{params}]" if params else ""))
