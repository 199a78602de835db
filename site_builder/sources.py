"""Where each replay came from: the maintainers' own commits or a pull request, read from git.

The source is taken from the repository's history at build time, not from a manifest: the
submission check runs read-only and cannot write one, and a manifest inside a pull request would
be written by the submitter. A file's source is the NEWEST commit on the revision's first-parent
history that added it (a path the maintainers deleted and a pull request added again is the pull
request's). That commit is read by its number of parents, never by its subject alone (a pull
request's title is free text):

- two parents: a merge, a pull request only if its subject is GitHub's "Merge pull request #12 from
  alice/branch" (GitHub writes the subject, and the login in it);
- one parent: a squash merge if its subject ends with " (#12)"; its author is the pull request's
  author, known by GitHub login when the author e-mail is GitHub's no-reply address (and by the
  account's number too when the address has one: ID+login@users.noreply.github.com), else by the
  commit's display name, cleaned (site_builder/names.py) and shown quoted, never as an @login.
  A pull request the GitHub Actions bot opened (the maintainers' run, ACTIONS_BOT_EMAIL) is the
  maintainers';
- anything else (a pushed commit, an octopus merge, a subject that fits the other kind): the
  maintainers.

A build of a branch before it is merged (a contributor's preview) names the **base** the branch
is to be merged into (`gamenight build --base origin/main`, or the default branch of the current
branch's upstream remote): each file the base holds as it is in the working tree then has its
source on the base's history, and every other file (added or changed by commits that are not on
the base, or not committed) is UNMERGED: a contributor's, not the maintainers', whoever committed
it, since only a merge makes a file the maintainers'.

Rebase merges cannot be told from a maintainer's commit, so the repository merges submissions with
merge commits or squash (docs/maintainers.md). `Source.owner` is the identity that owns a source's
rows; `deleted_paths` and `first_added_by` give the pull-request check what main once deleted and
who first added each tournament folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder import git
from site_builder.names import visible
from site_builder.scoring.owners import Owner

MAINTAINERS = "maintainers"      # committed to main by someone with push access
PULL_REQUEST = "pull_request"    # added by a merged pull request: a community submission
LOCAL = "local"                  # not committed, or changed since: the builder's own files
UNKNOWN = "unknown"              # no usable git history (not a checkout, or a shallow clone)
UNMERGED = "unmerged"            # not on the base a preview names: the builder's submission, not yet merged
#: The owner of UNMERGED files: whoever builds the preview (never the maintainers, never a pull request's).
UNMERGED_OWNER = "not merged"
#: How the pages name that owner.
UNMERGED_LABEL = "you (not merged)"

# A GitHub login: 1-39 alphanumerics and single hyphens, no hyphen at either end.
_LOGIN = r"(?=[A-Za-z0-9-]{1,39}(?![A-Za-z0-9-]))[A-Za-z0-9](?:-?[A-Za-z0-9])*"
_MERGE = re.compile(rf"^Merge pull request #([1-9][0-9]{{0,8}}) from ({_LOGIN})/")
_SQUASH = re.compile(r" \(#([1-9][0-9]{0,8})\)\s*$")
# GitHub's no-reply addresses: ID+login@users.noreply.github.com, or login@... for older accounts.
# The ID is the account's number, which stays when its login is renamed and is never given to
# another account. re.ASCII: without it, IGNORECASE lets the Kelvin sign match [A-Za-z] (and lower to "k").
_NOREPLY = re.compile(rf"^(?:([1-9][0-9]{{0,19}})\+)?({_LOGIN})@users\.noreply\.github\.com\Z",
                      re.IGNORECASE | re.ASCII)
_AT_SIGNS = "@\uff20\ufe6b "  # @, fullwidth and small @, and the spaces between them
#: The GitHub Actions bot: the author GitHub gives a pull request that a workflow of this repository
#: opens with its own GITHUB_TOKEN, such as the maintainers' run (.github/workflows/maintainers-run.yml).
#: No account can open a pull request as it, and a fork's workflows get no token that opens one
#: here; so its squash-merged pull requests are the maintainers' own games.
ACTIONS_BOT_LOGIN = "github-actions[bot]"
ACTIONS_BOT_ID = 41898282
ACTIONS_BOT_EMAIL = f"{ACTIONS_BOT_ID}+{ACTIONS_BOT_LOGIN}@users.noreply.github.com"


def _display_name(name: str) -> str:
    """A commit author's display name as shown: cleaned, without a leading @ (it would read as a
    GitHub login, which a display name is not)."""
    return visible(name).lstrip(_AT_SIGNS)


class HistoryError(RuntimeError):
    """Git history could not be read (no git, not a checkout, a bad revision, a shallow clone)."""


@dataclass(frozen=True)
class Source:
    """Where one replay file came from."""

    kind: str
    pull_request: int | None = None
    author: str | None = None   # a GitHub login, or the squash commit's display name (cleaned)
    login: bool = False         # whether `author` is a GitHub login
    commit: str | None = None
    date: str | None = None     # ISO 8601 author date of the commit that added the file
    note: str = ""              # why the source is unknown
    # A squash author's e-mail: an identity for `owner` only, never shown on the site.
    email: str | None = field(default=None, repr=False)
    # The GitHub account's number, from a no-reply address ID+login@...: the owner, whatever its login.
    account: int | None = None

    @property
    def community(self) -> bool:
        """A submission from outside: every file a merged pull request added."""
        return self.kind == PULL_REQUEST

    @property
    def contributed(self) -> bool:
        """Not the maintainers' games: a merged pull request's, or a branch's not merged yet."""
        return self.kind in (PULL_REQUEST, UNMERGED)

    @property
    def _name(self) -> str:
        """The display name as shown: cleaned, no leading @ (it would read as a login)."""
        return _display_name(self.author or "")

    @property
    def _by(self) -> str:
        if self.login and self.author:
            return f"@{self.author}"
        # Quoted, with its own double quotes made single, so a name cannot pass for our words
        # ('a" and @victim "b' would otherwise read as two authors).
        return f'"{self._name.replace(chr(34), chr(39))}"' if self._name else "unknown author"

    @property
    def owner(self) -> str:
        """A stable identity for who owns this source's rows: "maintainers" (also for local and
        unknown files: the builder's own), "id:NUMBER" (a GitHub account: a renamed login keeps its
        rows, and an account that takes a freed login gets none of them), "@login" (lower case:
        a merge commit or an old no-reply address, which name no number), "email:..." or "name:...";
        UNMERGED_OWNER for files not on a preview's base."""
        if self.kind == UNMERGED:
            return UNMERGED_OWNER
        if self.kind != PULL_REQUEST:
            return "maintainers"
        if self.login and self.account is not None:
            return f"id:{self.account}"
        if self.login and self.author:
            return f"@{self.author.lower()}"
        if self.email:
            return f"email:{self.email.lower()}"
        if self._name:
            return f"name:{self._name}"
        return f"pull_request:{self.pull_request}"  # nothing to go by: no two such requests share rows

    @property
    def owner_label(self) -> str:
        """The owner for messages: the maintainers, @login or the quoted display name."""
        if self.kind == UNMERGED:
            return UNMERGED_LABEL
        return self._by if self.kind == PULL_REQUEST else "the maintainers"

    @property
    def label(self) -> str:
        if self.kind == PULL_REQUEST:
            return f"pull request #{self.pull_request} by {self._by}"
        if self.kind == MAINTAINERS:
            return "the maintainers"
        if self.kind == LOCAL:
            return "local files (not committed)"
        if self.kind == UNMERGED:
            return f"you, not merged ({self.note})" if self.note else "you, not merged"
        return f"unknown ({self.note})" if self.note else "unknown"

    def to_json(self, repo_url: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "label": self.label}
        if self.kind == PULL_REQUEST:
            data.update(pull_request=self.pull_request,
                        author=self.author if self.login else (self._name or None))
            if repo_url:
                data["url"] = f"{repo_url}/pull/{self.pull_request}"
        if self.commit:
            data["commit"] = self.commit
        if self.date:
            data["date"] = self.date
        return data


def of_commit(subject: str, author: str, commit: str, date: str, *, parents: int, email: str = "") -> Source:
    """The source a commit on main's first-parent history gives the files it added. `parents` is
    the commit's number of parents: the subject is read as a merge's only with two, as a squash
    merge's only with one, so a pull request titled like another kind of commit is just a title."""
    if parents == 2:
        merge = _MERGE.match(subject)
        if merge:
            return Source(PULL_REQUEST, int(merge.group(1)), merge.group(2), True, commit, date)
    elif parents == 1:
        squash = _SQUASH.search(subject)
        if squash and email.strip().lower() == ACTIONS_BOT_EMAIL:
            return Source(MAINTAINERS, commit=commit, date=date)  # the maintainers' run, merged by a maintainer
        if squash:
            number = int(squash.group(1))
            noreply = _NOREPLY.match(email.strip())
            if noreply:
                account = int(noreply.group(1)) if noreply.group(1) else None
                return Source(PULL_REQUEST, number, noreply.group(2), True, commit, date, email=email.strip(),
                              account=account)
            name = _display_name(author)
            return Source(PULL_REQUEST, number, name or None, False, commit, date, email=email.strip() or None)
    return Source(MAINTAINERS, commit=commit, date=date)


def _git(root: Path, *args: str) -> str | None:
    """A git command's output in `root`, or None if git is missing or the command fails."""
    try:
        return git.text(root, *args)
    except git.GitError:
        return None


def _toplevel(folder: Path) -> Path | None:
    out = _git(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()).resolve() if out and out.strip() else None


_FIELDS = ("%H", "%P", "%aI", "%an", "%ae", "%s")


def _first_parent_log(root: Path, revision: str, diff_filter: str, pathspec: str,
                      ) -> Iterator[tuple[list[str], list[str]]]:
    """(fields of _FIELDS, paths) for each commit on `revision`'s first-parent history, newest
    first, with the paths (relative to the repository root) it added or deleted against its first
    parent. Raises HistoryError if git fails.

    Each commit's record starts with an empty NUL-separated token and every field is its own
    token: paths (-z) are never empty and no field holds a NUL, so neither a file name nor a
    pull request's title or author can pass for another commit's record.
    """
    if revision.startswith("-"):
        raise HistoryError(f"not a revision: {revision!r}")
    # --no-renames: a rename is a deletion and an addition, so the new path has the renaming
    # commit as its source and the old one counts as deleted.
    out = _git(root, "-c", "core.quotePath=false", "-c", "log.showSignature=false", "log", "--first-parent",
               "-m", "--no-renames", f"--diff-filter={diff_filter}", "--name-only", "-z",
               "--format=%x00" + "%x00".join(_FIELDS), revision, "--", pathspec)
    if out is None:
        raise HistoryError(f"git log {revision} failed in {root}")
    tokens = out.split("\0")
    i = 0
    while i < len(tokens):
        if tokens[i] != "" or i + len(_FIELDS) >= len(tokens):
            i += 1
            continue
        fields = tokens[i + 1:i + 1 + len(_FIELDS)]
        i += 1 + len(_FIELDS)
        paths: list[str] = []
        while i < len(tokens) and tokens[i] != "":
            paths.append(tokens[i].removeprefix("\n") if not paths else tokens[i])  # a newline ends the header
            i += 1
        yield fields, [p for p in paths if p]


def _source(fields: list[str]) -> Source:
    commit, parents, date, author, email, subject = fields
    return of_commit(subject, author, commit, date, parents=len(parents.split()), email=email)


def added_by(root: Path, revision: str = "HEAD", *, strict: bool = False) -> dict[str, Source]:
    """For every .jsonl file added on `revision`'s first-parent history, who added it (paths
    relative to the repository root `root`). The NEWEST addition wins: once a path is deleted, its
    old source says nothing about a file added there again. Empty if git fails, unless `strict`:
    then HistoryError, as ownership must never be read from a history that could not be read."""
    found: dict[str, Source] = {}
    try:
        if strict:
            _check_whole(root)
        for fields, paths in _first_parent_log(root, revision, "A", ":(top)*.jsonl"):
            source = _source(fields)
            for path in paths:
                found.setdefault(path, source)  # newest first: the first seen wins
    except HistoryError:
        if strict:
            raise
        return {}
    return found


def _check_whole(root: Path) -> None:
    if (_git(root, "rev-parse", "--is-shallow-repository") or "").strip() != "false":
        raise HistoryError(f"no whole git history in {root} (not a checkout, or a shallow clone)")


def deleted_paths(root: Path, revision: str = "HEAD") -> set[str]:
    """Every path (any file) a commit on `revision`'s first-parent history deleted, relative to the
    repository root. Raises HistoryError without whole history: an empty answer would mean
    "nothing was ever deleted"."""
    _check_whole(root)
    return {path for _, paths in _first_parent_log(root, revision, "D", ":(top)") for path in paths}


def first_added_by(root: Path, revision: str = "HEAD") -> dict[str, Source]:
    """For every top-level folder under replays/ (key: its name, e.g. "builtin"), the source of the
    OLDEST commit on `revision`'s first-parent history that added a file in it: who owns the
    tournament name. Raises HistoryError without whole history."""
    _check_whole(root)
    found: dict[str, Source] = {}
    for fields, paths in _first_parent_log(root, revision, "A", ":(top)replays/"):
        folders = {parts[1] for parts in (p.split("/") for p in paths) if len(parts) > 2 and parts[1]}
        if folders:
            source = _source(fields)
            found.update(dict.fromkeys(folders, source))  # newest first: older commits overwrite
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


class BaseError(ValueError):
    """The base a preview names is not a commit of the repository."""


def upstream_base(root: Path) -> str | None:
    """The base a branch is to be merged into, from its upstream: the default branch of the
    upstream's remote (`origin/HEAD`, i.e. origin/main, when git knows it: a branch pushed to
    origin/my-branch is still merged into main), else the upstream itself; None for a branch
    without upstream, or a detached HEAD."""
    branch = (_git(root, "symbolic-ref", "-q", "HEAD") or "").strip()
    if not branch:
        return None
    upstream = (_git(root, "for-each-ref", "--format=%(upstream:short)", branch) or "").strip()
    remote = (_git(root, "for-each-ref", "--format=%(upstream:remotename)", branch) or "").strip()
    if not upstream:
        return None
    if remote and remote != ".":
        default = (_git(root, "symbolic-ref", "-q", "--short", f"refs/remotes/{remote}/HEAD") or "").strip()
        if default:
            return default
    return upstream


def _base_commit(root: Path, base: str, found: bool = False) -> str:
    """The commit of `base` in `root`; `found`: the base came from the branch's upstream."""
    if base.startswith("-"):
        raise BaseError(f"--base {base!r}: not a revision")
    commit = (_git(root, "rev-parse", "--verify", "-q", f"{base}^{{commit}}") or "").strip()
    if not commit and found:
        raise BaseError(f"the current branch's upstream gives the base {base!r}, which is not a commit of the "
                        f"repository {root}: fetch it, or name the base with --base REV")
    if not commit:
        raise BaseError(f"--base {base!r} is not a commit of the repository {root} (fetch it first, e.g. "
                        "git fetch origin main)")
    return commit


def _differs(root: Path, commit: str) -> set[str]:
    """The replay files of the working tree that are not as `commit` holds them (relative to root):
    added, changed (committed or not) or deleted since."""
    out = _git(root, "-c", "core.quotePath=false", "diff", "--no-renames", "--name-only", "-z", commit, "--",
               ":(top)*.jsonl")
    if out is None:
        raise HistoryError(f"git diff {commit} failed in {root}")
    return {p for p in out.split("\0") if p}


def sources(files: Iterable[str | os.PathLike[str]], base: str | None = None, *,
            find_base: bool = False) -> dict[str, Source]:
    """The source of each replay file, keyed by the path as given.

    `base` (a revision; with `find_base`, when None, the one `upstream_base` finds) makes this a
    preview of a merge into it: a file the base holds as the working tree does has its source on
    the base's history, every other one is UNMERGED. Raises BaseError if the base is no commit."""
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
        merge_into = base if base is not None or not find_base else upstream_base(root)
        changed = _changed(root)
        if merge_into is None:
            added, unmerged = added_by(root), set()
        else:
            commit = _base_commit(root, merge_into, found=base is None)
            added, unmerged = added_by(root, commit), _differs(root, commit) | changed
        for name, path in members:
            try:
                relative = path.resolve().relative_to(root).as_posix()
            except ValueError:
                result[name] = Source(UNKNOWN, note="outside the git checkout")
                continue
            if merge_into is not None and (relative in unmerged or relative not in added):
                why = "not committed" if relative in changed else f"commits not on {merge_into}"
                result[name] = Source(UNMERGED, note=why)
            elif relative in changed or relative not in added:
                result[name] = Source(LOCAL)
            else:
                result[name] = added[relative]
    return result


def summary(by_game: Mapping[str, Source], tournaments: Mapping[str, str], *, exclude: bool = False,
            excluded: int = 0, excluded_unmerged: int = 0, repo_url: str | None = None) -> dict[str, Any]:
    """What a scored corpus holds, by source: counts, tournaments and pull requests (for the pages);
    `excluded` games were left out (`exclude`), `excluded_unmerged` of them not merged."""
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
        "excluded_unmerged": excluded_unmerged,
        # Why games are not merged ("commits not on origin/main", "not committed"): a preview's.
        "unmerged": sorted({s.note for s in by_game.values() if s.kind == UNMERGED and s.note}),
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


def owners(of_file: Mapping[str, Source]) -> dict[str, Owner]:
    """Each file's owner, by path: the scorer never pools a model agent's games from two owners
    (site_builder/scoring/owners.py)."""
    return {path: Owner(s.owner, s.owner_label, s.date or "") for path, s in of_file.items()}
