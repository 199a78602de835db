"""A model agent's row holds the games of one source: never pooled from two.

The submission check lets only an agent's owner add games to it (site_builder/submission/ownership.py), but
a corpus can be put together by hand, or by a maintainer's bypass. The scorer therefore splits
every language-model agent and every person whose games came from more than one owner into one
row per owner: the owner of its oldest game keeps the agent's key, each other one gets a key of
its own, labelled by its source (the oldest keeps its name). Built-in agents keep one key whoever added
their games: every move of theirs is derived again from the seed, and the board takes their rows
from the maintainers' games alone (site_builder/scoring/board.py).

A judge of a contributor's games is always that contributor's: its key gets the source, so that
no submitted judge line can join, rename or outvote a judge of the maintainers.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from site_builder.scoring.corpus import REFERENCE, Corpus
from site_builder.scoring.model import ScoredGame


@dataclass(frozen=True)
class Owner:
    """Who added a replay file: a stable identity, how to name it, and when (for the oldest)."""

    id: str
    label: str
    since: str = ""  # the ISO date of the commit that added the file ("" if unknown)


def separate(corpus: Corpus, owner_of: Mapping[str, Owner]) -> Corpus:
    """The corpus with every model agent split by the owners of its games' files (`owner_of`: by
    path; a file not in it belongs to no one in particular and splits nothing)."""
    path_of = corpus.paths
    owners: dict[str, dict[str, Owner]] = {}  # agent key -> owner id -> its oldest file's owner
    for game in corpus.games:
        owner = owner_of.get(path_of.get(game.game_id, ""))
        if owner is None or game.verify is not None:
            continue  # a verification's games are evidence about a row, never a row of their own (board.parts)
        for key in {s.agent for s in game.seats}:
            info = corpus.agents.get(key)
            if info is None or info.kind == "builtin":
                continue
            known = owners.setdefault(key, {})
            if owner.id not in known or owner.since < known[owner.id].since:
                known[owner.id] = owner
    split = {key: found for key, found in owners.items() if len(found) > 1}
    judged = any(owner is not None and owner.id != REFERENCE and _judges(game)
                 for game in corpus.games for owner in (owner_of.get(path_of.get(game.game_id, "")),))
    if not split and not judged:
        return corpus
    new_key: dict[tuple[str, str], str] = {}
    agents = dict(corpus.agents)
    for key, found in split.items():
        ordered = sorted(found.values(), key=lambda o: (o.since or "~", o.id))  # the oldest keeps the key
        info = agents.pop(key)
        for i, owner in enumerate(ordered):
            key_here = key if i == 0 else _with_source(key, owner.id)
            new_key[(key, owner.id)] = key_here
            own = corpus.described.get(owner.id, {}).get(key, info)  # as the owner's own games name it
            # The row that keeps the key keeps its name: a later source never relabels it.
            label = own.label if i == 0 else f"{own.label} ({owner.label})"
            agents[key_here] = dataclasses.replace(own, key=key_here, label=label)
    games = []
    for game in corpus.games:
        owner = owner_of.get(path_of.get(game.game_id, ""))
        if game.verify is not None:
            games.append(game)
            continue
        renamed = {key: new_key[(key, owner.id)] for key in {s.agent for s in game.seats}
                   if owner is not None and (key, owner.id) in new_key and new_key[(key, owner.id)] != key}
        judges = {j: _with_source(j, owner.id) for j in _judges(game)} if owner and owner.id != REFERENCE else {}
        games.append(_renamed(game, renamed, judges) if renamed or judges else game)
    described = {owner: {new_key.get((key, owner), key): agents[new_key[(key, owner)]] if (key, owner) in new_key
                         else info for key, info in found.items()} for owner, found in corpus.described.items()}
    return dataclasses.replace(corpus, games=games, agents=dict(sorted(agents.items())), described=described)


def _judges(game: ScoredGame) -> set[str]:
    """The keys of the LLM judges whose lines a game carries (from its records, or its digest)."""
    found = {str(r.get("judge")) for r in game.judgements}
    stack: list[Any] = [game.digest]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            judges = value.get("judges")
            if isinstance(judges, Mapping):
                found.update(judges)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def _with_source(key: str, owner: str) -> str:
    """A key of its own for the agent as one source played it (still its description, as JSON)."""
    try:
        identity = json.loads(key)
    except ValueError:
        identity = {"agent": key}
    return json.dumps({**identity, "source": owner}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _renamed(game: ScoredGame, renamed: Mapping[str, str], judges: Mapping[str, str] | None = None) -> ScoredGame:
    """The game with agents (`renamed`) and judges (`judges`) under their new keys."""
    seats = tuple(dataclasses.replace(s, agent=renamed.get(s.agent, s.agent)) for s in game.seats)
    every = {**(judges or {}), **renamed}
    lines = tuple({**r, "judge": every.get(str(r.get("judge")), r.get("judge"))} for r in game.judgements)
    return dataclasses.replace(game, seats=seats, digest=_rekeyed(game.digest, every), judgements=lines)


def _rekeyed(value: Any, renamed: Mapping[str, str]) -> Any:
    """A digest with every agent key (a dict key) renamed."""
    if isinstance(value, Mapping):
        return {renamed.get(k, k): _rekeyed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_rekeyed(v, renamed) for v in value]
    return value

