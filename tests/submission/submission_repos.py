"""Temporary git repositories with a base and a head commit, and replays to submit in them."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from runner.cli import main as gamenight
from runner.replay.format import encode
from site_builder.submission_cli import submission_check

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"
GAMES = ("chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf")
_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


class GitRepo:
    """A throwaway repository: write files, commit, and run the submission check on it."""

    def __init__(self, path: Path, *, clone_of: GitRepo | None = None, cache: Path | None = None):
        self.path = path
        #: The scorer's cache: keyed by content hash, so repositories of one test module can share it.
        self.cache = cache or path.parent / "scores.sqlite"
        path.mkdir(parents=True, exist_ok=True)
        if clone_of is None:
            self.git("init", "-q", "-b", "main")
        else:
            self.git("clone", "-q", str(clone_of.path), ".")

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.path), "-c", "commit.gpgsign=false", *args],
                              capture_output=True, text=True, env={**os.environ, **_GIT_ENV}, check=True)
        return done.stdout.strip()

    def write(self, relative: str, data: bytes | str) -> str:
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)
        return relative

    def read(self, relative: str) -> bytes:
        return (self.path / relative).read_bytes()

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def check(self, *extra: str, base: str = "main", head: str = "HEAD") -> tuple[Result, str]:
        """Run `gamenight submission-check BASE HEAD`; the result and the --summary file's text."""
        summary = self.path.parent / "summary.md"
        summary.unlink(missing_ok=True)
        args = [base, head, "--repo", str(self.path), "--summary", str(summary), "--cache", str(self.cache), *extra]
        result = CliRunner().invoke(submission_check, args)
        return result, summary.read_text(encoding="utf-8") if summary.exists() else ""


def shipped_sample(per_game: int = 2) -> dict[str, bytes]:
    """A few replays of each game from the shipped corpus, by repository path."""
    sample = {}
    for game in GAMES:
        for path in sorted(SHIPPED.glob(f"builtin-{game}-*.jsonl"))[:per_game]:
            sample[f"replays/builtin/{path.name}"] = path.read_bytes()
    return sample


def base_repo(path: Path) -> GitRepo:
    """A repository whose main branch holds a README and a sample of the shipped corpus."""
    repo = GitRepo(path)
    repo.write("README.md", "# gamenight\n")
    for relative, data in shipped_sample().items():
        repo.write(relative, data)
    repo.commit("base")
    return repo


def pull_request(template: GitRepo, path: Path, cache: Path) -> GitRepo:
    """A fresh clone of `template` on a new branch `pr`, ready for a contributor's commits."""
    repo = GitRepo(path, clone_of=template, cache=cache)
    repo.git("checkout", "-q", "-b", "pr")
    return repo


def play(out: Path, game: str, *flags: str, games: int = 2, name: str = "contrib") -> list[bytes]:
    """Play small games with `gamenight run --game` (scripted agents); the replays' bytes, sorted."""
    args = ["run", "--game", game, *flags, "--games", str(games), "--name", name, "--out", str(out)]
    result = CliRunner().invoke(gamenight, args)
    assert result.exit_code == 0, result.output
    return [p.read_bytes() for p in sorted(out.glob("*.jsonl"))]


def records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode().splitlines()]


def edit(raw: bytes, change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    """The replay with `change` applied to its records, written canonically."""
    lines = records(raw)
    change(lines)
    return encode(lines)


def llm_agent(name: str = "gpt4o-vanilla", model: str = "gpt-4o", reported: str | None = "gpt-4o-2024-08-06",
              **extra: Any) -> dict[str, Any]:
    agent = {"name": name, "kind": "llm", "provider": "openai", "model": model}
    if reported is not None:
        agent["model_reported"] = reported
    return {**agent, **extra}


def as_llm_game(raw: bytes, agent: Mapping[str, Any], *, tournament: str = "llm-run",
                seats: tuple[int, ...] | None = None, evidence: bool = True) -> tuple[str, bytes]:
    """A played replay retold as if a language model had held `seats` (all by default).

    The moves stay those of the scripted game (the rules cannot tell who chose them); the header
    names the model, and each of its actions carries a model call as evidence.
    """
    def change(lines: list[dict[str, Any]]) -> None:
        header = lines[0]
        chosen = range(len(header["players"])) if seats is None else seats
        for seat in chosen:
            header["players"][seat]["agent"] = dict(agent)
        header["tournament"] = tournament
        header["game_id"] = f"{tournament}-{header['game']}-{header['game_id'].rsplit('-', 1)[1]}"
        if not evidence:
            return
        for line in lines[1:]:
            if line.get("type") == "event" and line["kind"] == "action" and line["seat"] in chosen:
                line["evidence"] = {"calls": [{
                    "messages": [{"role": "user", "content": f"Your move in phase {line['phase']}."}],
                    "reply": json.dumps(line["data"]), "model_reported": agent.get("model_reported"),
                    "finish_reason": "stop", "input_tokens": 40, "output_tokens": 8,
                    "latency_ms": 100.0 + line["n"]}]}

    new = edit(raw, change)
    return records(new)[0]["game_id"], new


def replay_path(raw: bytes) -> str:
    """Where a replay belongs: replays/<tournament>/<game_id>.jsonl."""
    header = records(raw)[0]
    return f"replays/{header['tournament']}/{header['game_id']}.jsonl"
