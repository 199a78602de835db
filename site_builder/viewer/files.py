"""Where the viewer's data goes in the built site, its one error, and how its JSON files are written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: Where the data goes in the built site: one file per replay, LLM exchanges, the list's index.
DATA_DIR = "replays/data"
CALLS_DIR = "replays/calls"
LIST_DIR = "replays/list"
#: gzip level of every shard (their bytes depend on their games only: no time stamp).
GZIP_LEVEL = 9


class ReplayDataError(ValueError):
    """A replay that cannot be turned into viewer data; the message names the file and why."""


def to_json(value: Any) -> str:
    """Compact JSON with <, > and & escaped, so no file can read as markup even if opened as a page."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def write_json(path: Path, value: Any) -> int:
    """Write `value` as compact JSON (to_json) at `path`; the number of files written, 1."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_json(value), encoding="utf-8")
    return 1

