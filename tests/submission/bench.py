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

`--ranked-stage` runs one case alone instead: stage 1 of the ranked suite (23 games and the row's
plan) for a model served by the same fake server, checked against the shipped corpus cold
(`--no-cache`, as the pull-request workflow runs it) and warm (with a cache, best of three); its
floor is parsing every line of the base corpus and the stage, which the check reads whole. With
`--code DIR` given more than once (`.`: this checkout), each code is measured on the same stage,
taking turns: `git archive OLD | tar -x -C /tmp/old`, then `--ranked-stage --code /tmp/old --code .`
compares a change with the code before it.

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


def check(repo: GitRepo, head: str, author: str, cache: Path | None = None, code: Path | None = None
          ) -> dict[str, Any]:
    """`gamenight submission-check main HEAD` in a process of its own (`--no-cache` without a
    cache), with the package in `code` if given: exit status, seconds, peak MB."""
    measure = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
               "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
               "print(code, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    command = [shutil.which("gamenight") or "gamenight", "submission-check", "main", head, "--repo", str(repo.path),
               "--author", author, *(["--cache", str(cache)] if cache else ["--no-cache"])]
    env = {**os.environ, "PYTHONPATH": str(code)} if code else None
    out = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True, check=True,
                         env=env)
    code, seconds, peak_kb = out.stdout.split()
    return {"exit": int(code), "seconds": float(seconds), "peak_mb": int(peak_kb) / 1024}


def ranked_stage(repo: GitRepo, scratch: Path, codes: list[Path | None]) -> None:
    """Stage 1 of the ranked suite, played against the fake server and committed on a branch
    `ranked` of main; the check with each of `codes` (None: this checkout's) on that same branch,
    cold, then warm (best of three, the runs of the codes taking turns, so a shared machine's load
    weighs on each alike), as seconds and ratios to the floor (measured between the runs, best)."""
    row = "ranked-1-bench-model"
    started = time.perf_counter()
    with FakeOpenAI(legal_reply) as server:
        subprocess.run([sys.executable, "-m", "runner", "run", "--suite", "ranked", "--model",
                        f"openai_compatible:bench-model@{server.base_url}", "--stages", "1", "--out",
                        str(scratch / row), "--no-cache", "--parallel", "8"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    played = time.perf_counter() - started
    repo.git("checkout", "-q", "-b", "ranked", "main")
    shutil.copytree(scratch / row, repo.path / "replays" / row)
    repo.commit("ranked stage 1")
    folders = [folder for folder in (repo.path / "replays").iterdir() if folder.is_dir()]

    def floor() -> float:
        return sum(floor_seconds(folder) for folder in folders)

    floors = [floor()]
    names = [str(code) if code else "this checkout" for code in codes]
    cold: dict[str, dict[str, Any]] = {}
    warm: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for name, code in zip(names, codes):
        cold[name] = check(repo, "ranked", "bench", code=code)
        check(repo, "ranked", "bench", scratch / name.replace("/", "_") / "scores.sqlite", code)  # fills its cache
        floors.append(floor())
    for _ in range(3):
        for name, code in zip(names, codes):
            warm[name].append(check(repo, "ranked", "bench", scratch / name.replace("/", "_") / "scores.sqlite", code))
        floors.append(floor())
    best = min(floors)
    games = len(list((scratch / row).glob("*.jsonl")))
    print(f"python {platform.python_version()}, {os.cpu_count()} cores; ranked stage 1: {games} games (played in "
          f"{played:.0f} s) on main's {sum(1 for f in folders if f.name != row)} folders; floor (orjson, every line "
          f"of main and the stage, best of {len(floors)}): {best:.2f} s (worst {max(floors):.2f} s)")
    print("| code | check | seconds | × floor | peak memory |\n| --- | --- | ---: | ---: | ---: |")
    for name in names:
        fastest = min(warm[name], key=lambda r: r["seconds"])
        assert cold[name]["exit"] == fastest["exit"] == 0, (name, cold[name], fastest)
        for what, result in (("cold (--no-cache)", cold[name]), ("warm (cache, best of 3)", fastest)):
            print(f"| {name} | {what} | {result['seconds']:.1f} | {result['seconds'] / best:.1f} | "
                  f"{result['peak_mb']:.0f} MB |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000, help="games of the honest submission (and flood copies)")
    parser.add_argument("--ranked-stage", action="store_true", help="check a ranked suite's stage 1 alone")
    parser.add_argument("--code", type=Path, action="append", help="check with the package in this folder (e.g. "
                        "`git archive` of another commit), not this checkout's; with --ranked-stage, may be given "
                        "again, and `.` is this checkout: each is measured on the same stage, taking turns")
    parser.add_argument("--keep", type=Path, help="keep the scratch folder here instead of deleting it")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="gamenight-bench-submission-"))
    try:
        repo = GitRepo(scratch / "repo")
        repo.write("README.md", "# gamenight\n")
        shutil.copytree(REPO / "replays", repo.path / "replays")
        repo.commit("the shipped corpus")
        if args.ranked_stage:
            ranked_stage(repo, scratch, [None if str(c) == "." else c.resolve() for c in args.code or [Path(".")]])
            return 0
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
            result = check(repo, head, "bench", code=args.code[-1].resolve() if args.code else None)
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
