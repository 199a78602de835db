"""Playing the maintainers' run's plan, and the pull request that brings its replays to main.

Each kept item is one gamenight command, run as a process of its own: a stage is `gamenight run
--suite S --model M --label L --stages N --budget USD --price P [--key-env VAR]`, a verification
`gamenight verify replays/<row> --model M --deals K [--key-env VAR]`, whose last line says the
verdict (exit 0 exact or consistent, 1 inconsistent, 2 refused). What an item cost is read from the
replays it wrote (their recorded tokens at its price, less the calls the response cache answered),
and the next item starts only if its estimate still fits what is left of the budget.

The run acts as the GitHub Actions bot (sources.ACTIONS_BOT_LOGIN): its commits are the bot's, and
the runner's check that a row's folder holds only its owner's replays (runner/run.py, row_refusal)
knows the rows the bot's merged pull requests added as its own. An item that fails leaves what it
wrote out of the pull request: a stage goes in whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from runner.replay.format import iter_replay_files
from runner.run import Usage, model_calls
from runner.tournament import price_text
from site_builder import git
from site_builder.roster.plan import STAGE, VERIFY, Item, RosterPlan, counted, usd
from site_builder.sources import ACTIONS_BOT_EMAIL, ACTIONS_BOT_LOGIN
from site_builder.submission.report import escape_markdown

#: How a command of this gamenight is run: the interpreter running this one.
GAMENIGHT = (sys.executable, "-m", "runner")
#: The verdict line `gamenight verify` ends with.
_VERDICT = re.compile(r"^verdict: (exact|consistent|inconsistent)\b")
#: What the pull request may carry: replay folders' files only.
_EXPORTED = re.compile(r"^replays/[A-Za-z0-9][A-Za-z0-9._-]{0,120}/[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.(?:jsonl|toml)$")
#: The address of a workflow run, as GitHub's own variables make it (nothing else is linked).
_RUN_URL = re.compile(r"https://[A-Za-z0-9.-]{1,100}/[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}/actions/runs/[0-9]{1,20}")
PULL_REQUEST_FILE = "pull-request.json"
BODY_FILE = "pull-request.md"
BASE_BRANCH = "main"
#: Largest file the pull request carries (the submission check's limit is lower still).
MAX_FILE_BYTES = 64 * 1024 * 1024


def bot_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the run's commands get: git names the GitHub Actions bot as the user, so the
    runner knows the rows its merged pull requests added as this machine's user's own."""
    env = dict(os.environ if environ is None else environ)
    base = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    for offset, (key, value) in enumerate((("user.name", ACTIONS_BOT_LOGIN), ("user.email", ACTIONS_BOT_EMAIL))):
        env[f"GIT_CONFIG_KEY_{base + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{base + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(base + 2)
    return env


@dataclass
class Outcome:
    """What one item did: `status` played, inconsistent (a verification's verdict), failed,
    refused or not played (the budget), the games it wrote, what they cost, the verdict line."""

    item: Item
    status: str
    games: int = 0
    cost: float = 0.0
    said: str = ""
    files: list[str] = field(default_factory=list)  # written under replays/, kept for the pull request

    @property
    def counts(self) -> bool:
        return self.status in ("played", "inconsistent")


@dataclass
class RunResult:
    plan: RosterPlan
    outcomes: list[Outcome]

    @property
    def spent(self) -> float:
        return sum(o.cost for o in self.outcomes)

    @property
    def files(self) -> list[str]:
        return sorted({f for o in self.outcomes if o.counts for f in o.files})

    def summary_line(self) -> str:
        played = [o for o in self.outcomes if o.counts]
        stages = [o for o in played if o.item.kind == STAGE]
        return (f"{counted(len(stages), 'stage')} of {counted(len({o.item.label for o in stages}), 'model')}, "
                f"{counted(len(played) - len(stages), 'verification')}, {counted(sum(o.games for o in played), 'game')}; "
                f"spent USD {self.spent:,.2f} of {self.plan.budget:,.2f} (the dry run said USD {self.plan.estimate:,.2f})")

    def markdown(self) -> str:
        lines = ["### The maintainers' run: what was played", ""]
        if not self.outcomes:
            lines += ["Nothing: the plan keeps no item.", ""]
            return "\n".join(lines)
        lines += ["| # | item | outcome | games | USD |", "|---:|---|---|---:|---:|"]
        for n, outcome in enumerate(self.outcomes, start=1):
            said = f"{outcome.status}: {outcome.said}" if outcome.said else outcome.status
            lines.append(f"| {n} | {escape_markdown(outcome.item.title)} | {escape_markdown(said)} | {outcome.games} | "
                         f"{usd(outcome.cost).removeprefix('USD ')} |")
        lines += ["", f"**{escape_markdown(self.summary_line())}**", ""]
        return "\n".join(lines)


Runner = Callable[[Sequence[str], Path, Mapping[str, str]], tuple[int, str]]


def run_command(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> tuple[int, str]:
    """Run a command with its output shown as it comes; its exit status and its last line of output:
    of stdout (where a verdict is printed), or of stderr when stdout said nothing after the command
    failed (a refusal is one line on stderr)."""
    last, said = "", [""]

    def pump(stream: Any) -> None:
        for line in stream:
            sys.stderr.write(line)
            said[0] = line.strip() or said[0]

    with subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace") as process:
        assert process.stdout is not None and process.stderr is not None
        errors = threading.Thread(target=pump, args=(process.stderr,), daemon=True)
        errors.start()
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            last = line.strip() or last
        errors.join()
    if process.returncode != 0 and not _VERDICT.match(last):
        last = said[0] or last
    return process.returncode, last


def play(plan: RosterPlan, replays: Path, *, parallel: int = 4, gamenight: Sequence[str] = GAMENIGHT,
         runner: Runner = run_command, environ: Mapping[str, str] | None = None) -> RunResult:
    """Play the plan's kept items in order, each only while its estimate fits what is left."""
    env = bot_environment(environ)
    outcomes: list[Outcome] = []
    failed_rows: set[str] = set()
    for item in plan.kept:
        spent = sum(o.cost for o in outcomes)
        if item.row in failed_rows and item.kind == STAGE:
            outcomes.append(Outcome(item, "not played", said="an earlier stage of its row failed"))
            continue
        if spent + (item.estimate or 0.0) > plan.budget + 1e-9:
            outcomes.append(Outcome(item, "not played", said=f"its {usd(item.estimate)} would pass the budget "
                                                             f"(USD {spent:,.2f} spent)"))
            continue
        folder = replays / item.folder
        before = _snapshot(folder)
        code, last = runner(_argv(item, replays, plan.budget - spent, parallel, gamenight), replays.parent, env)
        written = [p for p, digest in _snapshot(folder).items() if before.get(p) != digest]
        status, said = _status(item, code, last)
        outcome = Outcome(item, status, sum(1 for p in written if p.suffix == ".jsonl"), _cost(written, item), said)
        if outcome.counts:
            outcome.files = [p.relative_to(replays.parent).as_posix() for p in written]
        elif item.kind == STAGE:
            failed_rows.add(item.row)
        outcomes.append(outcome)
    return RunResult(plan, outcomes)


def _argv(item: Item, replays: Path, left: float, parallel: int, gamenight: Sequence[str]) -> list[str]:
    key = ["--key-env", item.key_env] if item.key_env else []
    if item.kind == VERIFY:
        return [*gamenight, "verify", str(replays / item.row), "--model", item.model, "--deals", str(item.deals), *key]
    price = item.cost_price
    assert price is not None
    return [*gamenight, "run", "--suite", item.suite, "--model", item.model, "--label", item.label,
            "--stages", str(item.stage), "--out", str(replays / item.row), "--budget", f"{max(left, 1e-6):.6f}",
            "--price", price_text(price), "--parallel", str(parallel), *key]


def _status(item: Item, code: int, last: str) -> tuple[str, str]:
    """(status, what it said) of a finished command."""
    if item.kind == STAGE:
        return ("played", "") if code == 0 else ("failed", f"exit {code}: {last}")
    verdict = _VERDICT.match(last)
    if code in (0, 1) and verdict and (verdict.group(1) == "inconsistent") == (code == 1):
        return ("played" if code == 0 else "inconsistent"), last
    return ("refused" if code == 2 else "failed"), f"exit {code}: {last}"


def _snapshot(folder: Path) -> dict[Path, str]:
    """Every file of a folder with a digest of its bytes."""
    if not folder.is_dir():
        return {}
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _cost(written: Sequence[Path], item: Item) -> float:
    """USD of the model calls in the replays written: their tokens at the item's price, less the
    calls the response cache answered (they were paid for before)."""
    price = item.cost_price
    total = 0.0
    for path in iter_replay_files([p for p in written if p.suffix == ".jsonl"]):
        usage = Usage()
        try:
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except ValueError:
            continue
        for _, call in model_calls(records):
            usage.add_call(call)
        total += usage.cost(price) or 0.0
    return total


# -- the pull request -----------------------------------------------------------------------------

@dataclass
class PullRequest:
    """What the run proposes: its branch, title, body and the files it adds or changes."""

    branch: str
    title: str
    body: str
    files: list[str]
    base: str = BASE_BRANCH

    def gh_argv(self, body_file: Path) -> list[str]:
        return ["gh", "pr", "create", "--base", self.base, "--head", self.branch, "--title", self.title,
                "--body-file", str(body_file)]

    def push_argv(self) -> list[str]:
        return ["git", "push", "origin", f"HEAD:refs/heads/{self.branch}"]


def pull_request(result: RunResult, *, run_id: str | None, commit: str | None, run_url: str | None,
                 today: dt.date | None = None) -> PullRequest:
    day = (today or dt.datetime.now(dt.timezone.utc).date()).isoformat()
    suffix = run_id if run_id and re.fullmatch(r"[0-9]{1,20}", run_id) else dt.datetime.now(dt.timezone.utc).strftime("%H%M%S")
    title = f"Maintainers' run {day}: {result.summary_line().split(';')[0]}"
    trusted_url = run_url if run_url and _RUN_URL.fullmatch(run_url) else None
    source = f"[the workflow run {suffix}]({trusted_url})" if trusted_url else "`gamenight roster run`"
    at = commit if commit and re.fullmatch(r"[0-9a-f]{40}", commit) else "this checkout"
    body = "\n".join([
        f"Opened by {source}, from {BASE_BRANCH} at {at}, as the GitHub Actions bot.", "",
        f"- Squash-merge it and leave the commit's author as it is ({ACTIONS_BOT_LOGIN}): its games are then the "
        "maintainers' (site_builder/sources.py, docs/maintainers.md).",
        "- GitHub runs no workflow on a pull request a workflow opened: close and reopen it to run the tests and "
        "the submission check.", "",
        result.plan.markdown(), result.markdown(),
        f"{counted(len(result.files), 'file')} under replays/."])
    return PullRequest(f"maintainers-run/{day}-{suffix}", title, body, result.files)


def export(result: RunResult, replays: Path, to: Path, request: PullRequest) -> None:
    """The run's files and its pull request, for the job that opens it: to/replays/..., to/pull-request.json
    (branch, title, body, files, base) and to/pull-request.md (the body)."""
    to.mkdir(parents=True, exist_ok=True)
    root = replays.parent
    for relative in request.files:
        target = to / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, target)
    (to / PULL_REQUEST_FILE).write_text(json.dumps(asdict(request), indent=1) + "\n", encoding="utf-8")
    (to / BODY_FILE).write_text(request.body + "\n", encoding="utf-8")


class PullRequestError(ValueError):
    """The exported run cannot be proposed; one line."""


def read_export(folder: Path) -> PullRequest:
    """The pull request an exported run describes, every file checked: a replay folder's file, a
    plain file in the export, of a sane size."""
    path = folder / PULL_REQUEST_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        request = PullRequest(**raw)
    except (OSError, ValueError, TypeError) as exc:
        raise PullRequestError(f"{path}: not the pull request of a maintainers' run: {exc}") from None
    if not re.fullmatch(r"maintainers-run/[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{1,20}", request.branch):
        raise PullRequestError(f"{path}: branch: {request.branch!r} is not a maintainers' run's branch")
    if not isinstance(request.files, list) or not all(isinstance(f, str) for f in request.files):
        raise PullRequestError(f"{path}: files: a list of paths")
    for relative in request.files:
        source = folder / relative
        if not _EXPORTED.match(relative) or ".." in relative.split("/"):
            raise PullRequestError(f"{path}: files: {relative!r} is not a file of a replay folder")
        if source.is_symlink() or not source.is_file() or source.stat().st_size > MAX_FILE_BYTES:
            raise PullRequestError(f"{folder}: {relative} is missing, a link or too large")
    return request


def commit_branch(request: PullRequest, folder: Path, checkout: Path) -> str | None:
    """Put the exported files on a new branch of `checkout`, committed by the GitHub Actions bot;
    its commit id, or None when there is nothing to propose."""
    if not request.files:
        return None
    git.run(checkout, "switch", "-q", "-c", request.branch)
    for relative in request.files:
        target = checkout / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / relative, target)
    git.run(checkout, "add", "--", *request.files)
    env = {"GIT_AUTHOR_NAME": ACTIONS_BOT_LOGIN, "GIT_AUTHOR_EMAIL": ACTIONS_BOT_EMAIL,
           "GIT_COMMITTER_NAME": ACTIONS_BOT_LOGIN, "GIT_COMMITTER_EMAIL": ACTIONS_BOT_EMAIL}
    done = subprocess.run(["git", "-C", str(checkout), "-c", "commit.gpgsign=false", "commit", "-q", "-m",
                           request.title], env={**os.environ, **env}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PullRequestError(f"git commit failed in {checkout}: {(done.stderr or done.stdout).strip()}")
    return git.text(checkout, "rev-parse", "HEAD").strip()


def credential_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """git pushes with the token in GH_TOKEN through gh's credential helper, set for this command
    only (nothing written to any git config, the token never on a command line)."""
    env = dict(os.environ if environ is None else environ)
    base = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    helper = "credential.https://github.com.helper"
    for offset, value in enumerate(("", "!gh auth git-credential")):  # "" first: no other helper is asked
        env[f"GIT_CONFIG_KEY_{base + offset}"] = helper
        env[f"GIT_CONFIG_VALUE_{base + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(base + 2)
    return env
