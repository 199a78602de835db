"""Site-builder commands, added to `gamenight` through the "gamenight.commands" entry points."""

from __future__ import annotations

import re
import time
from pathlib import Path

import click

from runner.seeds import SCORING_SEED

DEFAULT_CACHE = Path(".gamenight-cache") / "scores.sqlite"
MAGIC_READINGS = ("paper", "reference")  # site_builder.scoring.magic.READINGS, without importing the scorer
#: The price table option of `score` and `build` (runner/prices.toml by default).
_prices_option = click.option("--prices", "prices_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                              help="The price table the model rows' cost per game is computed with "
                                   "[default: runner/prices.toml].")


def _price_table(path: Path | None):
    """The price table at `path` (the shipped one if None); a bad file is a click error naming file and field."""
    from runner import prices

    try:
        return prices.load(path) if path else prices.load()
    except prices.PriceTableError as err:
        raise click.ClickException(str(err)) from None


@click.command("score")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("build/results.json"),
              show_default=True, help="The results file.")
@click.option("--csv-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the main tables as CSV files into this folder.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CACHE,
              show_default=True, help="Cache of re-simulated replays, keyed by content hash.")
@click.option("--no-cache", is_flag=True, help="Re-read and re-simulate every replay.")
@click.option("--seed", type=click.IntRange(0), default=SCORING_SEED, show_default=True,
              help="Seed of the bootstrap intervals.")
@click.option("--magic-reading", type=click.Choice(MAGIC_READINGS), default="paper", show_default=True,
              help="Which reading of the MAgIC metrics is the headline: the paper's formulas or the "
                   "authors' reference script (the other is kept beside it in the results).")
@_prices_option
def score(paths, out, csv_dir, cache, no_cache, seed, magic_reading, prices_path):
    """Score replays: every metric, bound and rating, recomputed from the replays alone.

    Each replay is validated and re-simulated with the rules engines; claimed results are never
    used. Replays that fail a check are reported and left out; identical replays count once.
    """
    from runner.progress import Progress
    from runner.replay.format import iter_replay_files

    started = time.perf_counter()
    table = _price_table(prices_path)
    files = [str(f) for f in iter_replay_files(paths)]
    with Progress() as progress:
        with progress.task("checking replays", total=len(files), unit="replays") as checking:
            # The scorer (numpy, scipy, the embedder: a second or two) is imported after the first line.
            from site_builder import sources
            from site_builder.scoring import entry
            from site_builder.scoring.results import write

            owner_of = sources.owners(sources.sources(files))
            # One model agent's games from two owners (a corpus merged by hand) are two rows, as on the site.
            corpus = entry.read(paths, owner_of, cache=None if no_cache else cache, progress=checking.hook())
            checking.skip_rest()  # those the cache answered
        for bad in corpus.invalid_replays:
            for problem in bad["problems"]:
                click.echo(f"left out: {problem}", err=True)
        for dup in corpus.duplicates:
            click.echo(f"duplicate: {dup['path']} has the same content as {dup['same_as']} (counted once)", err=True)
        with progress.task("scoring the boards"):
            # The board the site shows: the maintainers' games, and each contributor's own rows beside them.
            results = entry.score(corpus, owner_of, cache=None if no_cache else cache, seed=seed,
                                  magic_reading=magic_reading, prices=table)
    written = write(results, out, csv_dir)
    elapsed = time.perf_counter() - started
    click.echo(f"scored {len(corpus.games)} game(s) from {corpus.files} file(s) "
               f"({corpus.resimulated} re-simulated, {corpus.files - corpus.files_read} from the cache index), "
               f"{len(corpus.invalid_replays)} invalid replay(s) left out, {len(corpus.duplicates)} duplicate(s), "
               f"in {elapsed:.1f}s")
    for path in written:
        click.echo(f"wrote {path}")


def _summary(report) -> str:
    """What a build produced, and the games it shows as not merged."""
    line = (f"built {report.pages} page(s) and {report.replay_files} replay data file(s) from "
            f"{report.games} game(s): {report.site_bytes / 1e6:.1f} MB in {report.site_files:,} files "
            f"(largest {report.largest_file}, {report.largest_file_bytes / 1e6:.2f} MB) in {report.seconds:.1f}s")
    if report.unmerged:
        line += (f"\n{report.unmerged} game(s) not merged ({'; '.join(report.unmerged_why)}): shown as your rows, "
                 "marked \"not merged\", never as the maintainers'")
    return line


def _build(paths, site, cache, no_cache, seed, site_url=None, submissions="include", repo_url=None,
           magic_reading="paper", prices_path=None, base=None):
    """Build the site, turning build problems into a clear click error; its progress on stderr."""
    from runner.progress import Progress

    with Progress() as progress:
        progress.say(f"building the site into {site} from the replays under {', '.join(map(str, paths))} "
                     f"({'no cache' if no_cache else f'cache {cache}'})")
        # The builder and the scorer (numpy, scipy, the embedder: seconds on a loaded machine) load
        # after the first line, under a line of their own.
        with progress.task("loading the site builder and the scorer"):
            from site_builder.build import BuildError, build_site, default_repo_url
            from site_builder.viewer.files import ReplayDataError

        try:
            report = build_site(paths, site, cache_path=None if no_cache else cache, seed=seed, site_url=site_url,
                                submissions=submissions, repo_url=repo_url or default_repo_url(),
                                magic_reading=magic_reading, prices=_price_table(prices_path), base=base,
                                progress=progress)
        except (BuildError, ReplayDataError) as err:
            raise click.ClickException(str(err)) from err
    for bad in report.invalid_replays:
        for problem in bad["problems"]:
            click.echo(f"left out: {problem}", err=True)
    for dup in report.duplicates:
        click.echo(f"duplicate: {dup['path']} has the same content as {dup['same_as']} (counted once)", err=True)
    click.echo(_summary(report))
    return report


_site_options = [
    click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path)),
    click.option("--site", type=click.Path(file_okay=False, path_type=Path), default=Path("site"),
                 show_default=True, help="Folder for the built site (replaced: empty, or a site built before)."),
    click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CACHE,
                 show_default=True, help="Cache of re-simulated replays, keyed by content hash."),
    click.option("--no-cache", is_flag=True, help="Re-read and re-simulate every replay."),
    click.option("--seed", type=click.IntRange(0), default=SCORING_SEED, show_default=True,
                 help="Seed of the bootstrap intervals."),
    click.option("--submissions", type=click.Choice(["include", "exclude"]), default="include", show_default=True,
                 help="Include the games that merged pull requests added (community submissions), or show "
                      "the maintainers' games only. The source of each game is read from git history."),
    click.option("--repo-url", metavar="URL",
                 help="The repository's https address, for links to pull requests (default in GitHub "
                      "Actions: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY)."),
    click.option("--base", metavar="REV",
                 help="Preview a merge into REV (e.g. origin/main): every game not on it (added by commits that are "
                      "not on REV, or not committed) is shown as your row, marked \"not merged\", never as the "
                      "maintainers', so no headline reads it. Default: the default branch of the current branch's "
                      "upstream remote (origin/main for a branch of origin), or the upstream itself; none without "
                      "an upstream (every committed game is then read from the checked-out history)."),
    click.option("--magic-reading", type=click.Choice(MAGIC_READINGS), default="paper", show_default=True,
                 help="The MAgIC reading the site headlines (leaderboards, radars, metric and agent pages): "
                      "the paper's formulas or the authors' reference script; every page with MAgIC numbers "
                      "names it and keeps the other a tap away."),
]


def site_options(command):
    """The arguments and options `build` and `serve` share."""
    for option in reversed(_site_options):
        command = option(command)
    return command


@click.command("build")
@site_options
@click.option("--site-url", metavar="URL",
              help="Where the site will be published (e.g. https://you.github.io/gamenight/): enables "
                   "instant page changes, canonical links and a correct sitemap there.")
@click.option("--summary", type=click.Path(dir_okay=False, path_type=Path),
              help="Append the site's size, or why it was refused, to this Markdown file (a CI job summary).")
@_prices_option
def build(paths, site, cache, no_cache, seed, submissions, repo_url, base, magic_reading, site_url, summary,
          prices_path):
    """Build the static leaderboard site from replays (default: the replays/ folder).

    Scores every replay (validated and re-simulated), renders the pages and charts, runs
    `mkdocs build --strict` and packs the viewer's data into compressed shards. Fails, naming the
    limit, if the site would not fit GitHub Pages (site_builder/hosting.py).
    """
    if site_url and not re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", site_url):
        raise click.BadParameter("expected an http(s) URL such as https://example.org/gamenight/",
                                 param_hint="--site-url")
    try:
        _build(paths or (_default_replays(),), site, cache, no_cache, seed, site_url, submissions, repo_url,
               magic_reading, prices_path, base)
    except click.ClickException as err:
        if summary:
            _append(summary, f"### Site not built\n\n{_markdown_text(err.message)}\n")
        raise
    if summary:
        from site_builder import hosting

        _append(summary, "### Site artifact\n\n" + hosting.summary_markdown(hosting.measure(site)) + "\n")


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(text)


def _markdown_text(text: str) -> str:
    """Plain text for a Markdown summary: no markup from file names or messages."""
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", text)


@click.command("serve")
@site_options
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--no-build", is_flag=True, help="Serve the site folder as it is, without building it first.")
def serve(paths, site, cache, no_cache, seed, submissions, repo_url, base, magic_reading, port, no_build):
    """Build the site, then serve it on 127.0.0.1 until interrupted (Ctrl+C).

    The site is built in a folder beside the site folder and switched in at once when done, so a
    server already using the folder (a site built before is served meanwhile) never finds it half
    built.
    """
    import threading

    from site_builder import serve as serving

    folder = site.resolve()
    if no_build and not (folder / "index.html").is_file():
        raise click.ClickException(f"{site}/index.html not found: build the site first (drop --no-build)")
    try:
        server = serving.make_server(folder, port)
    except OSError as err:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {err.strerror or err}") from err
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, name="serve", daemon=True)
    try:
        if not no_build:
            from site_builder.build import BuildError, check_site_folder

            try:
                check_site_folder(folder)
            except BuildError as err:
                raise click.ClickException(str(err)) from None
            if (folder / "index.html").is_file():
                thread.start()
                click.echo(f"serving the site built before from {folder} at {url} while the new one is built "
                           f"beside it, in {serving.next_folder(folder)}")
            # Built for the address it is served at, so Material's instant page changes work.
            try:
                serving.build_beside(folder, lambda into: _build(
                    paths or (_default_replays(),), into, cache, no_cache, seed, url, submissions, repo_url,
                    magic_reading, base=base))
            except (OSError, BuildError) as err:
                raise click.ClickException(f"the site was not built: {err}") from None
        click.echo(f"serving {folder} at {url} (Ctrl+C to stop)")
        if not thread.is_alive():
            thread.start()
        while thread.is_alive():
            thread.join(0.5)
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()


def make_server(folder: Path, port: int):
    """A static file server for `folder` on 127.0.0.1 (port 0: any free port): site_builder/serve.py."""
    from site_builder.serve import make_server as serving

    return serving(folder, port)


def _default_replays() -> Path:
    """The default replay folder, with a clear error when it is missing."""
    folder = Path("replays")
    if not folder.is_dir():
        raise click.ClickException("no replay folder given and ./replays does not exist: "
                                   "pass REPLAY_DIR (e.g. gamenight build path/to/replays)")
    return folder


@click.group("export")
def export():
    """Write games in other projects' formats."""


@export.command("magic")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_CACHE,
              show_default=True, help="Cache of re-simulated replays, keyed by content hash (the one `score` "
                                      "and `build` keep).")
@click.option("--no-cache", is_flag=True, help="Re-read and re-simulate every replay.")
def export_magic(out, paths, cache, no_cache):
    """Write 3-player MAgIC games (default: the replays/ folder) into OUT as the per-game result
    files of the MAgIC reference script (cathyxl/MAgIC, metrics_release.py), one folder tree per
    agent, with OUT/manifest.json naming the agents and the games left out.

    The replays are checked as `score` checks them, answered from the same cache; the games
    exported are then read again for their moves. Progress goes to stderr."""
    if out.exists() and any(out.iterdir()):
        raise click.ClickException(f"{out} is not empty: the script would read an earlier export's files as games")
    paths = paths or (_default_replays(),)
    from runner.progress import Progress
    from runner.replay.format import iter_replay_files

    files = sum(1 for _ in iter_replay_files(paths))
    with Progress() as progress:
        progress.say(f"export magic: checking the replays under {', '.join(map(str, paths))} "
                     f"({'no cache' if no_cache else f'cache {cache}'})")
        with progress.task("checking replays", total=files, unit="replays") as checking:
            # The scorer (numpy, scipy, the embedder: a second or two) is imported after the first line.
            from site_builder.export_magic import export as write_export
            from site_builder.export_magic import exported
            from site_builder.scoring.corpus import full_games, load

            corpus = load(paths, None if no_cache else cache, progress=checking.hook())
            checking.skip_rest()  # those the cache answered
        for bad in corpus.invalid_replays:
            for problem in bad["problems"]:
                progress.say(f"left out: {problem}")
        wanted = sum(1 for game in corpus.games if exported(game))
        with progress.task("reading the moves of the MAgIC games", total=wanted, unit="games") as reading:
            full = {game.game_id: game for game in full_games(corpus, exported, progress=reading.hook())}
    # The games left out need no moves: export names them and says why from what `load` kept.
    games = [full.get(game.game_id, game) for game in corpus.games if game.game_id in full or not exported(game)]
    done = write_export(games, corpus.agents, out)
    click.echo(f"wrote {done.files} file(s) for {len(done.agents)} agent(s) into {out}; "
               f"{len(done.skipped)} game(s) or seat(s) left out (see {out / 'manifest.json'})")
