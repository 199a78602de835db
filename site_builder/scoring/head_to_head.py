"""Head to head: how often each agent beats each other agent in one game (docs/metrics.md).

A game decides between two different agents A and B that both sat in it when one of them won it
and the other lost it: A beats B when every seat of A is among the winners and no seat of B is.
A game both won or both lost (team-mates, a shared win, a third agent winning, nobody winning)
decides nothing between them, nor does one where either held seats on both sides. A game an agent
forfeited is a loss of that agent to every other agent in it, and decides nothing between the
others (the leaderboards leave it out of their rates). Self-play (one agent in every seat) pairs
no one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from site_builder.scoring.model import ScoredGame
from site_builder.scoring.stats import rate


def sides(game: ScoredGame) -> dict[str, bool | None]:
    """Each agent of a game and whether it won (True), lost (False) or held seats on both sides
    (None). A forfeited game: the forfeiter lost, every other agent is None (it beat only the
    forfeiter); a forfeit whose seat is unknown gives every agent None."""
    if not game.valid:
        loser = game.forfeiter
        return {s.agent: (False if s.agent == loser else None) for s in game.seats}
    out: dict[str, bool | None] = {}
    for seat in game.seats:
        before = out.get(seat.agent, seat.won)
        out[seat.agent] = seat.won if before == seat.won else None
    return out


def tally(games: Iterable[ScoredGame]) -> dict[tuple[str, str], list[int]]:
    """Per pair of agents (a < b by key): [games both played, games a beat b, games b beat a]."""
    counts: dict[tuple[str, str], list[int]] = {}
    for game in games:
        outcome = sides(game)
        loser = game.forfeiter
        agents = sorted(outcome)
        for i, a in enumerate(agents):
            for b in agents[i + 1:]:
                c = counts.setdefault((a, b), [0, 0, 0])
                c[0] += 1
                if loser is not None:  # a forfeit decides only the forfeiter's pairs
                    c[1] += b == loser
                    c[2] += a == loser
                elif outcome[a] is not None and outcome[b] is not None and outcome[a] != outcome[b]:
                    c[1 if outcome[a] else 2] += 1
    return counts


def head_to_head(games: Iterable[ScoredGame]) -> dict[str, Any]:
    """The head-to-head table of one game's games: a pair per two agents that met (sorted by
    keys, a < b), with the games they both played (`met`), the games a beat b and b beat a, and
    a's share of the games decided between them with its 95% Wilson interval (b's is its mirror:
    1 - value, the interval reversed); `beats` is null when no game decided between them."""
    pairs = []
    for (a, b), (met, a_won, b_won) in sorted(tally(games).items()):
        pairs.append({"a": a, "b": b, "met": met, "a_won": a_won, "b_won": b_won,
                      "beats": rate(a_won, a_won + b_won)})
    return {"pairs": pairs}


def beats(pair: Mapping[str, Any], row: str) -> dict[str, Any] | None:
    """How often `row` (one of the pair's agents) beat the other: the pair's `beats`, mirrored
    when `row` is its b."""
    entry = pair["beats"]
    if entry is None or row == pair["a"]:
        return entry
    low, high = entry["ci"]
    return {"value": 1 - entry["value"], "ci": [1 - high, 1 - low], "n": entry["n"]}
