"""The ranked board: the games of the ranked suite only, one row per candidate (docs/metrics/ranked.md).

Every row played the same deals (seeds fixed by the suite, runner/suite.py) in the same seats
against the same built-in opponents, so rows are compared deal by deal. A row's **score** is its
candidate seat's win rate in each game, averaged over the games (each weighs the same); its
interval resamples the row's own deals within each game (runner/suite_score.py: the runner's
`--until-width` stops at this very interval). Two rows are compared on the deals both
played: the mean of their paired differences, with an interval that resamples those deals.

Containment holds by construction: a row's numbers come from its own games alone (its bootstrap
is seeded by the row's name), and places, ranges and tiers are counted among the maintainers'
rows only; a contributor's row is given the place it would take among them (as
boards.rank_ranges does for the ratings).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from runner.suite_score import interval, resampled_means, rng, score
from site_builder.scoring.model import ScoredGame
from site_builder.scoring.stats import RESAMPLES



def shipped_stage_deals() -> dict[str, dict[str, int]]:
    """Per shipped suite (`<name>-<version>`), each game's deals per stage."""
    from runner import suite as suites

    out: dict[str, dict[str, int]] = {}
    for name, versions in suites.shipped_suites().items():
        for version in versions:
            found = suites.find(f"{name}-{version}")
            out[f"{found.name}-{found.version}"] = {g.game: g.deals_per_stage for g in found.games}
    return out


def suite_of(game: ScoredGame) -> str | None:
    """`<name>-<version>` of the suite a game is a deal of, or None."""
    suite = game.suite
    return f"{suite['name']}-{suite['version']}" if suite else None


def outcomes(games: Iterable[ScoredGame]) -> dict[str, dict[str, Any]]:
    """Per row (the suite tournament: `<suite>-<label>`): its suite, candidate agents and, per
    game, {deal index: 1.0 won or 0.0 lost}. A game the candidate forfeited is lost; one another
    seat forfeited tells nothing about the candidate and is left out."""
    rows: dict[str, dict[str, Any]] = {}
    for game in games:
        if not game.suite:
            continue
        seat = game.seats[game.suite["seat"]]
        if not game.valid and game.forfeiter != seat.agent:
            continue
        row = rows.setdefault(game.tournament, {"suite": suite_of(game), "agents": {}, "deals": {}, "forfeits": 0})
        row["agents"][game.game] = seat.agent
        row["deals"].setdefault(game.game, {})[int(game.suite["deal"])] = 1.0 if seat.won and game.valid else 0.0
        row["forfeits"] += not game.valid
    return rows


def paired(a: Mapping[str, Mapping[int, float]], b: Mapping[str, Mapping[int, float]], *, seed: int,
           names: tuple[str, str], resamples: int = RESAMPLES) -> dict[str, Any] | None:
    """Row a minus row b on the deals both played: the mean over games of each game's mean paired
    difference, its bootstrap interval (the common deals resampled within each game), and how
    many deals it rests on; None when they share no deal."""
    generator = rng(seed, "paired", *names)
    means, draws, common = [], [], 0
    for game in sorted(set(a) & set(b)):
        shared = sorted(set(a[game]) & set(b[game]))
        if not shared:
            continue
        diffs = np.array([a[game][d] - b[game][d] for d in shared])
        means.append(float(diffs.mean()))
        draws.append(resampled_means(diffs, generator, resamples))
        common += len(shared)
    if not means:
        return None
    low, high = interval(np.mean(draws, axis=0))
    return {"difference": float(np.mean(means)), "ci": [low, high], "deals": common,
            "separated": low > 0 or high < 0}


def wanted_stages(comparison: Mapping[str, Any], stage_deals: int) -> int | None:
    """Stages more that would be expected to separate two rows not yet separated: the interval's
    half-width shrinks with the square root of the deals, so it reaches the difference seen after
    deals x (half-width / difference)^2. None if they are separated, or no difference is seen."""
    if comparison["separated"] or comparison["difference"] == 0:
        return None
    half = (comparison["ci"][1] - comparison["ci"][0]) / 2
    needed = comparison["deals"] * (half / abs(comparison["difference"])) ** 2
    return max(1, math.ceil((needed - comparison["deals"]) / stage_deals))


def board(games: Sequence[ScoredGame], owners: Mapping[str, Any], stage_deals: Mapping[str, Mapping[str, int]], *,
          seed: int, resamples: int = RESAMPLES) -> dict[str, Any]:
    """The ranked board's rows (best first) with places, rank ranges, tiers and wanted stages.

    `owners` maps a row (its tournament) to its owner entry (None or absent: the maintainers');
    `stage_deals` gives, per suite, each game's deals per stage (runner/suite.py). Only rows that
    played at least one whole stage of every game of their suite are ranked; the others are listed
    with what they lack."""
    rows = []
    for name, row in sorted(outcomes(games).items()):
        per_stage = stage_deals.get(row["suite"]) or {}
        stages = min((len(row["deals"].get(g, {})) // n for g, n in per_stage.items()), default=0)
        entry = {"row": name, "suite": row["suite"], "label": name[len(row["suite"]) + 1:],
                 "agents": row["agents"], "owner": owners.get(name), "stages": stages,
                 "forfeits": row["forfeits"], "deals": {g: sorted(d.items()) for g, d in row["deals"].items()}}
        if per_stage and stages >= 1:
            entry["score"] = score(row["deals"], seed=seed, name=name, resamples=resamples)
        else:
            missing = sorted(set(per_stage) - set(row["deals"])) if per_stage else []
            entry["unranked"] = (f"no whole stage yet (missing {', '.join(missing)})" if missing
                                 else "no whole stage yet" if per_stage else f"{row['suite']} is not a shipped suite")
        rows.append(entry)
    ranked = [r for r in rows if "score" in r]
    ranked.sort(key=lambda r: (-r["score"]["value"], r["row"]))
    _standings(ranked, stage_deals, seed=seed, resamples=resamples)
    return {"rows": ranked + [r for r in rows if "score" not in r], "stage_deals": dict(stage_deals)}


def _standings(rows: list[dict[str, Any]], stage_deals: Mapping[str, Mapping[str, int]], *, seed: int,
               resamples: int) -> None:
    """Place, best and worst rank, tier and wanted stages of each ranked row, counted against the
    maintainers' rows of its suite only (so a contributor's row moves no other)."""
    deals = {r["row"]: {g: dict(d) for g, d in r["deals"].items()} for r in rows}

    def compare(a: str, b: str) -> dict[str, Any] | None:
        return paired(deals[a], deals[b], seed=seed, names=(a, b), resamples=resamples)

    by_suite: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_suite.setdefault(row["suite"], []).append(row)
    for suite, members in by_suite.items():
        ours = [r for r in members if not r["owner"]]  # already best first
        size = sum(stage_deals.get(suite, {}).values()) or 1
        tier, previous = 0, None
        for row in ours:  # a new tier where a row is surely below the one above it
            if previous is None or (c := compare(previous["row"], row["row"])) is None or c["separated"]:
                tier += 1
            row["tier"] = tier
            previous = row
        for row in members:
            mine = not row["owner"]
            row.setdefault("tier", None)  # a contributor's row is placed among the tiers, never in one
            others = [o for o in ours if o is not row]
            against = {o["row"]: compare(row["row"], o["row"]) for o in others}
            better = sum(1 for c in against.values() if c and c["separated"] and c["difference"] < 0)
            worse = sum(1 for c in against.values() if c and c["separated"] and c["difference"] > 0)
            place = (ours.index(row) + 1 if mine
                     else 1 + sum(1 for o in ours if o["score"]["value"] > row["score"]["value"]))
            row["place"], row["best"], row["worst"] = place, 1 + better, len(others) + 1 - worse
            neighbours = [o for o in others if not against[o["row"]] or not against[o["row"]]["separated"]]
            wanted = [(s, o["row"]) for o in neighbours if against[o["row"]]
                      and (s := wanted_stages(against[o["row"]], size)) is not None]
            row["wanted"] = {"stages": min(wanted)[0], "against": min(wanted)[1]} if wanted else None
            row["compared"] = {o: c for o, c in against.items() if c}
