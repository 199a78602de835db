"""A game's digest: the per-game values every metric reads, computed once from its events.

The cache keeps a scored game as its header (seats, outcome, usage) and this digest instead of
its events, probes and judge records, so re-scoring a large corpus reads a few hundred bytes a
game and aggregates; the metrics read a digest piece with `ScoredGame.piece`, computing it from
the events when a game has none (a game scored in memory).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from site_builder.scoring import chameleon, magic, placeholders, werewolf
from site_builder.scoring.model import ScoredGame


LENGTH = "length"


def length(game: ScoredGame) -> int:
    """How many moves the game took (its players' actions), for the replay list and featured games."""
    return sum(1 for e in game.events if e["kind"] == "action")


def moves(game: ScoredGame) -> int:
    """`length` of a game, from its digest when it has one (a cached game has no events)."""
    return game.piece(LENGTH, length)


#: Piece name -> the per-game function that computes it.
PIECES = {magic.PIECE: magic.game_tallies, chameleon.PIECE: chameleon.shipped_curve,
          werewolf.PIECE: werewolf.game_values, werewolf.NEURAL_PIECE: werewolf.neural_game_values,
          LENGTH: length, placeholders.PIECE: placeholders.game_copies}


def environment() -> str:
    """What a digest depends on besides the game and the code: whether the neural embedder is
    installed (and which version). A cache of digests is keyed by it."""
    return werewolf.neural_tag()


def digest(game: ScoredGame) -> dict[str, Any]:
    """Every piece, for every game (None where it does not apply): a compact game never computes one."""
    return {name: compute(game) for name, compute in PIECES.items()}


#: The deal's fields the aggregations read (who was the chameleon); the rest is in the digest.
KEPT_SETUP = ("chameleon",)


def compact(game: ScoredGame) -> ScoredGame:
    """The game as the cache keeps it: the digest instead of events, probes, judge records and
    the rest of the deal (the viewer reads those from the replay itself)."""
    setup = {k: game.setup[k] for k in KEPT_SETUP if k in game.setup}
    usage = tuple({k: v for k, v in spent.items() if v} for spent in game.usage)  # readers take absent as 0
    return dataclasses.replace(game, setup=setup, usage=usage, events=(), probes=(), judgements=(),
                               digest=digest(game))
