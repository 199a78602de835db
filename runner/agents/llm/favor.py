"""Favor Dynamics (the Werewolf paper): a favor level per other player, nudged after each turn, told in words.

As in the Werewolf paper, a level lies between 1 and 100 and is read in five bands of 20 points. After each
turn the model rates every other player from 1 to 10; the rating is mapped linearly onto a
change from -`swing` to +`swing` (1 -> -swing, 10 -> +swing; the Werewolf paper uses 30, enough to cross a
whole band in one turn) and added to the level, which is then kept within 1..100. Players the
model leaves out keep their level. gamenight starts every level at `initial` (default 50,
the middle band), where the Werewolf paper is silent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MIN_LEVEL, MAX_LEVEL = 1.0, 100.0
DEFAULTS = {"initial": 50.0, "swing": 30.0}
#: Upper bounds of the five bands and how each reads.
_BANDS = ((20.0, "You strongly dislike and distrust {name}."),
          (40.0, "You are wary of {name}."),
          (60.0, "You feel neutral about {name}."),
          (80.0, "You rather like {name}."),
          (MAX_LEVEL, "You like and trust {name} a great deal."))


def check_params(params: Mapping[str, Any]) -> dict[str, float]:
    """The favor design's parameters with defaults filled in; ValueError naming a bad field."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"design_params: unknown field(s) {unknown} for design 'favor'; "
                         f"it takes {sorted(DEFAULTS)}")
    filled = {**DEFAULTS, **params}
    initial, swing = filled["initial"], filled["swing"]
    if isinstance(initial, bool) or not isinstance(initial, (int, float)) or not MIN_LEVEL <= initial <= MAX_LEVEL:
        raise ValueError(f"design_params.initial: must be a number from 1 to 100, got {initial!r}")
    if isinstance(swing, bool) or not isinstance(swing, (int, float)) or not 0 < swing <= MAX_LEVEL:
        raise ValueError(f"design_params.swing: must be a number above 0 and at most 100, got {swing!r}")
    return {"initial": initial, "swing": swing}


def change(rating: int, swing: float) -> float:
    """The change of level a rating of 1..10 stands for."""
    return (rating - 5.5) / 4.5 * swing


def updated(levels: Mapping[int, float], ratings: Mapping[int, int], swing: float) -> dict[int, float]:
    """The levels after one turn's ratings, kept within 1..100."""
    new = dict(levels)
    for seat, rating in ratings.items():
        if seat in new:
            new[seat] = min(MAX_LEVEL, max(MIN_LEVEL, new[seat] + change(rating, swing)))
    return new


def band(level: float) -> str:
    """The sentence of the band a level falls in (with a `{name}` slot)."""
    for upper, text in _BANDS:
        if level <= upper:
            return text
    return _BANDS[-1][1]


def statements(levels: Mapping[int, float], names: Sequence[str]) -> list[str]:
    """The levels told in words, one sentence per other player in seat order."""
    return [band(levels[seat]).format(name=names[seat]) for seat in sorted(levels)]
