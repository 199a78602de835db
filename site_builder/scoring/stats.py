"""Uncertainty: Wilson intervals for rates, seeded bootstrap intervals for everything else."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None without trials).

    `successes` may be fractional (credit-weighted win rates); it is clamped to [0, trials].
    """
    if trials <= 0:
        return None
    p = min(max(successes / trials, 0.0), 1.0)
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # At p = 0 or 1 the bound is exactly 0 or 1; floating point would miss it by an ulp.
    lo = 0.0 if p == 0 else max(0.0, centre - half)
    hi = 1.0 if p == 1 else min(1.0, centre + half)
    return (lo, hi)


def rate(successes: float, trials: int) -> dict[str, Any] | None:
    """A rate with its 95% Wilson interval and the number of trials behind it (None if none)."""
    if trials <= 0:
        return None
    lo, hi = wilson(successes, trials)
    return {"value": successes / trials, "ci": [lo, hi], "n": trials}


#: Resamples of a bootstrap: 1,000, fewer for large inputs so that a 10,000-game corpus stays
#: quick to score (never fewer than 200; the interval's Monte Carlo error stays well below its width).
MAX_RESAMPLES = 1000
MIN_RESAMPLES = 200
WORK_BUDGET = 200_000  # item visits per bootstrap


def resamples_for(n: int) -> int:
    """How many resamples a bootstrap over `n` items uses."""
    return max(MIN_RESAMPLES, min(MAX_RESAMPLES, WORK_BUDGET // max(n, 1)))


def _percentile(ordered: Sequence[float], level: float) -> tuple[float, float]:
    tail = (1 - level) / 2
    lo = ordered[min(len(ordered) - 1, int(math.floor(tail * len(ordered))))]
    hi = ordered[min(len(ordered) - 1, int(math.ceil((1 - tail) * len(ordered))) - 1)]
    return (lo, hi)


def bootstrap_mean(values: Sequence[float], *, seed: int, resamples: int = MAX_RESAMPLES,
                   level: float = 0.95) -> tuple[float, float] | None:
    """The percentile bootstrap interval of a mean, vectorised (seeded, deterministic)."""
    if not values:
        return None
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = []
    chunk = max(1, 2_000_000 // len(data))  # bound the memory of one block of resamples
    for start in range(0, resamples, chunk):
        picks = rng.integers(0, len(data), size=(min(chunk, resamples - start), len(data)))
        means.append(data[picks].mean(axis=1))
    ordered = np.sort(np.concatenate(means))
    lo, hi = _percentile(ordered, level)
    return (float(lo), float(hi))


def bootstrap(items: Sequence[T], statistic: Callable[[Sequence[T]], float | None], *, seed: int,
              resamples: int | None = None, level: float = 0.95) -> tuple[float, float] | None:
    """A percentile bootstrap interval of `statistic` over resampled `items` (e.g. games).

    Seeded, so the same items in the same order give the same interval; callers sort items
    canonically first. Resamples on which the statistic is undefined (None) are skipped.
    `resamples` defaults to `resamples_for(len(items))`.
    """
    if not items:
        return None
    rng = random.Random(seed)
    n = len(items)
    resamples = resamples_for(n) if resamples is None else resamples
    values = []
    for _ in range(resamples):
        sample = [items[rng.randrange(n)] for _ in range(n)]
        value = statistic(sample)
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return _percentile(values, level)
