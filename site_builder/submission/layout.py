"""Where a submission's files go under replays/, and how large a submission may be."""

from __future__ import annotations

import re
from pathlib import Path

#: Largest replay file a submission may add. The built-in games are under 10 KiB; a Werewolf
#: game with every prompt and reply of eight language models stays well under 1 MiB.
MAX_FILE_BYTES = 8 * 1024 * 1024
#: Most bytes one pull request may add: the corpus lives in git forever, so growth is reviewed.
MAX_SUBMISSION_BYTES = 100 * 1024 * 1024
#: Most files one pull request may add or change.
MAX_SUBMISSION_FILES = 10_000
REPLAYS = "replays/"
_SLUG = r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}"
#: replays/<tournament>/<game_id>.jsonl: both parts are slugs, as in the replay header.
REPLAY_PATH = re.compile(rf"replays/(?P<tournament>{_SLUG})/(?P<game_id>{_SLUG})\.jsonl\Z")
#: replays/<tournament>/tournament.toml: the tournament's plan, written by `gamenight run`.
PLAN_PATH = re.compile(rf"replays/(?P<tournament>{_SLUG})/tournament\.toml\Z")
LAYOUT = "replays/<tournament>/<game_id>.jsonl"
FILE_MODES = ("100644", "100755")
SYMLINK, SUBMODULE = "120000", "160000"


def copy_replay(folder: Path, path: str, raw: bytes, oid: str = "") -> None:
    """Write a replay below `folder` under its repository path (or its object id if the path is odd)."""
    safe = path if REPLAY_PATH.match(path) else f"replays/other/{oid}.jsonl"
    target = folder / safe
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(raw)
