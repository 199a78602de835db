"""Scoring and site build benchmark: `python -m site_builder.bench`.

For the shipped corpus and a synthetic corpus of built-in games (the built-in tournament with
every matchup scaled up; `--games`, e.g. 10000 or 100000), measures in one run:

- the floor: reading every replay and parsing every line with orjson;
- `score` cold (empty cache) and warm (nothing changed); `build` cold and warm;
- "add ten replays": ten more games join the corpus, then a warm rebuild (and a warm re-score);
- the peak memory of each step (each runs in its own process; its worker processes included);
- whether a cold build and the warm incremental build of the same corpus give the same site,
  file for file, and the same results file byte for byte.

Times are printed as seconds and as ratios to the floor measured in the same run (the machine
is shared: ratios compare across runs, seconds do not). docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BUILTIN_TOURNAMENT = REPO / "runner" / "tournaments" / "builtin.toml"
SHIPPED = REPO / "replays"
#: Above this many games a site build is skipped unless asked for (100,000 data files).
BUILD_UP_TO = 20_000


def scaled_tournament(games: int, source: Path = BUILTIN_TOURNAMENT, name: str = "synthetic") -> str:
    """The built-in tournament with every matchup's game count scaled so the total is about `games`."""
    text = source.read_text(encoding="utf-8")
    counts = [int(n) for n in re.findall(r"^games = (\d+)\s*$", text, re.MULTILINE)]
    if not counts:
        raise ValueError(f"{source}: no `games = N` lines to scale")
    factor = games / sum(counts)
    text = re.sub(r"^games = (\d+)\s*$", lambda m: f"games = {max(1, round(int(m.group(1)) * factor))}",
                  text, flags=re.MULTILINE)
    return re.sub(r'^name = "[^"]*"', f'name = "{name}"', text, count=1, flags=re.MULTILINE)


def run_runner(args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "runner", "run", *args], check=True, stdout=subprocess.DEVNULL)


def play_synthetic(games: int, out: Path, parallel: int) -> float:
    """Play the scaled built-in tournament into `out`; the seconds it took."""
    tournament = out.parent / f"{out.name}.toml"
    tournament.write_text(scaled_tournament(games), encoding="utf-8")
    started = time.perf_counter()
    run_runner([str(tournament), "--out", str(out), "--parallel", str(parallel)])
    return time.perf_counter() - started


def add_ten(out: Path, seed: int) -> None:
    """Ten new Chameleon games of the built-in `random` agent (a seed the corpus never used)."""
    run_runner(["--game", "chameleon", "--role", "*=random", "--games", "10", "--seed", str(seed),
                "--name", "added", "--out", str(out)])


def floor_seconds(folders: list[Path], runs: int = 3) -> float:
    """Read every replay and parse every line with orjson: what any scorer must at least do.

    The best of `runs` passes, so the files are in the page cache as they are for a warm score.
    """
    import orjson

    from runner.replay.format import iter_replay_files

    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for path in iter_replay_files(folders):
            for line in path.read_bytes().splitlines():
                orjson.loads(line)
        best = min(best, time.perf_counter() - started)
    return best


# -- one step in its own process ------------------------------------------------------------

def step(kind: str, folders: list[Path], cache: Path, out: Path) -> dict[str, Any]:
    """Run `score` or `build` in a fresh process: its seconds, phases and peak memory (MB)."""
    command = [sys.executable, "-m", "site_builder.bench", "--step", kind, "--cache", str(cache), "--out", str(out),
               *map(str, folders)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run_step(kind: str, folders: list[str], cache: Path, out: Path) -> dict[str, Any]:
    started = time.perf_counter()
    phases: dict[str, float] = {}
    if kind == "score":
        from site_builder.scoring.corpus import load
        from site_builder.scoring.results import assemble, write
        from site_builder.scoring.sections import beside

        corpus = load(folders, cache)
        phases["load and re-simulate"] = time.perf_counter() - started
        tick = time.perf_counter()
        write(assemble(corpus, kept=beside(cache)), out)
        phases["aggregate and write"] = time.perf_counter() - tick
        games = len(corpus.games)
    else:
        from site_builder.build import build_site

        report = build_site(folders, out, cache_path=cache)
        phases = dict(report.phases)
        games = report.games
    seconds = time.perf_counter() - started
    peak_kb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {"seconds": seconds, "phases": phases, "peak_mb": peak_kb / 1024, "games": games}


# -- a corpus --------------------------------------------------------------------------------

def same_tree(a: Path, b: Path) -> bool:
    """Whether two sites hold the same files with the same bytes (the gzip sitemap's time stamp aside)."""
    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and p.name != "sitemap.xml.gz"}
    return files(a) == files(b)


def bench_corpus(label: str, corpus: Path, scratch: Path, build: bool, seed: int) -> list[dict[str, Any]]:
    """Every step on one corpus; rows of (step, seconds, ratio, peak MB, games, note)."""
    shutil.rmtree(scratch, ignore_errors=True)  # every cache and site of an earlier run: "cold" means cold
    scratch.mkdir(parents=True)
    rows: list[dict[str, Any]] = []
    floor = floor_seconds([corpus])
    rows.append({"step": "floor: read + orjson-parse every line (best of 3)", "seconds": floor, "peak_mb": None, "note": ""})
    cache = scratch / "cache.sqlite"
    for name, kind, out in [("score, cold cache", "score", scratch / "results.json"),
                            ("score, warm cache (nothing changed)", "score", scratch / "results.json")]:
        rows.append({"step": name, **step(kind, [corpus], cache, out)})
    if build:
        site = scratch / "site"
        rows.append({"step": "build, cold cache", **step("build", [corpus], scratch / "build-cache.sqlite", site)})
        rows.append({"step": "build, warm (nothing changed)",
                     **step("build", [corpus], scratch / "build-cache.sqlite", site)})
    added = scratch / "added"
    add_ten(added, seed)
    rows.append({"step": "add 10 replays: score, warm cache", **step("score", [corpus, added], cache,
                                                                    scratch / "results-added.json")})
    cold_results = scratch / "results-added-cold.json"
    step("score", [corpus, added], scratch / "cold-cache.sqlite", cold_results)
    identical = cold_results.read_bytes() == (scratch / "results-added.json").read_bytes()
    rows[-1]["note"] = "results = cold re-score's, byte for byte" if identical else "RESULTS DIFFER from a cold re-score"
    if build:
        rows.append({"step": "add 10 replays: build, warm cache",
                     **step("build", [corpus, added], scratch / "build-cache.sqlite", site)})
        cold_site = scratch / "site-cold"
        step("build", [corpus, added], scratch / "cold-build-cache.sqlite", cold_site)
        rows[-1]["note"] = ("site = cold build's, file for file" if same_tree(site, cold_site)
                            else "SITE DIFFERS from a cold build")
    for row in rows:
        row["ratio"] = row["seconds"] / floor
        row["corpus"] = label
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| corpus | step | games | seconds | × floor | peak MB | of which | note |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        phases = ", ".join(f"{k} {v:.1f}" for k, v in (r.get("phases") or {}).items())
        peak = f"{r['peak_mb']:.0f}" if r.get("peak_mb") else ""
        lines.append(f"| {r['corpus']} | {r['step']} | {r.get('games', '')} | {r['seconds']:.2f} | "
                     f"{r['ratio']:.1f} | {peak} | {phases} | {r.get('note', '')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="size of the synthetic corpus (default 10000)")
    parser.add_argument("--corpus", type=Path, help="use these replays as the synthetic corpus (no playing)")
    parser.add_argument("--parallel", type=int, default=4, help="games played at once for the synthetic corpus")
    parser.add_argument("--build", action=argparse.BooleanOptionalAction, default=None,
                        help=f"also time site builds (default: with at most {BUILD_UP_TO:,} games)")
    parser.add_argument("--keep", type=Path, help="keep the corpora, caches and sites in this folder")
    parser.add_argument("--skip-shipped", action="store_true", help="only the synthetic corpus")
    parser.add_argument("--skip-synthetic", action="store_true", help="only the shipped corpus")
    parser.add_argument("--step", choices=["score", "build"], help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("folders", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step:  # one timed step, in the process the parent started for it
        print(json.dumps(_run_step(args.step, args.folders, args.cache, args.out)))
        return 0

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gamenight-bench-") as scratch_dir:
        root = args.keep or Path(scratch_dir)
        root.mkdir(parents=True, exist_ok=True)
        if not args.skip_shipped:
            rows += bench_corpus("shipped", SHIPPED, root / "shipped", build=args.build is not False, seed=910)
        if not args.skip_synthetic:
            corpus = args.corpus
            if corpus is None:
                corpus = root / f"synthetic-{args.games}"
                seconds = play_synthetic(args.games, corpus, args.parallel)
                print(f"played {sum(1 for _ in corpus.glob('*.jsonl')):,} synthetic games in {seconds:.0f}s")
            games = sum(1 for _ in corpus.rglob("*.jsonl"))
            build = args.build if args.build is not None else games <= BUILD_UP_TO
            rows += bench_corpus(f"synthetic, {games:,} files", corpus, root / f"work-{corpus.name}", build=build,
                                 seed=911)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
