"""What the base branch already holds: every replay indexed for the duplicate and ownership checks."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.rerun.identity import game_identity
from site_builder.submission import ownership
from site_builder.git import GitError, Repo
from site_builder.scoring.model import agent_key
from site_builder.sources import HistoryError
from site_builder.submission.layout import FILE_MODES, REPLAYS, copy_replay

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
    by_identity: dict[str, str] = field(default_factory=dict)  # game identity (runner/rerun/identity.py) -> path
    paths: set[str] = field(default_factory=set)
    agent_games: Counter[str] = field(default_factory=Counter)  # agent key -> games
    agent_names: dict[str, Counter[str]] = field(default_factory=dict)  # agent key -> display names used
    seats: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)  # path -> (key, agent)
    judges: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)  # path -> (key, judge)
    owners: ownership.Owners = field(default_factory=ownership.Owners)

    def label(self, key: str) -> str | None:
        """The agent's name on the leaderboard: its most used display name (ties: alphabetical)."""
        names = self.agent_names.get(key)
        return most_used(names) if names else None


def most_used(names: Counter[str]) -> str:
    return min(names, key=lambda name: (-names[name], name))


def index_base(repo: Repo, commit: str, copy_to: Path | None = None,
               progress: Callable[[int, int], None] | None = None) -> BaseIndex:
    """Index every replay of the base revision (and copy them to `copy_to` for scoring), and read
    from its history who owns which tournament and agent. `progress(done, total)` hears of each
    distinct replay read."""
    index = BaseIndex()
    files = [f for f in repo.tree(commit, REPLAYS) if f.mode in FILE_MODES]
    index.paths = {f.path for f in files}
    by_oid: dict[str, list[str]] = {}  # identical files share one blob
    for f in files:
        if f.path.endswith(".jsonl"):
            by_oid.setdefault(f.oid, []).append(f.path)
    for done, (oid, raw) in enumerate(repo.blobs(list(by_oid)), 1):
        if progress is not None:
            progress(done, len(by_oid))
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
            index.by_identity.setdefault(game_identity(header, lines), path)
        if copy_to is not None:
            for same in paths:
                copy_replay(copy_to, same, raw, oid)
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
