"""Where each replay came from: the maintainers' own commits or a pull request, read from git.

The source is taken from the repository's history at build time, not from a manifest: the
submission check runs read-only and cannot write one, and a manifest inside a pull request would
be written by the submitter. On main's first-parent history, the commit that added a file is
either a merge of a pull request ("Merge pull request #12 from alice/branch": GitHub writes this
subject and the login in it), a squash merge ("Title (#12)", authored by the pull request's
author), or a commit pushed by a maintainer. Rebase merges cannot be told from the latter, so
the repository merges submissions with merge commits or squash (docs/maintainers.md).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAINTAINERS = "maintainers"      # committed to main by someone with push access
PULL_REQUEST = "pull_request"    # added by a merged pull request: a community submission
LOCAL = "local"                  # not committed, or changed since: the builder's own files
UNKNOWN = "unknown"              # no usable git history (not a checkout, or a shallow clone)

_MERGE = re.compile(r"^Merge pull request #(\d{1,9}) from ([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/")
_SQUASH = re.compile(r"\(#(\d{1,9})\)\s*$")
_GIT_TIMEOUT_S = 120


@dataclass(frozen=True)
class Source:
    """Where one replay file came from."""

    kind: str
    pull_request: int | None = None
    author: str | None = None   # a GitHub login (merge commits) or the commit author's name (squash)
    login: bool = False         # whether `author` is a GitHub login
    commit: str | None = None
    date: str | None = None     # ISO 8601 author date of the commit that added the file
    note: str = ""              # why the source is unknown

    @property
    def community(self) -> bool:
        """A submission from outside: every file a merged pull request added."""
        return self.kind == PULL_REQUEST

    @property
    def label(self) -> str:
        if self.kind == PULL_REQUEST:
            by = f"@{self.author}" if self.login else (self.author or "unknown author")
            return f"pull request #{self.pull_request} by {by}"
        if self.kind == MAINTAINERS:
            return "the maintainers"
        if self.kind == LOCAL:
            return "local files (not committed)"
        return f"unknown ({self.note})" if self.note else "unknown"

    def to_json(self, repo_url: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "label": self.label}
        if self.kind == PULL_REQUEST:
            data.update(pull_request=self.pull_request, author=self.author)
            if repo_url:
                data["url"] = f"{repo_url}/pull/{self.pull_request}"
        if self.commit:
            data["commit"] = self.commit
        if self.date:
            data["date"] = self.date
        return data


def of_commit(subject: str, author: str, commit: str, date: str) -> Source:
    """The source a commit on main's first-parent history gives the files it added."""
    merge = _MERGE.match(subject)
    if merge:
        return Source(PULL_REQUEST, int(merge.group(1)), merge.group(2), True, commit, date)
    squash = _SQUASH.search(subject)
    if squash:
        return Source(PULL_REQUEST, int(squash.group(1)), author, False, commit, date)
    return Source(MAINTAINERS, commit=commit, date=date)


def _git(root: Path, *args: str) -> str | None:
    """A git command's output in `root`, or None if git is missing or the command fails."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=_GIT_TIMEOUT_S,
                              check=False, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _toplevel(folder: Path) -> Path | None:
    out = _git(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()).resolve() if out and out.strip() else None


def added_by(root: Path) -> dict[str, Source]:
    """For every .jsonl file added on the current branch's first-parent history, who added it
    (paths relative to `root`). The oldest addition wins if a file was added twice."""
    out = _git(root, "-c", "core.quotePath=false", "log", "--first-parent", "-m", "--diff-filter=A",
               "--name-only", "-z", "--format=%x1e%H%x1f%an%x1f%aI%x1f%s", "HEAD", "--", "*.jsonl")
    found: dict[str, Source] = {}
    for chunk in (out or "").split("\x1e")[1:]:
        head, _, names = chunk.partition("\0")
        parts = head.split("\x1f")
        if len(parts) != 4:
            continue
        commit, author, date, subject = parts
        source = of_commit(subject, author, commit, date)
        for name in names.lstrip("\n").split("\0"):
            if name:
                found[name] = source  # newest first: later (older) commits overwrite
    return found


def _changed(root: Path) -> set[str]:
    """Files git does not hold as committed: untracked, modified or staged (relative to root)."""
    out = _git(root, "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--untracked-files=all",
               "--", "*.jsonl")
    changed: set[str] = set()
    entries = iter((out or "").split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        changed.add(entry[3:])
        if entry[0] in "RC":  # a rename names its origin next
            next(entries, None)
    return changed


def sources(files: Iterable[str | os.PathLike[str]]) -> dict[str, Source]:
    """The source of each replay file, keyed by the path as given."""
    result: dict[str, Source] = {}
    by_root: dict[Path | None, list[tuple[str, Path]]] = {}
    roots: dict[Path, Path | None] = {}
    for name in map(str, files):
        path = Path(name).absolute()
        folder = path.parent
        if folder not in roots:
            roots[folder] = _toplevel(folder) if folder.is_dir() else None
        by_root.setdefault(roots[folder], []).append((name, path))
    for root, members in by_root.items():
        if root is None:
            result.update({name: Source(UNKNOWN, note="not in a git checkout") for name, _ in members})
            continue
        if (_git(root, "rev-parse", "--is-shallow-repository") or "").strip() == "true":
            result.update({name: Source(UNKNOWN, note="shallow git history: fetch it whole")
                           for name, _ in members})
            continue
        added, changed = added_by(root), _changed(root)
        for name, path in members:
            try:
                relative = path.resolve().relative_to(root).as_posix()
            except ValueError:
                result[name] = Source(UNKNOWN, note="outside the git checkout")
                continue
            if relative in changed or relative not in added:
                result[name] = Source(LOCAL)
            else:
                result[name] = added[relative]
    return result


def summary(by_game: Mapping[str, Source], tournaments: Mapping[str, str], *, exclude: bool = False,
            excluded: int = 0, repo_url: str | None = None) -> dict[str, Any]:
    """What a scored corpus holds, by source: counts, tournaments and pull requests (for the pages)."""
    counts: dict[str, int] = {}
    requests: dict[int, dict[str, Any]] = {}
    maintained: dict[str, int] = {}
    for game_id, source in by_game.items():
        counts[source.kind] = counts.get(source.kind, 0) + 1
        if source.community:
            entry = requests.setdefault(source.pull_request or 0, {**source.to_json(repo_url), "games": 0,
                                                                    "tournaments": []})
            entry.pop("commit", None)
            entry["games"] += 1
            if tournaments[game_id] not in entry["tournaments"]:
                entry["tournaments"].append(tournaments[game_id])
        elif source.kind == MAINTAINERS:
            maintained[tournaments[game_id]] = maintained.get(tournaments[game_id], 0) + 1
    return {
        "counts": dict(sorted(counts.items())),
        "community_games": counts.get(PULL_REQUEST, 0),
        "maintainers_tournaments": dict(sorted(maintained.items())),
        "pull_requests": [requests[n] for n in sorted(requests)],
        "submissions": "excluded" if exclude else "included",
        "excluded_games": excluded,
    }


def by_agent(games: Iterable[Any], by_game: Mapping[str, Source], repo_url: str | None = None
             ) -> dict[str, list[dict[str, Any]]]:
    """Each agent's games by source (agent key -> [{label, kind, url?, games, tournaments}]),
    maintainers first, then pull requests by number."""
    found: dict[str, dict[tuple[int, int, str], dict[str, Any]]] = {}
    for game in games:
        source = by_game.get(game.game_id, Source(UNKNOWN))
        order = (0 if source.kind == MAINTAINERS else 1 if source.community else 2,
                 source.pull_request or 0, source.label)
        for agent in {seat.agent for seat in game.seats}:
            entry = found.setdefault(agent, {}).setdefault(order, {
                "label": source.label, "kind": source.kind, "games": 0, "tournaments": [],
                **{k: v for k, v in source.to_json(repo_url).items() if k == "url"}})
            entry["games"] += 1
            if game.tournament not in entry["tournaments"]:
                entry["tournaments"].append(game.tournament)
    return {agent: [entries[k] for k in sorted(entries)] for agent, entries in found.items()}
