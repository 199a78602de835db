"""The runner's generators: one per purpose of one game, derived from the game seed alone."""

from __future__ import annotations

import random

#: The seed of the scorer's bootstrap intervals unless told otherwise (`gamenight build --seed`):
#: the runner's `--until-width` reads a ranked row's interval at it, as the board shows it.
SCORING_SEED = 2026
#: Resamples of every bootstrap interval the scorer draws (the ratings', the benchmarks'): one
#: number, beside the seed those draws start from.
RESAMPLES = 1000


def rng_for(seed: int, purpose: str) -> random.Random:
    """An independent generator for one purpose ("deal", "chance", "agent-3"...) of one game.

    String seeds are hashed with SHA-512 by `random.Random`, so this does not depend on
    PYTHONHASHSEED and is stable across runs and machines. The validator draws from the same
    generators to check that a replay's deal, chance draws and scripted moves follow from its seed.
    """
    return random.Random(f"gamenight:{seed}:{purpose}")
