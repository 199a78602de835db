"""Site build against the number of agents: `python -m site_builder.bench.agents --agents 1000 10000`.

Adds N agents to a base corpus (the shipped replays by default) and builds the whole site, in its
own process, for the base and for each N; reports the build's time, its peak memory (the resident
memory of the build's processes taken together, MkDocs and the loader's workers included, sampled
from /proc), the time and memory each added agent costs, and what the pages hold: the agent pages'
sizes and the most links to agent pages any page's navigation has. The added agents are built-in Chameleon agents (`chameleon/associative`), each with its own
`specificity` so each is its own row, and each plays one three-player game, all its seats alone
(self-play: a page with a radar, no rating). `--rated` seats them as the non-chameleons against
the built-in `assoc` instead, so every one of them is also fitted in the rating tables.

Every build starts from a copy of one cache warmed by a build of the base corpus: the base's games
are answered by the cache, the added ones are validated, re-derived from their seeds and scored.
docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import posixpath
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "replays"
#: The built-in strategy every added agent plays, and its parameter that makes each one distinct.
STRATEGY, PARAMETER = "chameleon/associative", "specificity"
#: The opponent of `--rated` agents (the built-in tournament's `assoc`, at its default specificity).
OPPONENT = "assoc"
#: The pages of the site that every build has whatever its agents: the navigation is checked on these.
FIXED_PAGES = ("index.html", "agents/index.html", "games/chameleon/index.html", "glossary/index.html")


def specificity(index: int, count: int) -> float:
    """The distinct specificity of added agent `index` of `count`, inside (0.1, 0.9) and never one
    of the built-in tournament's (0.2, 0.5, 0.9), so no added agent is an existing row."""
    return round(0.1 + 0.8 * (index + 0.5) / count, 9)


def agents_tournament(count: int, rated: bool = False, name: str = "agents-bench", among: range | None = None) -> str:
    """A tournament file of added agents, one three-player Chameleon game each: the agents `among`
    (default: all) of `count`, each with its own specificity."""
    among = range(count) if among is None else among
    lines = [f'name = "{name}"', "seed = 20261130", 'created = "2026-11-30"', "",
             f"[agents.{OPPONENT}]", f'builtin = "{STRATEGY}"', ""]
    for i in among:
        lines += [f"[agents.a{i:05d}]", f'builtin = "{STRATEGY}"', f"{PARAMETER} = {specificity(i, count)!r}", ""]
    for i in among:
        roles = f'chameleon = "{OPPONENT}", non_chameleon = "a{i:05d}"' if rated else f'"*" = "a{i:05d}"'
        lines += ["[[matchups]]", 'game = "chameleon"', "games = 1",
                  'rules = { players = 3, clue = "sentence", ties = "even" }', f"roles = {{ {roles} }}", ""]
    return "\n".join(lines)


#: Added agents per tournament file: the runner reads at most 1 MiB of one (runner/tournament.py
#: MAX_FILE_BYTES), and 2,000 agents take about 400 KB.
PER_PLAN = 2000


def play_agents(count: int, out: Path, rated: bool = False, parallel: int = 2) -> float:
    """Play the games of `count` added agents into `out` (with this checkout's runner); the seconds
    it took. Over PER_PLAN agents, a tournament of PER_PLAN agents per folder of `out` (a
    tournament's folder holds its plan and exactly its games)."""
    started = time.perf_counter()
    parts = [range(first, min(first + PER_PLAN, count)) for first in range(0, count, PER_PLAN)]
    for k, among in enumerate(parts):
        folder, name = (out, "agents-bench") if len(parts) == 1 else (out / f"part-{k}", f"agents-bench-{k}")
        plan = folder.parent / f"{folder.name}.toml"
        plan.parent.mkdir(parents=True, exist_ok=True)
        plan.write_text(agents_tournament(count, rated, name=name, among=among), encoding="utf-8")
        subprocess.run([sys.executable, "-m", "runner", "run", str(plan), "--out", str(folder),
                        "--parallel", str(parallel)], check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    return time.perf_counter() - started


# -- what a built site holds ---------------------------------------------------------------------

_PRIMARY_NAV = re.compile(r'<nav class="md-nav md-nav--primary".*?(?=<div class="md-sidebar md-sidebar--secondary"'
                          r'|<div class="md-content")', re.DOTALL)
_HREF = re.compile(r'href="([^"]*)"')


def agent_pages(site: Path) -> list[Path]:
    """The built pages of single agents (not the agents' index)."""
    return sorted(p for p in (site / "agents").glob("*/index.html"))


def nav_agent_links(html: str, folder: str) -> int:
    """How many links of a page's navigation (the primary sidebar) lead to a single agent's page;
    `folder` is the page's folder in the site ("" for the home page, "agents/x/" for an agent's)."""
    nav = _PRIMARY_NAV.search(html)
    if nav is None:
        raise ValueError("no primary navigation found in the page")
    targets = (posixpath.normpath(posixpath.join(folder, href.split("#")[0].split("?")[0]))
               for href in _HREF.findall(nav.group(0)) if "://" not in href)
    return sum(1 for target in targets if re.fullmatch(r"agents/[^/]+", target))


def page_figures(site: Path) -> dict[str, Any]:
    """Agent pages and their sizes, and the most links to agent pages any checked page's
    navigation holds (the fixed pages and up to 20 agent pages)."""
    singles = agent_pages(site)
    sizes = [p.stat().st_size for p in singles]
    checked = [site / rel for rel in FIXED_PAGES if (site / rel).is_file()] + singles[:: max(1, len(singles) // 20)]
    return {"agent_pages": len(singles),
            "agent_page_bytes_median": int(statistics.median(sizes)) if sizes else 0,
            "agent_page_bytes_max": max(sizes, default=0),
            "nav_agent_links_max": max(nav_agent_links(p.read_text(encoding="utf-8"), p.parent.relative_to(site).as_posix())
                                       for p in checked)}


# -- one build in its own process ----------------------------------------------------------------

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


def tree_rss_kb(root: int) -> tuple[int, int]:
    """The resident memory of process `root` and all its descendants (summed, and the largest
    one's), in KB, from /proc: what the build holds at this moment, children included."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        parents[int(stat.parent.name)] = int(fields[1])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    sizes = []
    for pid in tree:
        try:
            sizes.append(int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB)
        except (OSError, IndexError, ValueError):
            continue
    return sum(sizes), max(sizes, default=0)


#: How often the build's memory is sampled (seconds).
SAMPLE_EVERY = 0.1


def build_step(folders: list[Path], cache: Path, site: Path) -> dict[str, Any]:
    """`gamenight build` of `folders` in a fresh process: its figures (`_run_build`), and the peak
    resident memory of the build's processes taken together (sampled every SAMPLE_EVERY s)."""
    command = [sys.executable, "-m", "site_builder.bench.agents", "--step", "--cache", str(cache),
               "--site", str(site), *map(str, folders)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        step = subprocess.Popen(command, stdout=out, stderr=err, cwd=REPO)
        total = largest = 0
        while step.poll() is None:
            now, biggest = tree_rss_kb(step.pid)
            total, largest = max(total, now), max(largest, biggest)
            time.sleep(SAMPLE_EVERY)
        out.seek(0)
        err.seek(0)
        if step.returncode != 0:
            raise RuntimeError(f"the build failed ({step.returncode}):\n{err.read().decode(errors='replace')[-4000:]}")
        figures = json.loads(out.read().decode().strip().splitlines()[-1])
    return {**figures, "peak_mb": total / 1024, "peak_mb_process": largest / 1024}


def _run_build(folders: list[str], cache: Path, site: Path) -> dict[str, Any]:
    from site_builder import hosting
    from site_builder.build import build_site
    from site_builder.scoring import results_split

    # A site too big for GitHub Pages is still measured: the hosting check, the build's last
    # step, is noted here instead of stopping the build (a real build refuses to publish it).
    refused: list[str] = []
    check = hosting.check

    def noting(figures: Any, *args: Any, **kwargs: Any) -> None:
        try:
            check(figures, *args, **kwargs)
        except hosting.SiteTooBig as err:
            refused.append(str(err))

    hosting.check = noting
    started = time.perf_counter()
    try:
        report = build_site(folders, site, cache_path=cache)
    finally:
        hosting.check = check
    seconds = time.perf_counter() - started
    # CPU seconds of the build and its child processes: on a shared machine, what it cost itself.
    cpu = sum(getattr(resource.getrusage(who), part) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for part in ("ru_utime", "ru_stime"))
    results = results_split.read(report.results)
    # The results' bytes: the whole file, or its parts when the build published only parts.
    results_bytes = (report.results.stat().st_size if report.results.name != results_split.INDEX_NAME
                     else sum(p.stat().st_size for p in report.results.parent.glob("*.json")))
    return {"seconds": seconds, "cpu_seconds": cpu, "phases": dict(report.phases), "games": report.games, "refused": refused,
            "results_bytes": results_bytes, "largest_file": report.largest_file,
            "largest_file_bytes": report.largest_file_bytes,
            "agents": len(results["agents"]), "peak_mb_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "site_files": report.site_files, "site_bytes": report.site_bytes, **page_figures(site)}


# -- the benchmark -------------------------------------------------------------------------------

def bench(sizes: list[int], base: Path, root: Path, rated: bool = False, parallel: int = 2) -> list[dict[str, Any]]:
    """Build the base corpus, then the base with each number of added agents: one row each."""
    warm = root / "warm-cache.sqlite"
    if not warm.exists():
        print(f"warming the cache with a build of the base corpus {base}", flush=True)
        build_step([base], warm, root / "site-warmup")
    rows = []
    for count in [0, *sizes]:
        folders = [base]
        if count:
            corpus = root / f"agents-{count}{'-rated' if rated else ''}"
            if not corpus.is_dir():
                seconds = play_agents(count, corpus, rated, parallel)
                print(f"played {count:,} added agents' games in {seconds:.0f} s", flush=True)
            folders.append(corpus)
        work = root / f"build-{count}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        for kept in root.glob("warm-cache*"):  # the cache and the files kept beside it
            shutil.copy(kept, work / kept.name)
        row = {"added": count, **build_step(folders, work / warm.name, work / "site")}
        print(json.dumps(row), flush=True)
        rows.append(row)
        shutil.rmtree(work, ignore_errors=True)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, with each added agent's cost against the base."""
    base = rows[0]
    lines = ["| added agents | agents | games | seconds | CPU s | peak MB (all processes / largest) | "
             "per added agent: s, CPU s, MB | agent pages | agent page bytes (median / max) | agent links in any nav | "
             "site MB | results MB (whole or parts) | largest file MB | fits Pages | of which (s) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        per = (f"{(r['seconds'] - base['seconds']) / r['added']:.4f}, "
               f"{(r['cpu_seconds'] - base['cpu_seconds']) / r['added']:.4f}, "
               f"{(r['peak_mb'] - base['peak_mb']) / r['added']:.3f}") if r["added"] else ""
        phases = ", ".join(f"{k} {v:.1f}" for k, v in r["phases"].items())
        fits = "no: " + "; ".join(r["refused"]) if r["refused"] else "yes"
        lines.append(f"| {r['added']:,} | {r['agents']:,} | {r['games']:,} | {r['seconds']:.1f} | {r['cpu_seconds']:.1f} | "
                     f"{r['peak_mb']:.0f} / {r['peak_mb_process']:.0f} | {per} | "
                     f"{r['agent_pages']:,} | {r['agent_page_bytes_median']:,} / {r['agent_page_bytes_max']:,} | "
                     f"{r['nav_agent_links_max']} | {r['site_bytes'] / 1e6:.1f} | {r['results_bytes'] / 1e6:.1f} | "
                     f"{r['largest_file_bytes'] / 1e6:.1f} | "
                     f"{fits} | {phases} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench.agents", description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[1000], help="numbers of added agents (default 1000)")
    parser.add_argument("--base", type=Path, default=SHIPPED, help="the base corpus (default: the shipped replays)")
    parser.add_argument("--rated", action="store_true", help="added agents play against a built-in agent (rated)")
    parser.add_argument("--parallel", type=int, default=2, help="games played at once while making the corpora")
    parser.add_argument("--keep", type=Path, help="keep the corpora and the warm cache in this folder")
    parser.add_argument("--step", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--site", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("folders", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step:  # one build, in the process the parent started for it
        print(json.dumps(_run_build(args.folders, args.cache, args.site)))
        return 0
    if any(n <= 0 for n in args.agents):
        parser.error("--agents: each number of added agents must be positive")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gamenight-bench-agents-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        rows = bench(sorted(args.agents), args.base.resolve(), root.resolve(), args.rated, args.parallel)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
