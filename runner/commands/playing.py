"""Playing a planned tournament with its games counted on stderr, and what the run says at the end
(shared by a tournament's run and each stage of a suite's row)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import click

from runner.commands.report import cell, exit_if_failed, print_summary, print_usage
from runner.plan import Tournament
from runner.progress import Progress
from runner.run import CannotStart, Summary, run
from runner.written import RECORD


@dataclass(frozen=True)
class Playing:
    """Where and how a run plays: the output folder, the games at once, the response cache (None
    with --no-cache), the record of this machine's games, and whether others' games are refused."""

    out: Path
    parallel: int
    cache: Path | None
    record: Path
    only_mine: bool


def play(tournament: Tournament, playing: Playing) -> None:
    """Play a tournament's planned games and print the summary and usage; exit 1 if any failed."""
    plan = tournament.plan()
    click.echo(f"tournament {tournament.name}: {len(plan)} games -> {playing.out}", err=True)
    summary = play_games(tournament, playing, len(plan))
    print_summary(summary)
    print_usage(summary.usage, tournament.prices, summary.spent)
    exit_if_failed(summary)


def play_games(tournament: Tournament, playing: Playing, total: int) -> Summary:
    """The run's summary; a one-line error when it cannot start (a missing key variable, an
    unusable endpoint, games of others with --only-mine...)."""
    try:
        return asyncio.run(run_with_progress(tournament, playing.out, playing.parallel, total, playing.cache,
                                             playing.record, playing.only_mine))
    except CannotStart as exc:
        raise click.ClickException(f"cannot start: {exc}") from None


async def run_with_progress(tournament: Tournament, out: Path, parallel: int, total: int,
                            cache_dir: Path | None = None, record: Path | None = None,
                            only_mine: bool = False) -> Summary:
    """The run, its games counted on stderr as they are played (those kept count at once)."""
    with Progress() as progress, progress.task("playing", total=total, unit="games") as playing:
        return await run(tournament, out, parallel,
                         lambda planned, status: playing.advance(skipped=status == "skipped"),
                         cache_dir=cache_dir, record=record, only_mine=only_mine,
                         on_foreign=lambda summary: warn_foreign(out, summary, record))


def warn_foreign(out: Path, summary: Summary, record: Path | None) -> None:
    """The loud warning, before anything is played, that the run keeps games it did not write."""
    count = len(summary.foreign)
    click.echo(f"warning: {count:,} of the finished games kept in {cell(str(out))} "
               f"{'were' if count != 1 else 'was'} not written by a run on this machine (by its record in "
               f"{cell(str(Path(record or '') / RECORD))}):", err=True)
    for label, names in summary.foreign_sources:
        click.echo(f"  {len(names):,} {cell(label, 300)}", err=True)
    click.echo(f"{'They are' if count != 1 else 'It is'} kept as found and counted as played: check "
               f"{'them' if count != 1 else 'it'} before relying on {'them' if count != 1 else 'it'}, or run "
               "again with --only-mine to refuse games this machine did not write.", err=True)
