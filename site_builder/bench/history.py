"""The published build against the board's history: `python -m site_builder.bench.history`.

The board over time fits one board per merge (scoring/history.py), so a build that fits every
point costs merges times games. This benchmark commits a corpus into a git repository as
`--merges` commits on first-parent history (contiguous runs of its files, as pull requests bring
them) and times, phase by phase and in a fresh process each (peak memory of the build's processes
taken together), what the Pages workflow runs:

- **cold**: every point fitted (what the workflow ran before it kept the history between runs);
- **kept**: the points and release snapshots kept by the build of the commit before (the
  workflow's `actions/cache` of them), the last merge's point fitted alone; the site it builds is
  compared, file for file, with the cold one.

Each row also gives the site's largest file. Results in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from site_builder import releases
from site_builder.bench.agents import build_step
from site_builder.bench.repository import git
from site_builder.bench.scale import play_synthetic, same_tree
from site_builder.scoring import history, vectors

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "replays"
#: The files of the build's cache the workflow keeps between runs (.github/workflows/pages.yml):
#: the history's points, the release snapshots and the sentence vectors, named as the code names
#: them beside a cache called scores.sqlite (the workflow's and this benchmark's).
KEPT = tuple(beside(Path("scores.sqlite")).name
             for beside in (history.store_beside, releases.kept_beside, vectors.beside))


def commit_as_merges(corpus: Path, repo: Path, merges: int) -> int:
    """Commit the corpus' replays (sub-folders kept) into `repo/replays` as `merges` commits of
    contiguous runs of its files, the first with every other file (plans), one a day; how many."""
    files = sorted(p.relative_to(corpus) for p in corpus.rglob("*") if p.is_file())
    replays = [p for p in files if p.suffix == ".jsonl"]
    others = [p for p in files if p.suffix != ".jsonl"]
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "gc.auto", "0")
    size = -(-len(replays) // merges)
    runs = [replays[i:i + size] for i in range(0, len(replays), size)]
    first = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for number, run in enumerate(runs):
        for rel in run + (others if number == 0 else []):
            (repo / "replays" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(corpus / rel, repo / "replays" / rel)
        git(repo, "add", "-A")
        day = (first + timedelta(days=number)).isoformat()
        git(repo, "commit", "-q", "-m", f"Merge pull request #{number + 1}", date=day)
    return len(runs)


def measure(corpus: Path, merges: int, scratch: Path, kept: bool = True) -> list[dict[str, Any]]:
    """The cold and (with `kept`) kept builds of `corpus` committed as `merges` merges."""
    repo = scratch / f"repo-{merges}"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    rows = []
    commits = commit_as_merges(corpus, repo, merges)
    cold_site = scratch / f"site-{merges}-cold"
    cold = build_step([repo / "replays"], scratch / f"cache-{merges}-cold" / "scores.sqlite", cold_site)
    rows.append({"merges": commits, "build": "cold: every point fitted", **cold})
    if kept and commits > 1:
        # The build of the commit before, then only its kept files beside a fresh cache.
        before = scratch / f"repo-{merges}-before"
        shutil.rmtree(before, ignore_errors=True)
        git(scratch, "clone", "-q", str(repo), str(before))
        git(before, "reset", "-q", "--hard", "HEAD~1")
        warm_cache = scratch / f"cache-{merges}-before" / "scores.sqlite"
        build_step([before / "replays"], warm_cache, scratch / f"site-{merges}-before")
        kept_cache = scratch / f"cache-{merges}-kept" / "scores.sqlite"
        kept_cache.parent.mkdir(parents=True, exist_ok=True)
        for name in KEPT:
            if (warm_cache.parent / name).is_file():
                shutil.copy(warm_cache.parent / name, kept_cache.parent / name)
        kept_site = scratch / f"site-{merges}-kept"
        warm = build_step([repo / "replays"], kept_cache, kept_site)
        same = same_tree(kept_site, cold_site)
        rows.append({"merges": commits, "build": "kept points of the commit before", **warm,
                     "note": "site = cold build's, file for file" if same else "SITE DIFFERS from the cold build's"})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, each build's time against the one-merge cold build of its corpus."""
    lines = ["| corpus | games | merges | build | seconds | × one merge | board over time s | releases s | "
             "peak MB | largest file | other phases (s) | note |",
             "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for r in rows:
        base = next((b for b in rows if b["corpus"] == r["corpus"] and b["merges"] == 1), None)
        ratio = f"{r['seconds'] / base['seconds']:.2f}" if base else ""
        phases = {k: v for k, v in r["phases"].items() if k not in ("board over time", "releases")}
        lines.append(
            f"| {r['corpus']} | {r['games']:,} | {r['merges']:,} | {r['build']} | {r['seconds']:.1f} | "
            f"{ratio} | {r['phases'].get('board over time', 0):.1f} | "
            f"{r['phases'].get('releases', 0):.1f} | {r['peak_mb']:.0f} | `{r['largest_file']}` "
            f"{r['largest_file_bytes'] / 1e6:.2f} MB | {', '.join(f'{k} {v:.1f}' for k, v in phases.items())} | "
            f"{r.get('note', '')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench.history", description=__doc__.splitlines()[0])
    parser.add_argument("--merges", type=int, nargs="+", default=[1, 10, 100], help="numbers of merges (default 1 10 100)")
    parser.add_argument("--games", type=int, help="a synthetic corpus of this many built-in games "
                                                  "(default: the shipped replays)")
    parser.add_argument("--corpus", type=Path, help="a folder of replays instead")
    parser.add_argument("--parallel", type=int, default=2, help="games played at once (synthetic corpus)")
    parser.add_argument("--keep", type=Path, help="keep the corpus, repositories and sites in this folder")
    parser.add_argument("--cold-only", action="store_true",
                        help="only the cold builds (a kept build costs two more builds: the commit before and itself)")
    args = parser.parse_args(argv)
    merges = sorted(set([1, *args.merges]))
    with tempfile.TemporaryDirectory(prefix="gamenight-history-bench-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        corpus, label = args.corpus or SHIPPED, str(args.corpus or "shipped")
        if args.games:
            # Built-in games only: a build checks every game as the workflow does, and the bench's
            # stand-in model games (scale.with_model_games) do not re-derive, so half would be refused.
            corpus, label = root / f"bots-{args.games}", f"synthetic, {args.games:,}"
            if not corpus.is_dir():
                play_synthetic(args.games, corpus, args.parallel)
        rows = []
        for count in merges:
            for row in measure(corpus, count, root, kept=not args.cold_only):
                rows.append({"corpus": label, **row})
                print(table(rows).splitlines()[-1], flush=True)
        print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
