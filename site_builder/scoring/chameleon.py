"""The Chameleon metrics of the Chameleon paper: per-matchup rates (Figures 4-6) and posterior curves (Figure 7).

A matchup is a variant (N players, K words, clue mode, tie rule), the agent playing the
chameleon and the agent playing every non-chameleon seat ("mixed" if those seats differ).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from runner.agents.associative import Associations
from site_builder.scoring import posterior as post
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.sections import Keep, compute
from site_builder.scoring.stats import bootstrap_mean, rate

GAME = "chameleon"
MIXED = "mixed"
VARIANT_FIELDS = ("players", "words", "clue", "ties")


def variant_of(game: ScoredGame) -> dict[str, Any]:
    """The rule parameters that define a Chameleon matchup's variant."""
    return {f: game.variant[f] for f in VARIANT_FIELDS}


def variant_key(variant: Mapping[str, Any]) -> str:
    """A short stable name of a variant, e.g. "N4-K16-word-random"."""
    return f"N{variant['players']}-K{variant['words']}-{variant['clue']}-{variant['ties']}"


def variant_rank(variant: Mapping[str, Any]) -> tuple[Any, ...]:
    """Variants in display order: by N, then K, then clue mode and tie rule."""
    return tuple(variant[f] for f in VARIANT_FIELDS)


def sides(game: ScoredGame) -> tuple[str, str]:
    """(chameleon agent, non-chameleon agent or "mixed") of one game."""
    chameleon = game.setup["chameleon"]
    others = {s.agent for s in game.seats if s.seat != chameleon}
    return game.seats[chameleon].agent, (others.pop() if len(others) == 1 else MIXED)


def label(key: str, agents: Mapping[str, AgentInfo]) -> str:
    """The display label of an agent key ("mixed" and unknown keys are their own label)."""
    info = agents.get(key)
    return info.label if info is not None else key


def ordered(keys: set[str], agents: Mapping[str, AgentInfo]) -> list[str]:
    """Agent keys by label (then key), "mixed" last: one axis order for every heatmap."""
    return sorted(keys, key=lambda k: (k == MIXED, label(k, agents), k))


def chameleon_games(games: Sequence[ScoredGame]) -> list[ScoredGame]:
    """The Chameleon games, by game_id so that results never depend on input order."""
    return sorted((g for g in games if g.game == GAME), key=lambda g: g.game_id)


def cell_rates(games: Sequence[ScoredGame]) -> dict[str, Any]:
    """The Chameleon paper's four rates of one matchup (invalid games count only in the valid-game ratio).

    second_chance: among valid games where the chameleon was identified, the guess was right.
    """
    valid = [g for g in games if g.valid]
    identified = [g for g in valid if g.result["identified"]]
    return {
        "games": len(games),
        "valid_ratio": rate(len(valid), len(games)),
        "identification": rate(len(identified), len(valid)),
        "non_chameleon_win": rate(sum(g.result["magic_outcome"] == "non_chameleons_win" for g in valid),
                                  len(valid)),
        "second_chance": rate(sum(bool(g.result["guess_correct"]) for g in identified), len(identified)),
    }


Groups = dict[str, dict[tuple[str, str], list[ScoredGame]]]


def grouped(games: Sequence[ScoredGame]) -> Groups:
    """Chameleon games by variant key, then by (chameleon agent, non-chameleon agent).

    The matchups, the theory curves and the strategy checks all read this grouping: a caller
    with all three to make groups once and passes the groups (`groups=`) to each."""
    groups: dict[str, dict[tuple[str, str], list[ScoredGame]]] = defaultdict(lambda: defaultdict(list))
    for game in chameleon_games(games):
        groups[variant_key(variant_of(game))][sides(game)].append(game)
    return groups


def matchups(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
             groups: Groups | None = None) -> dict[str, Any]:
    """All-pairs matchup rates: The Chameleon paper's valid-game, identification, win and second-chance ratios.

    `cells` is one flat list (each cell names its variant); `variants` gives each variant's
    heatmap axes in display order. Wilson intervals only, so `seed` is unused.
    """
    cells, variants = [], []
    used: set[str] = set()
    groups = grouped(games) if groups is None else groups
    for key in sorted(groups, key=lambda k: variant_rank(variant_of(next(iter(groups[k].values()))[0]))):
        pairs = groups[key]
        variant = variant_of(next(iter(pairs.values()))[0])
        chameleons = {c for c, _ in pairs}
        non_chameleons = {n for _, n in pairs}
        used |= chameleons | non_chameleons
        order = ordered(chameleons | non_chameleons, agents)
        for c, n in sorted(pairs, key=lambda p: (order.index(p[0]), order.index(p[1]))):
            cells.append({"key": key, "variant": variant, "chameleon": c, "non_chameleon": n,
                          **cell_rates(pairs[(c, n)])})
        variants.append({
            "key": key, "variant": variant, "games": sum(len(g) for g in pairs.values()), "agents": order,
            "chameleon_agents": ordered(chameleons, agents), "non_chameleon_agents": ordered(non_chameleons, agents),
        })
    return {"cells": cells, "variants": variants, "labels": {k: label(k, agents) for k in ordered(used, agents)}}


def non_chameleon_clues(game: ScoredGame) -> list[Any]:
    """The non-chameleons' clues in playing order (the chameleon's own clue skipped, the Chameleon paper, Fig. 7)."""
    said = {e["seat"]: e["data"]["clue"] for e in game.events if e["kind"] == "action" and e["phase"] == "clue"}
    chameleon = game.setup["chameleon"]
    return [said[s] for s in game.setup["order"] if s != chameleon and s in said]


def game_curve(game: ScoredGame, table: Associations | None) -> list[tuple[float, list[float]]]:
    """(entropy in bits, top-k hit for k = 1..K) after m = 0..N-1 non-chameleon clues."""
    words = list(game.setup["card"]["words"])
    secret = words.index(game.setup["secret"])
    clues = non_chameleon_clues(game)
    points = []
    for m in range(len(clues) + 1):
        probs = post.posterior(game.variant["clue"], clues[:m], words, table)
        points.append((post.entropy_bits(probs), post.top_k_hits(probs, secret)))
    return points


PIECE = "posterior"


def shipped_curve(game: ScoredGame) -> list[tuple[float, list[float]]] | None:
    """`game_curve` with the shipped association table, for a valid Chameleon game (the digest keeps it)."""
    return game_curve(game, None) if game.game == GAME and game.valid else None


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def posterior_curves(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                     table: Associations | None = None, keep: Keep = compute) -> dict[str, Any]:
    """Posterior entropy and top-k accuracy of the secret after each non-chameleon clue (the Chameleon paper, Fig. 7).

    One curve per (variant, non-chameleon agent) over its valid games; `table` replaces the
    shipped association table (tests). Entropy intervals: seeded bootstrap over games. `keep`
    may answer a curve from an earlier scoring of the same games (`scoring.sections`).
    """
    groups: dict[tuple[str, str], list[ScoredGame]] = defaultdict(list)
    for game in chameleon_games(games):
        if game.valid:
            groups[(variant_key(variant_of(game)), sides(game)[1])].append(game)
    curves = []
    for (key, non_chameleon), group in groups.items():
        curves.append(keep(f"chameleon/posterior/{key}/{non_chameleon}", group,
                           lambda: _posterior_curve(key, non_chameleon, group, agents, seed=seed, table=table)))
    used = {k for c in curves for k in c["chameleon_agents"]} | {c["non_chameleon"] for c in curves}
    order = ordered(used, agents)
    curves.sort(key=lambda c: (variant_rank(c["variant"]), order.index(c["non_chameleon"])))
    return {"curves": curves, "labels": {k: label(k, agents) for k in order}}


def _posterior_curve(key: str, non_chameleon: str, group: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *,
                     seed: int, table: Associations | None) -> dict[str, Any]:
    """One curve of `posterior_curves`: a variant's valid games with one non-chameleon agent."""
    variant = variant_of(group[0])
    per_game = [g.piece(PIECE, shipped_curve) if table is None else game_curve(g, table) for g in group]
    n = len(per_game)
    # hits[m, k - 1]: games whose secret was among the top k after m clues (summed at once).
    hits = np.array([[point[1] for point in curve] for curve in per_game], dtype=float).sum(axis=0)
    points = []
    for m in range(variant["players"]):
        entropies = [curve[m][0] for curve in per_game]
        interval = bootstrap_mean(entropies, seed=seed)
        points.append({
            "m": m,
            "entropy": {"value": _mean(entropies), "ci": list(interval) if interval else None, "n": n},
            "top_k": [{"k": k, **rate(float(hits[m, k - 1]), n)} for k in range(1, variant["words"] + 1)],
        })
    return {
        "key": key, "variant": variant, "non_chameleon": non_chameleon,
        "chameleon_agents": ordered({sides(g)[0] for g in group}, agents), "games": n,
        "estimator": post.estimator(variant["clue"], table),
        "prior_bits": math.log2(variant["words"]), "points": points,
    }
