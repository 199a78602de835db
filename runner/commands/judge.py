"""`gamenight judge`: evaluate Werewolf replays with a language-model judge and append its lines."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from runner.commands.report import cell, print_usage
from runner.plan import AgentSpec, Tournament
from runner.progress import Progress
from runner.replay.format import JUDGE_DIMENSIONS, iter_replay_files
from runner.run import CannotStart
from runner.tournament import PlanError, key_option, load, reading_key

if TYPE_CHECKING:
    from runner.judge import JudgeReport


@click.command("judge")
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
        click.echo(f"skipped {cell(line)}", err=True)
    for line in report.unreadable:
        click.echo(f"not recorded: {cell(line)}", err=True)
    for tally in report.games:
        click.echo(f"{cell(tally.path)}: {tally.summary()}")
    added = ", ".join(f"{report.added[d]} {d}" for d in JUDGE_DIMENSIONS if report.added[d]) or "none"
    click.echo(f"judged {len(report.changed)} of {report.files} replay(s) with {judge_name}: lines added: {added}; "
               f"{report.already} evaluation(s) already there; {len(report.skipped)} replay(s) skipped; "
               f"{len(report.unreadable)} evaluation(s) not recorded"
               + (" (" + ", ".join(f"{report.failed[k]} {FAILURES[k]}" for k in FAILURES if report.failed[k]) + ")"
                  if report.failed else "")
               + (f", {report.failures_written} of them recorded as failed" if report.failures_written else ""))
    print_usage(report.usage, tournament.prices)
    if not report.ok:
        sys.exit(1)


async def _judge_with_progress(files: list[Path], agent: AgentSpec, tournament: Tournament,
                               dimensions: tuple[str, ...], parallel: int, retry_failed: bool) -> JudgeReport:
    from runner.judge import run_judge

    with Progress() as progress, progress.task("judging", total=len(files), unit="replays") as judging:
        return await run_judge(files, agent, tournament.providers, dimensions=dimensions, parallel=parallel,
                               retry_failed=retry_failed, on_done=lambda path: judging.advance())
