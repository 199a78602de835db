"""Which replays this machine's runs wrote, so that a run can say when it keeps games it did not.

`gamenight run` resumes: a finished replay in the output folder is kept, not played again. A replay
that arrived some other way (a merged pull request, a folder copied in) is kept just the same, and
the run would report its plan as played with nobody the wiser. So every game a run writes is noted
in a small record in the run's cache folder (`<cache dir>/written/`, never in the replays folder,
whose layout a submission fixes): one empty file named after the game's digest. A later run tells
the kept games it finds there from the others, and names the commits that added the others when the
folder is in a git checkout.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

#: The record's folder inside the cache folder (the response cache's entries are in `<2 hex>/`).
RECORD = "written"
#: A header line as the runner writes it, up to its format version (which `gamenight judge` may raise).
_HEADER_VERSION = re.compile(rb'^(\{"type":"header","format":"[^"\\]*","version":)\d+')
_OUTCOME = b'{"type":"outcome"'
#: Longest a git call may take before the run goes on without knowing who added what.
GIT_TIMEOUT_S = 60


def game_digest(raw: bytes) -> str:
    """The SHA-256 of the game a replay's bytes hold: its lines through the outcome, the header's
    format version left out. `gamenight judge` appends judge lines after the outcome and may raise
    the version when it does; neither changes the game."""
    first, newline, rest = raw.partition(b"\n")
    digest = hashlib.sha256(_HEADER_VERSION.sub(rb"\1", first) + newline)
    outcome = 0 if rest.startswith(_OUTCOME) else rest.find(b"\n" + _OUTCOME) + 1
    if outcome > 0 or rest.startswith(_OUTCOME):
        end = rest.find(b"\n", outcome)
        rest = rest if end < 0 else rest[:end + 1]
    digest.update(rest)
    return digest.hexdigest()


class Written:
    """The record of the games this machine's runs wrote, under `<cache dir>/written/`."""

    def __init__(self, cache_dir: Path):
        self.root = Path(cache_dir) / RECORD

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def add(self, raw: bytes) -> bool:
        """Note the game of these replay bytes as written here; False if the note could not be written."""
        path = self._path(game_digest(raw))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError:
            return False
        return True

    def wrote(self, raw: bytes) -> bool:
        """Whether a run on this machine wrote the game of these replay bytes."""
        return self._path(game_digest(raw)).is_file()


@dataclass(frozen=True)
class Adder:
    """The commit that added a file, as git records it (the author's words: shown escaped)."""

    commit: str
    author: str
    email: str
    subject: str

    @property
    def label(self) -> str:
        """"added by commit abc1234 'Subject (#12)' by Name <e-mail>", control characters escaped."""
        return f"added by commit {_shown(self.commit)} {_shown(self.subject)!r} by {_shown(self.author)} " \
               f"<{_shown(self.email)}>"


def _shown(text: str, width: int = 200) -> str:
    """Text from git (a stranger's words) on one line: control characters escaped, cut to `width`."""
    text = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= width else text[:width - 1] + "…"


#: Where a kept file that git did not add came from, as the warning says it.
NOT_COMMITTED = "not committed to git (copied into the folder?)"
NO_GIT = "the folder is not in a git checkout: who added them is not known"


def adders(folder: Path, names: Collection[str]) -> dict[str, Adder | None] | None:
    """The newest commit that added each of the files `names` of `folder` (None: no commit added
    it), read with one `git log`; None if the folder is not in a git checkout or git cannot say."""
    fields = "%x1e%h%x1f%an%x1f%ae%x1f%s"
    try:
        done = subprocess.run(["git", "-C", str(folder), "-c", "core.quotepath=off", "log", "--no-renames",
                               "--diff-filter=A", "--relative", "--name-only", f"--format={fields}", "--", "."],
                              capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    wanted = set(names)
    found: dict[str, Adder | None] = dict.fromkeys(wanted)
    current: Adder | None = None
    for line in done.stdout.decode("utf-8", errors="replace").split("\n"):  # not splitlines: \x1e ends a line there
        if line.startswith("\x1e"):
            parts = line[1:].split("\x1f", 3)
            current = Adder(*parts) if len(parts) == 4 else None
        elif line in wanted and found[line] is None:
            found[line] = current  # the log runs newest first: the newest commit that added it
    return found


def git_user_email(folder: Path) -> str | None:
    """The e-mail address of the git user of the checkout holding `folder` (`git config user.email`),
    case folded; None outside a checkout, or when none is set."""
    try:
        done = subprocess.run(["git", "-C", str(folder), "config", "user.email"], capture_output=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    email = done.stdout.decode("utf-8", errors="replace").strip()
    return email.casefold() if done.returncode == 0 and email else None


def by_source(names: Iterable[str], added: dict[str, Adder | None] | None) -> list[tuple[str, list[str]]]:
    """The files grouped by who added them, as (what the warning says, file names), most files first."""
    groups: dict[str, list[str]] = {}
    for name in names:
        adder = added.get(name) if added is not None else None
        label = adder.label if adder is not None else NOT_COMMITTED if added is not None else NO_GIT
        groups.setdefault(label, []).append(name)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
