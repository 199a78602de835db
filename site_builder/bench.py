"""Site build benchmark: `python -m site_builder.bench`.

Builds the site for the shipped corpus and for a synthetic corpus of about 10,000 games played by
the built-in agents (the built-in tournament with every matchup scaled up), each from a cold
cache, and prints the size of the site, the time of each build phase, and the gzip size of the
leaderboard page and of replay data files. docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from site_builder.build import BuildReport, build_site

REPO = Path(__file__).resolve().parents[1]
BUILTIN_TOURNAMENT = REPO / "runner" / "tournaments" / "builtin.toml"
SHIPPED = REPO / "replays"


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


def play(tournament: Path, out: Path, parallel: int) -> float:
    """Play a tournament file with the runner in a subprocess; the seconds it took."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "runner", "run", str(tournament), "--out", str(out),
                    "--parallel", str(parallel)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), compresslevel=9))


def replay_data_files(site: Path) -> list[Path]:
    """The per-replay data files the viewer module wrote (empty without the viewer)."""
    folder = site / "replays" / "data"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def describe(label: str, report: BuildReport, site: Path) -> dict[str, object]:
    """The figures of one build, as printed and as written in docs/benchmarks.md."""
    data = replay_data_files(site)
    zipped = [gzip_size(p) for p in data]
    return {
        "corpus": label, "games": report.games, "pages": report.pages, "replay files": report.replay_files,
        "site MB": round(report.site_bytes / 1e6, 1),
        "build s": round(report.seconds, 1),
        "phases": {k: round(v, 1) for k, v in report.phases.items()},
        "leaderboard gzip KB": round(gzip_size(site / "index.html") / 1e3, 1),
        "replay data gzip KB (median / max)": (f"{statistics.median(zipped) / 1e3:.1f} / {max(zipped) / 1e3:.1f}"
                                               if zipped else "n/a"),
        "replay data raw KB (median)": f"{statistics.median(p.stat().st_size for p in data) / 1e3:.1f}" if data else "n/a",
    }


def print_figures(figures: dict[str, object]) -> None:
    print(f"\n== {figures['corpus']} ==")
    for key, value in figures.items():
        if key != "corpus":
            print(f"  {key}: {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="size of the synthetic corpus (default 10000)")
    parser.add_argument("--parallel", type=int, default=4, help="games played at once for the synthetic corpus")
    parser.add_argument("--keep", type=Path, help="keep the corpora and sites in this folder")
    parser.add_argument("--skip-shipped", action="store_true", help="only the synthetic corpus")
    parser.add_argument("--skip-synthetic", action="store_true", help="only the shipped corpus")
    args = parser.parse_args(argv)

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}")
    with tempfile.TemporaryDirectory(prefix="gamenight-bench-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        if not args.skip_shipped:
            site = root / "site-shipped"
            report = build_site([SHIPPED], site, cache_path=root / "cache-shipped.sqlite")
            print_figures(describe("shipped corpus (replays/)", report, site))
        if not args.skip_synthetic:
            tournament = root / "synthetic.toml"
            tournament.write_text(scaled_tournament(args.games), encoding="utf-8")
            replays = root / "synthetic"
            seconds = play(tournament, replays, args.parallel)
            print(f"\nplayed {len(list(replays.glob('*.jsonl')))} synthetic games in {seconds:.0f}s")
            site = root / "site-synthetic"
            report = build_site([replays], site, cache_path=root / "cache-synthetic.sqlite")
            print_figures(describe(f"synthetic corpus ({args.games:,} games requested)", report, site))
            tick = time.perf_counter()
            again = build_site([replays], site, cache_path=root / "cache-synthetic.sqlite")
            print(f"\nrebuild with a warm cache: {time.perf_counter() - tick:.1f}s "
                  f"({', '.join(f'{k} {v:.1f}s' for k, v in again.phases.items())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
