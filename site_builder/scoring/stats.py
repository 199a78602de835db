"""Uncertainty: Wilson intervals for rates, seeded bootstrap intervals for everything else."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from scipy.stats import binom, norm

from runner.seeds import RESAMPLES  # one number for every bootstrap

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


#: A multinomial draw costs about this many index draws per distinct item: with fewer distinct
#: items than n / this, a resample is one multinomial draw of their counts, else one index draw
#: per item (the same distribution; the cheaper way for the data at hand).
MULTINOMIAL_COST = 10
#: Index draws made at once (bounds the memory of one block of resamples).
BLOCK = 4_000_000


def _percentile(ordered: Sequence[float], level: float) -> tuple[float, float]:
    tail = (1 - level) / 2
    lo = ordered[min(len(ordered) - 1, int(math.floor(tail * len(ordered))))]
    hi = ordered[min(len(ordered) - 1, int(math.ceil((1 - tail) * len(ordered))) - 1)]
    return (lo, hi)


def resample_counts(counts: np.ndarray, *, seed: int, resamples: int = RESAMPLES) -> np.ndarray:
    """How often each distinct item is drawn in each resample: (resamples x items), float.

    A bootstrap resample of n items drawn with replacement is a multinomial draw of n over the
    distinct items with probabilities count / n; so a large corpus of few kinds of games (tally
    rows, outcomes) costs what its kinds cost, not what its games cost. Seeded: the same counts
    in the same order give the same draws.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    kinds = len(counts)
    if kinds * MULTINOMIAL_COST <= n:
        return rng.multinomial(n, counts / n, size=resamples).astype(float)
    owner = np.repeat(np.arange(kinds), counts)
    # Each block's counts go straight into the one float matrix: joining the integer blocks and
    # then converting made two more matrices of this size (for 11,000 distinct values, 90 MB
    # each), and the fresh memory cost more than the draws (0.27-0.6 s against 0.075 s).
    out = np.empty((resamples, kinds))
    step = max(1, BLOCK // n)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        labels = owner[rng.integers(0, n, size=(rows, n))]
        labels += (np.arange(rows) * kinds)[:, None]
        out[start:start + rows] = np.bincount(labels.ravel(), minlength=rows * kinds).reshape(rows, kinds)
    return out


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix and how often each occurs (in a fixed order: by their bytes)."""
    if len(rows) == 0:
        return rows, np.zeros(0, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=float) + 0.0  # + 0.0: -0.0 and 0.0 are one value
    as_bytes = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, counts = np.unique(as_bytes, return_index=True, return_counts=True)  # one sort of whole rows
    return rows[first], counts


def resampled_totals(rows: np.ndarray, *, seed: int, resamples: int = RESAMPLES) -> np.ndarray:
    """Column sums of `rows` (one row per game) over each bootstrap resample of the games."""
    unique, counts = distinct_rows(np.asarray(rows, dtype=float))
    return resample_counts(counts, seed=seed, resamples=resamples) @ unique


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """The percentile interval of bootstrap values, NaN (undefined resamples) left out."""
    kept = np.sort(values[~np.isnan(values)])
    if len(kept) == 0:
        return None
    lo, hi = _percentile(kept, level)
    return (float(lo), float(hi))


def bootstrap_mean(values: Sequence[float], *, seed: int, resamples: int = RESAMPLES,
                   level: float = 0.95) -> tuple[float, float] | None:
    """The percentile bootstrap interval of a mean (seeded, deterministic, order-free)."""
    if not values:
        return None
    totals = resampled_totals(np.asarray(values, dtype=float)[:, None], seed=seed, resamples=resamples)
    return percentile_interval(totals[:, 0] / len(values), level)


def bootstrap(items: Sequence[T], statistic: Callable[[Sequence[T]], float | None], *, seed: int,
              resamples: int = RESAMPLES, level: float = 0.95) -> tuple[float, float] | None:
    """A percentile bootstrap interval of any `statistic` over resampled `items` (e.g. games).

    For statistics that are not sums of per-item rows (the sums go through `resampled_totals`).
    Seeded, so the same items in the same order give the same interval; callers sort items
    canonically first. Resamples on which the statistic is undefined (None) are skipped.
    """
    if not items:
        return None
    rng = np.random.default_rng(seed)
    n = len(items)
    values = []
    for picks in rng.integers(0, n, size=(resamples, n)):
        value = statistic([items[i] for i in picks])
        if value is not None:
            values.append(value)
    return percentile_interval(np.asarray(values, dtype=float), level)


# -- claims that hold together: over every pair of a table, and at every number of stages -------

#: The anytime boundary of a standardized difference (docs/metrics/ranked.md, "Claims"): a normal
#: mixture boundary z(k) = sqrt((k + RHO) / k * log((k + RHO) / (RHO * A^2))) over the stages k two
#: rows share, with A set so that a random walk of independent stages crosses it at some k of 1 to
#: 1,000 (the most stages a suite row can have) with probability 0.05 (`anytime_crossing` measures
#: it; 0.0937 is the 95% point of 400,000 walks). RHO puts the boundary lowest near 2 to 8 stages.
ANYTIME_RHO = 0.5
ANYTIME_A = 0.0937
#: Simultaneous draws at least, and at least this many beyond the critical value (a critical
#: value's level then errs by about one part in seven, a few hundredths of its z).
MIN_DRAWS = 10_000
TAIL_DRAWS = 50


def anytime_z(stages: np.ndarray | float) -> np.ndarray:
    """The anytime boundary at `stages` shared stages (>= 1)."""
    k = np.asarray(stages, dtype=float)
    return np.sqrt((k + ANYTIME_RHO) / k * np.log((k + ANYTIME_RHO) / (ANYTIME_RHO * ANYTIME_A ** 2)))


def anytime_level(stages: np.ndarray | float) -> np.ndarray:
    """The two-sided level a claim may spend at `stages` shared stages: P(|Z| > anytime_z)."""
    from scipy import special

    return 2 * special.ndtr(-anytime_z(stages))


def anytime_crossing(walks: int, *, most: int = 1000, seed: int = 0) -> float:
    """How often a Gaussian random walk of `most` stages crosses the anytime boundary (|S_k| / sqrt k
    above anytime_z(k) at some k): the boundary's level over every look, by simulation."""
    rng = np.random.default_rng(seed)
    k = np.arange(1, most + 1)
    bound = anytime_z(k)
    crossed = 0
    for start in range(0, walks, 2000):
        paths = rng.standard_normal((min(2000, walks - start), most)).cumsum(axis=1) / np.sqrt(k)
        crossed += int((np.abs(paths) > bound).any(axis=1).sum())
    return crossed / walks


def simultaneous_critical(loadings: np.ndarray, levels: Sequence[float], *, seed: int) -> np.ndarray:
    """Critical values for standardized statistics that hold together: statistic j is
    sum_i loadings[i, j] * x_i over independent standard normal x_i (the deals' and the rows'
    shares of its noise); c_j is the 1 - levels[j] quantile of the largest |statistic| / sd over
    all of them, so that, at each one's level, none passes its c_j by chance but with that
    probability."""
    loadings = np.asarray(loadings, dtype=float)
    sd = np.sqrt((loadings ** 2).sum(axis=0))
    sd[sd == 0] = 1.0
    correlation = (loadings.T @ loadings) / np.outer(sd, sd)
    values, vectors = np.linalg.eigh(correlation)
    root = vectors * np.sqrt(np.clip(values, 0, None))
    smallest = max(min(levels), 1e-9)
    draws = min(2_000_000, max(MIN_DRAWS, math.ceil(TAIL_DRAWS / smallest)))
    rng = np.random.default_rng(seed)
    largest = np.abs(rng.standard_normal((draws, len(values))) @ root.T).max(axis=1)
    largest.sort()
    return np.array([quantile_above(largest, level) for level in levels])


def quantile_above(ordered: np.ndarray, level: float) -> float:
    """The value that a share `level` of the sorted draws `ordered` exceed."""
    index = min(len(ordered) - 1, max(0, math.ceil((1 - level) * len(ordered)) - 1))
    return float(ordered[index])

def expanded_level(n: int, level: float = 0.95) -> float:
    """The level at which to read a percentile bootstrap interval of a statistic of n observations
    so that it covers at `level`: a bootstrap's spread is sqrt((n - 1) / n) of the statistic's (the
    plug-in variance), so the interval is read at Phi(sqrt(n / (n - 1)) * z) on each side, the
    expansion of Hesterberg's expanded percentile interval (without its t tails, which measured
    too wide here). Measured on the ratings (calibration_boards): a newcomer's interval of 10
    games covered 0.937 read at 95%. Fewer than two observations: the whole range of the resamples."""
    if n < 2:
        return 1.0
    z = float(norm.ppf((1 + level) / 2))
    return 1 - 2 * float(norm.cdf(-math.sqrt(n / (n - 1)) * z))


def bonferroni_z(family: int, level: float = 0.95) -> float:
    """The normal quantile that holds `family` two-sided intervals together at `level` (Bonferroni)."""
    return float(norm.ppf(1 - (1 - level) / (2 * max(1, family))))


def sign_test(wins: int, losses: int) -> float | None:
    """The exact two-sided p-value of `wins` against `losses` if each decided game were a coin toss
    (a binomial test at 1/2); None without a decided game."""
    trials = wins + losses
    if trials <= 0:
        return None
    tail = float(binom.cdf(min(wins, losses), trials, 0.5))
    return min(1.0, 2 * tail)


def holm(p_values: Mapping[T, float], alpha: float = 0.05) -> set[T]:
    """The hypotheses Holm's step-down procedure rejects: the smallest p-value is held to alpha / m,
    the next to alpha / (m - 1), ..., stopping at the first that fails. The chance of rejecting any
    true hypothesis of the family is at most alpha, however the tests depend on each other."""
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    rejected: set[T] = set()
    for step, (key, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - step):
            break
        rejected.add(key)
    return rejected


def clustered_rate(tables: Sequence[tuple[float, int]], z: float = Z95) -> dict[str, Any] | None:
    """A rate over seats that come in tables (games): successes over seats, with a Wilson interval
    whose trials are the seats' effective number, never fewer than the tables nor more than the seats.

    Seats of one table share its outcome more often than not (team-mates win together; the
    airlines of a Cost Sharing table all agree or all fail), so seats are not independent trials:
    Kish's design effect, the variance of the ratio over tables (linearised) against a binomial's
    over seats, says how many independent trials they are worth. A rate whose tables are all alike
    (every seat won, or every one lost) counts its tables. `tables`: (successes, seats) per table."""
    tables = [(w, s) for w, s in tables if s > 0]
    seats = sum(s for _, s in tables)
    if not seats:
        return None
    wins = sum(w for w, _ in tables)
    p = wins / seats
    count = len(tables)
    if count < 2 or p in (0.0, 1.0):
        effective = float(count)
    else:
        spread = sum((w - p * s) ** 2 for w, s in tables) * count / (count - 1) / seats ** 2
        effective = min(float(seats), max(float(count), p * (1 - p) / spread if spread > 0 else float(seats)))
    lo, hi = _wilson_fraction(p, effective, z)
    return {"value": p, "ci": [lo, hi], "n": seats, "games": count}


def _wilson_fraction(p: float, trials: float, z: float) -> tuple[float, float]:
    """Wilson's interval of a proportion p observed over a (possibly fractional) number of trials."""
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (0.0 if p == 0 else max(0.0, centre - half), 1.0 if p == 1 else min(1.0, centre + half))


def simultaneous_intervals(values: np.ndarray, level: float = 0.95) -> list[tuple[float, float] | None]:
    """Percentile intervals of bootstrap values (resamples x quantities), one per column, widened
    together until every column lies inside its own in `level` of the resamples at once: a family of
    intervals that hold together, so that a claim read off any of them (this one's interval lies
    above that one's) holds for the whole table at that level, not for each pair alone.

    A resample's value is inside its column's interval [k-th smallest, k-th largest] when at least
    k + 1 of the column's values are at or below it and as many at or above (its depth); k is the
    largest count that leaves `level` of the resamples with every column inside at once, and never
    more than a single percentile interval leaves out, so one column gives `percentile_interval`.
    NaN (a quantity a resample did not draw) is inside every interval; a column of NaN gets None."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[1] == 0:
        return []
    resamples = values.shape[0]
    depth = np.ones(values.shape)  # as a share of the column's values: NaN is never extreme
    columns: list[np.ndarray] = []
    for column in range(values.shape[1]):
        drawn = np.sort(values[~np.isnan(values[:, column]), column])
        columns.append(drawn)
        here = ~np.isnan(values[:, column])
        if len(drawn):
            v = values[here, column]
            at_or_below = np.searchsorted(drawn, v, side="right")
            at_or_above = len(drawn) - np.searchsorted(drawn, v, side="left")
            depth[here, column] = np.minimum(at_or_below, at_or_above) / len(drawn)
    shallowest = np.sort(depth.min(axis=1))
    reach = float(shallowest[min(resamples - 1, int(math.floor((1 - level) * resamples)))])
    tail = (1 - level) / 2
    out: list[tuple[float, float] | None] = []
    for drawn in columns:
        n = len(drawn)
        if n == 0:
            out.append(None)
            continue
        k = max(0, min(int(math.floor(tail * n)), int(math.floor(reach * n + 1e-9)) - 1))
        out.append((float(drawn[k]), float(drawn[n - 1 - k])))
    return out
