"""Releases: the board as it stood at each release tag, scored again from that tag's own replays.

A release is an annotated git tag named `board-...`, or `v` and a digit (`v1`, `v2.1`; see
docs/maintainers.md, "Making a release"): the maintainers' word that the board at that commit is
one to cite. Its name must also be usable in an address (letters, digits, dots, hyphens and
underscores); a tag with such a prefix that is not a release (a lightweight tag, a slash in its
name) is listed as skipped, with why. For each release the
replay folders the build reads are read at the tagged commit (`git ls-tree` and one `git cat-file
--batch`, through site_builder/git.py; nothing checked out), written to a temporary folder and scored by the normal path: the
sources at that commit (who added each file), the owners kept apart, the ranked board with its
intervals and each game's rating table as point estimates. The scoring cache answers for every
replay it has seen, and a release already scored with the same scorer, seed and options is read
back from a file beside the cache (a tag names one commit for good).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import __version__ as runner_version
from runner.replay.format import iter_replay_files
from site_builder import git, sources
from site_builder.scoring import SCORER_VERSION, board
from site_builder.scoring.entry import owner_labels, read
from site_builder.scoring.history import Merge
from site_builder.scoring.results import RESULTS_VERSION
from site_builder.scoring.sections import RUNNER, folders_digest

#: The tags that may make a release (board-..., or v and a digit), and what a release's name may hold.
CANDIDATE = re.compile(r"board-|v[0-9]")
NAME = re.compile(r"(?:board-[A-Za-z0-9]|v[0-9])[A-Za-z0-9._-]{0,79}")
#: Each game's leaders shown for a release: the first of the maintainers' rows of its rating table.
LEADERS = 3
#: Bumped when a release's snapshot changes shape or content for the same commit (kept snapshots).
SNAPSHOT = "3"  # 2: leaders are the maintainers' rows only; 3: never an agent that forfeited every game


class ReleaseError(RuntimeError):
    """A release's replays could not be read from git; the message names the tag and why."""


@dataclass(frozen=True)
class Release:
    """An annotated release tag: its name, the commit it names, its date and its message's subject."""

    tag: str
    commit: str
    date: str
    subject: str


def _git(root: Path, *args: str) -> bytes:
    """`git -C root ARGS`'s output (site_builder/git.py); ReleaseError if git is missing or fails."""
    try:
        return git.run(root, *args)
    except git.GitError as err:
        raise ReleaseError(str(err)) from None


def find(root: Path) -> tuple[list[Release], list[dict[str, str]]]:
    """The releases of the repository at `root`, newest first, and the tags that fit the patterns
    but make no release ({tag, why})."""
    fields = ("%(refname:strip=2)", "%(objecttype)", "%(*objecttype)", "%(*objectname)", "%(taggerdate:iso-strict)",
              "%(contents:subject)")
    # Every tag, filtered here: git's own patterns would not list board-a/b, which then could not be said to be skipped.
    out = _git(root, "for-each-ref", "--format=" + "%00".join(fields) + "%00", "refs/tags")
    releases, skipped = [], []
    for line in out.decode("utf-8", "replace").split("\0\n"):
        parts = line.split("\0")
        if len(parts) < len(fields):
            continue
        tag, kind, target, commit, date, subject = parts[:len(fields)]
        if not CANDIDATE.match(tag):
            continue
        if kind != "tag":
            skipped.append({"tag": tag, "why": "a lightweight tag: a release is an annotated tag (git tag -a)"})
        elif target != "commit":
            skipped.append({"tag": tag, "why": f"it names a {target or 'missing object'}, not a commit"})
        elif not _dated(date):
            skipped.append({"tag": tag, "why": "it has no readable tagger date"})
        elif not NAME.fullmatch(tag):
            skipped.append({"tag": tag, "why": "its name holds characters an address cannot (a release's name: "
                                               "letters, digits, dots, hyphens and underscores, at most 80)"})
        else:
            releases.append(Release(tag, commit, date, subject))
    releases.sort(key=lambda r: (Merge(r.commit, r.date).instant, r.tag), reverse=True)
    return releases, sorted(skipped, key=lambda s: s["tag"])


def _dated(date: str) -> bool:
    try:
        Merge("", date).instant
    except ValueError:
        return False
    return True


def extract(root: Path, commit: str, folders: Sequence[str], into: Path) -> int:
    """Write every .jsonl file under `folders` (paths relative to the repository root) as it is in
    `commit` into `into`, at the same relative paths; how many were written."""
    repo = git.Repo(root)
    try:
        wanted = [f for folder in folders for f in repo.tree(commit, folder)
                  if f.mode != "120000" and f.path.endswith(".jsonl")]  # never a symbolic link
        for f, (_, data) in zip(wanted, repo.blobs([f.oid for f in wanted])):
            target = into / f.path
            if ".." in Path(f.path).parts or target.is_symlink():
                raise ReleaseError(f"{f.path}: not a path inside the repository")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except git.GitError as err:
        raise ReleaseError(str(err)) from None
    return len(wanted)


def snapshot(root: Path, release: Release, folders: Sequence[str], *, cache_path: Path | None, seed: int,
             derive: bool, submissions: str) -> dict[str, Any]:
    """The board at `release`: its replays under `folders` read at the tagged commit and scored as
    the build scores the working tree (owners apart; community files left out when `submissions`
    is "exclude"): the ranked board, and each game's first LEADERS by rating (point estimates)."""
    added = sources.added_by(root, release.commit, strict=True)  # owners must never be guessed
    with tempfile.TemporaryDirectory(prefix="gamenight-release-") as scratch:
        tree = Path(scratch)
        extract(root, release.commit, folders, tree)
        paths = [tree / f for f in folders if (tree / f).exists()]
        of_file = {str(f): added.get(f.relative_to(tree).as_posix(), sources.Source(sources.MAINTAINERS))
                   for f in iter_replay_files(paths)}
        excluded = sum(1 for s in of_file.values() if s.community) if submissions == "exclude" else 0
        if submissions == "exclude":
            of_file = {f: s for f, s in of_file.items() if not s.community}
        owner_of = sources.owners(of_file)
        corpus = read(list(of_file), owner_of, cache=cache_path, derive=derive)
    labels = owner_labels(owner_of)
    split = board.parts(corpus, labels)
    ranked = board.ranked_board(split, seed=seed)
    rated = board.rating_board(corpus, labels, seed=seed, resamples=0)["ratings"]["by_game"]
    leaders = leaders_of(rated, forfeited_every_game(corpus))
    rows = [{k: row.get(k) for k in ("row", "label", "suite", "agents", "owner", "stages", "score", "place", "best",
                                     "worst", "tier", "unranked")} for row in ranked["rows"]]
    named = {key for row in rows for key in row["agents"].values()}
    return {"tag": release.tag, "commit": release.commit, "date": release.date, "subject": release.subject,
            "files": corpus.files, "games": len(corpus.games), "invalid": len(corpus.invalid_replays),
            "excluded": excluded, "ranked": rows, "leaders": leaders,
            "agents": {k: corpus.agents[k].label for k in sorted(named) if k in corpus.agents}}


def forfeited_every_game(corpus: Any) -> dict[str, set[str]]:
    """Per game, the agents that forfeited every game of it they played (boards.forfeited_all, read
    from the games): a board lists them apart, so no release names one a leader."""
    played: dict[tuple[str, str], int] = {}
    forfeited: dict[tuple[str, str], int] = {}
    for game in corpus.games:
        for agent in {s.agent for s in game.seats}:
            if game.counts_for(agent):
                played[(game.game, agent)] = played.get((game.game, agent), 0) + 1
                forfeited[(game.game, agent)] = forfeited.get((game.game, agent), 0) + (game.forfeiter == agent)
    out: dict[str, set[str]] = {}
    for (name, agent), n in played.items():
        if forfeited[(name, agent)] >= n:
            out.setdefault(name, set()).add(agent)
    return out


def leaders_of(rated: dict[str, Any], apart: Mapping[str, Collection[str]] | None = None
               ) -> dict[str, list[dict[str, Any]]]:
    """Each game's first LEADERS among the maintainers' rows of its rating table (as the home page
    names its leaders): a contributor's row is placed in the table by its rating but never named
    a release's leader, since no check can prove that a submitted model played its games; nor is
    an agent of `apart[game]` (it forfeited every game of it)."""
    out = {}
    for name, table in rated.items():
        gone = (apart or {}).get(name, ())
        theirs = [r for r in table["agents"] if not _contributed(r) and r["agent"] not in gone][:LEADERS]
        if theirs:
            out[name] = [{"agent": r["agent"], "label": r["label"], "rating": r["rating"], "games": r["games"],
                          "owner": r.get("owner")} for r in theirs]
    return out


def _contributed(row: dict[str, Any]) -> bool:
    owner = row.get("owner")
    return bool(owner) and owner.get("id") != board.REFERENCE


def _code() -> str:
    """A hash of the code a snapshot is made with (the rules, and the whole site builder: the
    scorer, sources, owners): a kept snapshot of other code is made again, version or not."""
    return folders_digest((RUNNER, Path(__file__).resolve().parent)).hex()


def kept_beside(cache: Path) -> Path:
    """Where the release snapshots are kept for a scoring cache: a file next to it."""
    return cache.with_name(cache.stem + "-releases.json")


def _kept_key(release: Release, seed: int, derive: bool, submissions: str, folders: Sequence[str]) -> str:
    return json.dumps([release.commit, release.tag, release.date, release.subject, seed, derive, submissions,
                       list(folders), SNAPSHOT, SCORER_VERSION, RESULTS_VERSION, runner_version, _code()])


def _kept_snapshot(kept: Mapping[str, Any], key: str) -> Any:
    """The snapshot kept under `key`, if the entry names that key (the file may come from an earlier
    run's cache: an entry copied under another key, or of an older layout, is made again)."""
    entry = kept.get(key)
    if isinstance(entry, dict) and entry.get("key") == key and isinstance(entry.get("snapshot"), dict):
        return entry["snapshot"]
    return None


def snapshots(replay_paths: Sequence[str | os.PathLike[str]], *, cache_path: Path | None, seed: int,
              derive: bool = True, submissions: str = "include",
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The results' "releases" section: each release's snapshot (newest first), the tags skipped and
    why, and `note`, why there is none to read (no git checkout, no git), or None.
    `progress(done, total)` hears of each release as its snapshot is made or read again."""
    empty: dict[str, Any] = {"releases": [], "skipped": [], "note": None}
    located = _folders(replay_paths)
    if located is None:
        return {**empty, "note": "the replays are not in a git checkout"}
    root, folders = located
    try:
        found, skipped = find(root)
    except ReleaseError as err:
        return {**empty, "note": str(err)}
    kept_file = kept_beside(Path(cache_path)) if cache_path else None
    kept = _read_kept(kept_file)
    out, keep = [], {}
    for done, release in enumerate(found, 1):
        key = _kept_key(release, seed, derive, submissions, folders)
        try:
            made = _kept_snapshot(kept, key)
            if made is None:
                made = snapshot(root, release, folders, cache_path=cache_path, seed=seed, derive=derive,
                                submissions=submissions)
            keep[key] = {"key": key, "snapshot": made}
            out.append(made)
        except (ReleaseError, sources.HistoryError) as err:
            skipped.append({"tag": release.tag, "why": f"its replays could not be read: {err}"})
        if progress is not None:
            progress(done, len(found))
    if kept_file is not None:
        kept_file.parent.mkdir(parents=True, exist_ok=True)
        kept_file.write_text(json.dumps(keep, sort_keys=True), encoding="utf-8")
    return {"releases": out, "skipped": skipped, "note": None}


def _read_kept(path: Path | None) -> dict[str, Any]:
    """The snapshots kept by earlier builds (nothing, if the file is missing or not what it should be)."""
    if path is None or not path.is_file():
        return {}
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _folders(replay_paths: Sequence[str | os.PathLike[str]]) -> tuple[Path, list[str]] | None:
    """The repository holding the replay paths and each path relative to its root (None when a path
    is outside a git checkout, or they are in two)."""
    roots, relative = set(), []
    for given in replay_paths:
        path = Path(given).resolve()
        folder = path if path.is_dir() else path.parent
        try:
            top = Path(_git(folder, "rev-parse", "--show-toplevel").decode().strip()).resolve()
            relative.append(path.relative_to(top).as_posix())
        except (ReleaseError, ValueError):
            return None
        roots.add(top)
    if len(roots) != 1:
        return None
    return roots.pop(), relative
