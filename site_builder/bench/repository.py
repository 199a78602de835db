"""How big the source repository grows: `python -m site_builder.bench.repository`.

Builds a git repository whose history adds a synthetic corpus (`--games`, half of them model
games whose exchanges are real ones rewritten, as in `site_builder/bench/scale.py`) the way the board
grows: in pull-request-sized commits of one tournament folder each (`--per-commit` games, each
folder with its plan), then runs `git gc` and reports the packed size (`git count-objects -vH`)
beside the bytes in the working tree, per game and by kind. GitHub recommends keeping a Pages
source repository under 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from runner.replay.format import agent_kind
from site_builder.bench.scale import play_synthetic, with_model_games

#: GitHub's recommended ceiling for a repository (and a Pages source), in bytes.
RECOMMENDED = 1024**3


def git(repo: Path, *args: str, date: str | None = None) -> str:
    """`git -C repo args` as the bench's author; `date`: the author's and committer's date."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           **({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {})}
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env)
    return done.stdout


def is_model_game(path: Path) -> bool:
    with path.open(encoding="utf-8") as f:
        header = json.loads(f.readline())
    return any(agent_kind(p["agent"]) == "llm" for p in header["players"])


def commit_in_pull_requests(corpus: Path, repo: Path, per_commit: int) -> dict[str, int]:
    """Commit the corpus' files into `repo` as folders of `per_commit` games, one commit each;
    model games and bot games in separate folders (a contributor submits one tournament)."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "gc.auto", "0")  # one gc at the end, measured, not one in the background
    files = sorted(corpus.glob("*.jsonl"))
    model = {f for f in files if is_model_game(f)}
    kinds = {"model": [f for f in files if f in model], "bot": [f for f in files if f not in model]}
    plan = next(iter(corpus.glob("*.toml")), None)
    sizes = {"model": 0, "bot": 0, "model_games": len(kinds["model"]), "bot_games": len(kinds["bot"]), "commits": 0}
    batches = [(kind, i, paths[i:i + per_commit]) for kind, paths in kinds.items()
               for i in range(0, len(paths), per_commit)]
    batches.sort(key=lambda b: (b[1], b[0]))  # interleave, as pull requests of both kinds arrive
    for kind, start, batch in batches:
        folder = repo / "replays" / f"{kind}-{start // per_commit:04d}"
        folder.mkdir(parents=True)
        for path in batch:
            shutil.copy(path, folder / path.name)
            sizes[kind] += path.stat().st_size
        if plan is not None:
            shutil.copy(plan, folder / "tournament.toml")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Add {len(batch)} {kind} games")
        sizes["commits"] += 1
    return sizes


def packed_size(repo: Path) -> tuple[int, float]:
    """`git gc`, then the pack's size in bytes (from `git count-objects -v`) and gc's seconds."""
    started = time.perf_counter()
    git(repo, "gc", "-q")
    seconds = time.perf_counter() - started
    counts = dict(line.split(": ", 1) for line in git(repo, "count-objects", "-v").splitlines())
    return int(counts["size-pack"]) * 1024, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench.repository",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="size of the synthetic corpus (default 10000)")
    parser.add_argument("--corpus", type=Path, help="use these bot replays instead of playing them")
    parser.add_argument("--per-commit", type=int, default=1000, help="games per pull request (default 1000)")
    parser.add_argument("--parallel", type=int, default=2, help="games played at once")
    parser.add_argument("--keep", type=Path, help="keep the corpus and the repository in this folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gamenight-repo-bench-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        bots = args.corpus or root / f"bots-{args.games}"
        if args.corpus is None and not bots.is_dir():
            play_synthetic(args.games, bots, args.parallel)
        mixed = root / "mixed"
        shutil.rmtree(mixed, ignore_errors=True)
        with_model_games(bots, mixed)
        for plan in bots.glob("*.toml"):
            shutil.copy(plan, mixed / plan.name)
        repo = root / "repository"
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir()
        started = time.perf_counter()
        sizes = commit_in_pull_requests(mixed, repo, args.per_commit)
        commit_seconds = time.perf_counter() - started
        pack, gc_seconds = packed_size(repo)
    games = sizes["model_games"] + sizes["bot_games"]
    tree = sizes["model"] + sizes["bot"]
    print(json.dumps({**sizes, "games": games, "tree_bytes": tree, "packed_bytes": pack,
                      "commit_seconds": round(commit_seconds, 1), "gc_seconds": round(gc_seconds, 1)}))
    print(f"{games:,} games ({sizes['model_games']:,} model games) in {sizes['commits']} commits of "
          f"{args.per_commit:,}: working tree {tree / 1e6:,.1f} MB (model games {sizes['model'] / 1e6:,.1f} MB, "
          f"{sizes['model'] / max(1, sizes['model_games']) / 1e3:.1f} KB each; bot games {sizes['bot'] / 1e6:,.1f} MB, "
          f"{sizes['bot'] / max(1, sizes['bot_games']) / 1e3:.1f} KB each); packed after git gc "
          f"{pack / 1e6:,.1f} MB = {pack / games / 1e3:.2f} KB per game, {pack / RECOMMENDED:.0%} of the 1 GB "
          f"GitHub recommends (gc {gc_seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
