"""Does every claim of the boards hold as stated? `python -m site_builder.bench.calibration` (issue #42).

It simulates boards whose truth is known and scores them **through the scorer's own functions**:
simulated deal values, one per (row, game, deal index), are fed in as the scorer sees them
(`ranked.board_of` takes the rows `ranked.outcomes` would find; `suite_score.score` a row's
deals), and the claims the board would show are checked against the truth:

- **coverage** of a row's score interval and of each game's interval, from one stage on, over
  truths near 0 and 1, results that follow the role, built-in rows' measured results;
- **board-wide false separation**: boards of 6 equal rows, at a fixed number of stages and looked
  at after every stage, with any "surely above" between two of them;
- **power** to tell apart rows whose scores differ by 0.05, 0.1 and 0.2, before and after, and the
  gain of the richer deal value and of control variates, each on its own;
- **`--until-width`**: the bias and coverage of a row stopped by it;
- **"wanted"**: what playing the stages it names does to equal rows.

Truths: a row's **profile** gives, per game and slot (the candidate's role, or seat), a
distribution of (deal value, won). The built-in profiles are the shipped replays' own (the
reference rows and gemma3-270m, 6 and 2 stages of ranked-1, each slot's outcomes with Jeffreys'
half a win and half a loss added, so that no outcome is impossible). Rows on the same deal are
correlated through a shared normal factor per deal (a Gaussian copula; `DEAL_CORRELATION`, about
what the reference rows share: bench/suite.py), so that pairing and control variates meet what they
would meet on the board.

"Before" is main's code (`--before REF`, default main: its runner/suite_score.py and
site_builder/scoring/ranked.py read from git and run on the same simulated deals, won or lost as
main counts them). The other boards' figures come from site_builder/bench/calibration_boards.py
(`measure(boards=, seed=)`) when it is there. docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special

from runner import suite as suites
from runner import suite_score
from site_builder.scoring import ranked

REPO = Path(__file__).resolve().parents[2]
SUITE = suites.find("ranked-1")
GAMES = tuple(g.game for g in SUITE.games)
PER_STAGE = {g.game: g.deals_per_stage for g in SUITE.games}
CYCLES = suite_score.cycles_of(SUITE.games)
NAME = f"{SUITE.name}-{SUITE.version}"
#: The latent correlation of two rows' results on the same deal, per game (a Gaussian copula):
#: Werewolf is most the deal's (the reference rows' results correlate 0.76 there), the others little.
DEAL_CORRELATION = {"werewolf": 0.8, "chameleon": 0.3, "undercover": 0.3, "cost_sharing": 0.2,
                    "prisoners_dilemma": 0.2, "public_good": 0.2}

#: Per row of the shipped replays (ranked-1, 2026-12-01): per game, per slot, [value, won, deals]
#: (Prisoner's Dilemma and Public Good values to the nearest 0.05).
SHIPPED = {
    "random": {"chameleon": [[[0.0, 0, 12]], [[0.0, 0, 10], [0.5, 0, 1], [1.0, 1, 1]]],
               "cost_sharing": [[[0.0, 0, 3], [1.0, 1, 3]], [[0.0, 0, 4], [1.0, 1, 2]], [[0.0, 0, 3], [1.0, 1, 3]]],
               "prisoners_dilemma": [[[0.0, 0, 1], [0.1, 0, 2], [0.2, 0, 2], [0.3, 0, 1]],
                                     [[0.2, 0, 2], [0.35, 0, 1], [0.45, 0, 1], [0.65, 0, 1], [1.0, 1, 1]],
                                     [[0.05, 0, 1], [0.2, 0, 3], [0.5, 0, 1], [0.65, 0, 1]]],
               "public_good": [[[0.35, 0, 1], [0.4, 0, 1], [0.45, 0, 1], [0.5, 0, 1], [0.55, 0, 2]],
                               [[0.4, 0, 3], [0.55, 0, 1], [0.6, 0, 1], [0.8, 0, 1]],
                               [[0.35, 0, 1], [0.45, 0, 2], [0.5, 0, 1], [0.55, 0, 1], [0.75, 0, 1]]],
               "undercover": [[[0.0, 0, 12]], [[0.0, 0, 7], [1.0, 1, 5]]],
               "werewolf": [[[0.0, 0, 3], [1.0, 1, 3]], [[0.0, 0, 3], [1.0, 1, 3]], [[0.0, 0, 3], [1.0, 1, 3]],
                            [[0.0, 0, 2], [1.0, 1, 4]], [[0.0, 0, 5], [1.0, 1, 1]], [[0.0, 0, 6]]]},
    "scripted": {"chameleon": [[[1.0, 1, 12]], [[0.0, 0, 9], [0.5, 0, 2], [1.0, 1, 1]]],
                 "cost_sharing": [[[1.0, 1, 6]], [[1.0, 1, 6]], [[1.0, 1, 6]]],
                 "prisoners_dilemma": [[[0.35, 0, 1], [0.45, 0, 2], [0.5, 0, 3]],
                                       [[0.35, 0, 2], [0.4, 0, 1], [0.45, 0, 1], [0.5, 0, 1], [0.55, 0, 1]],
                                       [[0.4, 0, 2], [0.5, 0, 3], [0.55, 0, 1]]],
                 "public_good": [[[0.7, 0, 3], [0.75, 0, 3]], [[0.7, 0, 3], [0.75, 0, 1], [0.8, 0, 1], [0.85, 0, 1]],
                                 [[0.7, 0, 3], [0.75, 0, 2], [0.85, 0, 1]]],
                 "undercover": [[[0.0, 0, 5], [1.0, 1, 7]], [[0.0, 0, 3], [0.3333, 0, 1], [1.0, 1, 8]]],
                 "werewolf": [[[0.0, 0, 4], [1.0, 1, 2]], [[0.0, 0, 3], [1.0, 1, 3]], [[0.0, 0, 3], [1.0, 1, 3]],
                              [[0.0, 0, 1], [1.0, 1, 5]], [[0.0, 0, 5], [1.0, 1, 1]], [[0.0, 0, 6]]]},
    "gemma3-270m": {"chameleon": [[[0.0, 0, 2], [1.0, 1, 2]], [[0.0, 0, 4]]],
                    "cost_sharing": [[[0.0, 0, 2]], [[1.0, 1, 2]], [[1.0, 1, 2]]],
                    "prisoners_dilemma": [[[0.0, 0, 2]], [[0.0, 0, 2]], [[0.0, 0, 2]]],
                    "public_good": [[[0.5, 0, 1], [0.55, 0, 1]], [[0.4, 0, 1], [0.55, 0, 1]],
                                    [[0.35, 0, 1], [0.45, 0, 1]]],
                    "undercover": [[[0.0, 0, 4]], [[0.0, 0, 3], [0.3333, 0, 1]]],
                    "werewolf": [[[0.0, 0, 1], [1.0, 1, 1]], [[1.0, 1, 2]], [[0.0, 0, 1], [1.0, 1, 1]],
                                 [[0.0, 0, 2]], [[0.0, 0, 2]], [[0.0, 0, 2]]]},
}


# -- truths -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """The outcomes of one slot of one game: deal values (ascending), whether each is a win, their
    probabilities."""

    values: np.ndarray
    wins: np.ndarray
    probs: np.ndarray

    def mean(self, scored: str) -> float:
        return float(((self.values if scored == "value" else self.wins) * self.probs).sum())


@dataclass(frozen=True)
class Profile:
    """A row's truth: per game, its slots' outcomes."""

    name: str
    slots: Mapping[str, tuple[Slot, ...]]

    def game(self, game: str, scored: str = "value") -> float:
        return float(np.mean([s.mean(scored) for s in self.slots[game]]))

    def truth(self, scored: str = "value") -> float:
        return float(np.mean([self.game(g, scored) for g in GAMES]))

    @property
    def won_or_lost(self) -> bool:
        """Whether every deal's value is its win (1) or loss (0): main can score it."""
        return all(np.array_equal(s.values, s.wins) for slots in self.slots.values() for s in slots)


def slot(outcomes: Sequence[tuple[float, int, float]]) -> Slot:
    merged: dict[tuple[float, int], float] = {}
    for value, won, weight in outcomes:
        merged[(float(value), int(won))] = merged.get((float(value), int(won)), 0.0) + float(weight)
    keys = sorted(merged)
    total = sum(merged.values())
    return Slot(np.array([k[0] for k in keys]), np.array([float(k[1]) for k in keys]),
                np.array([merged[k] / total for k in keys]))


def winning(p: float) -> Slot:
    return slot([(0.0, 0, 1 - p), (1.0, 1, p)])


def constant(name: str, p: float) -> Profile:
    return Profile(name, {g: tuple(winning(p) for _ in range(CYCLES[g])) for g in GAMES})


def per_slot(name: str, rates: Mapping[str, Sequence[float]]) -> Profile:
    return Profile(name, {g: tuple(winning(p) for p in rates[g]) for g in GAMES})


def role_following() -> Profile:
    """Wins (97%) every deal in one role of each dealt game and loses (3%) every other (the
    chameleon and the undercover won, the other side lost; Werewolf's roles in turn), half of the
    deals of the games of one role."""
    rates = {g: [0.97 if h % 2 == 0 else 0.03 for h in range(CYCLES[g])] if len(SUITE.games[i].roles) > 1
             else [0.5] * CYCLES[g] for i, g in enumerate(GAMES)}
    return per_slot("role-following (97% / 3%)", rates)


def uniform(seed: int) -> Profile:
    rng = np.random.default_rng(seed)
    return per_slot(f"every slot uniform (seed {seed})", {g: list(rng.uniform(size=CYCLES[g])) for g in GAMES})


def shipped(row: str, *, won_only: bool = False) -> Profile:
    """A shipped row's measured outcomes, each slot with half a win and half a loss more
    (`won_only`: its deals scored won or lost, the value forgotten)."""
    slots = {}
    for game in GAMES:
        slots[game] = tuple(slot([*((w if won_only else v, w, n) for v, w, n in counts), (0.0, 0, 0.5), (1.0, 1, 0.5)])
                            for counts in SHIPPED[row][game])
    return Profile(f"{row} (shipped{', won or lost' if won_only else ''})", slots)


def mixed(base: Profile, other: Profile, share: float, name: str) -> Profile:
    """A row that plays like `other` on a share of its deals and like `base` on the rest."""
    slots = {}
    for game in GAMES:
        slots[game] = tuple(slot([*((v, w, (1 - share) * p) for v, w, p in zip(a.values, a.wins, a.probs)),
                                  *((v, w, share * p) for v, w, p in zip(b.values, b.wins, b.probs))])
                            for a, b in zip(base.slots[game], other.slots[game]))
    return Profile(name, slots)


def raised(base: Profile, gap: float, name: str) -> Profile:
    """`base` with every slot's chance of a win raised by `gap` (a win/lose profile; at most 0.99)."""
    return Profile(name, {g: tuple(winning(min(0.99, s.mean("win") + gap)) for s in base.slots[g]) for g in GAMES})


# -- simulated deals ------------------------------------------------------------------------------

def draw(profiles: Sequence[Profile], stages: int, boards: int, rng: np.random.Generator,
         correlation: Mapping[str, float] = DEAL_CORRELATION) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per game, (values, wins) of shape (boards, rows, deals): deal i of a game is of slot
    i mod its cycle; the rows' outcomes on one deal share a normal factor (`correlation`)."""
    out = {}
    for game in GAMES:
        n = PER_STAGE[game] * stages
        rho = correlation.get(game, 0.0)
        shared = rng.standard_normal((boards, 1, n))
        latent = special.ndtr(math.sqrt(rho) * shared + math.sqrt(1 - rho) *
                              rng.standard_normal((boards, len(profiles), n)))
        values = np.empty((boards, len(profiles), n))
        wins = np.empty_like(values)
        slot_of = np.arange(n) % CYCLES[game]
        for r, profile in enumerate(profiles):
            for h, s in enumerate(profile.slots[game]):
                where = slot_of == h
                pick = np.minimum(np.searchsorted(np.cumsum(s.probs), latent[:, r, where]), len(s.probs) - 1)
                values[:, r, where] = s.values[pick]
                wins[:, r, where] = s.wins[pick]
        out[game] = (values, wins)
    return out


def deals_of(drawn: Mapping[str, tuple[np.ndarray, np.ndarray]], board: int, row: int, scored: str,
             stages: int | None = None) -> dict[str, dict[int, float]]:
    """One simulated row's deals as the scorer reads them (game -> deal index -> value), its
    first `stages` stages (all by default)."""
    pick = 0 if scored == "value" else 1
    out = {}
    for game, arrays in drawn.items():
        values = arrays[pick][board, row]
        n = len(values) if stages is None else PER_STAGE[game] * stages
        out[game] = {i: float(v) for i, v in enumerate(values[:n])}
    return out


def found_rows(rows: Mapping[str, Mapping[str, Mapping[int, float]]]) -> dict[str, dict[str, Any]]:
    """Rows as `ranked.outcomes` finds them (one agent per row, no forfeit)."""
    return {f"{NAME}-{name}": {"suite": NAME, "agents": {g: name for g in deals}, "deals": deals, "forfeits": 0}
            for name, deals in rows.items()}


# -- the scorers: this checkout's and main's --------------------------------------------------

class Current:
    """This checkout's ranked board."""

    label = "after"

    def interval(self, deals: Mapping[str, Mapping[int, float]], name: str) -> dict[str, Any]:
        return suite_score.score(deals, CYCLES)

    def board(self, rows: Mapping[str, Mapping[str, Mapping[int, float]]], seed: int) -> list[dict[str, Any]]:
        return ranked.board_of(found_rows(rows), {}, {NAME: PER_STAGE}, seed=seed, cycles={NAME: CYCLES})["rows"]

    def stop(self, widths: Sequence[float], width: float) -> int:
        """The stage `--until-width` stops at: decided by the suite and the width alone."""
        return suites.stages_for_width(SUITE, width, len(widths)) or len(widths)


class Main:
    """Main's ranked board, its modules read from git at `ref` and run on the same deals (won or
    lost: main's score is the win rate)."""

    label = "before"

    def __init__(self, ref: str = "main") -> None:
        score_module = self._module("gamenight_before_suite_score", ref, "runner/suite_score.py")
        sys.modules[score_module.__name__] = score_module
        self.score_module = score_module
        self.ranked = self._module("gamenight_before_ranked", ref, "site_builder/scoring/ranked.py",
                                   ("from runner.suite_score import", f"from {score_module.__name__} import"))

    @staticmethod
    def _module(name: str, ref: str, path: str, replace: tuple[str, str] | None = None) -> types.ModuleType:
        source = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=REPO, check=True, capture_output=True,
                                text=True).stdout
        if replace:
            source = source.replace(*replace)
        module = types.ModuleType(name)
        module.__file__ = f"{ref}:{path}"
        exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - the project's own code
        return module

    def interval(self, deals: Mapping[str, Mapping[int, float]], name: str) -> dict[str, Any]:
        return self.score_module.score(deals, seed=suite_score.SCORING_SEED, name=name)

    def board(self, rows: Mapping[str, Mapping[str, Mapping[int, float]]], seed: int) -> list[dict[str, Any]]:
        entries = []
        for name, deals in rows.items():
            row = f"{NAME}-{name}"
            entries.append({"row": row, "suite": NAME, "owner": None, "deals": {g: sorted(d.items()) for g, d in
                                                                                 deals.items()},
                            "stages": min(len(deals[g]) // n for g, n in PER_STAGE.items()),
                            "score": self.score_module.score(deals, seed=seed, name=row)})
        entries.sort(key=lambda r: (-r["score"]["value"], r["row"]))
        self.ranked._standings(entries, {NAME: PER_STAGE}, seed=seed, resamples=self.score_module.RESAMPLES)
        return entries

    def stop(self, widths: Sequence[float], width: float) -> int:
        """Main's `--until-width`: the first stage whose interval is narrower than the width."""
        return next((k for k, w in enumerate(widths, start=1) if w < width), len(widths))


# -- figures ----------------------------------------------------------------------------------

def figure(claim: str, setting: str, name: str, value: float, target: str, boards: int) -> dict[str, Any]:
    """One measured figure, in the shape every calibration module gives (site_builder/bench/calibration_boards.py)."""
    return {"claim": claim, "setting": setting, "figure": name, "value": float(value), "target": target,
            "ok": meets(value, target), "boards": int(boards)}


def meets(value: float, target: str) -> bool:
    """Whether a value meets a target written "a-b", "<= x", ">= x", "< x" or "measured"."""
    target = target.strip()
    for sign, test in (("<=", lambda v, x: v <= x), (">=", lambda v, x: v >= x), ("<", lambda v, x: v < x),
                       (">", lambda v, x: v > x)):
        if target.startswith(sign):
            return bool(test(value, float(target[len(sign):])))
    if "-" in target[1:]:
        low, high = (float(x) for x in target.split("-", 1))
        return bool(low <= value <= high)
    return True


def covered(ci: Sequence[float], truth: float) -> bool:
    return ci[0] - 1e-12 <= truth <= ci[1] + 1e-12


# -- 1. intervals -----------------------------------------------------------------------------

#: Targets of a row's interval: the band for truths inside (0.05, 0.95) everywhere; for truths with
#: slots at 3% or 97%, a fixed-sample interval cannot drop to 0.97 at one or two stages (a slot of
#: one or two deals mostly shows no minority result, and no interval can tell that from luck).
BAND, EDGE = "0.93-0.97", ">= 0.93"


def coverage_profiles() -> list[tuple[Profile, str, str]]:
    """(truth, how its deals are scored, target) of the coverage runs."""
    return [(constant("every slot 50%", 0.5), "value", BAND), (constant("every slot 15%", 0.15), "value", BAND),
            (constant("every slot 3%", 0.03), "value", EDGE), (constant("every slot 97%", 0.97), "value", EDGE),
            (role_following(), "value", EDGE), (uniform(4), "value", BAND), (uniform(11), "value", BAND),
            (shipped("scripted", won_only=True), "win", EDGE), (shipped("random", won_only=True), "win", EDGE),
            (shipped("scripted"), "value", EDGE), (shipped("random"), "value", EDGE),
            (shipped("gemma3-270m"), "value", EDGE)]


def interval_figures(scorer: Any, boards: int, stages: Sequence[int], rng: np.random.Generator,
                     profiles: Sequence[tuple[Profile, str, str]] | None = None) -> list[dict[str, Any]]:
    """Coverage of the score's interval and of each game's, per truth and number of stages."""
    out = []
    for profile, scored, target in profiles or coverage_profiles():
        if scorer.label == "before" and not profile.won_or_lost:
            continue  # main scores won or lost only
        truth = profile.truth(scored)
        for k in stages:
            drawn = draw([profile], k, boards, rng)
            hits, per_game, widths, zero = 0, {g: 0 for g in GAMES}, [], 0
            for b in range(boards):
                found = scorer.interval(deals_of(drawn, b, 0, scored), f"r{b}")
                hits += covered(found["ci"], truth)
                widths.append(found["ci"][1] - found["ci"][0])
                for g in GAMES:
                    ci = found["by_game"][g]["ci"]
                    per_game[g] += covered(ci, profile.game(g, scored))
                    zero += ci[1] - ci[0] <= 0
            setting = f"{profile.name}, {k} stage{'s' if k != 1 else ''}, {scored}"
            out.append(figure("ranked score, 95% interval", setting, "coverage", hits / boards, target, boards))
            out.append(figure("ranked score, 95% interval", setting, "mean width", float(np.mean(widths)), "measured",
                              boards))
            rates = [per_game[g] / boards for g in GAMES]
            out.append(figure("per-game rate, 95% interval", setting, "lowest coverage of a game", min(rates),
                              ">= 0.90", boards))
            out.append(figure("per-game rate, 95% interval", setting, "mean coverage over games", float(np.mean(rates)),
                              BAND, boards))
            out.append(figure("per-game rate, 95% interval", setting, "zero-width intervals", zero,
                              "<= 0", boards))
    return out


# -- 2. board-wide claims ---------------------------------------------------------------------

def any_false(rows: Sequence[Mapping[str, Any]], truths: Mapping[str, float]) -> bool:
    """Whether a board claims some row surely above another whose truth is not below it."""
    for row in rows:
        for other, pair in (row.get("compared") or {}).items():
            if pair["separated"] and pair["difference"] > 0 and truths[row["row"]] <= truths[other] + 1e-12:
                return True
    return False


def equal_board_figures(scorer: Any, boards: int, stages: Sequence[int], rng: np.random.Generator, *,
                        rows: int = 6, seed: int = 0) -> list[dict[str, Any]]:
    """Boards of `rows` equal rows at a fixed number of stages: how many show a false "surely above"."""
    out = []
    for profile, scored in ((shipped("random"), "value"), (shipped("random", won_only=True), "win"),
                            (constant("every slot 50%", 0.5), "value"), (shipped("scripted"), "value")):
        if scorer.label == "before" and scored == "value" and profile.name.startswith(("random", "scripted")):
            profile, scored = shipped(profile.name.split()[0], won_only=True), "win"
        for k in stages:
            drawn = draw([profile] * rows, k, boards, rng)
            false = 0
            for b in range(boards):
                found = scorer.board({f"r{r}": deals_of(drawn, b, r, scored) for r in range(rows)}, seed + b)
                false += any_false(found, {f"{NAME}-r{r}": 0.0 for r in range(rows)})
            out.append(figure("rank ranges and tiers (\"surely above\")",
                              f"{rows} equal rows, {profile.name}, {k} stages", "boards with a false separation",
                              false / boards, "<= 0.05", boards))
    return out


def growing_figures(scorer: Any, boards: int, most: int, rng: np.random.Generator, *, rows: int = 6,
                    seed: int = 0) -> list[dict[str, Any]]:
    """Boards of equal rows looked at after every stage up to `most`: how many ever show a false
    "surely above" (the board as it grows merge by merge), and per pair checked after every stage."""
    profile, scored = (shipped("random"), "value") if scorer.label == "after" else (shipped("random", won_only=True),
                                                                                    "win")
    drawn = draw([profile] * rows, most, boards, rng)
    ever, pair_ever, pairs = 0, 0, rows * (rows - 1) // 2
    for b in range(boards):
        seen: set[tuple[str, str]] = set()
        for k in range(1, most + 1):
            found = scorer.board({f"r{r}": deals_of(drawn, b, r, scored, k) for r in range(rows)}, seed + b)
            for row in found:
                for other, pair in row["compared"].items():
                    if pair["separated"]:
                        seen.add(tuple(sorted((row["row"], other))))
        ever += bool(seen)
        pair_ever += len(seen)
    setting = f"{rows} equal rows, {profile.name}, looked at after every stage 1..{most}"
    return [figure("a board that grows merge by merge", setting, "boards with a false separation at some look",
                   ever / boards, "<= 0.05", boards),
            figure("a board that grows merge by merge", setting, "pairs falsely separated at some look",
                   pair_ever / (boards * pairs), "<= 0.05", boards)]


# -- 3. power ---------------------------------------------------------------------------------

def separated_pair(found: Sequence[Mapping[str, Any]], high: str, low: str) -> bool:
    row = next(r for r in found if r["row"] == f"{NAME}-{high}")
    pair = row["compared"].get(f"{NAME}-{low}")
    return bool(pair and pair["separated"] and pair["difference"] > 0)


def power_figures(scorer: Any, boards: int, stages: Sequence[int], gaps: Sequence[float], rng: np.random.Generator,
                  *, rows: int = 6, seed: int = 0) -> list[dict[str, Any]]:
    """Power to tell a row from 5 equal others when its score is higher by `gap`.

    "won or lost": the rows are the shipped random row's win/lose outcomes with every slot's chance
    of a win raised by the gap. "richer value": a row that plays like the shipped scripted row on a
    share of its deals and like random on the rest, the share chosen so that its win rate is higher
    by the gap; scored by deal values (this checkout) or won or lost (both), so that the two read
    the same strategies."""
    base_win = shipped("random", won_only=True)
    base, better = shipped("random"), shipped("scripted")
    span = better.truth("win") - base.truth("win")
    out = []
    for gap in gaps:
        settings = [("won or lost", [base_win] * (rows - 1) + [raised(base_win, gap, "raised")], "win")]
        share = gap / span
        strategies = [base] * (rows - 1) + [mixed(base, better, share, "mixed")]
        settings.append(("same strategies, won or lost", strategies, "win"))
        if scorer.label == "after":
            settings.append(("same strategies, richer value", strategies, "value"))
        for what, profiles, scored in settings:
            top = profiles[-1]
            for k in stages:
                drawn = draw(profiles, k, boards, rng)
                hits = 0
                for b in range(boards):
                    found = scorer.board({f"r{r}": deals_of(drawn, b, r, scored) for r in range(rows)}, seed + b)
                    hits += np.mean([separated_pair(found, f"r{rows - 1}", f"r{r}") for r in range(rows - 1)])
                gap_seen = top.truth(scored) - profiles[0].truth(scored)
                out.append(figure("power", f"gap {gap:g} in the win rate ({what}; score gap {gap_seen:.3f}), {k} stages",
                                  "share of the gapped pairs told apart", hits / boards, "measured", boards))
    return out


def control_variate_figures(boards: int, stages: Sequence[int], gaps: Sequence[float], rng: np.random.Generator, *,
                            reference_stages: int = 24, seed: int = 0) -> list[dict[str, Any]]:
    """What control variates from the reference rows would buy. Two candidates (random's outcomes,
    one raised by the gap) and the two reference rows (scripted and random, `reference_stages`
    stages) on the same deals; per game, the candidates' paired difference on their shared deals
    is regressed on the references' mean value on the same deal, and corrected by how far the
    references' mean over the candidates' deals is from their mean over all theirs. Measured: the
    standard error against the board's, and the power at the board's own critical value."""
    out = []
    base = shipped("random", won_only=True)
    references = [shipped("scripted", won_only=True), base]
    for gap in gaps:
        for k in stages:
            drawn = draw([base, raised(base, gap, "raised"), *references], reference_stages, boards, rng)
            ratios, plain, adjusted = [], 0, 0
            for b in range(boards):
                a, c = deals_of(drawn, b, 1, "win", k), deals_of(drawn, b, 0, "win", k)
                refs = [deals_of(drawn, b, r, "win") for r in (2, 3)]
                pair = ranked.claims({"a": a, "c": c, **{f"x{i}": x for i, x in enumerate(refs)}},
                                     [("a", "c")], {("a", "c"): k}, CYCLES, seed=seed + b, family=f"cv{b}")[("a", "c")]
                difference, se = controlled(a, c, refs)
                ratios.append(se / pair["se"])
                plain += pair["separated"] and pair["difference"] > 0
                adjusted += difference > pair["critical"] * se
            setting = f"gap {gap:g}, {k} stages, references at {reference_stages} stages"
            out.append(figure("control variates", setting, "standard error, controlled / board's",
                              float(np.mean(ratios)), "measured", boards))
            out.append(figure("control variates", setting, "power, board's", plain / boards, "measured", boards))
            out.append(figure("control variates", setting, "power, controlled", adjusted / boards, "measured", boards))
    return out


def controlled(a: Mapping[str, Mapping[int, float]], b: Mapping[str, Mapping[int, float]],
               references: Sequence[Mapping[str, Mapping[int, float]]]) -> tuple[float, float]:
    """a - b with control variates: per game, d = a - b on the shared deals, x = the references'
    mean value on the same deal; d-bar - beta (x-bar on the shared deals - x-bar on all the
    references' deals), beta the regression slope; its standard error from the residuals (with
    both rows' Jeffreys terms, as the board's)."""
    difference, variance = 0.0, 0.0
    games = sorted(set(a) & set(b))
    for game in games:
        shared = sorted(set(a[game]) & set(b[game]))
        d = np.array([a[game][i] - b[game][i] for i in shared])
        x_all = np.array([np.mean([r[game][i] for r in references]) for i in sorted(references[0][game])])
        x = np.array([np.mean([r[game][i] for r in references]) for i in shared])
        sxx = ((x - x.mean()) ** 2).sum()
        beta = float(((x - x.mean()) * (d - d.mean())).sum() / sxx) if sxx > 0 else 0.0
        residual = d - d.mean() - beta * (x - x.mean())
        n = len(d)
        spread = (residual ** 2).sum() / max(n - 2, 1)
        terms = sum(ranked._jeffreys_term([row[game][i] for i in shared], suite_score.PRIOR) for row in (a, b))
        difference += d.mean() - beta * (x.mean() - x_all.mean())
        variance += (spread + terms) / n + beta ** 2 * x_all.var() / len(x_all)
    return difference / len(games), math.sqrt(variance) / len(games)


# -- 4. --until-width -------------------------------------------------------------------------

def until_width_figures(scorer: Any, boards: int, widths: Sequence[float], rng: np.random.Generator, *,
                        most: int = 40) -> list[dict[str, Any]]:
    """A row played stage after stage and stopped as `--until-width` stops it: the bias of its
    score at the stop and how often its interval then holds the truth."""
    out = []
    for profile, scored in ((constant("every slot 10%", 0.1), "win"), (shipped("random", won_only=True), "win"),
                            (shipped("random"), "value")):
        if scorer.label == "before" and scored == "value":
            continue
        truth = profile.truth(scored)
        drawn = draw([profile], most, boards, rng)
        for width in widths:
            errors, hits, stops = [], 0, []
            for b in range(boards):
                found: dict[int, dict[str, Any]] = {}
                if scorer.label == "before":
                    k = next((k for k in range(1, most + 1)
                              if _width(_at(scorer, drawn, b, scored, k, found)) < width), most)
                else:
                    k = scorer.stop([0.0] * most, width)
                stops.append(k)
                row = _at(scorer, drawn, b, scored, k, found)
                errors.append(row["value"] - truth)
                hits += covered(row["ci"], truth)
            setting = f"{profile.name}, --until-width {width:g} (stopped at {np.mean(stops):.1f} stages on average)"
            out.append(figure("--until-width", setting, "bias of the score", float(np.mean(errors)), "< 0.005", boards)
                       | {"ok": abs(float(np.mean(errors))) < 0.005})
            out.append(figure("--until-width", setting, "coverage", hits / boards, ">= 0.93", boards))
    return out


def _at(scorer: Any, drawn: Mapping[str, Any], board: int, scored: str, stages: int,
        found: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A simulated row's score after `stages` stages (kept in `found`)."""
    if stages not in found:
        found[stages] = scorer.interval(deals_of(drawn, board, 0, scored, stages), f"r{board}")
    return found[stages]


def _width(row: Mapping[str, Any]) -> float:
    return row["ci"][1] - row["ci"][0]


# -- 5. "wanted" ------------------------------------------------------------------------------

def wanted_figures(scorer: Any, boards: int, stages: int, rng: np.random.Generator, *, most: int = 60,
                   seed: int = 0) -> list[dict[str, Any]]:
    """Two equal rows (and, for the claims' table, four more) at `stages` stages: how often the
    board shows "wanted" for the first pair, how many stages, and how often playing them (both
    rows, to the stages named, at most `most` in all) makes it claim a separation."""
    profile, scored = (shipped("random"), "value") if scorer.label == "after" else (shipped("random", won_only=True),
                                                                                    "win")
    drawn = draw([profile] * 6, most, boards, rng)
    shown, asked, separated = 0, [], 0
    for b in range(boards):
        rows = {f"r{r}": deals_of(drawn, b, r, scored, stages) for r in range(6)}
        first = next(r for r in scorer.board(rows, seed + b) if r["row"] == f"{NAME}-r0")
        wanted = first.get("wanted")
        if not wanted:
            continue
        shown += 1
        asked.append(wanted["stages"])
        target = min(most, stages + wanted["stages"])
        later = {f"r{r}": deals_of(drawn, b, r, scored, target) for r in range(6)}
        again = next(r for r in scorer.board(later, seed + b) if r["row"] == f"{NAME}-r0")
        separated += any(p["separated"] for p in again["compared"].values())
    setting = f"6 equal rows, {profile.name}, {stages} stages"
    return [figure("\"wanted\" stages", setting, "rows shown a wanted number", shown / boards, "measured", boards),
            figure("\"wanted\" stages", setting, "median stages wanted", float(np.median(asked)) if asked else 0.0,
                   "measured", boards),
            figure("\"wanted\" stages", setting, "rows falsely separated after playing them", separated / boards,
                   "<= 0.05", boards)]


# -- the run ----------------------------------------------------------------------------------

def other_boards(boards: int, seed: int) -> list[dict[str, Any]]:
    """The other boards' figures (head-to-head, Cost Sharing, ratings, exhibition), when their
    module is there."""
    if importlib.util.find_spec("site_builder.bench.calibration_boards") is None:
        return []
    from site_builder.bench import calibration_boards  # type: ignore[attr-defined]

    return list(calibration_boards.measure(boards=boards, seed=seed))


@dataclass(frozen=True)
class Sizes:
    """How many boards each part simulates."""

    coverage: int = 400
    separation: int = 400
    growth: int = 200
    power: int = 200
    until: int = 300
    wanted: int = 150


def measure(scorers: Sequence[Any], sizes: Sizes, *, seed: int = 1, stages: Sequence[int] = (1, 2, 4, 8),
            parts: Sequence[str] = ("intervals", "separation", "growth", "power", "control", "until", "wanted"),
            progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every figure of these claims, for each scorer (before, after), in the shared shape."""
    out = []
    for scorer in scorers:
        rng = np.random.default_rng(seed)
        for part in parts:
            started = time.perf_counter()
            found = _part(scorer, part, sizes, rng, stages, seed)
            for f in found:
                f["setting"] = f"{scorer.label}: {f['setting']}"
            out.extend(found)
            if progress:
                progress(f"{scorer.label} {part}: {len(found)} figures, {time.perf_counter() - started:.0f} s")
    return out


def _part(scorer: Any, part: str, sizes: Sizes, rng: np.random.Generator, stages: Sequence[int],
          seed: int) -> list[dict[str, Any]]:
    """One part's figures for one scorer."""
    if part == "intervals":
        return interval_figures(scorer, sizes.coverage, stages, rng)
    if part == "separation":
        return equal_board_figures(scorer, sizes.separation, (2, 8), rng, seed=seed)
    if part == "growth":
        return growing_figures(scorer, sizes.growth, 8, rng, seed=seed)
    if part == "power":
        return power_figures(scorer, sizes.power, (2, 4, 8), (0.05, 0.1, 0.2), rng, seed=seed)
    if part == "control":
        return control_variate_figures(sizes.power, (2, 4, 8), (0.05, 0.1, 0.2), rng, seed=seed) \
            if scorer.label == "after" else []
    if part == "until":
        return until_width_figures(scorer, sizes.until, (0.2, 0.1), rng)
    if part == "wanted":
        return wanted_figures(scorer, sizes.wanted, 2, rng, seed=seed)
    raise ValueError(f"no part {part!r}")


def table(figures: Sequence[Mapping[str, Any]]) -> str:
    """The figures as a Markdown table."""
    lines = ["| claim | setting | figure | value | target | ok | boards |", "| --- | --- | --- | ---: | --- | --- | ---: |"]
    for f in figures:
        value = f"{f['value']:.3f}" if abs(f["value"]) < 1000 else f"{f['value']:.0f}"
        lines.append(f"| {f['claim']} | {f['setting']} | {f['figure']} | {value} | {f['target']} | "
                     f"{'yes' if f['ok'] else '**no**'} | {f['boards']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=None,
                        help="boards per setting, every part (default: each part's own, Sizes)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="REF", default="main",
                        help="the git ref whose code is 'before' (default main; 'none' to skip)")
    parser.add_argument("--parts", nargs="+", default=None,
                        help="intervals separation growth power control until wanted others")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    sizes = Sizes() if args.boards is None else Sizes(*([args.boards] * 6))
    parts = args.parts or ["intervals", "separation", "growth", "power", "control", "until", "wanted", "others"]
    scorers = ([Main(args.before)] if args.before != "none" else []) + [Current()]
    started = time.perf_counter()
    figures = measure(scorers, sizes, seed=args.seed, parts=[p for p in parts if p != "others"],
                      progress=lambda line: print(line, file=sys.stderr, flush=True))
    if "others" in parts:
        figures.extend(other_boards(args.boards or sizes.separation, args.seed))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(table(figures))
    failed = [f for f in figures if not f["ok"] and not f["setting"].startswith("before")]
    print(f"\n{len(figures)} figures in {time.perf_counter() - started:.0f} s; "
          f"{len(failed)} of this checkout's outside their target", file=sys.stderr)


if __name__ == "__main__":
    main()
