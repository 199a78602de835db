"""A ranked row's score and its intervals: shared by the runner (`--until-width`, `standing`) and
the board (site_builder/scoring/ranked.py), so that both read a row the same way.

**A deal's value** (`deal_value`) is what the candidate's seat made of it, from 0 to 1: 1 a win, 0
a loss or a forfeit, and in between where the game keeps a score that says how close it came: in
the Prisoner's Dilemma and Public Good the seat's points over the best seat's (a tie for the best
is 1, a win), in The Chameleon and Undercover the MAgIC credit of the outcome over the role's
largest (an even vote, or a chameleon caught that still named the word, is part of a win).
Werewolf and Cost Sharing are won or lost.

**The score** is the mean over the suite's games of each game's mean deal value, each game
weighing the same, and within a game each of its **slots** (the candidate's role, or its seat in
a game of one role: `SuiteGame.slot`) weighing the same, as every stage deals them equally often.

**Its 95% interval** (`score`) is a Wilson interval on the effective number of deals: the
variance of the score is summed over the games from the spread of the deal values within each
slot (unbiased), plus, per slot, the amount a Jeffreys prior (half a deal won and half lost,
shared out among the game's slots) adds to a binomial variance, so that a slot whose few deals
all agree is never taken to have no spread. While some slot of a game has a single deal, the
game's deals are counted as one slot. **A game's own interval** counts its deals' values as wins
(a deal worth 0.5 is half a win) and is the mid-p binomial interval on them: never zero wide,
and at three deals still covering a true 3% (docs/metrics/ranked.md gives the measured coverage).

`planning_width` is the width a row's interval has after k stages when every game is won half the
time: `--until-width W` plays the stages after which that is below W, a number of stages that
depends on W and the suite alone, so stopping there tells nothing about the results and cannot
bias them (the board's claims between rows are anytime-valid, site_builder/scoring/stats.py).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import special

from runner import games
from runner.games import chameleon as chameleon_rules
from runner.games import undercover as undercover_rules
from runner.seeds import RESAMPLES, SCORING_SEED

#: The interval's level.
LEVEL = 0.95
#: Its normal quantile.
Z = 1.959963984540054
#: Jeffreys' prior: this many deals' worth of wins and as many of losses, shared among a game's slots.
PRIOR = 0.5
#: The level of a verification's two-sample test (`consistency`): a row is found inconsistent when
#: its claimed score and the score of the held-out deals the maintainers played differ by more
#: than chance would make them differ once in a hundred verifications of an honest row. Fixed here,
#: beside the score it reads, and not in the suite file: the suite fixes what is played (a change
#: there is a new version, which splits the board), this fixes how a verification is read (a
#: change of the scorer, re-reading every verification at once). Low, because "inconsistent" says
#: in public that a contributor's row is not what it claims (docs/metrics/ranked.md, "Verification").
VERIFY_LEVEL = 0.01

#: MAgIC's credits per outcome, (hidden role, each seat of the other side): the same table the
#: MAgIC metrics read (site_builder/scoring/magic.py), kept beside each game's rules.
CHAMELEON_CREDITS = chameleon_rules.MAGIC_CREDITS
UNDERCOVER_CREDITS = undercover_rules.MAGIC_CREDITS


# -- a deal's value ---------------------------------------------------------------------------

def deal_value(game: str, result: Mapping[str, Any], winners: Iterable[int], seat: int, *,
               forfeited: bool = False) -> float:
    """What the candidate at `seat` made of one deal, from 0 (lost, or forfeited) to 1 (won); won
    or lost where the result lacks the field its game's score is read from."""
    if forfeited:
        return 0.0
    # A game won by the most points (its FACTS.points): a share of the best seat's.
    points_field = games.facts_of(game).points if game in games.GAME_MODULES else None
    needs = {"chameleon": "magic_outcome", "undercover": "magic_outcome"}.get(game, points_field)
    if needs is not None and needs not in result:
        return 1.0 if seat in set(winners) else 0.0
    if game == "chameleon":
        hidden, side = CHAMELEON_CREDITS[result["magic_outcome"]]
        return (hidden if result["chameleon"] == seat else side) / 2
    if game == "undercover":
        hidden, side = UNDERCOVER_CREDITS[result["magic_outcome"]]
        return (hidden if result["undercover"] == seat else side) / 3
    if points_field is not None:
        points = [float(p) for p in result[points_field]]
        best = max(points)
        return 1.0 if best <= 0 or points[seat] >= best else max(0.0, points[seat] / best)
    return 1.0 if seat in set(winners) else 0.0


def cycles_of(suite_games: Iterable[Any]) -> dict[str, int]:
    """Each game's slots (a stage holds each equally often): its roles in turn, else its seats."""
    return {g.game: len(g.roles) or g.players for g in suite_games}


# -- a game's estimate and variance -----------------------------------------------------------

def game_estimate(values: Mapping[int, float], cycle: int = 1) -> tuple[float, float, float]:
    """One game of a row: (its value, the same with Jeffreys' prior, the variance of its value).

    Deal `i` is of slot `i mod cycle`; the value is the mean of the slots' means (the mean of the
    deals when every slot is dealt equally often). The variance is that of a stratified mean: per
    slot the deals' sample variance, plus what the prior's share of the slot adds to a binomial
    variance (p~(1 - p~) - p(1 - p), p~ the slot's mean with the prior). Every slot needs two deals
    for its own spread; until then the game's deals are one slot."""
    slots: dict[int, list[float]] = {}
    for index, value in values.items():
        slots.setdefault(index % cycle, []).append(value)
    if cycle > 1 and (len(slots) < cycle or min(len(v) for v in slots.values()) < 2):
        slots = {0: list(values.values())}
    share = PRIOR / len(slots)
    means, smoothed, variance = [], [], 0.0
    for deals in slots.values():
        m = len(deals)
        mean = sum(deals) / m
        prior = (m * mean + share) / (m + 2 * share)
        spread = sum((v - mean) ** 2 for v in deals) / (m - 1) if m > 1 else 0.0
        widened = prior * (1 - prior) - mean * (1 - mean)
        if spread == 0 and widened <= 0:  # deals all worth 1/2: the prior's deals at 0 and 1 still spread
            widened = share * (prior ** 2 + (1 - prior) ** 2) / (m + 2 * share)
        variance += (spread + widened) / m
        means.append(mean)
        smoothed.append(prior)
    k = len(slots)
    return sum(means) / k, sum(smoothed) / k, max(variance, 0.0) / (k * k)


def wilson(value: float, n_eff: float, z: float = Z) -> list[float]:
    """The Wilson interval of a proportion `value` measured as well as by `n_eff` binary trials."""
    value = min(max(value, 0.0), 1.0)
    d = 1 + z * z / n_eff
    centre = (value + z * z / (2 * n_eff)) / d
    half = z * math.sqrt(value * (1 - value) / n_eff + z * z / (4 * n_eff * n_eff)) / d
    return [0.0 if value <= 0 else max(0.0, centre - half), 1.0 if value >= 1 else min(1.0, centre + half)]


def _midp_tail(p: np.ndarray, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Mid-p upper tail P(X > x) + P(X = x) / 2 of a binomial(n, p), for x possibly fractional."""
    at_least = special.betainc(np.maximum(x, 1e-300), n - x + 1, p)
    above = np.where(x + 1 <= n, special.betainc(x + 1, np.maximum(n - x, 1e-300), p), 0.0)
    return (at_least + above) / 2


def midp(successes: Sequence[float] | float, trials: Sequence[float] | float,
         level: float = LEVEL) -> np.ndarray:
    """The mid-p binomial interval(s) of `successes` out of `trials` (fractional successes allowed:
    the binomial tails are regularized incomplete beta functions): rows of [low, high]."""
    x = np.atleast_1d(np.asarray(successes, dtype=float))
    n = np.atleast_1d(np.asarray(trials, dtype=float)) + 0 * x
    x = np.clip(x, 0, n)
    tail = (1 - level) / 2

    def lower(xs: np.ndarray) -> np.ndarray:
        lo, hi = np.zeros_like(xs), np.ones_like(xs)
        for _ in range(42):  # bisection, every interval at once: the tail grows with p
            mid = (lo + hi) / 2
            above = _midp_tail(mid, xs, n) > tail
            hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
        return np.where(xs <= 0, 0.0, (lo + hi) / 2)

    return np.column_stack([lower(x), 1 - lower(n - x)])


# -- a row's score ----------------------------------------------------------------------------

def score(deals: Mapping[str, Mapping[int, float]], cycles: Mapping[str, int] | None = None) -> dict[str, Any]:
    """A row's score with its 95% interval, and each game's value with its own.

    `deals`: game -> deal index -> value; `cycles`: game -> its slots (`cycles_of`; 1 where absent)."""
    games = sorted(deals)
    parts = {g: game_estimate(deals[g], (cycles or {}).get(g, 1)) for g in games}
    sizes = [len(deals[g]) for g in games]
    own = midp([parts[g][0] * n for g, n in zip(games, sizes)], sizes)
    by_game = {g: {"value": parts[g][0], "ci": [float(own[i, 0]), float(own[i, 1])], "n": sizes[i]}
               for i, g in enumerate(games)}
    value = float(np.mean([parts[g][0] for g in games]))
    smoothed = float(np.mean([parts[g][1] for g in games]))
    variance = sum(parts[g][2] for g in games) / len(games) ** 2
    ci = wilson(value, smoothed * (1 - smoothed) / variance) if variance > 0 else [value, value]
    return {"value": value, "ci": ci, "se": math.sqrt(variance), "n": sum(sizes), "by_game": by_game}


def consistency(claimed: Mapping[str, Mapping[int, float]], held_out: Mapping[str, Mapping[int, float]],
                cycles: Mapping[str, int] | None = None, level: float = VERIFY_LEVEL) -> dict[str, Any] | None:
    """A verification's two-sample test: a row's claimed score (its own deals) against the score of
    held-out deals of the same model, on the games both hold (None when they share no game).

    The held-out deals are other deals than the row's, so the two scores are independent: their
    difference is over its standard error, sqrt(se_claimed^2 + se_held_out^2), each the score's own
    (`score`: slots and Jeffreys' prior included), and the row is **consistent** unless the two-sided
    p-value of that z is below `level`. `interval` is the difference's at 1 - level."""
    games = sorted(g for g in set(claimed) & set(held_out) if claimed[g] and held_out[g])
    if not games:
        return None
    mine = score({g: claimed[g] for g in games}, cycles)
    theirs = score({g: held_out[g] for g in games}, cycles)
    difference = mine["value"] - theirs["value"]
    se = math.sqrt(mine["se"] ** 2 + theirs["se"] ** 2)
    z = difference / se if se > 0 else (0.0 if difference == 0 else math.copysign(math.inf, difference))
    p = float(special.erfc(abs(z) / math.sqrt(2))) if math.isfinite(z) else 0.0
    critical = float(special.ndtri(1 - level / 2))
    return {"claimed": mine, "held_out": theirs, "difference": difference, "se": se, "z": z, "p": p,
            "level": level, "interval": [difference - critical * se, difference + critical * se],
            "consistent": p >= level, "games": games}


def planning_width(per_stage: Mapping[str, int], stages: int) -> float:
    """The width of the score's interval after `stages` stages for a row that wins half of every
    game's deals, each with a binomial spread (1/4): what `--until-width` compares with."""
    variance = sum(0.25 / (n * stages) for n in per_stage.values()) / len(per_stage) ** 2
    low, high = wilson(0.5, 0.25 / variance)
    return high - low


def stages_for_width(per_stage: Mapping[str, int], width: float, most: int) -> int | None:
    """The fewest stages (at most `most`) whose planning width is below `width`, or None."""
    return next((k for k in range(1, most + 1) if planning_width(per_stage, k) < width), None)


# -- the benchmarks' bootstraps ---------------------------------------------------------------

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
