"""Checking a pull request that submits replays: what it adds and how the leaderboard would change.

Only git objects are read (`git diff-tree`, `git ls-tree`, `git cat-file`): nothing from the
pull request is checked out, imported or executed. The installed (base branch) code decides.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from runner.agents.builtin import strategies
from runner.replay.format import Problem, Record
from runner.rerun.identity import play_fingerprint
from runner.rerun.plans import (PLAN_FILE, Plan, bots_only, game_problems, missing_games, people_seats_dealt,
                                 read_plan)
from runner.rerun.validate import check_bytes
from site_builder import ownership, reserved
from site_builder.scoring import board, owners
from site_builder.scoring.corpus import load
from site_builder.scoring.model import agent_key
from site_builder.scoring.owners import Owner
from site_builder.sources import HistoryError

# -- limits and layout ------------------------------------------------------------------------

#: Largest replay file a submission may add. The built-in games are under 10 KiB; a Werewolf
#: game with every prompt and reply of eight language models stays well under 1 MiB.
MAX_FILE_BYTES = 8 * 1024 * 1024
#: Most bytes one pull request may add: the corpus lives in git forever, so growth is reviewed.
MAX_SUBMISSION_BYTES = 100 * 1024 * 1024
#: Most files one pull request may add or change.
MAX_SUBMISSION_FILES = 10_000
#: Agent kinds that make a game a submission: a model or a person played a seat (not bots alone).
NON_BOT_KINDS = frozenset(("llm", "human"))
REPLAYS = "replays/"
_SLUG = r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}"
#: replays/<tournament>/<game_id>.jsonl: both parts are slugs, as in the replay header.
REPLAY_PATH = re.compile(rf"replays/(?P<tournament>{_SLUG})/(?P<game_id>{_SLUG})\.jsonl\Z")
#: replays/<tournament>/tournament.toml: the tournament's plan, written by `gamenight run`.
PLAN_PATH = re.compile(rf"replays/(?P<tournament>{_SLUG})/tournament\.toml\Z")
LAYOUT = "replays/<tournament>/<game_id>.jsonl"
_FILE_MODES = ("100644", "100755")
_SYMLINK, _SUBMODULE = "120000", "160000"

#: Shapes of credentials that must never be published (the matched text is never echoed). A
#: pattern with a group counts only when the group looks random, so that prose such as
#: "sk-learn-compatible-estimators" or "bearer of bad news" is not mistaken for a key.
SECRET_PATTERNS = {
    "an OpenAI or Anthropic API key (sk-...)": re.compile(rb"\bsk-([A-Za-z0-9_-]{20,})"),
    "a bearer token": re.compile(rb"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{20,})"),
    "an AWS access key": re.compile(rb"\bAKIA[0-9A-Z]{16}\b"),
    "a GitHub token": re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "a Hugging Face token": re.compile(rb"\bhf_[A-Za-z0-9]{30,}"),
    "a Google API key": re.compile(rb"\bAIza[0-9A-Za-z_-]{35}"),
    # A scheme starts only where a run of scheme characters starts, and no part gives back what
    # it took: each character is looked at a bounded number of times (a line of "a-a-a-..."
    # took minutes with a plain \b and backtracking quantifiers).
    "a password in a URL": re.compile(rb"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*+://[^/\s:@\"']++:[^/\s@\"']++@"),
}


def redact_secrets(text: str) -> str:
    """`text` with everything the credential patterns find masked: a report quotes file content
    (a differing field, say), and must never repeat a key it found."""
    raw = text.encode("utf-8", "surrogatepass")
    for pattern in SECRET_PATTERNS.values():
        raw = pattern.sub(lambda m: b"[redacted]" if not pattern.groups or _looks_random(m.group(1)) else m.group(0),
                          raw)
    return raw.decode("utf-8", "surrogatepass")


def _looks_random(token: bytes) -> bool:
    """Digits, capitals and small letters together: a generated token, not a hyphenated phrase."""
    return any(c in b"0123456789" for c in token) and token.lower() != token != token.upper()


def _is_secret(pattern: re.Pattern[bytes], line: bytes) -> bool:
    return any(not pattern.groups or _looks_random(m.group(1)) for m in pattern.finditer(line))


class GitError(Exception):
    """A git command failed; the message says what could not be read and why."""


# -- reading git objects ----------------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """One path changed between two commits (no rename detection: a rename is a delete and an add)."""

    status: str  # A added, M modified, D deleted, T type changed
    path: str
    mode: str  # the new mode ("000000" when deleted)
    oid: str  # the new object id (zeros when deleted)


@dataclass(frozen=True)
class TreeFile:
    """One file of a commit's tree."""

    path: str
    mode: str
    oid: str
    size: int


class Repo:
    """Read-only access to the objects of a git repository, through git's plumbing commands."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}

    def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            done = subprocess.run(["git", "-C", str(self.path), *args], input=stdin, capture_output=True,
                                  env=self._env, check=False)
        except FileNotFoundError:
            raise GitError("git is not installed (or not on PATH)") from None
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed in {self.path}: {reason[-1] if reason else 'no message'}")
        return done.stdout

    def commit(self, revision: str) -> str:
        """The commit id that `revision` names (a branch, tag, sha, origin/main, HEAD~1, ...)."""
        if not revision or revision.startswith("-"):
            raise GitError(f"{revision!r} is not a revision")
        try:
            return self._git("rev-parse", "--verify", "--quiet", "--end-of-options",
                             f"{revision}^{{commit}}").decode().strip()
        except GitError:
            raise GitError(f"{revision!r} is not a commit of the repository {self.path} "
                           "(fetch it first, e.g. `git fetch origin main`)") from None

    def merge_base(self, base: str, head: str) -> str:
        """The commit the pull request branched from."""
        try:
            return self._git("merge-base", base, head).decode().strip()
        except GitError:
            raise GitError(f"{base[:12]} and {head[:12]} have no common history here: fetch the "
                           "full history (`git fetch --unshallow`, or `fetch-depth: 0` in CI)") from None

    def changes(self, old: str, new: str) -> list[Change]:
        """Every file that differs between two commits."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
        fields = out.split(b"\0")
        changes = []
        for meta, raw_path in zip(fields[0::2], fields[1::2]):
            if not meta.startswith(b":"):
                continue
            _, mode, _, oid, status = meta[1:].decode().split(" ")
            changes.append(Change(status[:1], raw_path.decode("utf-8", "backslashreplace"), mode, oid))
        return changes

    def tree(self, commit: str, folder: str) -> list[TreeFile]:
        """Every file under `folder` (e.g. "replays/") in a commit."""
        out = self._git("ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", folder)
        files = []
        for entry in filter(None, out.split(b"\0")):
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, oid, size = meta.decode().split()
            if kind == "blob":
                files.append(TreeFile(raw_path.decode("utf-8", "backslashreplace"), mode, oid, int(size)))
        return files

    def sizes(self, oids: Sequence[str]) -> dict[str, int]:
        """The size in bytes of each blob."""
        if not oids:
            return {}
        out = self._git("cat-file", "--batch-check", stdin="".join(f"{oid}\n" for oid in oids).encode())
        sizes = {}
        for line in out.decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "blob":
                sizes[parts[0]] = int(parts[2])
        return sizes

    def blobs(self, oids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """The content of each blob, in order, streamed from one `git cat-file --batch`."""
        if not oids:
            return
        try:
            proc = subprocess.Popen(["git", "-C", str(self.path), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self._env)
        except FileNotFoundError:
            raise GitError("git is not installed (or not on PATH)") from None
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def feed() -> None:  # a thread, so that a full output pipe can never block our input
            try:
                for oid in oids:
                    stdin.write(f"{oid}\n".encode())
            except (BrokenPipeError, ValueError):
                pass
            finally:
                try:
                    stdin.close()
                except BrokenPipeError:
                    pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            for oid in oids:
                header = stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    raise GitError(f"cannot read object {oid} from {self.path}")
                data = stdout.read(int(header[2]))
                stdout.read(1)  # the newline after each object
                yield oid, data
        finally:
            if proc.poll() is None:
                proc.kill()
            stdout.close()
            writer.join()
            proc.wait()


# -- what the base branch already holds -------------------------------------------------------

def _header_of(raw: bytes) -> dict[str, Any] | None:
    """The header object of a replay's first line, if it parses (base files are read leniently)."""
    first = raw.split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and value.get("type") == "header" else None


def _records_leniently(raw: bytes) -> list[dict[str, Any]]:
    records = []
    for line in raw.split(b"\n"):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


@dataclass
class BaseIndex:
    """What the corpus at the base revision holds, for the duplicate and ownership checks and the summary."""

    by_hash: dict[str, str] = field(default_factory=dict)  # sha256 of the bytes -> path
    by_game_id: dict[str, str] = field(default_factory=dict)
    by_play: dict[str, str] = field(default_factory=dict)  # play fingerprint -> path
    paths: set[str] = field(default_factory=set)
    agent_games: Counter[str] = field(default_factory=Counter)  # agent key -> games
    agent_names: dict[str, Counter[str]] = field(default_factory=dict)  # agent key -> display names used
    seats: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)  # path -> (key, agent)
    judges: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)  # path -> (key, judge)
    owners: ownership.Owners = field(default_factory=ownership.Owners)

    def label(self, key: str) -> str | None:
        """The agent's name on the leaderboard: its most used display name (ties: alphabetical)."""
        names = self.agent_names.get(key)
        return _most_used(names) if names else None


def _most_used(names: Counter[str]) -> str:
    return min(names, key=lambda name: (-names[name], name))


def index_base(repo: Repo, commit: str, copy_to: Path | None = None) -> BaseIndex:
    """Index every replay of the base revision (and copy them to `copy_to` for scoring), and read
    from its history who owns which tournament and agent."""
    index = BaseIndex()
    files = [f for f in repo.tree(commit, REPLAYS) if f.mode in _FILE_MODES]
    index.paths = {f.path for f in files}
    by_oid: dict[str, list[str]] = {}  # identical files share one blob
    for f in files:
        if f.path.endswith(".jsonl"):
            by_oid.setdefault(f.oid, []).append(f.path)
    for oid, raw in repo.blobs(list(by_oid)):
        paths = by_oid[oid]
        path = paths[0]
        index.by_hash.setdefault(hashlib.sha256(raw).hexdigest(), path)
        header = _header_of(raw)
        game_id = header.get("game_id") if header else None
        index.by_game_id.setdefault(game_id if isinstance(game_id, str) else Path(path).stem, path)
        if header:
            seats = [p.get("agent") for p in header.get("players") or [] if isinstance(p, dict)]
            agents = [a for a in seats if isinstance(a, dict)]
            for agent in agents:
                index.agent_names.setdefault(agent_key(agent), Counter())[str(agent.get("name", ""))] += 1
            index.agent_games.update({agent_key(a) for a in agents})
            lines = _records_leniently(raw)
            judged = _judges_of(lines)
            for same in paths:
                index.seats[same] = [(agent_key(a), a) for a in agents]
                if judged:
                    index.judges[same] = judged
            index.by_play.setdefault(play_fingerprint(header, lines), path)
        if copy_to is not None:
            for same in paths:
                _copy_replay(copy_to, same, raw, oid)
    try:
        index.owners = ownership.read(repo.path, commit, index.seats, index.judges)
    except HistoryError as exc:
        raise GitError(f"who owns what cannot be read: {exc} (fetch the whole history: `git fetch --unshallow`, "
                       "or `fetch-depth: 0` in CI)") from None
    return index


def _judges_of(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(key, description) of each judge whose lines a replay carries, once each, in order."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        judge = record.get("judge") if record.get("type") == "judge" else None
        if isinstance(judge, dict):
            found.setdefault(agent_key(judge), judge)
    return list(found.items())


def _copy_replay(folder: Path, path: str, raw: bytes, oid: str = "") -> None:
    """Write a replay below `folder` under its repository path (or its object id if the path is odd)."""
    safe = path if REPLAY_PATH.match(path) else f"replays/other/{oid}.jsonl"
    target = folder / safe
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(raw)


# -- checking the submission ------------------------------------------------------------------

@dataclass
class FileCheck:
    """One path the pull request touches, and what is wrong with it."""

    path: str
    status: str
    size: int = 0
    problems: list[Problem] = field(default_factory=list)
    header: dict[str, Any] | None = None
    raw: bytes | None = field(default=None, repr=False)
    judges: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)  # (key, description, first line)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def is_plan(self) -> bool:
        return PLAN_PATH.match(self.path) is not None

    def refuse(self, message: str, line: int = 0, field_name: str = "") -> None:
        self.problems.append(Problem(self.path, line, message, field_name))


@dataclass
class Submission:
    """The result of checking a pull request: every file it touches, and submission-wide problems."""

    base: str
    head: str
    merge_base: str
    files: list[FileCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    base_index: BaseIndex = field(default_factory=BaseIndex)
    submitter: ownership.Submitter = field(default_factory=lambda: ownership.Submitter(None))
    plans: dict[str, Plan] = field(default_factory=dict)  # tournament folder -> its plan
    #: Suite rows on main that the pull request grows by their next stages: folder -> game ids on main.
    extended: dict[str, set[str]] = field(default_factory=dict)

    @property
    def touches_replays(self) -> bool:
        """Whether this pull request is a submission at all (it changes something under replays/)."""
        return any(f.path.startswith(REPLAYS) for f in self.files)

    @property
    def accepted(self) -> list[FileCheck]:
        return [f for f in self.files if f.ok and f.header is not None]

    @property
    def refused(self) -> list[FileCheck]:
        return [f for f in self.files if not f.ok]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.refused


def check_submission(repo: Repo, base_revision: str, head_revision: str, base_copy: Path | None = None,
                     author: str | None = None, author_id: str | None = None) -> Submission:
    """Check what `head` adds to `base` (relative to their merge base), as a pull request opened by
    the GitHub login `author` (account number `author_id`); copy base replays for scoring."""
    submitter = ownership.Submitter.of(author, author_id)
    base, head = repo.commit(base_revision), repo.commit(head_revision)
    fork_point = repo.merge_base(base, head)
    submission = Submission(base, head, fork_point, submitter=submitter)
    changes = repo.changes(fork_point, head)
    submission.files = [FileCheck(c.path, c.status) for c in changes]
    if not submission.touches_replays:
        return submission
    submission.base_index = index = index_base(repo, base, base_copy)
    candidates = []
    for check, change in zip(submission.files, changes):
        if _path_allowed(check, change, index):
            candidates.append((check, change))
    sizes = repo.sizes([change.oid for _, change in candidates])
    total = 0
    for check, change in candidates:
        check.size = sizes.get(change.oid, 0)
        total += check.size
        if check.size > MAX_FILE_BYTES:
            check.refuse(f"the file is {check.size:,} bytes; a submitted replay may have at most "
                         f"{MAX_FILE_BYTES:,} bytes")
    if len(changes) > MAX_SUBMISSION_FILES:
        submission.problems.append(f"the pull request changes {len(changes):,} files; one submission may add "
                                   f"at most {MAX_SUBMISSION_FILES:,}: submit a smaller tournament")
    if total > MAX_SUBMISSION_BYTES:
        submission.problems.append(f"the pull request adds {total:,} bytes of replays; one submission may add "
                                   f"at most {MAX_SUBMISSION_BYTES:,}: submit a smaller tournament")
    if submission.problems:
        return submission  # nothing is read when the submission is too large
    readable: dict[str, list[FileCheck]] = {}  # identical files share one blob
    for check, change in candidates:
        if check.ok:
            readable.setdefault(change.oid, []).append(check)
    plan_blobs = [oid for oid, checks in readable.items() if any(c.is_plan for c in checks)]
    on_main = _plans_on_main(repo, base, [c for checks in readable.values() for c in checks
                                          if c.is_plan and c.path in index.paths])
    for oid, raw in repo.blobs(plan_blobs):
        for check in readable.pop(oid):
            _read_plan(submission, check, raw, on_main.get(check.path))
    whole = _whole_tournaments(submission, [c for c, _ in candidates if c.ok and not c.is_plan])
    seen = _Seen()
    readable = {oid: [c for c in checks if _folder(c.path) in whole] for oid, checks in readable.items()}
    readable = {oid: checks for oid, checks in readable.items() if checks}
    for oid, raw in repo.blobs(list(readable)):
        for check in readable[oid]:
            check.raw = raw
            _check_content(check, raw, index, seen, submission.plans[_folder(check.path)])
    _check_agents(submission)
    return submission


def _plans_on_main(repo: Repo, base: str, checks: list[FileCheck]) -> dict[str, bytes]:
    """The base revision's version of each plan the pull request changes, by path."""
    found: dict[str, str] = {}
    for check in checks:
        found.update({f.path: f.oid for f in repo.tree(base, f"{REPLAYS}{_folder(check.path)}/")
                      if f.path == check.path})
    by_oid = {oid: path for path, oid in found.items()}
    return {by_oid[oid]: raw for oid, raw in repo.blobs(list(by_oid))}


def _whole_tournaments(submission: Submission, games: list[FileCheck]) -> set[str]:
    """The tournament folders whose games are worth reading: each has a sound plan, belongs to
    nobody else, and holds exactly its planned games (judged from the paths, before any replay is
    read, so that a flood of copies or a handful of chosen seeds is refused at once)."""
    by_folder: dict[str, list[FileCheck]] = {}
    for check in games:
        by_folder.setdefault(_folder(check.path), []).append(check)
    owners, submitter = submission.base_index.owners, submission.submitter
    whole = set()
    for folder in sorted(set(by_folder) | set(submission.plans)):
        checks = by_folder.get(folder, [])
        plan = submission.plans.get(folder)
        plan_check = next((c for c in submission.files if c.is_plan and _folder(c.path) == folder), None)
        problem = ownership.tournament_problem(owners, folder, submitter)
        if problem and folder in submission.extended and submitter.owns(owners.tournaments[folder]):
            problem = None  # the owner of a suite row adds its next stages
        if problem:
            for check in [*checks, *([plan_check] if plan_check else [])]:
                check.refuse(problem)
            continue
        if plan is None:
            for check in checks:
                check.refuse(f"not read: replays/{folder}/ has no {PLAN_FILE}. A submission brings whole "
                             f"tournaments, each with the plan `gamenight run` writes beside its replays")
            continue
        if plan.tournament is None:
            for check in checks:
                check.refuse(f"not read: the tournament's plan {plan.path} has problems (see there)")
            continue
        present = {REPLAY_PATH.match(c.path)["game_id"]: c for c in checks}  # type: ignore[index]
        for game_id, check in present.items():
            if game_id not in plan.games:
                check.refuse(f"is not a game of the plan {plan.path}: a submission holds exactly the games its "
                             "tournament plans, named by their game ids", 0, "game_id")
        missing = missing_games(plan, set(present) | submission.extended.get(folder, set()))
        if missing and plan_check is not None:
            plan_check.problems.append(missing)
        if missing or any(not c.ok for c in checks):
            for check in checks:
                if check.ok:
                    check.refuse("not read: its tournament is not whole (see its plan and the other files)")
            continue
        whole.add(folder)
    return whole


def _folder(path: str) -> str:
    """The tournament folder of a path under replays/ ("" if it has none)."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def _path_allowed(check: FileCheck, change: Change, index: BaseIndex) -> bool:
    """Refuse what a submission may not touch; True if the path is a new replay or plan worth reading."""
    if not check.path.startswith(REPLAYS):
        check.refuse("outside replays/: a submission only adds replay files (send changes to code, docs or "
                     "workflows in a separate pull request)")
        return False
    if change.status == "D":
        check.refuse("deletes a replay: the corpus is append-only, because published ratings and links to "
                     "replays must stay reproducible (ask a maintainer if a replay is wrong)")
        return False
    if change.status == "M" and PLAN_PATH.match(check.path) and check.path in index.paths and change.mode in _FILE_MODES:
        return True  # a suite row's plan grows by its next stages; _read_plan judges whether this one does
    if change.status != "A" or check.path in index.paths:
        check.refuse("changes a replay that is already in the corpus: replays are append-only, because "
                     "published ratings and links to replays must stay reproducible; add new games under "
                     "new names instead")
        return False
    if check.path in index.owners.deleted:
        check.refuse("main once held a file at this path and deleted it: a path names one game for good, so a "
                     "new game never takes an old one's place (or its source)")
        return False
    if change.mode == _SYMLINK:
        check.refuse("is a symbolic link: submit the replay file itself")
        return False
    if change.mode == _SUBMODULE or change.mode not in _FILE_MODES:
        check.refuse("is not a regular file: submit replay files only")
        return False
    if not REPLAY_PATH.match(check.path) and not PLAN_PATH.match(check.path):
        check.refuse(f"does not follow the layout {LAYOUT} (a tournament folder directly under replays/, "
                     "one file per game named after its game id, and the tournament's plan "
                     f"{PLAN_FILE}; letters, digits, '.', '_' and '-' only)")
        return False
    return True


def played_problems(plan: Plan) -> list[Problem]:
    """Why a plan with a person in it is not what `gamenight play` makes of a game people play:
    one game, each person's seat dealt by the plan (never chosen by seat or role). No check can
    tell a person's moves from a script's; what it can hold a played game to is its shape."""
    assert plan.tournament is not None
    people = {a.name for m in plan.tournament.matchups for a in (*m.roles.values(), *m.lineup) if a.is_human}
    if not people:
        return []
    found = []
    if len(plan.games) != 1:
        found.append(Problem(plan.path, 0, f"plans {len(plan.games):,} games with a person in them: a game people "
                                           "played is one game, planned and written by `gamenight play`, in a folder "
                                           "of its own", "matchups"))
    if not people_seats_dealt(plan):
        found.append(Problem(plan.path, 0, "a person chose their seat or role here (`gamenight play --seat` or "
                                           "`--role`: a practice game); a submitted game deals each person's seat "
                                           "from the plan (`gamenight play --game GAME --name NAME`)", "matchups"))
    return found


def _read_plan(submission: Submission, check: FileCheck, raw: bytes, on_main: bytes | None = None) -> None:
    """Read and plan a submitted tournament.toml (its problems are the file's); `on_main`, the
    base revision's version of a plan the pull request changes."""
    folder = _folder(check.path)
    plan = read_plan(check.path, folder, raw, max_games=MAX_SUBMISSION_FILES)
    if on_main is not None:
        before = read_plan(check.path, folder, on_main)
        plan.problems.extend(extension_problems(before, plan))
        if not plan.problems:
            prefix = f"{REPLAYS}{folder}/"
            submission.extended[folder] = {Path(p).stem for p in submission.base_index.paths
                                           if p.startswith(prefix) and p.endswith(".jsonl")}
    if plan.tournament is not None and plan.tournament.name != folder:
        plan.problems.append(Problem(check.path, 0, f"plans tournament {plan.tournament.name!r}, but it is in "
                                     f"replays/{folder}/: a tournament's games and plan go in replays/<its name>/",
                                     "name"))
    elif plan.tournament is not None:
        plan.problems.extend(bots_only(plan))
        plan.problems.extend(played_problems(plan))
    plan.problems.extend(reserved.problems(reserved.reserved(), folder, plan if plan.tournament else None, ()))
    if plan.problems:
        plan.tournament = None  # a plan of another folder, or of bots' games, is no submission's
    check.problems.extend(plan.problems)
    submission.plans[folder] = plan


def extension_problems(before: Plan, after: Plan) -> list[Problem]:
    """Why a changed plan is not a suite row on main grown by its next stages (the same suite,
    model and candidate, every deal on main kept as it was), or nothing."""
    old, new = before.tournament, after.tournament
    if old is None or old.suite is None:
        return [Problem(after.path, 0, "changes a tournament plan that is already in the corpus: only a suite's row "
                                       "grows, by its next stages (`gamenight run --suite ... --stages N`); play "
                                       "other games under a new tournament name")]
    if new is None:
        return []  # its own problems say why
    if new.suite is None or (new.suite.name, new.suite.version, new.suite.model) != (
            old.suite.name, old.suite.version, old.suite.model):
        return [Problem(after.path, 0, f"the row on main plays the suite {old.suite.name}-{old.suite.version} with "
                                       f"{old.suite.model!r}; a later pull request adds its next stages only", "suite")]
    if new.suite.stages <= old.suite.stages:
        return [Problem(after.path, 0, f"main already holds stages 1..{old.suite.stages} of this row: a later pull "
                                       f"request adds stage {old.suite.stages + 1} and on", "suite.stages")]
    kept = [m.key() + str(m.seed) for m in old.matchups]
    if kept != [m.key() + str(m.seed) for m in new.matchups[:len(kept)]]:
        return [Problem(after.path, 0, "the deals of the stages on main must stay exactly as main plans them (the "
                                       "same candidate, seats and seeds)", "matchups")]
    return []


@dataclass
class _Seen:
    """What the files checked so far in this submission hold, to refuse a game counted twice."""

    by_hash: dict[str, str] = field(default_factory=dict)
    by_game_id: dict[str, str] = field(default_factory=dict)
    by_play: dict[str, str] = field(default_factory=dict)


def _check_content(check: FileCheck, raw: bytes, index: BaseIndex, seen: _Seen, plan: Plan) -> None:
    """Validate one new replay of a whole tournament strictly, then the rules a submission adds on
    top of `gamenight validate`."""
    assert plan.tournament is not None
    match = REPLAY_PATH.match(check.path)
    assert match is not None  # _path_allowed only lets layout-conforming paths through
    checked = check_bytes(check.path, raw, probes=plan.tournament.probes, planned=plan.games.get(match["game_id"]))
    check.problems.extend(checked.problems)
    check.problems.extend(_secret_problems(check.path, raw))
    content_hash = hashlib.sha256(raw).hexdigest()
    if content_hash in index.by_hash:
        check.refuse(f"has the same bytes as {index.by_hash[content_hash]}, already in the corpus: "
                     "a game counts once")
    elif content_hash in seen.by_hash:
        check.refuse(f"has the same bytes as {seen.by_hash[content_hash]} in this submission: a game counts once")
    seen.by_hash.setdefault(content_hash, check.path)
    header = checked.header
    if header is None:
        return
    game_id, tournament = header.get("game_id"), header.get("tournament")
    if isinstance(game_id, str):
        if match["game_id"] != game_id:
            check.refuse(f"the file must be named {game_id}.jsonl after its game id", 1, "game_id")
        if game_id in index.by_game_id:
            check.refuse(f"game id already used by {index.by_game_id[game_id]}", 1, "game_id")
        elif game_id in seen.by_game_id:
            check.refuse(f"game id already used by {seen.by_game_id[game_id]} in this submission", 1, "game_id")
        seen.by_game_id.setdefault(game_id, check.path)
    if isinstance(tournament, str) and match["tournament"] != tournament:
        check.refuse(f"a replay of tournament {tournament!r} goes in replays/{tournament}/", 1, "tournament")
    if not checked.ok:
        return  # provenance and copies are judged once the file itself is sound
    fingerprint = play_fingerprint(header, [r.data for r in checked.records])
    if fingerprint in index.by_play:
        check.refuse(f"is the same game as {index.by_play[fingerprint]} (same deal, seed, moves and beliefs) "
                     "under other labels: a game counts once")
    elif fingerprint in seen.by_play:
        check.refuse(f"is the same game as {seen.by_play[fingerprint]} in this submission (same deal, seed, moves "
                     "and beliefs) under other labels: a game counts once")
    seen.by_play.setdefault(fingerprint, check.path)
    if not has_non_bot_seat(header):
        check.refuse("no seat of this game is a language model or a person: a submission brings games of models "
                     "or people; the bots play in the maintainers' built-in tournament", 1, "players")
    check.problems.extend(game_problems(plan, check.path, header))
    check.problems.extend(reserved.header_problems(reserved.reserved(), check.path, header))
    check.problems.extend(provenance_problems(check.path, header, checked.records))
    if check.ok:
        check.header = header
        firsts: dict[str, tuple[dict[str, Any], int]] = {}
        for record in checked.records:
            judge = record.data.get("judge") if record.data.get("type") == "judge" else None
            if isinstance(judge, dict):
                firsts.setdefault(agent_key(judge), (judge, record.line))
        check.judges = [(key, judge, line) for key, (judge, line) in firsts.items()]


def has_non_bot_seat(header: Mapping[str, Any]) -> bool:
    """Whether a language model or a person played a seat of this game (what makes it a submission)."""
    return any(isinstance(p, Mapping) and isinstance(p.get("agent"), Mapping)
               and p["agent"].get("kind") in NON_BOT_KINDS for p in header.get("players") or ())


#: New rows one pull request may bring (new model agents, people and judges): the board's build
#: grows with its rows, and a submission of a model brings a handful.
MAX_NEW_ROWS = 20
#: People a pull request may bring, and games they played (`gamenight play` writes one per folder).
MAX_NEW_PEOPLE = 4
MAX_PLAYED_GAMES = 10
#: People and played games one source may have on the board in all (its earlier pull requests too).
MAX_PEOPLE_PER_SOURCE = 10
MAX_PLAYED_PER_SOURCE = 100


def _check_agents(submission: Submission) -> None:
    """No accepted game adds to a model agent or judge that is not the submitter's, or names an
    agent like one; then the caps on new rows and on people's games."""
    owners, submitter = submission.base_index.owners, submission.submitter
    told: set[str] = set()
    judged: dict[tuple[str, str], str | None] = {}  # (key, name) -> its problem: the same in every game
    for check in submission.files:
        if check.header is None or not check.ok:
            continue
        for i, player in enumerate(check.header["players"]):
            agent = player["agent"]
            _refuse_once(check, told, judged, agent_key(agent), agent, 1, f"players[{i}].agent",
                         lambda key, agent: ownership.agent_problem(owners, key, agent, submitter))
        for key, judge, line in check.judges:
            _refuse_once(check, told, judged, "judge:" + key, judge, line, "judge",
                         lambda key, judge: ownership.judge_problem(owners, key[len("judge:"):], judge, submitter))
        if not check.ok:
            check.header = None
    _check_caps(submission)


def _refuse_once(check: FileCheck, told: set[str], judged: dict[tuple[str, str], str | None], key: str,
                 description: Mapping[str, Any], line: int, where: str, problem_of: Any) -> None:
    seen = (key, str(description.get("name", "")))
    if seen not in judged:
        judged[seen] = problem_of(key, description)
    problem = judged[seen]
    if problem:
        first = problem not in told
        told.add(problem)
        check.refuse(problem if first else "the same as above: " + problem.split(";")[0], line, where)


def _check_caps(submission: Submission) -> None:
    """Submission-wide limits: new rows, people and played games, in this pull request and in all
    of its source's (a flood of made-up people or games is refused whole)."""
    base, submitter = submission.base_index, submission.submitter
    accepted = submission.accepted
    new_rows = {a.key for a in submitted_agents(submission)
                if a.games_before == 0 and a.description.get("kind") in NON_BOT_KINDS}
    new_judges = {key for check in accepted for key, _, _ in check.judges if key not in base.owners.judges}
    if len(new_rows) + len(new_judges) > MAX_NEW_ROWS:
        submission.problems.append(
            f"the pull request brings {len(new_rows) + len(new_judges):,} new rows ({len(new_rows):,} agents and people, "
            f"{len(new_judges):,} judges); one submission may bring at most {MAX_NEW_ROWS}: split it")
    people = {agent_key(p["agent"]) for check in accepted for p in check.header["players"]  # type: ignore[index]
              if p["agent"].get("kind") == "human"}
    played = [check for check in accepted if any(p["agent"].get("kind") == "human"
                                                 for p in check.header["players"])]  # type: ignore[index]
    new_people = {key for key in people if key not in base.owners.agents}
    if len(new_people) > MAX_NEW_PEOPLE:
        submission.problems.append(f"the pull request brings {len(new_people)} people; one submission may bring at "
                                   f"most {MAX_NEW_PEOPLE}")
    if len(played) > MAX_PLAYED_GAMES:
        submission.problems.append(f"the pull request brings {len(played):,} games people played; one submission may "
                                   f"bring at most {MAX_PLAYED_GAMES}")
    theirs = {key for key, row in base.owners.agents.items()
              if row.kind == "human" and row.owner is not None and submitter.owns(row.owner)}
    before = sum(1 for path, seats in base.seats.items()
                 if any(d.get("kind") == "human" for _, d in seats)
                 and (source := base.owners.files.get(path)) is not None and submitter.owns(source))
    if len(theirs | people) > MAX_PEOPLE_PER_SOURCE:
        submission.problems.append(f"with this pull request, {submitter.label} would have {len(theirs | people)} people "
                                   f"on the board; one source may have at most {MAX_PEOPLE_PER_SOURCE}")
    if before + len(played) > MAX_PLAYED_PER_SOURCE:
        submission.problems.append(f"with this pull request, {submitter.label} would have {before + len(played):,} "
                                   f"played games on the board; one source may have at most {MAX_PLAYED_PER_SOURCE}")


#: Credential findings reported per file (one is enough to refuse it).
MAX_SECRET_PROBLEMS = 10


def _secret_problems(path: str, raw: bytes) -> list[Problem]:
    problems: list[Problem] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        what = next((what for what, pattern in SECRET_PATTERNS.items() if _is_secret(pattern, line)), None)
        if what:
            problems.append(Problem(path, number, f"this line seems to hold {what}: remove it, and revoke "
                                    "the credential, which is already public in your fork"))
            if len(problems) == MAX_SECRET_PROBLEMS:
                break
    return problems


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def provenance_problems(path: str, header: Mapping[str, Any], records: Sequence[Record],
                        today: date | None = None) -> list[Problem]:
    """Who played and with what: a submission must say it completely for every language model."""
    problems = []
    provenance = header.get("provenance") if isinstance(header.get("provenance"), dict) else {}
    for name in ("runner", "runner_version"):
        if not _text(provenance.get(name)):
            problems.append(Problem(path, 1, "the program and version that played the game are required",
                                    f"provenance.{name}"))
    problems.extend(_date_problems(path, provenance.get("created"), today or datetime.now(UTC).date()))
    builtin = strategies()
    players = header.get("players") if isinstance(header.get("players"), list) else []
    for i, player in enumerate(players):
        agent = player.get("agent") if isinstance(player, dict) else None
        if not isinstance(agent, dict):
            continue
        where = f"players[{i}].agent"
        if agent.get("kind") == "builtin" and agent.get("strategy") not in builtin:
            problems.append(Problem(path, 1, f"{agent.get('strategy')!r} is not a built-in strategy of gamenight "
                                    "(see `gamenight agents`); describe a language model as kind \"llm\"",
                                    f"{where}.strategy"))
        elif agent.get("kind") == "llm":
            own = [r.data for r in records if r.data.get("seat") == i and r.data.get("type") in ("event", "probe")]
            acted = any(r.get("type") == "event" and r.get("kind") == "action" for r in own)
            problems.extend(_model_problems(path, 1, where, agent, own, answered=acted))
    for record in records:
        judge = record.data.get("judge") if record.data.get("type") == "judge" else None
        if isinstance(judge, dict):
            problems.extend(_model_problems(path, record.line, "judge", judge, [record.data], answered=True))
    return problems


def _model_problems(path: str, line: int, where: str, agent: Mapping[str, Any],
                    records: Sequence[Mapping[str, Any]], *, answered: bool) -> list[Problem]:
    """A model's provider, model and the model id its API reported (consistent with its calls)."""
    problems = []
    for name, why in (("provider", "the API provider (openai, anthropic, openai_compatible, ...)"),
                      ("model", "the model that was asked")):
        if not _text(agent.get(name)):
            problems.append(Problem(path, line, f"missing: {why} is required for every language model",
                                    f"{where}.{name}"))
    reported = {call.get("model_reported") for r in records
                for call in ((r.get("evidence") or {}).get("calls") or []) if isinstance(call, dict)}
    reported = {m for m in reported if isinstance(m, str) and m}
    claimed = _text(agent.get("model_reported"))
    if not claimed and (answered or reported):
        problems.append(Problem(path, line, "missing: the model id the API reported in its replies is required "
                                "for every language model that played (gamenight run records it)",
                                f"{where}.model_reported"))
    elif claimed and reported and claimed not in reported:
        problems.append(Problem(path, line, f"says {claimed!r} but the recorded calls report "
                                f"{', '.join(sorted(map(repr, reported)))}", f"{where}.model_reported"))
    return problems


def _date_problems(path: str, created: Any, today: date) -> list[Problem]:
    if not isinstance(created, str):
        return []  # the schema reports a missing or mistyped date
    try:
        day = date.fromisoformat(created[:10])
    except ValueError:
        return [Problem(path, 1, f"{created[:10]!r} is not a calendar date", "provenance.created")]
    if day > today + timedelta(days=1):
        return [Problem(path, 1, f"the game cannot have been played on {day.isoformat()}, after today",
                        "provenance.created")]
    return []


# -- what the submission adds -----------------------------------------------------------------

@dataclass(frozen=True)
class AgentSummary:
    """One agent of the submission: who it is and how many games it gains."""

    key: str
    label: str
    description: Mapping[str, Any]
    games_before: int
    games_added: int


def added_games(submission: Submission) -> Counter[str]:
    """New games per game (accepted files only)."""
    return Counter(str(f.header["game"]) for f in submission.accepted if f.header)


def submitted_agents(submission: Submission) -> list[AgentSummary]:
    """Every agent of the accepted files, with its games before and added (new agents first)."""
    games: Counter[str] = Counter()
    labels: dict[str, Counter[str]] = {}
    descriptions: dict[str, Mapping[str, Any]] = {}
    for check in submission.accepted:
        assert check.header is not None
        keys = set()
        for player in check.header["players"]:
            agent = player["agent"]
            key = agent_key(agent)
            keys.add(key)
            labels.setdefault(key, Counter())[str(agent.get("name", ""))] += 1
            descriptions.setdefault(key, {k: v for k, v in agent.items() if k != "name"})
        games.update(keys)
    base = submission.base_index
    summaries = [AgentSummary(key, base.label(key) or _most_used(labels[key]), descriptions[key],
                              base.agent_games.get(key, 0), added)
                 for key, added in games.items()]
    return sorted(summaries, key=lambda a: (a.games_before > 0, a.label, a.key))


# -- the effect on the leaderboard ------------------------------------------------------------

@dataclass(frozen=True)
class Standing:
    """An agent's row in one rating table."""

    games: int
    rating: float  # the rating the table is sorted by (Elo scale)
    place: int
    of: int
    interval: tuple[float, float] | None = None  # its 95% bootstrap interval (before the submission)


@dataclass(frozen=True)
class EffectRow:
    """One agent in one rating table, before and after the submission (None: not in the table)."""

    board: str  # "overall" or a game name
    key: str
    label: str
    before: Standing | None
    after: Standing | None
    mine: bool = True  # the submitter's row (any other row shown is one that changed)

    @property
    def beyond_interval(self) -> bool:
        """Whether the submission moves an agent already rated beyond its interval: a reviewer's flag."""
        if self.before is None or self.after is None or self.before.interval is None:
            return False
        low, high = self.before.interval
        return not low <= self.after.rating <= high


@dataclass
class Effect:
    """How the rating tables change when the accepted files join the base corpus: the submitter's
    rows, and every other row that changes (the board is built so that none does)."""

    rows: list[EffectRow]
    games_before: int
    games_after: int
    resimulated: int  # replays re-simulated by the rules engines
    cached: int  # replays answered by the scorer's cache
    seconds: float
    compared: int = 0  # rows of others in the rating tables, compared before and after
    others_changed: int = 0  # of those, the rows whose games, rating, interval or place changed


#: The seed of the site's bootstrap (site_builder.build), so the intervals are those the board shows.
INTERVAL_SEED = 2026


def standings(table: Mapping[str, Any]) -> dict[str, Standing]:
    """Each rated agent's games, rating, interval and place in one table of the board
    (`scoring.board.rating_board`): a place among the maintainers' rows, the place a contributor's
    row would take among them (as the site ranks them)."""
    rows = table.get("agents", [])
    ours = [r for r in rows if not r.get("owner")]  # sorted best first, as every table is
    place_of = {r["agent"]: place for place, r in enumerate(ours, start=1)}
    descending = sorted(-r["rating"] for r in ours)
    out: dict[str, Standing] = {}
    for row in rows:
        place = place_of.get(row["agent"]) or 1 + bisect.bisect_left(descending, -row["rating"])
        out[row["agent"]] = Standing(row["games"], row["rating"], place, len(ours),
                                     tuple(row["rating_ci"]) if row.get("rating_ci") else None)
    return out


def leaderboard_effect(submission: Submission, base_dir: Path, new_dir: Path, cache_path: Path) -> Effect:
    """Score the base corpus and base + accepted files as the site does (scoring/board.py): the
    submitter's rows, and every other row of the rating tables compared before and after."""
    started = time.perf_counter()
    for check in submission.accepted:
        assert check.raw is not None
        _copy_replay(new_dir, check.path, check.raw)
    submitter = submission.submitter
    base_owners = {str(base_dir / path): Owner(source.owner, source.owner_label, source.date or "")
                   for path, source in submission.base_index.owners.files.items()}
    new_owners = {str(new_dir / check.path): Owner(submitter.owner, submitter.label, "~")  # newest of all
                  for check in submission.accepted}
    tables = []
    corpora = []
    for folders, owner_of in (([base_dir], base_owners), ([base_dir, new_dir], {**base_owners, **new_owners})):
        corpus = load(folders, cache_path, owner_of={path: owner.id for path, owner in owner_of.items()})
        corpus = owners.separate(corpus, owner_of)
        corpora.append(corpus)
        tables.append(board.rating_board(corpus, {o.id: o.label for o in owner_of.values()}, seed=INTERVAL_SEED))
    before, after = corpora
    mine = {a["key"] for a in tables[1]["agents"] if (a.get("owner") or {}).get("id") == submitter.owner}
    labels = {a["key"]: a["label"] for t in tables for a in t["agents"]}
    rows: list[EffectRow] = []
    compared = changed = 0
    for name in ["overall", *sorted(added_games(submission))]:
        old, new = (standings(t["ratings"]["overall"] if name == "overall" else t["ratings"]["by_game"].get(name, {}))
                    for t in tables)
        for key in sorted(set(old) | set(new), key=lambda k: (new[k].place if k in new else 0, k)):
            row = EffectRow(name, key, labels.get(key, key), old.get(key), new.get(key), key in mine)
            if key in mine:
                rows.append(row)
                continue
            compared += 1
            if old.get(key) != new.get(key):
                changed += 1
                rows.append(row)
    resimulated = before.resimulated + after.resimulated
    return Effect(rows, len(before.games), len(after.games), resimulated,
                  before.files + after.files - resimulated, time.perf_counter() - started, compared, changed)
