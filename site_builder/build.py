"""`gamenight build`: score the replays, render the MkDocs project, build it strictly, add replay data.

The MkDocs project is generated into a work folder: mkdocs.yml, Markdown pages from Jinja2
templates, JSON files for the charts, the results downloads, the theme override (a CSP meta tag)
and the scripts. The number of Markdown pages depends on the games and agents only; each replay
joins a compressed data shard of many games, written straight into the built site by the replay
viewer's module.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from runner.prices import PriceTable
from runner.progress import Progress, Task
from runner.replay.format import iter_replay_files
from site_builder import hosting, releases, sources
from site_builder.pages import agents, games, labels, methodology
from site_builder.pages.site import render as render_pages
from site_builder.viewer import pages as viewer_pages
from site_builder.viewer import write as viewer_write
from site_builder.viewer.files import CALLS_DIR, DATA_DIR
from site_builder.scoring import digest, history
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.entry import owner_labels, score_replays
from site_builder.scoring.model import ScoredGame
from site_builder.scoring.owners import Owner
from site_builder.scoring import results_split
from site_builder.scoring.results import SCORING_SEED, csv_tables, dumps
from site_builder.scoring.schema import AgentSource, History, Releases, Results, Sources

PACKAGE = Path(__file__).resolve().parent
OVERRIDES = PACKAGE / "templates" / "overrides"
HOOKS = PACKAGE / "mkdocs_hooks.py"
ASSETS = PACKAGE / "assets" / "gamenight"
SITE_NAME = "gamenight"
PROJECT_MARKER = ".gamenight-site-project"  # marks a work folder this module may empty
SITE_MARKER = Path("assets") / "gamenight" / "site.js"  # present in every site this module built
RESULTS_PARTS = "results"  # the folder of downloads/ holding the results' parts and their index


class BuildError(RuntimeError):
    """The site could not be built; the message says why (e.g. MkDocs' strict-mode warnings)."""


@dataclass
class BuildReport:
    """What a build produced and how long each phase took."""

    pages: int                 # Markdown pages of the MkDocs project
    replay_files: int          # data files of the replay viewer in the site
    site_bytes: int            # total size of the built site
    seconds: float             # wall time of the whole build
    results: Path              # the results JSON inside the site
    games: int = 0             # games scored
    invalid_replays: list[dict[str, Any]] = field(default_factory=list)
    duplicates: list[dict[str, str]] = field(default_factory=list)
    markdown_pages: list[str] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)  # phase -> seconds
    replay_files_written: int = 0  # of those, made by this build (the others were kept from the last)
    replay_games_rendered: int = 0  # games whose viewer data this build made (the others' was copied)
    site_files: int = 0        # files in the built site
    largest_file: str = ""     # its largest file (relative path) and that file's bytes
    largest_file_bytes: int = 0
    unmerged: int = 0          # games not on the base of a preview: shown as the builder's rows, "not merged"
    unmerged_why: list[str] = field(default_factory=list)  # why ("commits not on origin/main", "not committed")


def recent_games(corpus: Corpus, limit: int = agents.RECENT_REPLAYS) -> dict[str, list[dict[str, Any]]]:
    """Each agent's most recent games (newest first) as its page lists them: id, game, date, the
    other agents at the table, how it went for this agent and how many moves it took."""
    out: dict[str, list[dict[str, Any]]] = {}
    for game in sorted(corpus.games, key=lambda g: (g.created, g.game_id), reverse=True):
        if game.verify is not None:
            continue  # a verification's games are evidence about a ranked row, on no agent's page (scoring/board.py)
        contributed = game.game_id in corpus.owners
        for key in sorted({s.agent for s in game.seats}):
            info = corpus.agents.get(key)
            if contributed and (info is None or info.kind == "builtin"):
                continue  # a built-in agent's page is the maintainers' row: their games only
            mine = out.setdefault(key, [])
            if len(mine) >= limit:
                continue
            seats = game.seats_of(key)
            if not game.valid:
                result = "forfeited" if game.forfeiter == key else "left out: another agent forfeited"
            else:
                won = sum(s.won for s in seats)
                result = "won" if won == len(seats) else "lost" if won == 0 else f"won {won} of {len(seats)} seats"
            mine.append({"id": game.game_id, "game": game.game, "date": game.created[:10],
                         "roles": sorted({s.role for s in seats}), "against": sorted({s.agent for s in game.seats} - {key}),
                         "result": result, "moves": digest.moves(game)})
    return out


def featured_games(corpus: Corpus, results: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A few games of each game worth watching, chosen by the rules its page states
    (pages/games.py FEATURED_RULES): the longest, the biggest upset, the newest; among the maintainers'
    games, so a submission never takes a place on another row's page."""
    by_game: dict[str, list[ScoredGame]] = {}
    for game in corpus.games:
        if game.valid and game.game_id not in corpus.owners and game.verify is None:  # the maintainers' board games
            by_game.setdefault(game.game, []).append(game)
    out: dict[str, list[dict[str, Any]]] = {}
    for name, played in sorted(by_game.items()):
        moves = {g.game_id: digest.moves(g) for g in played}
        picks: list[tuple[dict[str, Any], ScoredGame]] = []
        longest = min(played, key=lambda g: (-moves[g.game_id], g.game_id))
        picks.append(({"rule": "longest", "moves": moves[longest.game_id]}, longest))
        rated = {r["agent"]: r["rating"] for r in results["ratings"]["by_game"].get(name, {}).get("agents", [])}
        upsets = []
        for g in played:
            won = {s.agent for s in g.seats if s.won}
            lost = {s.agent for s in g.seats} - won
            if won and lost and won | lost <= rated.keys():
                gap = max(rated[a] for a in lost) - max(rated[a] for a in won)
                if gap > 0:
                    upsets.append((-gap, g.game_id, g))
        if upsets:
            gap, _, upset = min(upsets)
            picks.append(({"rule": "upset", "gap": -gap}, upset))
        newest = max(played, key=lambda g: (g.created, g.game_id))
        picks.append(({"rule": "newest", "date": newest.created[:10]}, newest))
        out[name] = [{**item, "id": g.game_id, "agents": sorted({s.agent for s in g.seats})} for item, g in picks]
    return out


def viewer_context(results: dict[str, Any]) -> dict[str, Any]:
    """What the replay pages get: site name, games with titles and counts, agents with labels and pages."""
    refs = labels.agent_refs(results)
    counts = results["corpus"]["by_game"]
    return {
        "site_name": SITE_NAME,
        "use_directory_urls": True,
        "games": [{"name": name, "title": title, "games": counts.get(name, 0)}
                  for name, title in games.titles().items()],
        "agents": {key: {"label": ref.label, "display": ref.display, "slug": ref.slug,
                         "page": labels.page_url(ref.page)} for key, ref in refs.items()},
    }


def mkdocs_config(nav: list[Any], site_dir: Path, extra_css: Sequence[str], extra_js: Sequence[str],
                  site_url: str | None, not_in_nav: str = "") -> dict[str, Any]:
    """The mkdocs.yml of the generated project."""
    toggle = lambda icon, name: {"icon": icon, "name": name}
    config: dict[str, Any] = {
        "site_name": SITE_NAME,
        "site_description": "How well language models play games of revealing, concealing and inferring information.",
        "docs_dir": "docs",
        "site_dir": str(site_dir),
        "use_directory_urls": True,
        "theme": {
            "name": "material",
            "custom_dir": str(OVERRIDES),
            "font": False,  # no Google Fonts: nothing is fetched from another origin
            "favicon": "assets/gamenight/favicon.svg",  # 0.3 KB, not the theme's 1.9 KB PNG
            "language": "en",
            "features": ["navigation.instant", "navigation.tracking", "navigation.top", "toc.follow",
                         "search.highlight"],
            "palette": [
                {"media": "(prefers-color-scheme: light)", "scheme": "default", "primary": "indigo",
                 "accent": "indigo", "toggle": toggle("material/weather-night", "Switch to dark mode")},
                {"media": "(prefers-color-scheme: dark)", "scheme": "slate", "primary": "indigo",
                 "accent": "indigo", "toggle": toggle("material/weather-sunny", "Switch to light mode")},
            ],
        },
        "plugins": ["search"],
        "hooks": [str(HOOKS)],  # mkdocs_hooks.py: what a page leaves out of search
        "markdown_extensions": ["tables", "admonition", "pymdownx.details", "pymdownx.superfences",
                                {"toc": {"permalink": True}}],
        "extra": {"generator": False},
        "extra_css": list(extra_css),
        "extra_javascript": list(extra_js),
        "nav": nav,
        "not_in_nav": not_in_nav,  # pages built and linked, with no nav entry each (pages/page.py)
        "validation": {"omitted_files": "warn", "absolute_links": "warn", "unrecognized_links": "warn",
                       "anchors": "warn", "not_found": "warn"},
    }
    if site_url:
        config["site_url"] = site_url
    return config


def write_project(results: dict[str, Any], corpus: Corpus, project: Path, site_dir: Path,
                  site_url: str | None = None) -> list[str]:
    """Render the whole MkDocs project into `project`; the Markdown pages written."""
    if project.exists() and any(project.iterdir()):
        if not (project / PROJECT_MARKER).is_file():
            raise BuildError(f"refusing to empty the work folder {project}: it is not empty and was not made "
                             f"by gamenight build")
        shutil.rmtree(project)
    docs = project / "docs"
    docs.mkdir(parents=True)
    (project / PROJECT_MARKER).write_text("made by gamenight build; emptied on every build\n", encoding="utf-8")
    tables = csv_tables(results)
    whole = dumps(results)
    # The results as parts a host serves whatever the board's size, and whole as well while it is no
    # bigger than a part (scoring/results_split.py).
    limit = results_split.PART_BYTES
    cut = results_split.split(results, limit)
    whole_fits = len(whole.encode("utf-8")) <= limit
    site = render_pages(results, recent=recent_games(corpus), featured=featured_games(corpus, results),
                        replays=viewer_pages.pages(viewer_context(results)),
                        methodology=methodology.pages(methodology.docs_folder()), csv_names=sorted(tables),
                        results_files={"whole": whole_fits, "parts": results_split.listing(cut[1])},
                        site_name=SITE_NAME)
    markdown = site.markdown
    extra_css = ["assets/gamenight/site.css", "assets/gamenight/fit.css"]
    extra_js = ["assets/gamenight/fit.js", "assets/gamenight/site.js", "assets/gamenight/agent-search.js"]
    # The viewer's pages load their own scripts and styles (Material re-runs page scripts on
    # instant navigation), so they are copied but not added to every page.
    for source, rel in viewer_pages.assets():
        _copy(Path(source), docs / rel)
    for rel, text in markdown.items():
        _write(docs / rel, text)
    for rel, data in site.data.items():
        _write(docs / rel, json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":")))
    if whole_fits:
        _write(docs / "downloads" / "results.json", whole)
    results_split.write(results, docs / "downloads" / RESULTS_PARTS, cut=cut)
    for name, text in tables.items():
        _write(docs / "downloads" / name, text)
    for asset in ASSETS.iterdir():
        if asset.is_file():
            _copy(asset, docs / "assets" / "gamenight" / asset.name)
    config = mkdocs_config(site.nav, site_dir, extra_css, extra_js, site_url, site.not_in_nav)
    _write(project / "mkdocs.yml", yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return sorted(markdown)


def run_mkdocs(project: Path, built: Callable[[], None] | None = None) -> None:
    """`mkdocs build --strict` of the project; a BuildError with MkDocs' messages if it fails.

    `built` is called as each Markdown page is built (MkDocs' verbose log names each one)."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--verbose",
               "-f", str(project / "mkdocs.yml")]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    problems, said = [], []
    with subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env) as child:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("DEBUG"):
                if built is not None and line.split("-", 1)[-1].lstrip().startswith("Building page "):
                    built()
                continue
            said.append(line.rstrip("\n"))
            if line.startswith(("WARNING", "ERROR", "Error", "Aborted")):
                problems.append(line.rstrip("\n"))
    if child.returncode != 0:
        raise BuildError("mkdocs build --strict failed:\n" + "\n".join(problems or ["\n".join(said).strip()]))


def check_site_folder(site: Path) -> None:
    """Refuse to let MkDocs empty a folder that is neither empty nor a site this module built."""
    if site.is_file():
        raise BuildError(f"the site folder {site} is a file")
    if site.is_dir() and any(p for p in site.iterdir() if not p.name.startswith(".")) \
            and not (site / SITE_MARKER).is_file():
        raise BuildError(f"refusing to replace {site}: it is not empty and does not hold a site built by "
                         f"gamenight build (choose another --site folder)")


_REPO_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::\d{1,5})?(?:/[A-Za-z0-9._~-]+)*")


def default_repo_url() -> str | None:
    """The repository's address inside GitHub Actions (for links to pull requests), else None."""
    server, repository = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    return f"{server.rstrip('/')}/{repository}" if server and repository else None


def check_repo_url(url: str | None) -> str | None:
    """The repository address without a trailing slash; a BuildError unless it is a plain https URL."""
    if url is None:
        return None
    url = url.rstrip("/")
    if not _REPO_URL.fullmatch(url):
        raise BuildError(f"--repo-url {url!r}: expected an https address such as https://github.com/OWNER/REPO")
    return url


@dataclass(frozen=True)
class Origins:
    """Where each replay file came from (git), and so which files the build reads and who owns them."""

    files: list[str]                    # the replay files the build reads, in the loader's order
    of_file: dict[str, sources.Source]  # every replay file found -> its source
    owner_of: dict[str, Owner]          # file -> the owner of its rows (none: the maintainers')


def read_origins(replay_paths: Sequence[str | os.PathLike[str]], base: str | None, *, find_base: bool,
                 submissions: str) -> Origins:
    """The sources of the replay files under `replay_paths` (sources.sources); with
    `submissions="exclude"`, the files the merged pull requests and previews added left out."""
    files = [str(f) for f in iter_replay_files(replay_paths)]
    try:
        of_file = sources.sources(files, base, find_base=find_base)
    except sources.BaseError as err:
        raise BuildError(str(err)) from None
    if submissions == "exclude":
        files = [f for f in files if not of_file[f].contributed]
    return Origins(files, of_file, sources.owners(of_file))


@dataclass(frozen=True)
class Provenance:
    """Where each scored game came from, as the pages show it and the board over time reads it."""

    of_game: dict[str, sources.Source]          # game id -> its file's source
    summary: Sources                            # results' corpus.sources
    by_agent: dict[str, list[AgentSource]]      # agent key -> its games' sources (its page's list)
    merged: dict[str, history.Merge | None]     # game id -> the commit that merged it (None: git holds no such file)


def provenance(corpus: Corpus, origins: Origins, *, submissions: str, repo_url: str | None) -> Provenance:
    """The sources of the scored corpus' games: summed up, per agent, and as merges."""
    of_file, exclude = origins.of_file, submissions == "exclude"
    of_game = {game_id: of_file[path] for game_id, path in corpus.paths.items()}
    summary = sources.summary(
        of_game, {g.game_id: g.tournament for g in corpus.games}, exclude=exclude,
        excluded=sum(1 for s in of_file.values() if s.contributed) if exclude else 0,
        excluded_unmerged=sum(1 for s in of_file.values() if s.kind == sources.UNMERGED) if exclude else 0,
        repo_url=repo_url)
    by_agent = sources.by_agent([g for g in corpus.games if g.verify is None], of_game, repo_url)
    merged = {game_id: history.Merge(s.commit, s.date, s.label) if s.commit and s.date else None
              for game_id, s in of_game.items()}
    return Provenance(of_game, summary, by_agent, merged)


def site_results(scored: Results, found: Provenance, over_time: History, released: Releases) -> Results:
    """The results the site publishes, made once from the stages' values: the scorer's (left as they
    are), each game's and agent's sources, the board over time and the releases."""
    return {**scored, "corpus": {**scored["corpus"], "sources": found.summary},
            "agents": [{**agent, "sources": found.by_agent.get(agent["key"], [])} for agent in scored["agents"]],
            "history": over_time, "releases": released}


def build_site(replay_paths: Iterable[str | os.PathLike[str]], site_dir: str | os.PathLike[str], *,
               work_dir: str | os.PathLike[str] | None = None, cache_path: str | os.PathLike[str] | None = None,
               seed: int = SCORING_SEED, site_url: str | None = None, derive: bool = True,
               submissions: str = "include", repo_url: str | None = None,
               magic_reading: str = "paper", prices: PriceTable | None = None,
               base: str | None = None, find_base: bool = True, progress: Progress | None = None) -> BuildReport:
    """Build the static site for the replays under `replay_paths` into `site_dir`.

    `submissions="exclude"` leaves out every game a merged pull request added (site_builder/sources.py),
    so the leaderboards show the maintainers' games only. `derive=False` skips the check that each
    game follows from its seed (runner/rerun/derive.py): only for test corpora dealt by hand,
    never for a published site. `magic_reading` ("paper" or "reference") is the MAgIC reading the
    pages headline; the other is a tap away on every page that shows MAgIC numbers. `prices` is
    the price table of the model rows' cost (default: the shipped runner/prices.toml). `base` (a
    revision; with `find_base`, when None, the default branch of the current branch's upstream,
    sources.upstream_base) makes the build a preview of a merge into it: a game not on the base is
    the builder's, marked "not merged", never the maintainers' (site_builder/sources.py).
    `progress` (default: none shown) hears of each phase: the replays checked, the merges and
    releases scored, the pages written and the games whose viewer data is made, with counts.
    """
    if submissions not in ("include", "exclude"):
        raise BuildError(f"submissions must be 'include' or 'exclude', not {submissions!r}")
    if magic_reading not in ("paper", "reference"):
        raise BuildError(f"magic_reading must be 'paper' or 'reference', not {magic_reading!r}")
    repo_url = check_repo_url(repo_url)
    progress = progress or Progress(quiet=True)
    started = time.perf_counter()
    phases: dict[str, float] = {}
    site = Path(site_dir).resolve()
    check_site_folder(site)
    replay_paths = list(replay_paths)
    with _phase(phases, "sources from git", progress.task("reading where each replay came from (git)")):
        origins = read_origins(replay_paths, base, find_base=find_base, submissions=submissions)
    # With every file wanted, the loader walks the folders again (a listing per folder) rather
    # than taking 100,000 file names, each of which it would check as a path given by hand
    # (is it a folder, where does it resolve: half the load phase at 100,000 files); the same files
    # in the same order. The maintainers' games make the board; each contributor adds its own rows
    # (scoring/board.py).
    scored = score_replays(origins.files if submissions == "exclude" else replay_paths, origins.owner_of,
                           cache=Path(cache_path) if cache_path else None, seed=seed, derive=derive,
                           magic_reading=magic_reading, prices=prices, files=len(origins.files), progress=progress)
    corpus = scored.corpus
    phases["load and re-simulate"], phases["score"] = scored.seconds
    sourced = time.perf_counter()  # where each game came from, for the pages: timed with the scoring
    found = provenance(corpus, origins, submissions=submissions, repo_url=repo_url)
    phases["score"] += time.perf_counter() - sourced
    merges = len(history.points(found.merged)) or None  # none: replays git does not hold, a phase with nothing to count
    with _phase(phases, "board over time",
                progress.task("scoring the board at each merge", total=merges, unit="merges")) as over_time:
        over = history.board_over_time(corpus, found.merged, owner_labels(origins.owner_of), seed=seed,
                                       kept=history.store_beside(Path(cache_path)) if cache_path else None,
                                       progress=over_time.hook())
    with _phase(phases, "releases", progress.task("scoring the releases", unit="releases")) as releasing:
        released = releases.snapshots(replay_paths, cache_path=Path(cache_path) if cache_path else None,
                                      seed=seed, derive=derive, submissions=submissions, progress=releasing.hook())
    results = site_results(scored.results, found, over, released)  # type: ignore[arg-type]  # history and releases are built as dicts
    markdown, data = write_site(results, corpus, found.of_game, site, work_dir=work_dir, site_url=site_url,
                                cache_path=cache_path, repo_url=repo_url, phases=phases, progress=progress)
    figures = hosting.measure(site)
    try:
        hosting.check(figures)
    except hosting.SiteTooBig as err:
        raise BuildError(f"{err}; the site was left in {site} to look into, and must not be deployed") from None
    return BuildReport(pages=len(markdown), replay_files=data.files, replay_files_written=data.written,
                       replay_games_rendered=data.rendered, site_files=figures.files,
                       largest_file=figures.largest, largest_file_bytes=figures.largest_bytes,
                       site_bytes=figures.bytes,
                       seconds=time.perf_counter() - started, results=results_file(site),
                       games=len(corpus.games), invalid_replays=corpus.invalid_replays,
                       duplicates=corpus.duplicates, markdown_pages=markdown, phases=phases,
                       unmerged=sum(1 for s in found.of_game.values() if s.kind == sources.UNMERGED),
                       unmerged_why=results["corpus"]["sources"]["unmerged"])


def write_site(results: Results, corpus: Corpus, of_game: dict[str, sources.Source], site: Path, *,
               work_dir: str | os.PathLike[str] | None, site_url: str | None, cache_path: str | os.PathLike[str] | None,
               repo_url: str | None, phases: dict[str, float], progress: Progress
               ) -> tuple[list[str], viewer_write.DataWritten]:
    """The site's last stages: the MkDocs project rendered and built into `site`, then the replay
    viewer's data (kept from the last build where a game did not change); the Markdown pages and
    the data written."""
    with tempfile.TemporaryDirectory(prefix="gamenight-site-", dir=site.parent if site.parent.is_dir() else None
                                     ) as scratch:
        project = Path(work_dir).resolve() if work_dir else Path(scratch) / "project"
        if project == site or project in site.parents:
            raise BuildError(f"the work folder {project} must not contain the site folder {site}")
        with _phase(phases, "render pages", progress.task("rendering the pages")):
            markdown = write_project(results, corpus, project, site, site_url)
        # MkDocs empties the site folder: the last build's replay data waits beside it (same disk,
        # so a rename), and files whose replay did not change are kept.
        previous = _set_aside_replay_data(site, Path(scratch) / "previous") if cache_path else None
        with _phase(phases, "mkdocs build", progress.task("writing pages (mkdocs build)", total=len(markdown),
                                                          unit="pages")) as writing:
            run_mkdocs(project, writing.advance)
        manifest = Path(cache_path).with_name(Path(cache_path).stem + "-replay-data.json") if cache_path else None
        with _phase(phases, "replay data", progress.task("writing the replay viewer's data", total=len(corpus.games),
                                                         unit="games")) as packing:
            data = viewer_write.write_data(corpus, site, {k: v.to_json(repo_url) for k, v in of_game.items()},
                                           previous=previous, manifest=manifest, progress=packing.hook())
            packing.skip_rest()  # games whose shards were kept as they were
            viewer_pages.write_styles(site)
    return markdown, data


def results_file(site: Path) -> Path:
    """The built site's results: the whole file when the build wrote it, else the index of its parts
    (either is read by `results_split.read`)."""
    whole = site / "downloads" / "results.json"
    return whole if whole.is_file() else site / "downloads" / RESULTS_PARTS / results_split.INDEX_NAME


@contextmanager
def _phase(phases: dict[str, float], name: str, task: Task) -> Iterator[Task]:
    """`task` (a progress line for the reader) around a phase of the build, timed into `phases[name]`."""
    started = time.perf_counter()
    with task:
        yield task
    phases[name] = time.perf_counter() - started


def _set_aside_replay_data(site: Path, aside: Path) -> Path:
    """Move the replay data and calls folders of the site's last build into `aside`."""
    aside.mkdir(parents=True, exist_ok=True)
    for folder in (DATA_DIR, CALLS_DIR):
        if (site / folder).is_dir() and (site / SITE_MARKER).is_file():
            (site / folder).rename(aside / Path(folder).name)
    return aside


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
