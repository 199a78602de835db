"""A ranked row's score and its interval: shared by the runner (`--until-width`) and the board.

A row's score is its candidate seat's win rate in each game of the suite, averaged over the games
(each weighs the same); its 95% interval resamples the row's own deals within each game. The
board (site_builder/scoring/ranked.py) shows exactly this, so the width `gamenight run
--until-width` stops at is the width a visitor reads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from runner.seeds import SCORING_SEED

#: The interval's level.
LEVEL = 0.95
#: Bootstrap resamples (as the scorer's other intervals).
RESAMPLES = 1000
#: The seed the site is built with unless told otherwise (`gamenight build --seed`).
DEFAULT_SEED = SCORING_SEED


def rng(seed: int, *names: str) -> np.random.Generator:
    """A generator fixed by the seed and the names it serves (a row's draws depend on it alone)."""
    digest = hashlib.sha256("\0".join([str(seed), *names]).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def resampled_means(values: np.ndarray, generator: np.random.Generator, resamples: int) -> np.ndarray:
    """`resamples` bootstrap means of `values` (drawn with replacement, as many as there are)."""
    picks = generator.integers(0, len(values), size=(resamples, len(values)))
    return values[picks].mean(axis=1)


def interval(draws: np.ndarray) -> list[float]:
    """The central LEVEL interval of bootstrap draws."""
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return [float(low), float(high)]


def score(deals: Mapping[str, Mapping[int, float]], *, seed: int, name: str,
          resamples: int = RESAMPLES) -> dict[str, Any]:
    """A row's score and per-game win rates, each with a bootstrap interval over its own deals."""
    generator = rng(seed, "score", name)
    by_game: dict[str, Any] = {}
    draws = []
    for game in sorted(deals):
        values = np.array([deals[game][d] for d in sorted(deals[game])])
        game_draws = resampled_means(values, generator, resamples)
        by_game[game] = {"value": float(values.mean()), "ci": interval(game_draws), "n": len(values)}
        draws.append(game_draws)
    total = sum(len(d) for d in deals.values())
    value = float(np.mean([g["value"] for g in by_game.values()]))
    return {"value": value, "ci": interval(np.mean(draws, axis=0)), "n": total, "by_game": by_game}
