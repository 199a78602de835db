"""Submission-check benchmark: `python -m tests.submission.bench [--games 5000]`.

The pull-request check on a realistic submission and on the attacks it must turn away quickly:

- an honest submission: a whole tournament of `--games` games of one language model against the
  built-in agents (Prisoner's Dilemma, Public Good, Cost Sharing and the Chameleon), played with
  `gamenight run` against a local OpenAI-compatible server that answers gamenight's prompts
  legally in the plain-text form models write, into a repository whose main holds the shipped
  corpus; the check reads every file as git objects, derives every game, prompt and move again
  and scores the board before and after;
- a flood: `--games` copies of one shipped built-in game under fresh ids;
- a partial tournament: the honest tournament without one of its games.

Each check runs as `gamenight submission-check` in its own process (wall time and peak memory by
the kernel's accounting of that process and its workers). The floor is parsing every line of the
honest submission's replays with orjson, best of three with the files in the page cache: times
are printed as seconds and as ratios to it (the machine is shared: ratios compare across runs).
It lives with the tests because it plays against their fake server (tests/llm/fakes.py).
docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply
from tests.submission.submission_repos import TEST_KEY, GitRepo, model_table

REPO = Path(__file__).resolve().parents[2]
SHARES = {"prisoners_dilemma": 0.4, "public_good": 0.3, "cost_sharing": 0.1, "chameleon": 0.2}
LINEUPS = {"prisoners_dilemma": ["prisoners_dilemma/tit_for_tat", "random"],
           "public_good": ["public_good/conditional", "random"],
           "cost_sharing": ["cost_sharing/proportional", "cost_sharing/conceding"]}


def honest_tournament(games: int, base_url: str) -> str:
    """A tournament of about `games` games of one model against built-in agents."""
    matchups = []
    for game, share in SHARES.items():
        count = max(1, round(games * share))
        if game == "chameleon":
            matchups.append(f'game = "chameleon"\ngames = {count}\n'
                            'roles = { chameleon = "bench-model", "*" = "chameleon/trivial" }')
        else:
            lineup = ", ".join(f'"{a}"' for a in ["bench-model", *LINEUPS[game]])
            matchups.append(f'game = "{game}"\ngames = {count}\nlineup = [{lineup}]')
    return (f'name = "bench-model"\nseed = 2026\ncreated = "2026-11-25"\n\n{model_table("bench-model", base_url)}\n'
            + "\n".join(f"[[matchups]]\n{m}\n" for m in matchups))


def play(folder: Path, games: int) -> float:
    """Play the honest tournament into `folder`; the seconds it took."""
    started = time.perf_counter()
    with FakeOpenAI(legal_reply) as server:
        plan = folder.parent / "bench-model.toml"
        plan.write_text(honest_tournament(games, server.base_url), encoding="utf-8")
        subprocess.run([sys.executable, "-m", "runner", "run", str(plan), "--out", str(folder), "--parallel", "16",
                        "--no-cache"], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "TEST_LLM_KEY": TEST_KEY})
    return time.perf_counter() - started


def floor_seconds(folder: Path) -> float:
    """Parsing every line of every replay with orjson, best of three."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for path in folder.glob("*.jsonl"):
            for line in path.read_bytes().splitlines():
                orjson.loads(line)
        best = min(best, time.perf_counter() - started)
    return best


def check(repo: GitRepo, head: str, author: str) -> dict[str, Any]:
    """`gamenight submission-check main HEAD` in a process of its own: exit status, seconds, peak MB."""
    measure = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
               "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
               "print(code, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    command = [shutil.which("gamenight") or "gamenight", "submission-check", "main", head, "--repo", str(repo.path),
               "--author", author, "--no-cache"]
    out = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True, check=True)
    code, seconds, peak_kb = out.stdout.split()
    return {"exit": int(code), "seconds": float(seconds), "peak_mb": int(peak_kb) / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000, help="games of the honest submission (and flood copies)")
    parser.add_argument("--keep", type=Path, help="keep the scratch folder here instead of deleting it")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="gamenight-bench-submission-"))
    try:
        repo = GitRepo(scratch / "repo")
        repo.write("README.md", "# gamenight\n")
        shutil.copytree(REPO / "replays", repo.path / "replays")
        repo.commit("the shipped corpus")
        base_games = len(list((repo.path / "replays").rglob("*.jsonl")))
        played = scratch / "played"
        seconds_to_play = play(played, args.games)
        submitted = sorted(played.glob("*.jsonl"))
        floor = floor_seconds(played)
        size = sum(p.stat().st_size for p in submitted)
        print(f"python {platform.python_version()}, {os.cpu_count()} cores; main: {base_games} games; honest "
              f"submission: {len(submitted)} games of a model, {size / 1e6:.1f} MB (played in {seconds_to_play:.0f} s); "
              f"floor (orjson, every line, best of 3): {floor:.2f} s")

        repo.git("checkout", "-q", "-b", "honest", "main")
        shutil.copytree(played, repo.path / "replays" / "bench-model")
        repo.commit("honest")
        repo.git("checkout", "-q", "-b", "partial", "honest")
        (repo.path / "replays" / "bench-model" / submitted[len(submitted) // 2].name).unlink()
        repo.commit("one game left out")
        repo.git("checkout", "-q", "-b", "flood", "main")
        one = next((repo.path / "replays" / "builtin").glob("builtin-prisoners_dilemma-*.jsonl")).read_bytes()
        for i in range(args.games):
            repo.write(f"replays/flood/flood-prisoners_dilemma-{i:012x}.jsonl", one)
        repo.commit("flood")

        rows = []
        for name, head, expected in (("honest submission", "honest", 0), ("partial tournament", "partial", 1),
                                     ("flood of copies", "flood", 1)):
            result = check(repo, head, "bench")
            verdict = "accepted" if result["exit"] == 0 else "refused" if result["exit"] == 1 else "error"
            assert result["exit"] == expected, f"{name}: exit {result['exit']}, expected {expected}"
            rows.append((name, verdict, result))
        print("| check | verdict | seconds | × floor | peak memory |\n| --- | --- | ---: | ---: | ---: |")
        for name, verdict, result in rows:
            print(f"| {name} | {verdict} | {result['seconds']:.1f} | {result['seconds'] / floor:.1f} | "
                  f"{result['peak_mb']:.0f} MB |")
        honest = rows[0][2]
        print(f"honest: {honest['seconds'] / len(submitted) * 1000:.1f} ms a game")
    finally:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            shutil.move(str(scratch), str(args.keep / scratch.name))
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
