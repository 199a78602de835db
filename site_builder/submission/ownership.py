"""Who owns what on the board, read from main's history: rows belong to their source.

A tournament name (its folder under `replays/`) and a language-model agent belong to the source
that first added games for them: the maintainers, or one GitHub account, known by its number
where the squash merge's no-reply address gives one, else by its login (site_builder/sources.py
says how a source is known). A submission may add games only to what its author owns, so
nothing a stranger writes can join the maintainers' rows or another contributor's. Built-in
agents belong to nobody: every move of theirs is derived again from the seed, and every
submission plays against them.

Labels are part of it too: a new agent or person may not be named like an existing one (the same
name of another owner, or a name that only looks the same: Unicode TR39 skeletons, case, separators
and punctuation, site_builder/names.py `lookalike`), nor a tournament like another.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.replay.format import agent_kind
from site_builder import names, sources
from site_builder.sources import Source

#: A GitHub login as the pull-request workflow passes it (`github.event.pull_request.user.login`).
_LOGIN = re.compile(r"^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}$")
#: A GitHub account's number (`github.event.pull_request.user.id`).
_ACCOUNT = re.compile(r"^[1-9][0-9]{0,19}$")
#: The owner of built-in agents: nobody in particular (anyone may add games with them).
BUILTIN = "built-in"


class OwnerError(ValueError):
    """An author login or account number that is not one."""


@dataclass(frozen=True)
class Submitter:
    """Who opened the pull request: a GitHub login and account number, or nobody known (a local
    check without --author). The GitHub Actions bot opens the maintainers' run's pull requests: it
    submits as the maintainers (sources.ACTIONS_BOT_LOGIN)."""

    login: str | None
    account: int | None = None
    maintainers: bool = False

    @staticmethod
    def of(login: str | None, account: str | int | None = None) -> Submitter:
        if login is None or login == "":
            if account not in (None, ""):
                raise OwnerError("--author-id needs --author: the account's login names it in the report")
            return Submitter(None)
        if login == sources.ACTIONS_BOT_LOGIN:
            if account not in (None, "") and str(account) != str(sources.ACTIONS_BOT_ID):
                raise OwnerError(f"--author {login} is GitHub's account number {sources.ACTIONS_BOT_ID}, not "
                                 f"{str(account)!r}")
            return Submitter(login, sources.ACTIONS_BOT_ID, maintainers=True)
        if not _LOGIN.match(login):
            raise OwnerError(f"--author {login!r} is not a GitHub login (letters, digits and single hyphens)")
        if account is None or account == "":
            return Submitter(login)
        if not _ACCOUNT.match(str(account)):
            raise OwnerError(f"--author-id {str(account)!r} is not a GitHub account's number (digits only)")
        return Submitter(login, int(account))

    def owns(self, source: Source) -> bool:
        """Whether the rows of `source` are this person's: the same account number, or the same login
        where the source names no number (a merge commit, an old-style no-reply address)."""
        owner = source.owner
        if self.maintainers:
            return owner == sources.MAINTAINERS
        if owner.startswith("id:"):
            return self.account is not None and owner == f"id:{self.account}"
        return self.login is not None and owner == f"@{self.login.lower()}"

    @property
    def owner(self) -> str:
        """The owner id sources.Source.owner gives this person's merged pull requests."""
        if self.maintainers:
            return sources.MAINTAINERS
        if self.account is not None:
            return f"id:{self.account}"
        return f"@{self.login.lower()}" if self.login else "nobody known"

    @property
    def label(self) -> str:
        if self.maintainers:
            return f"the maintainers (their run, opened by {self.login})"
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
    judges: dict[str, AgentRow] = field(default_factory=dict)     # judge key -> its owner, as an agent's
    files: dict[str, Source] = field(default_factory=dict)        # replay path -> who added it

    def labels(self) -> dict[str, list[str]]:
        """Every label on the board -> the keys of the agents that carry it."""
        found: dict[str, list[str]] = {}
        for key, row in self.agents.items():
            for label in row.labels:
                found.setdefault(label, []).append(key)
        return found


def read(root: Path, revision: str, files: Mapping[str, Iterable[tuple[str, Mapping[str, Any]]]],
         judges: Mapping[str, Iterable[tuple[str, Mapping[str, Any]]]] | None = None) -> Owners:
    """Ownership at `revision` of the repository at `root`; `files` gives the (agent key,
    description) of every seat of every replay there, by path, `judges` those of the judges whose
    lines each replay carries. sources.HistoryError without whole history (ownership cannot be
    told from a shallow clone)."""
    owners = Owners(tournaments=sources.first_added_by(root, revision), deleted=sources.deleted_paths(root, revision))
    added = sources.added_by(root, revision, strict=True)  # newest addition first
    rank = {path: i for i, path in enumerate(added)}
    for rows, found in ((owners.agents, files), (owners.judges, judges or {})):
        for path, seats in found.items():
            # A file whose adding commit is not found belongs to the maintainers: ownership fails closed.
            source, age = added.get(path, Source(sources.MAINTAINERS)), rank.get(path, len(rank))
            owners.files[path] = source
            for key, description in seats:
                row = rows.setdefault(key, AgentRow(kind=str(description.get("kind", ""))))
                row.labels.add(str(description.get("name", "")))
                if row.kind == "builtin":
                    continue
                if age > row.rank:  # the oldest game of the agent names its owner
                    row.owner, row.rank = source, age
    return owners


def judge_problem(owners: Owners, key: str, description: Mapping[str, Any], submitter: Submitter) -> str | None:
    """Why a submission may not carry lines of this judge, or None. A judge is owned like an agent:
    by whoever first added its lines; the board counts a judge's lines for its owner's rows only."""
    row = owners.judges.get(key)
    if row is not None and row.owner is not None and not submitter.owns(row.owner):
        owner, by = _parties(row.owner, submitter)
        return (f"the judge {str(description.get('name', ''))!r} ({_what(description)}) belongs to {owner}, who "
                f"first added its lines ({row.owner.label}); this submission is by {by}: judge lines join only "
                "their owner's judge. Judge with other settings (another seed, say) and it is a judge of your own")
    return None


def tournament_problem(owners: Owners, folder: str, submitter: Submitter) -> str | None:
    """Why a submission may not add this tournament folder, or None."""
    first = owners.tournaments.get(folder)
    if first is not None:
        if submitter.owns(first):
            return (f"tournament {folder!r} is already on the board (added in {first.label}): a tournament is "
                    "submitted whole, once; play more games under a new tournament name")
        owner, by = _parties(first, submitter)
        return (f"tournament {folder!r} belongs to {owner}, who first added games for it "
                f"({first.label}); this submission is by {by}: choose a tournament name of your own")
    for other, source in sorted(owners.tournaments.items()):
        if names.lookalike(other, folder):  # whoever owns it: two names on the board never look alike
            return (f"tournament {folder!r} looks like {other!r}, which belongs to {source.owner_label} "
                    f"({source.label}): choose a name that cannot be mistaken for it")
    return None


def agent_problem(owners: Owners, key: str, description: Mapping[str, Any], submitter: Submitter) -> str | None:
    """Why a submission may not add games for this agent under this name, or None."""
    row = owners.agents.get(key)
    label = str(description.get("name", ""))
    if agent_kind(description) == "builtin":
        # Anyone may play the built-in agents, but their rows are everyone's: a submission names
        # one by its strategy or as the board already does, never takes its row for another name.
        strategy = str(description.get("strategy", ""))
        if label == strategy or (row is not None and label in row.labels):
            return None
        if row is not None:
            shown = ", ".join(repr(name) for name in sorted(row.labels | {strategy}))
            return (f"the built-in agent {strategy!r} with these parameters is on the board as {shown}: name it so "
                    f"in your tournament file, not {label!r} (its row is everyone's)")
    elif row is not None and row.owner is not None and not submitter.owns(row.owner):
        owner, by = _parties(row.owner, submitter)
        return (f"the agent {label!r} ({_what(description)}) belongs to {owner}, who first added "
                f"games for it ({row.owner.label}); this submission is by {by}: games join only their "
                "owner's rows. The same model with other settings (another seed, say) is a new agent of yours")
    elif row is not None:
        return None  # the submitter's own agent: its label was checked when it came
    for other, keys in sorted(owners.labels().items()):
        theirs = [owners.agents[k] for k in keys]
        whose = next((r.owner.owner_label for r in theirs if r.owner is not None), "gamenight (a built-in agent)")
        if other == label and any(r.owner is None or not submitter.owns(r.owner) for r in theirs):
            return f"the name {label!r} is taken by another agent on the board ({whose}): choose another"
        if names.lookalike(other, label):  # whoever owns it, the submitter included
            return (f"the name {label!r} looks like {other!r}, an agent already on the board ({whose}): choose a "
                    "name that cannot be mistaken for it")
    return None


def _parties(source: Source, submitter: Submitter) -> tuple[str, str]:
    """The owner of `source` and the submitter as a refusal names them: with their accounts' numbers
    when both have the same login (a login renamed away and taken by another account)."""
    owner, by = source.owner_label, submitter.label
    if not (source.login and submitter.login and (source.author or "").lower() == submitter.login.lower()):
        return owner, by
    if source.account is not None:
        owner += f" (GitHub account {source.account})"
    if submitter.account is not None:
        return owner, by + f" (GitHub account {submitter.account})"
    return owner, by + " (no account number given: run the check with --author-id)"


def _what(description: Mapping[str, Any]) -> str:
    parts = [str(description.get(k)) for k in ("provider", "model") if description.get(k)]
    design = description.get("design")
    if design and design != "vanilla":
        parts.append(f"design {design}")
    if description.get("prompt_version"):
        parts.append(f"prompts {description['prompt_version']}")
    return ", ".join(parts) or json.dumps(dict(description), sort_keys=True)[:80]
