"""Who owns what on the board, read from main's history: rows belong to their source.

A tournament name (its folder under `replays/`) and a language-model agent belong to the source
that first added games for them: the maintainers, or one GitHub login (site_builder/sources.py
says how a source is known). A submission may add games only to what its author owns, so
nothing a stranger writes can join the maintainers' rows or another contributor's. Built-in
agents belong to nobody: every move of theirs is derived again from the seed, and every
submission plays against them.

Labels are part of it too: a new agent may not be named like an existing one (the same name of
another owner, or a name that only looks the same: Unicode TR39 skeletons, site_builder/names.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder import names, sources
from site_builder.sources import Source

#: A GitHub login as the pull-request workflow passes it (`github.event.pull_request.user.login`).
_LOGIN = re.compile(r"^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}$")
#: The owner of built-in agents: nobody in particular (anyone may add games with them).
BUILTIN = "built-in"


class OwnerError(ValueError):
    """An author login that is not one."""


@dataclass(frozen=True)
class Submitter:
    """Who opened the pull request: a GitHub login, or nobody known (a local check without --author)."""

    login: str | None

    @staticmethod
    def of(login: str | None) -> Submitter:
        if login is None or login == "":
            return Submitter(None)
        if not _LOGIN.match(login):
            raise OwnerError(f"--author {login!r} is not a GitHub login (letters, digits and single hyphens)")
        return Submitter(login)

    @property
    def owner(self) -> str:
        """The identity sources.Source.owner gives this person's merged pull requests."""
        return f"@{self.login.lower()}" if self.login else "nobody known"

    @property
    def label(self) -> str:
        return f"@{self.login}" if self.login else "an author not named (run the check with --author LOGIN)"


@dataclass
class AgentRow:
    """One agent already on the board: its label(s), and who owns it (None: a built-in agent)."""

    labels: set[str] = field(default_factory=set)
    owner: Source | None = None
    kind: str = ""
    rank: int = -1  # how old the game that makes the owner is (higher: older)


@dataclass
class Owners:
    """What main's history says about ownership."""

    tournaments: dict[str, Source] = field(default_factory=dict)  # folder -> its first source
    agents: dict[str, AgentRow] = field(default_factory=dict)     # agent key -> its row
    deleted: set[str] = field(default_factory=set)                # paths main deleted once

    def labels(self) -> dict[str, list[str]]:
        """Every label on the board -> the keys of the agents that carry it."""
        found: dict[str, list[str]] = {}
        for key, row in self.agents.items():
            for label in row.labels:
                found.setdefault(label, []).append(key)
        return found


def read(root: Path, revision: str, files: Mapping[str, Iterable[tuple[str, Mapping[str, Any]]]]) -> Owners:
    """Ownership at `revision` of the repository at `root`; `files` gives the (agent key,
    description) of every seat of every replay there, by path. sources.HistoryError without
    whole history (ownership cannot be told from a shallow clone)."""
    owners = Owners(tournaments=sources.first_added_by(root, revision), deleted=sources.deleted_paths(root, revision))
    added = sources.added_by(root, revision, strict=True)  # newest addition first
    rank = {path: i for i, path in enumerate(added)}
    for path, seats in files.items():
        # A file whose adding commit is not found belongs to the maintainers: ownership fails closed.
        source, age = added.get(path, Source(sources.MAINTAINERS)), rank.get(path, len(rank))
        for key, description in seats:
            row = owners.agents.setdefault(key, AgentRow(kind=str(description.get("kind", ""))))
            row.labels.add(str(description.get("name", "")))
            if row.kind == "builtin":
                continue
            if age > row.rank:  # the oldest game of the agent names its owner
                row.owner, row.rank = source, age
    return owners


def tournament_problem(owners: Owners, folder: str, submitter: Submitter) -> str | None:
    """Why a submission may not add this tournament folder, or None."""
    first = owners.tournaments.get(folder)
    if first is not None:
        if first.owner == submitter.owner:
            return (f"tournament {folder!r} is already on the board (added in {first.label}): a tournament is "
                    "submitted whole, once; play more games under a new tournament name")
        return (f"tournament {folder!r} belongs to {first.owner_label}, who first added games for it "
                f"({first.label}); this submission is by {submitter.label}: choose a tournament name of your own")
    for other, source in sorted(owners.tournaments.items()):
        if source.owner != submitter.owner and (other.casefold() == folder.casefold()
                                                or names.confusable(other, folder)):
            return (f"tournament {folder!r} looks like {other!r}, which belongs to {source.owner_label} "
                    f"({source.label}): choose a name that cannot be mistaken for it")
    return None


def agent_problem(owners: Owners, key: str, description: Mapping[str, Any], submitter: Submitter) -> str | None:
    """Why a submission may not add games for this agent under this name, or None."""
    row = owners.agents.get(key)
    label = str(description.get("name", ""))
    if description.get("kind") == "builtin":
        # Anyone may play the built-in agents, but their rows are everyone's: a submission names
        # one by its strategy or as the board already does, never takes its row for another name.
        strategy = str(description.get("strategy", ""))
        if label == strategy or (row is not None and label in row.labels):
            return None
        if row is not None:
            shown = ", ".join(repr(name) for name in sorted(row.labels | {strategy}))
            return (f"the built-in agent {strategy!r} with these parameters is on the board as {shown}: name it so "
                    f"in your tournament file, not {label!r} (its row is everyone's)")
    elif row is not None and row.owner is not None and row.owner.owner != submitter.owner:
        return (f"the agent {label!r} ({_what(description)}) belongs to {row.owner.owner_label}, who first added "
                f"games for it ({row.owner.label}); this submission is by {submitter.label}: games join only their "
                "owner's rows. The same model with other settings (another seed, say) is a new agent of yours")
    elif row is not None:
        return None  # the submitter's own agent: its label was checked when it came
    for other, keys in sorted(owners.labels().items()):
        theirs = [owners.agents[k] for k in keys]
        if other == label and any(r.owner is None or r.owner.owner != submitter.owner for r in theirs):
            whose = next((r.owner.owner_label for r in theirs if r.owner is not None), "gamenight (a built-in agent)")
            return f"the name {label!r} is taken by another agent on the board ({whose}): choose another"
        if other != label and names.confusable(other, label):
            return (f"the name {label!r} looks like {other!r}, an agent already on the board: choose a name that "
                    "cannot be mistaken for it")
    return None


def _what(description: Mapping[str, Any]) -> str:
    parts = [str(description.get(k)) for k in ("provider", "model") if description.get(k)]
    design = description.get("design")
    if design and design != "vanilla":
        parts.append(f"design {design}")
    if description.get("prompt_version"):
        parts.append(f"prompts {description['prompt_version']}")
    return ", ".join(parts) or json.dumps(dict(description), sort_keys=True)[:80]
