"""Site-builder commands, added to `gamenight` through the "gamenight.commands" entry points."""

from __future__ import annotations

import time
from pathlib import Path

import click

DEFAULT_CACHE = Path(".gamenight-cache") / "scores.sqlite"


@click.command("score")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("build/results.json"),
              show_default=True, help="The results file.")
@click.option("--csv-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the main tables as CSV files into this folder.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CACHE,
              show_default=True, help="Cache of re-simulated replays, keyed by content hash.")
@click.option("--no-cache", is_flag=True, help="Re-read and re-simulate every replay.")
@click.option("--seed", type=click.IntRange(0), default=2026, show_default=True,
              help="Seed of the bootstrap intervals.")
def score(paths, out, csv_dir, cache, no_cache, seed):
    """Score replays: every metric, bound and rating, recomputed from the replays alone.

    Each replay is validated and re-simulated with the rules engines; claimed results are never
    used. Invalid replays are reported and left out; identical replays count once.
    """
    from site_builder.scoring.corpus import load
    from site_builder.scoring.results import assemble, write

    started = time.perf_counter()
    corpus = load(paths, None if no_cache else cache)
    for bad in corpus.invalid_replays:
        for problem in bad["problems"]:
            click.echo(f"left out: {problem}", err=True)
    for dup in corpus.duplicates:
        click.echo(f"duplicate: {dup['path']} has the same content as {dup['same_as']} (counted once)", err=True)
    results = assemble(corpus, seed=seed)
    written = write(results, out, csv_dir)
    elapsed = time.perf_counter() - started
    click.echo(f"scored {len(corpus.games)} game(s) from {corpus.files} file(s) "
               f"({corpus.resimulated} re-simulated, {corpus.files - corpus.files_read} from the cache index), "
               f"{len(corpus.invalid_replays)} invalid replay(s) left out, {len(corpus.duplicates)} duplicate(s), "
               f"in {elapsed:.1f}s")
    for path in written:
        click.echo(f"wrote {path}")
