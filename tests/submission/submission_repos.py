"""Temporary git repositories with a base and a head commit, and replays to submit in them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from collections.abc import Callable, Mapping
from html import unescape
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from markdown_it import MarkdownIt

from runner.cli import main as gamenight
from runner.replay.format import encode
from site_builder.submission.cli import submission_check
from tests import pinned

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"
GAMES = ("chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf")
_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


class GitRepo:
    """A throwaway repository: write files, commit, and run the submission check on it."""

    def __init__(self, path: Path, *, clone_of: GitRepo | None = None, cache: Path | None = None,
                 pinned_dates: bool = False):
        self.path = path
        #: Whether every commit is dated as tests/pinned.py dates it (the same commit ids on every run).
        self.pinned_dates = pinned_dates
        #: The scorer's cache: keyed by content hash, so repositories of one test module can share it.
        self.cache = cache or path.parent / "scores.sqlite"
        path.mkdir(parents=True, exist_ok=True)
        if clone_of is None:
            self.git("init", "-q", "-b", "main")
        else:
            self.git("clone", "-q", str(clone_of.path), ".")

    def git(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        done = subprocess.run(["git", "-C", str(self.path), "-c", "commit.gpgsign=false", *args],
                              capture_output=True, text=True, env={**os.environ, **_GIT_ENV, **(env or {})}, check=True)
        return done.stdout.strip()

    def write(self, relative: str, data: bytes | str) -> str:
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)
        return relative

    def read(self, relative: str) -> bytes:
        return (self.path / relative).read_bytes()

    def commit(self, message: str = "change", author: str | None = None) -> str:
        """Commit everything; `author` ("Name <e-mail>") as a squash merge of GitHub would set it."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, *(["--author", author] if author else []),
                 env=pinned.commit_env(self.path) if self.pinned_dates else None)
        return self.git("rev-parse", "HEAD")

    def write_all(self, files: Mapping[str, bytes]) -> list[str]:
        return [self.write(path, data) for path, data in files.items()]

    def check(self, *extra: str, base: str = "main", head: str = "HEAD", author: str | None = "alice"
              ) -> tuple[Result, str]:
        """Run `gamenight submission-check BASE HEAD --author AUTHOR`; the result and the --summary file's text."""
        summary = self.path.parent / "summary.md"
        summary.unlink(missing_ok=True)
        args = [base, head, "--repo", str(self.path), "--summary", str(summary), "--cache", str(self.cache), *extra]
        if author is not None:
            args += ["--author", author]
        result = CliRunner().invoke(submission_check, args)
        return result, summary.read_text(encoding="utf-8") if summary.exists() else ""


def verdict(repo: GitRepo, author: str, author_id: str | None = None) -> tuple[int, str]:
    """Commit, check as `author`: the check's exit code and its report as a reader sees it
    (rendered, tags and escapes gone)."""
    repo.commit("submission")
    result, summary = repo.check(*(["--author-id", author_id] if author_id else []), base="main", author=author)
    assert "Traceback" not in result.output, result.output
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(summary)
    return result.exit_code, unescape(re.sub(r"<[^>]+>", "", rendered)).replace("\u200b", "")


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


def records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode().splitlines()]


def edit(raw: bytes, change: Callable[[list[dict[str, Any]]], None]) -> bytes:
    """The replay with `change` applied to its records, written canonically."""
    lines = records(raw)
    change(lines)
    return encode(lines)


# -- tournaments of a model, played for real against a fake OpenAI-compatible server -------------

TEST_KEY = "sk-test-submission-0123456789abcdef"


def model_table(name: str, base_url: str, model: str = "my-model", extra: str = "") -> str:
    """A tournament file's table of a language model served by the fake server at `base_url`."""
    return (f'[agents.{name}]\nprovider = "openai_compatible"\nmodel = "{model}"\nbase_url = "{base_url}"\n'
            f'api_key_env = "TEST_LLM_KEY"\ntemperature = 0.0\nmax_tokens = 300\n{extra}\n')


def tournament_file(name: str, tables: str, matchups: list[str], seed: int = 7) -> str:
    return f'name = "{name}"\nseed = {seed}\ncreated = "2026-11-25"\n\n{tables}\n' + "\n".join(
        f"[[matchups]]\n{m}\n" for m in matchups)


def play_tournament(folder: Path, toml: str) -> dict[str, bytes]:
    """Play a tournament file with `gamenight run` into `folder`; every file written (the replays
    and the plan), by repository path replays/<name>/<file>."""
    plan = folder.parent / f"{folder.name}.toml"
    plan.write_text(toml, encoding="utf-8")
    result = CliRunner().invoke(gamenight, ["run", str(plan), "--out", str(folder), "--parallel", "4", "--no-cache"],
                                env={"TEST_LLM_KEY": TEST_KEY})
    assert result.exit_code == 0, result.output
    name = tomllib.loads(toml)["name"]
    return {f"replays/{name}/{p.name}": p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def play_suite(folder: Path, model: str, stages: int = 1) -> dict[str, bytes]:
    """Play stages 1..`stages` of the ranked suite with `gamenight run --suite ranked --model MODEL`
    into `folder` (named replays/<its name>/ in the repository); every file written, by path."""
    result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", model, "--stages", str(stages),
                                            "--out", str(folder), "--no-cache", "--parallel", "4"],
                                env={"TEST_LLM_KEY": TEST_KEY})
    assert result.exit_code == 0, result.output
    return {f"replays/{folder.name}/{p.name}": p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def replay_path(raw: bytes) -> str:
    """Where a replay belongs: replays/<tournament>/<game_id>.jsonl."""
    header = records(raw)[0]
    return f"replays/{header['tournament']}/{header['game_id']}.jsonl"
