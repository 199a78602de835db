"""The board: the maintainers' results, and beside them each contributor's own rows.

Containment: a pull request changes no number of a row it does not own. A check can prove that a
game follows the rules, never that a person or a model really played it, so the board is built
so that whatever a submission claims can only reach its own rows. It is not scored as one corpus:

- the **reference**, the maintainers' games (and any file not known to come from a pull request),
  is scored alone, as `results.assemble` scores any corpus: every built-in agent, every
  maintainers' model and person, every judge table, pooled row and study comes from it only;
- each **contributor's** games (one owner: sources.Source.owner) are scored alone as well, their
  rating tables fitted with the reference's ratings held fixed (`ratings.table`'s anchors), and
  only the rows that contributor owns are taken from that scoring: its language-model agents and
  its people (never a built-in agent, which is everyone's and whose rows are the reference's).

So a row's numbers are a function of its owner's games (and, for a contributor's rating, of the
reference's ratings): nothing a submission brings is an input of a row it does not own. A
contributor's rank is its place among the reference's rows (1 + the reference rows rated above
it), so it never moves another row's rank either; each of its rows carries its owner.
`without` takes an owner's rows out of a results object again, which is how the tests and the
submission check show that nothing else moved.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from runner.prices import PriceTable
from runner.prices import load as load_prices
from site_builder.scoring import cost, ranked, ratings
from site_builder.scoring.corpus import REFERENCE, Corpus
from site_builder.scoring.results import SCORING_SEED, assemble
from site_builder.scoring.schema import Results
from site_builder.scoring.sections import Sections

#: How the board names the reference's owner.
REFERENCE_LABEL = "the maintainers"
#: Agent kinds a contributor owns the rows of (a built-in agent belongs to nobody: its rows are the reference's).
OWNED_KINDS = frozenset({"llm", "human"})


@dataclass(frozen=True)
class Part:
    """The games of one owner, with the agents as that owner's games describe them."""

    owner: str
    label: str
    corpus: Corpus
    owned: frozenset[str]  # the agents whose rows this owner has
    #: The reference's verification games (`gamenight verify`): evidence about the ranked rows they
    #: verify (scoring/verification.py), kept out of `corpus`, so that they form no row of their own
    #: and join no maintainers' model row on any board. Empty for a contributor (none can come from one).
    evidence: tuple[Any, ...] = ()

    @property
    def reference(self) -> bool:
        return self.owner == REFERENCE


def parts(corpus: Corpus, labels: Mapping[str, str] | None = None) -> list[Part]:
    """The corpus split by owner (`Corpus.owners`), the reference first, then each contributor by
    owner id; `labels` names the owners (owner id -> "@login"). Raises ValueError if two owners'
    rows would share an agent key (the corpus must be `owners.separate`d first)."""
    labels = labels or {}
    evidence = tuple(g for g in corpus.games if g.verify is not None and corpus.owners.get(g.game_id, REFERENCE)
                     == REFERENCE)  # a verification in a contributor's files (a bypass) is no evidence
    if any(g.verify is not None for g in corpus.games):
        corpus = _without_verifications(corpus)
    if not corpus.owners:  # everything is the reference's: the corpus as it is
        reference = {a for a, info in corpus.agents.items() if info.kind in OWNED_KINDS}
        return [Part(REFERENCE, REFERENCE_LABEL, corpus, frozenset(reference), evidence)]
    games: dict[str, list[Any]] = {}
    for game in corpus.games:
        games.setdefault(corpus.owners.get(game.game_id, REFERENCE), []).append(game)
    out: list[Part] = []
    taken: dict[str, str] = {}
    for owner in sorted(games, key=lambda o: (o != REFERENCE, o)):
        mine = games[owner]
        seated = sorted({s.agent for g in mine for s in g.seats})
        described = corpus.described.get(owner, {})
        agents = {key: described.get(key) or corpus.agents[key] for key in seated}
        owned = frozenset(key for key in seated if agents[key].kind in OWNED_KINDS)
        for key in owned:
            if key in taken:
                raise ValueError(f"agent {agents[key].label!r} has games of two owners ({taken[key]} and {owner}): "
                                 "split the corpus by owner first (scoring.owners.separate)")
            taken[key] = owner
        paths = {g.game_id: corpus.paths[g.game_id] for g in mine if g.game_id in corpus.paths}
        part = dataclasses.replace(corpus, games=mine, agents=agents, paths=paths, invalid_replays=[], duplicates=[],
                                   files=len(mine), owners={}, described={})
        out.append(Part(owner, REFERENCE_LABEL if owner == REFERENCE else labels.get(owner, owner), part, owned,
                        evidence if owner == REFERENCE else ()))
    if out[0].owner != REFERENCE:  # no game of the maintainers at all: an empty reference
        empty = dataclasses.replace(corpus, games=[], agents={}, paths={}, invalid_replays=[], duplicates=[], files=0,
                                    owners={}, described={})
        out.insert(0, Part(REFERENCE, REFERENCE_LABEL, empty, frozenset(), evidence))
    return out


def _without_verifications(corpus: Corpus) -> Corpus:
    """The corpus without its verification games, and without agents only they seat."""
    games = [g for g in corpus.games if g.verify is None]
    seated = {s.agent for g in games for s in g.seats}
    return dataclasses.replace(corpus, games=games, agents={k: a for k, a in corpus.agents.items() if k in seated},
                               paths={k: p for k, p in corpus.paths.items() if k in {g.game_id for g in games}})


def assemble_board(corpus: Corpus, labels: Mapping[str, str] | None = None, *, seed: int = SCORING_SEED,
                   magic_reading: str = "paper", kept: Path | None = None,
                   prices: PriceTable | None = None) -> Results:
    """The board's results: the reference's `assemble`, with each contributor's own rows added
    (see the module's docstring). Every agent entry says its owner. With no contributor it is
    `assemble` of the corpus, plus the owners. `prices`: the price table (default: the shipped one)."""
    prices = load_prices() if prices is None else prices
    split = parts(corpus, labels)
    reference = split[0]
    store = Sections(kept, reference.corpus.agents, reference.corpus.games, seed)
    try:
        # The reference's scoring, made the board's below (its owners and ranked board added).
        results = cast(Results, assemble(reference.corpus, seed=seed, magic_reading=magic_reading, store=store,
                                          prices=prices))
        results["corpus"] = _counts(corpus)
        results["replay_set_hash"] = corpus.replay_set_hash
        _own(results, reference)
        anchors = anchors_of(results)
        for part in split[1:]:
            mine = assemble(part.corpus, seed=seed, magic_reading=magic_reading, anchors=anchors,
                            store=store.part(part.corpus.agents, part.corpus.games), prices=prices)
            merge(results, mine, part)
    finally:
        store.close()
    results["owners"] = [{"id": p.owner, "label": p.label, "games": len(p.corpus.games), "rows": len(p.owned)}
                         for p in split]
    results["ranked"] = ranked_board(split, seed=seed)
    _ranked_costs(results["ranked"], split, prices)
    return results


def _ranked_costs(board: Mapping[str, Any], split: Sequence[Part], prices: PriceTable) -> None:
    """Each ranked row's cost per game (its candidate seat's tokens over its suite games), or None
    for a built-in candidate; a row's figures come from its own games only."""
    agents = {key: info for part in split for key, info in part.corpus.agents.items()}
    costs = cost.suite_costs([g for part in split for g in part.corpus.games], agents, prices)
    for row in board["rows"]:
        row["cost"] = costs.get(row["row"])


def ranked_board(split: Sequence[Part], *, seed: int) -> dict[str, Any]:
    """The ranked board over every owner's suite games at once: each row's numbers come from its
    own games only and places are counted among the maintainers' rows (scoring/ranked.py), so no
    contributor's row moves another. A row belongs to the owner of its games."""
    owner_of = {}
    for part in split[1:]:
        for game in part.corpus.games:
            owner_of[game.tournament] = {"id": part.owner, "label": part.label}
    games = [game for part in split for game in part.corpus.games]  # agents keyed as the board keys them
    return ranked.board(games, owner_of, ranked.shipped_stage_deals(), seed=seed, evidence=split[0].evidence)


def rating_board(corpus: Corpus, labels: Mapping[str, str] | None = None, *, seed: int = SCORING_SEED,
                 resamples: int | None = None) -> dict[str, Any]:
    """The board's rating tables alone, made as `assemble_board` makes them (the reference's, then
    each contributor's rows fitted against them): {"agents": [key, label, kind, owner], "ratings":
    {"overall", "by_game"}}. The release snapshots and the board over time read these, as point
    estimates (`resamples=0`); the submission check scores the whole board (`assemble_board`)."""
    split = parts(corpus, labels)
    results: dict[str, Any] = {}
    anchors: dict[str, dict[str, float]] | None = None
    for part in split:
        games, agents = part.corpus.games, part.corpus.agents
        mine = {"agents": [{"key": k, "label": a.label, "kind": a.kind} for k, a in agents.items()],
                "ratings": ratings.leaderboard(games, agents, seed=seed, resamples=resamples, anchors=anchors)}
        if part.reference:
            results = mine
            _own(results, part)
            anchors = anchors_of(results)
        else:
            merge(results, mine, part)
    return results


def _counts(corpus: Corpus) -> dict[str, Any]:
    """The corpus as a whole (every owner's files), as results.assemble counts it: what was read,
    left out and counted once. The boards' own counts are the reference's."""
    by_game: dict[str, int] = {}
    for game in corpus.games:
        by_game[game.game] = by_game.get(game.game, 0) + 1
    valid = sum(1 for g in corpus.games if g.valid)
    return {"files": corpus.files, "games": len(corpus.games), "valid_games": valid,
            "invalid_games": len(corpus.games) - valid, "by_game": dict(sorted(by_game.items())),
            "invalid_replays": corpus.invalid_replays, "duplicates": corpus.duplicates}


def anchors_of(results: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """What a contributor's rows are fitted against, from the reference's rating tables: {"overall"
    or a game: {agent: its rating, "game:role": BASE + the role's advantage}} (`ratings.table`)."""
    tables = {"overall": results["ratings"].get("overall") or {}, **results["ratings"].get("by_game", {})}
    out: dict[str, dict[str, float]] = {}
    for board, table in tables.items():
        held = {row["agent"]: row["rating"] for row in table.get("agents", [])}
        for role in table.get("roles", []):
            name = role["role"] if board == "overall" else ratings.role_key(board, role["role"])
            held[name] = ratings.BASE + role["advantage"]
        out[board] = held
    return out


def _own(results: dict[str, Any], part: Part) -> None:
    for agent in results["agents"]:
        agent["owner"] = {"id": part.owner, "label": part.label}


# -- where results hold a row per agent --------------------------------------------------------

@dataclass(frozen=True)
class Rows:
    """One place where results hold a row per agent: a dict keyed by agent, or a list of rows
    naming their agent(s) in `fields` (a row is an owner's if every named agent is theirs)."""

    path: tuple[str, ...]  # keys from the top; "*" for every key of a dict
    fields: tuple[str, ...] = ()  # empty: a dict keyed by agent
    #: A row naming two agents is an owner's if either is theirs (a head-to-head pair with a
    #: contributor's agent is made of its games alone), else only if every one is.
    either: bool = False

    def places(self, results: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
        """(concrete path, the dict or list there) for every place this pattern names."""
        def walk(node: Any, rest: tuple[str, ...], at: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
            if not rest:
                yield at, node
                return
            if not isinstance(node, Mapping):
                return
            keys = sorted(node) if rest[0] == "*" else [rest[0]] if rest[0] in node else []
            for key in keys:
                yield from walk(node[key], rest[1:], (*at, key))
        yield from walk(results, self.path, ())

    def owns(self, row: Mapping[str, Any], owned: frozenset[str] | set[str]) -> bool:
        return (any if self.either else all)(row.get(f) in owned for f in self.fields)


#: Every place of the results that holds rows per agent (results.assemble). Everything else (the
#: corpus, pooled rows, "all games" and design-mix summaries, the studies) is the reference's.
ROWS = (
    Rows(("agents",), ("key",)),
    Rows(("ratings", "overall", "agents"), ("agent",)),
    Rows(("ratings", "by_game", "*", "agents"), ("agent",)),
    Rows(("leaderboards", "*", "agents"), ("agent",)),
    Rows(("magic", "agents")),
    Rows(("magic", "alternative", "agents")),
    Rows(("magic", "comparisons"), ("vanilla", "enhanced")),
    Rows(("werewolf", "*", "agents")),
    Rows(("usage",)),
    Rows(("cost", "agents")),
    Rows(("head_to_head", "*", "pairs"), ("a", "b"), either=True),
)


def merge(results: dict[str, Any], mine: Mapping[str, Any], part: Part) -> None:
    """Add the rows `part`'s owner owns from its own scoring `mine` to the board `results`, in
    place. Only places the board already has are joined (a game the reference never played has no
    board to join); a row already there is never replaced."""
    owner = {"id": part.owner, "label": part.label}
    for rows in ROWS:
        for path, theirs in rows.places(mine):
            ours = _at(results, path)
            if ours is None:
                continue
            if rows.fields:
                present = {tuple(r.get(f) for f in rows.fields) for r in ours}
                added = [{**r, "owner": owner} for r in theirs if rows.owns(r, part.owned)
                         and tuple(r.get(f) for f in rows.fields) not in present]
                if path[0] == "ratings":
                    _rank_against(added, ours)
                ours.extend(added)
                _resort(path, ours)
            else:
                for key, value in theirs.items():
                    if key in part.owned and key not in ours:
                        ours[key] = value


def _at(results: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = results
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _rank_against(added: list[dict[str, Any]], reference: Sequence[Mapping[str, Any]]) -> None:
    """A contributor's rating rows ranked against the reference's rows alone: its best possible
    rank is 1 + the reference rows surely above it (`ratings.surely_above`); a provisional row
    has none."""
    sure = ratings.Sure(r for r in reference if "owner" not in r)
    for row in added:
        placed = not ratings.provisional(row) and row.get("band")
        row["rank_upper_bound"] = 1 + sure.above(row) if placed else None


#: How each kind of list is ordered (as results.assemble orders it).
_ORDER: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "ratings": lambda r: (-r["rating"], r["agent"]),
    "leaderboards": lambda r: (-(r["win_rate"]["value"] if r["win_rate"] else -1), r["label"]),
    "head_to_head": lambda r: (r["a"], r["b"]),
}


def _resort(path: Sequence[str], rows: list[Any]) -> None:
    order = _ORDER.get(path[0])
    if order is not None:
        rows.sort(key=order)


def without(results: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """A copy of the results without `owner`'s rows (and the corpus counts and owner list, which
    count every file): what the board says of everything the owner does not own."""
    keys = {a["key"] for a in results["agents"] if (a.get("owner") or {}).get("id") == owner}
    out: dict[str, Any] = _copy(results)
    for name in ("corpus", "owners", "replay_set_hash"):
        out.pop(name, None)
    for rows in ROWS:
        for _, held in rows.places(out):
            if rows.fields:
                held[:] = [r for r in held if not rows.owns(r, keys)]
            else:
                for key in [k for k in held if k in keys]:
                    del held[key]
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, MutableMapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
