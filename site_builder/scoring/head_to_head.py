"""Head to head: how often each agent beats each other agent in one game (docs/metrics.md).

A game decides between two different agents A and B that both sat in it when a larger share of
A's seats than of B's is among the winners: A beats B. With a seat each, A won and B lost; an
agent holding several seats (a built-in agent filling the table) counts by the share of its seats
that won. Equal shares decide nothing: team-mates, a shared win, both losing to a third agent, a
game nobody won. A game an agent forfeited is a loss of that agent to every other agent in it,
and decides nothing between the others (the leaderboards leave it out of their rates). Self-play
(one agent in every seat) pairs no one.

A matrix shades a pair (one agent surely beats the other) only when a test of its decided games
against a coin toss holds after Holm's correction for every pair the matrix tests, and only from
MIN_DECIDED decided games on: among agents of equal strength, chance alone then shades a cell in
at most 1 matrix in 20, where shading each cell whose own 95% interval clears 50% shaded about a
tenth of a cell per pair (`sure`; docs/metrics.md, "Head to head").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from site_builder.scoring.model import ScoredGame
from site_builder.scoring.stats import holm, rate, sign_test


def shares(game: ScoredGame) -> dict[str, float | None]:
    """Each agent of a game and the share of its seats among the winners. A forfeited game: the
    forfeiter 0.0, every other agent None (it beat only the forfeiter); a forfeit whose seat is
    unknown gives every agent None."""
    if not game.valid:
        loser = game.forfeiter
        return {s.agent: (0.0 if s.agent == loser else None) for s in game.seats}
    seats: dict[str, list[int]] = {}
    for seat in game.seats:
        won = seats.setdefault(seat.agent, [0, 0])
        won[0] += seat.won
        won[1] += 1
    return {agent: won / total for agent, (won, total) in seats.items()}


def tally(games: Iterable[ScoredGame]) -> dict[tuple[str, str], list[int]]:
    """Per pair of agents (a < b by key): [games both played, games a beat b, games b beat a]."""
    counts: dict[tuple[str, str], list[int]] = {}
    for game in games:
        outcome = shares(game)
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
                    c[1 if outcome[a] > outcome[b] else 2] += 1
    return counts


def head_to_head(games: Iterable[ScoredGame]) -> dict[str, Any]:
    """The head-to-head table of one game's games: a pair per two agents that met (sorted by
    keys, a < b), with the games they both played (`met`), the games a beat b and b beat a, and
    a's share of the games decided between them with its 95% Wilson interval (b's is its mirror:
    1 - value, the interval reversed); `beats` is null when no game decided between them. `p_value`:
    the exact two-sided test of the decided games against a coin toss (null without one)."""
    pairs = []
    for (a, b), (met, a_won, b_won) in sorted(tally(games).items()):
        pairs.append({"a": a, "b": b, "met": met, "a_won": a_won, "b_won": b_won,
                      "beats": rate(a_won, a_won + b_won), "p_value": sign_test(a_won, b_won)})
    return {"pairs": pairs}


def beats(pair: Mapping[str, Any], row: str) -> dict[str, Any] | None:
    """How often `row` (one of the pair's agents) beat the other: the pair's `beats`, mirrored
    when `row` is its b."""
    entry = pair["beats"]
    if entry is None or row == pair["a"]:
        return entry
    low, high = entry["ci"]
    return {"value": 1 - entry["value"], "ci": [1 - high, 1 - low], "n": entry["n"]}


#: A pair is never shaded on fewer decided games than this, however lopsided: a 4-0 is what two
#: equal agents give one time in eight.
MIN_DECIDED = 10
#: The chance, among agents of equal strength, that a matrix shades any cell.
FAMILY_ERROR = 0.05


def tested(pairs: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pairs a matrix tests: those with at least MIN_DECIDED decided games."""
    return [p for p in pairs if p.get("beats") and p["beats"]["n"] >= MIN_DECIDED and p.get("p_value") is not None]


def sure(pairs: Collection[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """The pairs (a, b) of a matrix whose winner is sure: Holm's procedure at FAMILY_ERROR over
    every pair it tests (`tested`), so the whole matrix holds at 95%, not each cell alone."""
    return holm({(p["a"], p["b"]): p["p_value"] for p in tested(pairs)}, FAMILY_ERROR)


def chance_cells(tests: int) -> float:
    """How many cells each cell's own 95% interval would shade among agents of equal strength, by
    chance alone: a twentieth of the pairs tested, two cells each (the winner's and its mirror)."""
    return 2 * FAMILY_ERROR * tests
