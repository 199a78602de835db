"""A model agent's row holds the games of one source: never pooled from two.

The submission check lets only an agent's owner add games to it (site_builder/ownership.py), but
a corpus can be put together by hand, or by a maintainer's bypass. The scorer therefore splits
every language-model agent whose games came from more than one owner into one row per owner:
the owner of its oldest game keeps the agent's key, each other one gets a key of its own, and
every such row is labelled by its source. Built-in agents are one row whoever added their games:
every move of theirs is derived again from the seed.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from site_builder.scoring.corpus import Corpus
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
        if owner is None:
            continue
        for key in {s.agent for s in game.seats}:
            info = corpus.agents.get(key)
            if info is None or info.kind == "builtin":
                continue
            known = owners.setdefault(key, {})
            if owner.id not in known or owner.since < known[owner.id].since:
                known[owner.id] = owner
    split = {key: found for key, found in owners.items() if len(found) > 1}
    if not split:
        return corpus
    new_key: dict[tuple[str, str], str] = {}
    agents = dict(corpus.agents)
    for key, found in split.items():
        ordered = sorted(found.values(), key=lambda o: (o.since or "~", o.id))  # the oldest keeps the key
        info = agents.pop(key)
        for i, owner in enumerate(ordered):
            key_here = key if i == 0 else _with_source(key, owner.id)
            new_key[(key, owner.id)] = key_here
            agents[key_here] = dataclasses.replace(info, key=key_here, label=f"{info.label} ({owner.label})")
    games = []
    for game in corpus.games:
        owner = owner_of.get(path_of.get(game.game_id, ""))
        renamed = {key: new_key[(key, owner.id)] for key in {s.agent for s in game.seats}
                   if owner is not None and (key, owner.id) in new_key and new_key[(key, owner.id)] != key}
        games.append(_renamed(game, renamed) if renamed else game)
    return dataclasses.replace(corpus, games=games, agents=dict(sorted(agents.items())))


def _with_source(key: str, owner: str) -> str:
    """A key of its own for the agent as one source played it (still its description, as JSON)."""
    try:
        identity = json.loads(key)
    except ValueError:
        identity = {"agent": key}
    return json.dumps({**identity, "source": owner}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _renamed(game: ScoredGame, renamed: Mapping[str, str]) -> ScoredGame:
    seats = tuple(dataclasses.replace(s, agent=renamed.get(s.agent, s.agent)) for s in game.seats)
    return dataclasses.replace(game, seats=seats, digest=_rekeyed(game.digest, renamed))


def _rekeyed(value: Any, renamed: Mapping[str, str]) -> Any:
    """A digest with every agent key (a dict key) renamed."""
    if isinstance(value, Mapping):
        return {renamed.get(k, k): _rekeyed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_rekeyed(v, renamed) for v in value]
    return value

