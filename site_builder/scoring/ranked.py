"""The ranked board: the games of the ranked suite only, one row per candidate (docs/metrics/ranked.md).

Every row played the same deals (seeds fixed by the suite, runner/suite.py) in the same seats
against the same built-in opponents, so rows are compared deal by deal. A row's **score** is the
mean over the suite's games of its candidate seat's mean deal value (runner/suite_score.py: a win
1, a loss 0, the game's score in between where it keeps one), with a 95% interval of its own.

**Claims between rows** ("surely above", rank ranges, tiers) hold together: for every pair of a
table of rows at once, and at every number of stages the rows will ever have, so that looking
after each stage or each merge does not make a false one likelier. Each pair's difference is
standardized by its standard error (the spread of the paired differences within each slot, plus
each row's Jeffreys term); it is a claim when it passes a critical value read from simultaneous
normal draws of every pair's noise (the deals two pairs share correlate them), at the level the
anytime boundary (stats.anytime_level) allows at the stages the pair shares.

Containment holds by construction: a row's numbers come from its own games alone; the
maintainers' rows form one table whose claims are computed from their rows only, and each
contributor's row is placed against them in a table of its own (its comparisons with each of
theirs), so that it moves none of their places, ranges or tiers.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from runner import suite as suites
from runner.suite_score import LEVEL, PRIOR, Z, cycles_of, deal_value, score
from site_builder.scoring import verification
from site_builder.scoring.model import ScoredGame
from site_builder.scoring.stats import anytime_level, anytime_z, simultaneous_critical

#: "Wanted": the chance the board tells two rows apart that it projects, if their gap is as seen.
WANTED_POWER = 0.8
#: Its normal quantile.
Z_POWER = 0.8416212335729143
#: "Wanted" looks this many stages ahead at most.
WANTED_MOST = 100


def shipped_stage_deals() -> dict[str, dict[str, int]]:
    """Per shipped suite (`<name>-<version>`), each game's deals per stage."""
    return {name: {g.game: g.deals_per_stage for g in suite.games} for name, suite in _shipped().items()}


def shipped_cycles() -> dict[str, dict[str, int]]:
    """Per shipped suite, each game's slots (runner/suite_score.py `cycles_of`)."""
    return {name: cycles_of(suite.games) for name, suite in _shipped().items()}


def _shipped() -> dict[str, Any]:
    out = {}
    for name, versions in suites.shipped_suites().items():
        for version in versions:
            found = suites.find(f"{name}-{version}")
            out[f"{found.name}-{found.version}"] = found
    return out


def suite_of(game: ScoredGame) -> str | None:
    """`<name>-<version>` of the suite a game is a deal of, or None."""
    suite = game.suite
    return f"{suite['name']}-{suite['version']}" if suite else None


def outcomes(games: Iterable[ScoredGame]) -> dict[str, dict[str, Any]]:
    """Per row (the suite tournament: `<suite>-<label>`): its suite, candidate agents and, per
    game, {deal index: the deal's value} (`suite_score.deal_value`). A game the candidate
    forfeited is worth 0; one another seat forfeited tells nothing about the candidate and is
    left out."""
    rows: dict[str, dict[str, Any]] = {}
    for game in games:
        if not game.suite:
            continue
        index = game.suite["seat"]
        seat = game.seats[index]
        if not game.valid and game.forfeiter != seat.agent:
            continue
        row = rows.setdefault(game.tournament, {"suite": suite_of(game), "agents": {}, "deals": {}, "forfeits": 0})
        row["agents"][game.game] = seat.agent
        row["deals"].setdefault(game.game, {})[int(game.suite["deal"])] = deal_value(
            game.game, game.result, game.winners, index, forfeited=not game.valid)
        row["forfeits"] += not game.valid
    return rows


# -- two rows, deal by deal -------------------------------------------------------------------

def _jeffreys_term(values: Sequence[float], share: float) -> float:
    """What Jeffreys' prior (`share` deals won and as many lost) adds to the variance of one deal
    of a slot whose deals have these values (runner/suite_score.py, `game_estimate`)."""
    m = len(values)
    mean = sum(values) / m
    prior = (m * mean + share) / (m + 2 * share)
    widened = prior * (1 - prior) - mean * (1 - mean)
    if widened <= 0 and all(v == values[0] for v in values):
        widened = share * (prior ** 2 + (1 - prior) ** 2) / (m + 2 * share)
    return max(widened, 0.0)


def contrast(a: Mapping[str, Mapping[int, float]], b: Mapping[str, Mapping[int, float]],
             cycles: Mapping[str, int] | None = None) -> dict[str, Any] | None:
    """Row a minus row b on the deals both played: the score difference (each shared game's mean
    paired difference, slot by slot, averaged over the games), its standard error, and the shares
    of its noise: per deal (game, index) its weighted residual, per row its Jeffreys term. None
    when they share no deal."""
    shared = {g: sorted(set(a[g]) & set(b[g])) for g in sorted(set(a) & set(b))}
    shared = {g: d for g, d in shared.items() if d}
    if not shared:
        return None
    games = len(shared)
    difference, loadings, terms = 0.0, {}, {"a": 0.0, "b": 0.0}
    for game, indices in shared.items():
        cycle = (cycles or {}).get(game, 1)
        slots: dict[int, list[int]] = {}
        for i in indices:
            slots.setdefault(i % cycle, []).append(i)
        if cycle > 1 and (len(slots) < cycle or min(len(v) for v in slots.values()) < 2):
            slots = {0: indices}
        share = PRIOR / len(slots)
        weight = 1 / (games * len(slots))
        for members in slots.values():
            m = len(members)
            diffs = [a[game][i] - b[game][i] for i in members]
            mean = sum(diffs) / m
            difference += weight * mean
            if m > 1:
                for i, d in zip(members, diffs):
                    loadings[(game, i)] = weight * (d - mean) / math.sqrt(m * (m - 1))
            for side, row in (("a", a), ("b", b)):
                terms[side] += weight ** 2 * _jeffreys_term([row[game][i] for i in members], share) / m
    variance = sum(v * v for v in loadings.values()) + terms["a"] + terms["b"]
    deals = sum(len(d) for d in shared.values())
    return {"difference": difference, "se": math.sqrt(variance), "deals": deals, "games": games,
            "loadings": loadings, "terms": terms}


def paired(a: Mapping[str, Mapping[int, float]], b: Mapping[str, Mapping[int, float]],
           cycles: Mapping[str, int] | None = None) -> dict[str, Any] | None:
    """Row a minus row b on the deals both played, with its fixed-sample 95% interval (this pair
    alone, at this number of deals: what a single comparison would say; the board's claims are
    `claims`), and how many deals it rests on; None when they share no deal."""
    found = contrast(a, b, cycles)
    if found is None:
        return None
    d, se = found["difference"], found["se"]
    return {"difference": d, "se": se, "ci": [d - Z * se, d + Z * se], "deals": found["deals"],
            "separated": abs(d) > Z * se}


def claims(rows: Mapping[str, Mapping[str, Mapping[int, float]]], pairs: Sequence[tuple[str, str]],
           stages: Mapping[tuple[str, str], int], cycles: Mapping[str, int] | None, *, seed: int,
           family: str) -> dict[tuple[str, str], dict[str, Any]]:
    """The pairs of one table, compared so that their claims hold together: per pair (a, b) the
    difference a - b, its interval (difference ± its critical value x its standard error), whether
    that excludes no difference (`separated`), the deals it rests on, and what a look further on
    would need (`critical_at`, for "wanted"). `stages`: per pair, the whole stages both rows played
    (the anytime boundary's clock). The draws are seeded by the results' seed and `family`."""
    found = {p: contrast(rows[p[0]], rows[p[1]], cycles) for p in pairs}
    kept = [p for p in pairs if found[p] is not None]
    if not kept:
        return {}
    components: dict[Any, int] = {}
    for p in kept:
        for key in found[p]["loadings"]:
            components.setdefault(("deal", *key), len(components))
        for side in (0, 1):
            components.setdefault(("row", p[side]), len(components))
    matrix = np.zeros((len(components), len(kept)))
    for j, p in enumerate(kept):
        for key, value in found[p]["loadings"].items():
            matrix[components[("deal", *key)], j] = value
        for side, name in (("a", p[0]), ("b", p[1])):
            sign = 1.0 if side == "a" else -1.0
            matrix[components[("row", name)], j] += sign * math.sqrt(found[p]["terms"][side])
    levels = [float(anytime_level(max(1, stages[p]))) for p in kept]
    digest = hashlib.sha256(f"{seed}\0claims\0{family}".encode()).digest()
    critical = simultaneous_critical(matrix, levels, seed=int.from_bytes(digest[:8], "big"))
    out = {}
    for j, p in enumerate(kept):
        d, se = found[p]["difference"], found[p]["se"]
        c = float(critical[j])
        out[p] = {"difference": d, "se": se, "ci": [d - c * se, d + c * se], "critical": c,
                  "deals": found[p]["deals"], "stages": stages[p], "separated": se > 0 and abs(d) > c * se}
    return out


def critical_at(comparison: Mapping[str, Any], stages: np.ndarray | int) -> np.ndarray:
    """The critical value a claim would need at `stages` shared stages: today's, raised as much as
    the anytime boundary rises from the stages shared today (the table's other pairs as they are)."""
    return comparison["critical"] + anytime_z(stages) - anytime_z(max(1, comparison["stages"]))


def wanted_stages(comparison: Mapping[str, Any]) -> int | None:
    """Stages more after which, if the gap between two rows not yet told apart is as large as seen,
    the board would tell them apart WANTED_POWER of the time: the smallest N (at most WANTED_MOST)
    with |gap| >= (c(k + N) + z) x se x sqrt(k / (k + N)), k the stages they share, c the critical
    value at k + N stages (`critical_at`). None when they are told apart, no gap is seen, or more than
    WANTED_MOST stages would be needed."""
    if comparison["separated"] or comparison["difference"] == 0 or comparison["se"] <= 0:
        return None
    k = max(1, comparison["stages"])
    more = np.arange(1, WANTED_MOST + 1)
    enough = abs(comparison["difference"]) >= (critical_at(comparison, k + more) + Z_POWER) * \
        comparison["se"] * np.sqrt(k / (k + more))
    return int(more[np.argmax(enough)]) if enough.any() else None


# -- the board --------------------------------------------------------------------------------

def board(games: Sequence[ScoredGame], owners: Mapping[str, Any], stage_deals: Mapping[str, Mapping[str, int]], *,
          seed: int, cycles: Mapping[str, Mapping[str, int]] | None = None,
          evidence: Sequence[ScoredGame] = ()) -> dict[str, Any]:
    """The ranked board's rows (the counted ones best first) with places, rank ranges, tiers,
    wanted stages and each row's status.

    `owners` maps a row (its tournament) to its owner entry (None or absent: the maintainers');
    `stage_deals` gives, per suite, each game's deals per stage and `cycles` its slots (runner/
    suite.py; by default the shipped suites'); `evidence` holds the maintainers' verification games
    (scoring/verification.py). Only rows that played at least one whole stage of every game of
    their suite are ranked (from one stage on the score's interval covers: docs/metrics/ranked.md);
    the others are listed as provisional, with what they lack."""
    slots = shipped_cycles() if cycles is None else cycles
    status = verification.statuses(games, evidence, owners, slots)
    return board_of(outcomes(games), owners, stage_deals, seed=seed, cycles=slots, statuses=status)


def board_of(found: Mapping[str, Mapping[str, Any]], owners: Mapping[str, Any],
             stage_deals: Mapping[str, Mapping[str, int]], *, seed: int,
             cycles: Mapping[str, Mapping[str, int]] | None = None,
             statuses: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """`board` from the rows `outcomes` finds (suite, agents, deals, forfeits per row) and their
    statuses (default: the maintainers' rows theirs, every other one self-reported): what the
    calibration benchmark feeds simulated deals to (site_builder/bench/calibration.py).

    Places, ranges and tiers are counted among the maintainers' rows and the verified ones; a
    self-reported row (and an inconsistent one) is placed against them without moving them, and
    listed under them (`verification.order`)."""
    slots = shipped_cycles() if cycles is None else cycles
    rows = rows_of(found, owners, stage_deals, slots, statuses)
    ranked = verification.order([r for r in rows if "score" in r])
    families = _standings(ranked, stage_deals, slots, seed=seed)
    return {"rows": ranked + [r for r in rows if "score" not in r], "stage_deals": dict(stage_deals),
            "claims": families}


def rows_of(found: Mapping[str, Mapping[str, Any]], owners: Mapping[str, Any],
            stage_deals: Mapping[str, Mapping[str, int]], cycles: Mapping[str, Mapping[str, int]],
            statuses: Mapping[str, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The rows `outcomes` found, by name, each with its score (or what it lacks) and its status,
    before any place: each a function of its own games, so the board over time remakes only the
    rows a merge added games to (scoring/history.py)."""
    rows = [_row(name, row, owners, stage_deals, cycles) for name, row in sorted(found.items())]
    for row in rows:
        row["status"] = dict((statuses or {}).get(row["row"]) or
                             {"state": "self-reported" if row["owner"] else "maintainers", "verification": None})
    return rows


def _row(name: str, row: Mapping[str, Any], owners: Mapping[str, Any], stage_deals: Mapping[str, Mapping[str, int]],
         cycles: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    per_stage = stage_deals.get(row["suite"]) or {}
    stages = min((len(row["deals"].get(g, {})) // n for g, n in per_stage.items()), default=0)
    entry = {"row": name, "suite": row["suite"], "label": name[len(row["suite"]) + 1:], "agents": row["agents"],
             "owner": owners.get(name), "stages": stages, "forfeits": row["forfeits"],
             "deals": {g: sorted(d.items()) for g, d in row["deals"].items()}}
    if per_stage and stages >= 1:
        entry["score"] = score(row["deals"], cycles.get(row["suite"]))
    else:
        entry["unranked"] = _lacks(row["deals"], per_stage, row["suite"])
    return entry


def _lacks(deals: Mapping[str, Mapping[int, float]], per_stage: Mapping[str, int], suite: str) -> str:
    """What a row lacks to be ranked: the deals of stage 1 it has not played, game by game."""
    if not per_stage:
        return f"{suite} is not a shipped suite"
    missing = [f"{n - len(deals.get(g, {}))} of {n} {g.replace('_', ' ').title()}"
               for g, n in sorted(per_stage.items()) if len(deals.get(g, {})) < n]
    return "provisional: lacks " + ", ".join(missing) + " deals of stage 1"


def _standings(rows: list[dict[str, Any]], stage_deals: Mapping[str, Mapping[str, int]],
               cycles: Mapping[str, Mapping[str, int]], *, seed: int) -> dict[str, Any]:
    """Place, best and worst rank, tier and wanted stages of each ranked row: the maintainers'
    rows of a suite and the verified ones as one table whose claims hold together, each other
    contributor's row in a table of its own against them (so that it moves none of theirs). Returns
    what each suite's claims cover."""
    deals = {r["row"]: {g: dict(d) for g, d in r["deals"].items()} for r in rows}
    placed = places(rows)
    by_suite: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_suite.setdefault(row["suite"], []).append(row)
    covered = {}
    for suite, members in by_suite.items():
        slots = cycles.get(suite) or {}
        ours = [r for r in members if verification.counted(r)]  # already best first
        stages = {r["row"]: r["stages"] for r in members}
        pairs = [(x["row"], y["row"]) for i, x in enumerate(ours) for y in ours[i + 1:]]
        table = claims(deals, pairs, {p: min(stages[p[0]], stages[p[1]]) for p in pairs}, slots, seed=seed,
                       family=f"{suite}\0" + "\0".join(sorted(r["row"] for r in ours)))
        covered[suite] = {"rows": len(ours), "pairs": len(table), "level": LEVEL}
        tier, previous = 0, None
        for row in ours:  # a new tier where a row is surely below the one above it
            if previous is None or _between(table, previous["row"], row["row"]) is None or \
                    _between(table, previous["row"], row["row"])["separated"]:
                tier += 1
            row["tier"] = tier
            previous = row
        for row in members:
            mine = verification.counted(row)
            if mine:
                against = {o["row"]: _between(table, row["row"], o["row"]) for o in ours if o is not row}
            else:
                theirs = [(row["row"], o["row"]) for o in ours]
                own = claims(deals, theirs, {p: min(stages[p[0]], stages[p[1]]) for p in theirs}, slots, seed=seed,
                             family=f"{suite}\0{row['row']}")
                against = {o: own.get((row["row"], o)) for _, o in theirs}
            _place(row, placed[row["row"]], against)
    return covered


def places(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each ranked row's place, `rows` in the board's order (`verification.order`): a counted row's
    position among its suite's counted rows, any other's 1 + the counted rows of its suite scored
    above it. Scores alone decide it, so the board over time reads it without the claims."""
    ours: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        if verification.counted(row):
            ours.setdefault(row["suite"], []).append(row)
    out = {row["row"]: i for members in ours.values() for i, row in enumerate(members, start=1)}
    scores = {suite: sorted(r["score"]["value"] for r in members) for suite, members in ours.items()}
    for row in rows:
        if not verification.counted(row):
            mine = scores.get(row["suite"], [])
            out[row["row"]] = 1 + len(mine) - bisect.bisect_right(mine, row["score"]["value"])
    return out


def _between(table: Mapping[tuple[str, str], Mapping[str, Any]], a: str, b: str) -> dict[str, Any] | None:
    """The claim a - b from a table holding (a, b) or (b, a)."""
    if (a, b) in table:
        return dict(table[(a, b)])
    if (b, a) in table:
        found = dict(table[(b, a)])
        found["difference"] = -found["difference"]
        found["ci"] = [-found["ci"][1], -found["ci"][0]]
        return found
    return None


def _place(row: dict[str, Any], place: int, against: Mapping[str, Any]) -> None:
    """A row's place (`places`), range of places, wanted stages and comparisons, from its claims
    `against` each of the maintainers' rows."""
    row.setdefault("tier", None)  # a self-reported row is placed among the tiers, never in one
    better = sum(1 for c in against.values() if c and c["separated"] and c["difference"] < 0)
    worse = sum(1 for c in against.values() if c and c["separated"] and c["difference"] > 0)
    row["place"], row["best"], row["worst"] = place, 1 + better, len(against) + 1 - worse
    wanted = [(s, o) for o, c in against.items() if c and (s := wanted_stages(c)) is not None]
    row["wanted"] = {"stages": min(wanted)[0], "against": min(wanted)[1]} if wanted else None
    row["compared"] = {o: c for o, c in against.items() if c}
