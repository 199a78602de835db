"""The MAgIC metrics per agent (MAgIC section 3.3 and appendix A.2, and its metric sheet): win rates, seven abilities,
the radar area and vanilla-vs-enhanced comparisons, all recomputed from re-simulated games.

Each game is first reduced to one tally per agent (counts of credits, votes, deductions...); every
metric is then a function of summed tallies, so a bootstrap resample of games is just a resample
of tally rows. docs/metrics/magic.md gives the formulas, their sources and every interpretation.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import ttest_ind

from runner import games
from runner.games import chameleon as chameleon_rules
from runner.games import undercover as undercover_rules
from site_builder.scoring import magic_reference as reference
from site_builder.scoring.model import AgentInfo, ScoredGame, SeatInfo, games_by_agent
from site_builder.scoring.sections import Keep, compute
from site_builder.scoring.stats import percentile_interval, rate, resampled_totals

MAGIC_GAMES = tuple(name for name in games.available() if games.facts_of(name).magic)  # the five, FACTS.magic
ROLES = ("chameleon", "non_chameleon", "undercover", "civilian", "cost_sharing", "prisoners_dilemma",
         "public_good")
AXES = ("judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination", "rationality")
LAMBDA = 0.25  # weight of wrong second-chance guesses in Deception (MAgIC eq. 4)
MU = 0.6  # weight of The Chameleon in Self-awareness (MAgIC eq. 5)
ALPHA = 0.05  # significance level of the vanilla-vs-enhanced tests

# MAgIC credits per outcome, (hidden role, each seat of the other side), beside each game's rules.
CHAMELEON_CREDITS = chameleon_rules.MAGIC_CREDITS
UNDERCOVER_CREDITS = undercover_rules.MAGIC_CREDITS
MAX_CREDIT = {"chameleon": 2, "non_chameleon": 2, "undercover": 3, "civilian": 3, "cost_sharing": 1,
              "prisoners_dilemma": 1, "public_good": 1}
FULL_AREA = 3.5 * math.sin(2 * math.pi / 7)  # the radar polygon with every axis at 1


@dataclass(frozen=True)
class Part:
    """One ratio inside a metric: `ok` / (`per_unit` x `n`), weighted by `weight`."""

    name: str
    ok: str
    n: str
    weight: float = 1.0
    per_unit: float = 1.0


@dataclass(frozen=True)
class Metric:
    """A pooled rate (sum ok / sum n over parts) or a weighted composite scaled by its maximum."""

    name: str
    composite: bool
    parts: tuple[Part, ...]

    @property
    def units(self) -> tuple[str, ...]:
        return tuple(p.n for p in self.parts)


WIN_RATE = Metric("win_rate", True, tuple(
    Part(r, f"credit_{r}", f"units_{r}", per_unit=MAX_CREDIT[r]) for r in ROLES))
METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("judgement", False, (Part("votes", "votes_ok", "votes"),)),
    Metric("reasoning", False, (Part("gold", "gold_ok", "gold"), Part("inter", "inter_ok", "inter"))),
    Metric("deception", True, (Part("blend", "deceive_ok", "deceive"),
                               Part("wrong_guesses", "wrong_guesses", "guesses", weight=LAMBDA))),
    Metric("self_awareness", True, (Part("chameleon", "self_c_ok", "self_c", weight=MU),
                                    Part("undercover", "self_u_ok", "self_u"))),
    Metric("cooperation", False, (Part("games", "cs_success", "cs_games"),)),
    Metric("coordination", False, (Part("successes", "proposed", "successes"),)),
    Metric("rationality", True, (Part("prisoners_dilemma", "defections", "pd_rounds"),
                                 Part("public_good", "least", "pg_rounds"))),
)}
FIELDS = tuple(dict.fromkeys(
    [f for m in (WIN_RATE, *METRICS.values()) for p in m.parts for f in (p.ok, p.n)]
    + ["strict_prisoners_dilemma", "strict_public_good"] + list(reference.FIELDS)))
#: The two readings of the MAgIC metrics: the paper's formulas (MAgIC) and its authors' script.
READINGS = ("paper", "reference")
COLUMN = {f: i for i, f in enumerate(FIELDS)}
#: The paper reading's fields come first: its bootstrap resamples these columns only, so that the
#: reference reading's extra counts do not split the distinct rows it draws from differently.
PAPER_WIDTH = len(FIELDS) - len(reference.FIELDS)


# -- per-game tallies ------------------------------------------------------------------------

PIECE = "magic"


def game_tallies(game: ScoredGame) -> dict[str, dict[str, float]]:
    """Every agent's tally of one game, without its zeros (what the digest keeps)."""
    return {key: {f: v for f, v in tally(game, key).items() if v}
            for key in sorted({s.agent for s in game.seats})} if game.game in MAGIC_GAMES else {}


def tally_row(game: ScoredGame, agent: str) -> np.ndarray:
    """An agent's tally of one game as a row of FIELDS (from the game's digest when it has one)."""
    sparse = game.piece(PIECE, game_tallies).get(agent, {})
    row = np.zeros(len(FIELDS))
    for name, amount in sparse.items():
        row[COLUMN[name]] = amount
    return row


def tally(game: ScoredGame, agent: str) -> dict[str, float]:
    """What one MAgIC game contributes to one agent's metrics (zeros where it adds nothing).

    A game the agent forfeited is a loss in every role it held there (credit 0 out of the role's
    units); it adds nothing to the other metrics. Another agent's forfeit adds nothing at all.
    """
    t = dict.fromkeys(FIELDS, 0.0)
    seats = game.seats_of(agent)
    if not seats or not game.counts_for(agent):
        return t
    if not game.valid:
        _forfeited(game, seats, t)
        return t
    if game.game == "chameleon":
        _hidden_role(game, seats, t, "chameleon", "non_chameleon", game.result["chameleon"], CHAMELEON_CREDITS)
        if any(s.role == "non_chameleon" for s in seats) and game.result["guess"] is not None:
            # Deception's second term: the opposing chameleon's second-chance guess.
            t["guesses"] += 1
            t["wrong_guesses"] += not game.result["guess_correct"]
        _self_role(game, seats, t, "self_c")
    elif game.game == "undercover":
        _hidden_role(game, seats, t, "undercover", "civilian", game.result["undercover"], UNDERCOVER_CREDITS)
        _self_role(game, seats, t, "self_u")
    elif game.game == "cost_sharing":
        _cost_sharing(game, seats, t)
    elif game.game == "prisoners_dilemma":
        _prisoners_dilemma(game, seats, t)
    elif game.game == "public_good":
        _public_good(game, seats, t)
    return t


def _forfeited(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float]) -> None:
    """The credit units of a forfeited game, with no credit: counted as its results would be."""
    if game.game in ("chameleon", "undercover"):
        for role in {s.role for s in seats}:  # one unit per (game, agent, role), as in _hidden_role
            t[f"units_{role}"] += 1
    else:  # the three public games count one unit per seat
        t[f"units_{game.game}"] += len(seats)


def _hidden_role(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float], hidden: str, side: str,
                 target: int, credits: Mapping[str, tuple[int, int]]) -> None:
    """Credits, votes, deductions and blending of a Chameleon or Undercover game."""
    hidden_credit, side_credit = credits[game.result["magic_outcome"]]
    roles = {s.role for s in seats}
    # One unit per (game, agent, role): several seats of one side share one outcome.
    if hidden in roles:
        t[f"units_{hidden}"] += 1
        t[f"credit_{hidden}"] += hidden_credit
    if side in roles:
        t[f"units_{side}"] += 1
        t[f"credit_{side}"] += side_credit
    votes = game.result["votes"]
    for s in seats:
        if s.role == side:
            t["votes"] += 1
            t["votes_ok"] += votes[s.seat] == target
        else:
            t["deceive"] += 1
            t["deceive_ok"] += s.won
    _reasoning(game, seats, t, side, target)
    reference.add_tally(game, seats, t)


def well_posed(game: ScoredGame, probe: Mapping[str, Any]) -> bool:
    """Whether the probe asked its seat something its role did not already answer (replays of
    earlier runners also asked the chameleon who the chameleon is, and everyone their told role)."""
    return games.get(game.game).asks(game.role_of(probe["seat"]), probe["probe"])


def _reasoning(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float], side: str, target: int) -> None:
    """First-order answers against the truth, second-order ones against the other seat's own answer.

    First-order: a non-chameleon's or civilian's suspect, and the chameleon's guess of the secret
    word (its first-order deduction in MAgIC's PGM prompt); the undercover's suspect cannot name
    itself, so it is not counted either.

    One rule for both orders: an answer its seat was not asked (the chameleon's "who is the
    chameleon" in replays of earlier runners) is never read, so it is no yardstick for the
    others' guesses about that seat either; those guesses are left out, as when it is absent.
    """
    suspects = {(p["after"], p["seat"]): p["answer"]["seat"] for p in game.probes
                if p["probe"] == "suspect" and well_posed(game, p)}
    mine = {s.seat for s in seats}
    for p in game.probes:
        if p["seat"] not in mine or not well_posed(game, p):
            continue
        answer = p["answer"]
        if p["probe"] == "suspect" and game.role_of(p["seat"]) == side:
            t["gold"] += 1
            t["gold_ok"] += answer["seat"] == target
        elif p["probe"] == "secret":
            t["gold"] += 1
            t["gold_ok"] += answer["word"] == game.setup["secret"]
        elif p["probe"] == "suspect_of" and (p["after"], answer["of"]) in suspects:
            t["inter"] += 1
            t["inter_ok"] += suspects[(p["after"], answer["of"])] == answer["seat"]


def _self_role(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float], prefix: str) -> None:
    mine = {s.seat for s in seats}
    for p in game.probes:
        if p["probe"] == "self_role" and p["seat"] in mine and well_posed(game, p):
            t[prefix] += 1
            t[f"{prefix}_ok"] += p["answer"]["role"] == game.role_of(p["seat"])


def _cost_sharing(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float]) -> None:
    success = bool(game.result["success"])
    t["units_cost_sharing"] += len(seats)  # the role's win rate counts seats
    t["credit_cost_sharing"] += success * len(seats)
    t["cs_games"] += 1  # Cooperation and Coordination count games
    t["cs_success"] += success
    if success:
        t["successes"] += 1
        # Under `agreement = "same_split"` equal splits of several airlines may be agreed: each of
        # them made the agreed proposal.
        proposers = game.result.get("agreed_proposers", [game.result["agreed_proposer"]])
        t["proposed"] += any(s.seat in proposers for s in seats)
    reference.add_cost_sharing(game, seats, t)


def _prisoners_dilemma(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float]) -> None:
    _player_wins(game, seats, t, "prisoners_dilemma")
    rounds = [e["data"]["choices"] for e in game.events if e["kind"] == "info" and e["phase"] == "round_result"]
    for s in seats:
        t["pd_rounds"] += game.variant["rounds"]
        t["defections"] += sum(choices[s.seat] == "defect" for choices in rounds)


def _public_good(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float]) -> None:
    _player_wins(game, seats, t, "public_good")
    for s in seats:
        t["pg_rounds"] += game.variant["rounds"]
        # Ties for the least all count: each tied seat gave no more than anyone.
        t["least"] += sum(c[s.seat] == min(c) for c in game.result["contributions"])


def _player_wins(game: ScoredGame, seats: list[SeatInfo], t: dict[str, float], role: str) -> None:
    for s in seats:
        t[f"units_{role}"] += 1
        t[f"credit_{role}"] += s.won  # ties for the highest total are wins for each
        t[f"strict_{role}"] += game.result["strict_winner"] == s.seat


# -- metrics of summed tallies ---------------------------------------------------------------
# Each function takes totals as a matrix (one row per set of summed tallies: a game, the whole
# corpus, or a bootstrap resample) and gives one value per row, NaN where it is undefined.

def _part_ratios(part: Part, totals: np.ndarray) -> np.ndarray:
    n = totals[:, COLUMN[part.n]] * part.per_unit
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, totals[:, COLUMN[part.ok]] / n, np.nan)


def composites(metric: Metric, totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(raw, scaled) of a weighted composite over the parts present in each row."""
    ratios = np.stack([_part_ratios(p, totals) for p in metric.parts], axis=1)
    weights = np.array([p.weight for p in metric.parts])
    present = ~np.isnan(ratios)
    raw = np.where(present, ratios, 0.0) @ weights
    divisor = present @ weights
    any_part = present.any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(any_part, raw, np.nan), np.where(any_part, raw / divisor, np.nan)


def values(metric: Metric, totals: np.ndarray) -> np.ndarray:
    """The metric's value in [0, 1] per row (a pooled rate, or a composite's scaled value)."""
    if metric.composite:
        return composites(metric, totals)[1]
    ok = sum(totals[:, COLUMN[p.ok]] for p in metric.parts)
    n = sum(totals[:, COLUMN[p.n]] for p in metric.parts)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, ok / n, np.nan)


def _row(t: Mapping[str, float]) -> np.ndarray:
    return np.array([[t[f] for f in FIELDS]], dtype=float)


def _scalar(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def composite(metric: Metric, t: Mapping[str, float]) -> tuple[float, float] | None:
    """(raw, scaled) of a weighted composite over the parts present; None if none is."""
    raw, scaled = (v[0] for v in composites(metric, _row(t)))
    return None if math.isnan(raw) else (float(raw), float(scaled))


def value(metric: Metric, t: Mapping[str, float]) -> float | None:
    """The metric's value in [0, 1] (a pooled rate, or a composite's scaled value)."""
    return _scalar(values(metric, _row(t))[0])


def radar_area(radii: Sequence[float]) -> float:
    """Area of the radar polygon with these radii on equally spaced axes, in axis order."""
    return float(radar_areas(np.array([radii], dtype=float))[0])


def radar_areas(radii: np.ndarray) -> np.ndarray:
    """The radar polygon's area per row of radii (one column per axis)."""
    k = radii.shape[1]
    return 0.5 * math.sin(2 * math.pi / k) * (radii * np.roll(radii, -1, axis=1)).sum(axis=1)


def _totals(row: np.ndarray) -> dict[str, float]:
    return dict(zip(FIELDS, row.tolist()))


def _bootstrap_ci(rows: np.ndarray, metrics: Sequence[Metric], statistic: Callable[[np.ndarray], np.ndarray],
                  seed: int) -> list[float] | None:
    """Percentile interval over resampled games of `statistic(totals)` (vectorised over resamples).

    Resamples missing a part that the full data has (or having one it lacks) are skipped, so
    every resample averages the same roles / parts as the reported value.
    """
    if len(rows) == 0:
        return None
    rows = rows[:, :PAPER_WIDTH]
    units = [COLUMN[f] for m in metrics for f in m.units]
    shape = rows[:, units].sum(axis=0) > 0
    totals = resampled_totals(rows, seed=seed)
    same = ((totals[:, units] > 0) == shape).all(axis=1)
    ci = percentile_interval(np.where(same, statistic(totals), np.nan))
    return None if ci is None else [ci[0], ci[1]]


def _rows_for(rows: np.ndarray, metrics: Sequence[Metric]) -> np.ndarray:
    """The tally rows (games) that feed any unit of these metrics."""
    units = [COLUMN[f] for m in metrics for f in m.units]
    return rows[rows[:, units].sum(axis=1) > 0]


# -- per-agent report ------------------------------------------------------------------------

def _rate_of(part: Part, t: Mapping[str, float]) -> dict[str, Any] | None:
    return rate(t[part.ok] / part.per_unit, round(t[part.n]))


def _report_rate(metric: Metric, rows: np.ndarray, t: Mapping[str, float]) -> dict[str, Any] | None:
    n = round(sum(t[p.n] for p in metric.parts))
    out = rate(sum(t[p.ok] for p in metric.parts), n)
    if out is None:
        return None
    out["games"] = len(_rows_for(rows, [metric]))
    if len(metric.parts) > 1:
        out["parts"] = {p.name: _rate_of(p, t) for p in metric.parts}
    return out


def _report_composite(metric: Metric, rows: np.ndarray, t: Mapping[str, float], seed: int) -> dict[str, Any] | None:
    both = composite(metric, t)
    if both is None:
        return None
    used = _rows_for(rows, [metric])
    present = [p for p in metric.parts if t[p.n] > 0]
    return {
        "raw": both[0], "scaled": both[1],
        "ci": _bootstrap_ci(used, [metric], lambda totals: values(metric, totals), seed),
        "n": len(used),
        "max": sum(p.weight for p in present),  # the divisor that scales raw into [0, 1]
        "parts": {p.name: (None if t[p.n] == 0 else {**_rate_of(p, t), "weight": p.weight})
                  for p in metric.parts},
    }


def _roles(t: Mapping[str, float]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in WIN_RATE.parts:
        entry = _rate_of(part, t)
        if entry is not None:
            entry.update(credits=t[part.ok], max_credit=part.per_unit)
            if part.name in ("prisoners_dilemma", "public_good"):
                entry["strict"] = rate(t[f"strict_{part.name}"], round(t[part.n]))
        out[part.name] = entry
    return out


def _win_rate(rows: np.ndarray, t: Mapping[str, float], seed: int) -> dict[str, Any] | None:
    mean = value(WIN_RATE, t)
    if mean is None:
        return None
    played = [p.name for p in WIN_RATE.parts if t[p.n] > 0]
    used = _rows_for(rows, [WIN_RATE])
    return {"value": mean, "ci": _bootstrap_ci(used, [WIN_RATE], lambda totals: values(WIN_RATE, totals), seed),
            "n": len(used), "roles": played, "roles_played": len(played), "roles_total": len(ROLES)}


def _radar_values(t: Mapping[str, float]) -> list[float | None]:
    return [value(METRICS[a], t) for a in AXES]


def _radar(rows: np.ndarray, t: Mapping[str, float], seed: int) -> dict[str, Any]:
    radii = _radar_values(t)
    out: dict[str, Any] = {"axes": list(AXES), "values": radii, "full_area": FULL_AREA,
                           "area": None, "relative_area": None}
    if any(v is None for v in radii):
        return out
    axes = [METRICS[a] for a in AXES]
    used = _rows_for(rows, axes)
    area = radar_area(radii)  # type: ignore[arg-type]
    ci = _bootstrap_ci(used, axes, lambda totals: radar_areas(np.stack([values(m, totals) for m in axes], axis=1)),
                       seed)
    out["area"] = {"value": area, "ci": ci, "n": len(used)}
    out["relative_area"] = {"value": area / FULL_AREA, "ci": None if ci is None else [c / FULL_AREA for c in ci],
                            "n": len(used)}
    return out


def _reference_radar(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The radar of a reference-reading entry: its seven values (Deception scaled by 1 + lambda);
    no interval (the script's Deception is no sum of per-game tallies to resample)."""
    radii = [None if entry[a] is None else entry[a]["scaled"] if "scaled" in entry[a] else entry[a]["value"]
             for a in AXES]
    out: dict[str, Any] = {"axes": list(AXES), "values": radii, "full_area": FULL_AREA,
                           "area": None, "relative_area": None}
    if all(v is not None for v in radii):
        area = radar_area(radii)  # type: ignore[arg-type]
        out["area"] = {"value": area, "ci": None, "n": None}
        out["relative_area"] = {"value": area / FULL_AREA, "ci": None, "n": None}
    return out


def _games_with(rows: np.ndarray, fields: Sequence[str]) -> int:
    return int((rows[:, [COLUMN[f] for f in fields]].sum(axis=1) > 0).sum()) if len(rows) else 0


def reference_report(rows: np.ndarray, paper: Mapping[str, Any]) -> dict[str, Any]:
    """The reference-code reading of one agent (magic_reference.py), beside its paper reading."""
    t = _totals(rows.sum(axis=0) if len(rows) else np.zeros(len(FIELDS)))
    games = {"reasoning": _games_with(rows, ["ref_gold"]),
             "self_awareness": _games_with(rows, ["ref_self_c", "ref_self_u"]),
             "rationality": _games_with(rows, ["pd_rounds", "pg_rounds"])}
    return reference.report(t, games, paper, _reference_radar)


def agent_report(rows: np.ndarray, forfeits: int, left_out: int, seed: int) -> dict[str, Any]:
    """Every MAgIC number of one agent from its tally rows (one per counted game, game_id order):
    its complete games and those it forfeited; `left_out` games another agent forfeited."""
    t = _totals(rows.sum(axis=0) if len(rows) else np.zeros(len(FIELDS)))
    out: dict[str, Any] = {"games": {"counted": len(rows), "forfeits": forfeits, "left_out": left_out},
                           "roles": _roles(t),
                           "win_rate": _win_rate(rows, t, seed)}
    for name, metric in METRICS.items():
        out[name] = (_report_composite(metric, rows, t, seed) if metric.composite
                     else _report_rate(metric, rows, t))
    out["radar"] = _radar(rows, t, seed)
    return out


# -- vanilla vs enhanced ---------------------------------------------------------------------

def per_game_values(metric: Metric, rows: np.ndarray) -> list[float]:
    """The metric computed on each game alone (games where it is undefined are left out)."""
    per_game = values(metric, rows.reshape(len(rows), len(FIELDS)))
    return per_game[~np.isnan(per_game)].tolist()


def welch(enhanced: Sequence[float], vanilla: Sequence[float]) -> tuple[float | None, float | None]:
    """Welch's t statistic and two-sided p-value (t > 0 when enhanced is higher).

    Both samples constant: equal means give no test (None, None); different means are the
    limit of the test as the variances vanish (t infinite, reported None; p = 0).
    """
    if len(set(enhanced)) == 1 and len(set(vanilla)) == 1:
        return (None, None) if enhanced[0] == vanilla[0] else (None, 0.0)
    with warnings.catch_warnings():
        # Nearly constant samples make scipy warn about precision; the result is still usable.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = ttest_ind(enhanced, vanilla, equal_var=False)
    t, p = float(result.statistic), float(result.pvalue)
    return (t if math.isfinite(t) else None), (p if math.isfinite(p) else None)


def _compare(vanilla: np.ndarray, enhanced: np.ndarray, reports: tuple[dict, dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for metric in (WIN_RATE, *METRICS.values()):
        van, enh = per_game_values(metric, vanilla), per_game_values(metric, enhanced)
        if len(van) < 2 or len(enh) < 2:
            continue
        # The headline value: a composite's scaled value, else the rate (or Win Rate) itself.
        agg = [e["scaled"] if "scaled" in e else e["value"] for e in (r[metric.name] for r in reports)]
        t, p = welch(enh, van)
        out[metric.name] = {
            "vanilla": agg[0], "enhanced": agg[1], "difference": agg[1] - agg[0],
            "mean_vanilla": sum(van) / len(van), "mean_enhanced": sum(enh) / len(enh),
            "t": t, "p_value": p, "n_vanilla": len(van), "n_enhanced": len(enh),
            "significant": p is not None and p < ALPHA,
        }
    return out


def _comparisons(keys: Sequence[str], agents: Mapping[str, AgentInfo], mine: Mapping[str, list[ScoredGame]],
                 rows: Callable[[str], np.ndarray], reports: Mapping[str, dict[str, Any]], keep: Keep
                 ) -> list[dict[str, Any]]:
    by_model: dict[str, list[str]] = {}
    for key in keys:
        if key in agents:
            by_model.setdefault(agents[key].base_key, []).append(key)
    out = []
    for base, members in sorted(by_model.items()):
        vanilla = [k for k in members if agents[k].design == "vanilla"]
        if len(vanilla) != 1:
            continue
        for key in sorted(k for k in members if agents[k].design != "vanilla"):
            # A comparison reads the two agents' games only: kept while neither has new ones.
            metrics = keep(f"magic/comparison/{vanilla[0]}/{key}", mine[vanilla[0]] + mine[key],
                           lambda: _compare(rows(vanilla[0]), rows(key), (reports[vanilla[0]], reports[key])))
            out.append({"model": base, "vanilla": vanilla[0], "enhanced": key, "design": agents[key].design,
                        "metrics": metrics})
    return out


# -- entry point -----------------------------------------------------------------------------

def magic(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          reading: str = "paper", keep: Keep = compute) -> dict[str, Any]:
    """Every MAgIC metric per agent in both readings, and the vanilla-vs-enhanced comparisons.

    `agents` holds the headline reading (`reading`), `alternative` the other one; the
    comparisons are of the paper reading (per-game values of the script's Deception are not
    defined: its lambda term is over the distinct outcomes of all games).

    Each agent's numbers read its own games only, and a comparison its two agents' games: `keep`
    may answer them from an earlier scoring (`scoring.sections`), so new games of one agent
    recompute that agent's report and comparisons, not every agent's.
    """
    if reading not in READINGS:
        raise ValueError(f"unknown MAgIC reading {reading!r}: expected one of {', '.join(READINGS)}")
    ordered = sorted((g for g in games if g.game in MAGIC_GAMES), key=lambda g: g.game_id)
    mine = games_by_agent(ordered)
    keys = sorted(mine)
    tallied: dict[str, np.ndarray] = {}

    def rows(key: str) -> np.ndarray:
        """The agent's tally rows, one per game it counts in (made when first needed)."""
        if key not in tallied:
            counted = [g for g in mine[key] if g.counts_for(key)]
            tallied[key] = np.array([tally_row(g, key) for g in counted]).reshape(len(counted), len(FIELDS))
        return tallied[key]

    def both_readings(key: str) -> dict[str, Any]:
        counted = [g for g in mine[key] if g.counts_for(key)]
        forfeits = sum(1 for g in counted if not g.valid)
        paper = agent_report(rows(key), forfeits, len(mine[key]) - len(counted), seed)
        return {"paper": paper, "reference": reference_report(rows(key), paper)}

    by_agent = {key: keep(f"magic/agent/{key}", mine[key], lambda: both_readings(key)) for key in keys}
    by_reading = {name: {key: by_agent[key][name] for key in keys} for name in READINGS}
    other = next(r for r in READINGS if r != reading)
    return {"reading": reading, "agents": by_reading[reading],
            "alternative": {"reading": other, "agents": by_reading[other]},
            "comparisons": _comparisons(keys, agents, mine, rows, by_reading["paper"], keep)}
