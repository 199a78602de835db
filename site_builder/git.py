"""Running git, and reading a repository's objects: the one way the site builder asks git anything.

Every command runs with the same environment (no prompt for credentials, no optional locks, the C
locale, so messages and output do not depend on the machine), a time limit, and one kind of error,
GitError, naming the command, the repository and git's own last line of complaint. `Repo` reads
commits, trees and blobs through git's plumbing commands only: nothing is checked out.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Seconds one git command may take: reading history or trees of a large corpus takes a few.
TIMEOUT_S = 120


class GitError(Exception):
    """A git command failed; the message says what could not be read and why."""


def _environment() -> dict[str, str]:
    """The environment of every git command: no credential prompt, no optional lock, the C locale."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


def run(root: str | os.PathLike[str], *args: str, stdin: bytes | None = None) -> bytes:
    """The output of `git -C root ARGS`; GitError if git is missing, fails or overruns TIMEOUT_S."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True,
                              env=_environment(), timeout=TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took more than {TIMEOUT_S} s in {root}") from None
    except OSError as exc:
        raise GitError(f"git {args[0]} could not run in {root}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed in {root}: {reason[-1] if reason else 'no message'}")
    return done.stdout


def text(root: str | os.PathLike[str], *args: str) -> str:
    """The output of `git -C root ARGS` as text (bytes that are not UTF-8 replaced); GitError as `run`."""
    return run(root, *args).decode("utf-8", "replace")


def start(root: str | os.PathLike[str], *args: str) -> subprocess.Popen[bytes]:
    """`git -C root ARGS` started with pipes in and out, for a conversation such as `cat-file --batch`."""
    try:
        return subprocess.Popen(["git", "-C", str(root), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=_environment())
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    except OSError as exc:
        raise GitError(f"git {args[0]} could not run in {root}: {exc.strerror or exc}") from None


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

    def commit(self, revision: str) -> str:
        """The commit id that `revision` names (a branch, tag, sha, origin/main, HEAD~1, ...)."""
        if not revision or revision.startswith("-"):
            raise GitError(f"{revision!r} is not a revision")
        try:
            return run(self.path, "rev-parse", "--verify", "--quiet", "--end-of-options",
                       f"{revision}^{{commit}}").decode().strip()
        except GitError:
            raise GitError(f"{revision!r} is not a commit of the repository {self.path} "
                           "(fetch it first, e.g. `git fetch origin main`)") from None

    def merge_base(self, base: str, head: str) -> str:
        """The commit the pull request branched from."""
        try:
            return run(self.path, "merge-base", base, head).decode().strip()
        except GitError:
            raise GitError(f"{base[:12]} and {head[:12]} have no common history here: fetch the "
                           "full history (`git fetch --unshallow`, or `fetch-depth: 0` in CI)") from None

    def changes(self, old: str, new: str) -> list[Change]:
        """Every file that differs between two commits."""
        out = run(self.path, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
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
        out = run(self.path, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", folder)
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
        out = run(self.path, "cat-file", "--batch-check", stdin="".join(f"{oid}\n" for oid in oids).encode())
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
        proc = start(self.path, "cat-file", "--batch")
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
