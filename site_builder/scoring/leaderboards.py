"""Per-game leaderboards and token accounting: who played, how often they won, what it cost."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from runner import games as registry
from site_builder.scoring import placeholders
from site_builder.scoring.model import AgentInfo, ScoredGame, SeatInfo, games_by_agent
from site_builder.scoring.ratings import cooperative
from site_builder.scoring.sections import Keep, compute
from site_builder.scoring.stats import bootstrap_mean, clustered_rate, rate


def _mean_with_ci(values: Sequence[float], seed: int) -> dict[str, Any] | None:
    if not values:
        return None
    ci = bootstrap_mean(values, seed=seed)
    return {"value": fmean(values), "ci": list(ci) if ci else None, "n": len(values)}


# A per-seat score worth showing beside the win rate, by game: (name, description, value).
SeatScore = Callable[[ScoredGame, SeatInfo], float | None]


def _points(game: ScoredGame, seat: SeatInfo) -> float:
    """The seat's points, in a game won by the most (the result's field its FACTS.points names)."""
    return game.result[registry.facts_of(game.game).points][seat.seat]


def _cs_share(game: ScoredGame, seat: SeatInfo) -> float | None:
    return game.result["agreed_split"][seat.seat] if game.result.get("success") else None


SEAT_SCORES: dict[str, tuple[str, str, SeatScore]] = {
    "prisoners_dilemma": ("mean_total", "mean points per game", _points),
    "public_good": ("mean_final", "mean final points", _points),
    "cost_sharing": ("mean_share", "mean agreed share of the fee, % (successful games)", _cs_share),
}


def leaderboards(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int) -> dict[str, Any]:
    """For each game: counts, and per agent its seats, wins by role (Wilson) and a game score."""
    by_game = games_by_name(games)
    return {name: board(name, by_game[name], agents, seed=seed) for name in registry.GAME_MODULES if by_game.get(name)}


def games_by_name(games: Sequence[ScoredGame]) -> dict[str, list[ScoredGame]]:
    """The games of each game (name -> games, in the given order)."""
    by_game: dict[str, list[ScoredGame]] = defaultdict(list)
    for game in games:
        by_game[game.game].append(game)
    return by_game


def board(name: str, games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          keep: Keep = compute) -> dict[str, Any]:
    """The leaderboard of game `name` from its (non-empty) `games`.

    An agent's row reads its own games only: `keep` may answer it from an earlier scoring
    (`scoring.sections`), so new games recompute the rows of the agents who played them.
    """
    played = sorted(games, key=lambda g: g.game_id)
    valid = [g for g in played if g.valid]
    mine = games_by_agent(played)

    def row(key: str) -> dict[str, Any]:
        return _row(name, key, agents[key], mine[key], conducts(mine[key])[key], seed)

    rows = [keep(f"leaderboards/{name}/{key}", mine[key], lambda: row(key)) for key in sorted(mine)]
    rows.sort(key=lambda r: (-(r["win_rate"]["value"] if r["win_rate"] else -1), r["label"]))
    score = SEAT_SCORES.get(name)
    return {
        "title": registry.get(name).title,
        "roles": list(registry.get(name).roles),
        "games": len(played), "valid": len(valid), "invalid": len(played) - len(valid),
        "valid_ratio": rate(len(valid), len(played)),
        "score": {"name": score[0], "label": score[1]} if score else None,
        "agents": rows,
    }


def conducts(games: Sequence[ScoredGame]) -> dict[str, dict[str, Any]]:
    """How reliably each agent played `games` (those it sat in): forfeits and re-asked decisions.

    forfeit_rate: games it forfeited / games it played. reask_rate: its decisions that needed
    more than one attempt / its decisions. left_out: games another agent forfeited.
    """
    return conduct_rates(conduct_counts(games))


def conduct_counts(games: Sequence[ScoredGame]) -> dict[str, list[int]]:
    """Per agent: [games, forfeits, left out, decisions, re-asked] in `games`. One pass over the
    games for every agent; counts of disjoint sets of games add up (`add_counts`)."""
    counts: dict[str, list[int]] = {}
    for g in games:
        forfeiter = None if g.valid else g.forfeiter
        for key in dict.fromkeys(s.agent for s in g.seats):
            c = counts.setdefault(key, [0, 0, 0, 0, 0])
            c[0] += 1
            if not g.valid:
                c[1] += forfeiter == key
                c[2] += forfeiter != key
        for s in g.seats:
            spent = g.usage[s.seat]
            c = counts[s.agent]
            c[3] += int(spent.get("decisions", 0))
            c[4] += int(spent.get("reasked", 0))
    return counts


def add_counts(parts: Iterable[Mapping[str, Sequence[int | float]]]) -> dict[str, list[int | float]]:
    """Per-agent tallies of disjoint sets of games, added up field by field (in the parts' order)."""
    total: dict[str, list[int | float]] = {}
    for part in parts:
        for key, counts in part.items():
            if key in total:
                total[key] = [a + b for a, b in zip(total[key], counts)]
            else:
                total[key] = list(counts)
    return total


def conduct_rates(counts: Mapping[str, Sequence[int]]) -> dict[str, dict[str, Any]]:
    """`conducts` from `conduct_counts`."""
    return {key: {"games": n, "forfeits": f, "left_out": out, "forfeit_rate": rate(f, n),
                  "decisions": d, "reask_rate": rate(r, d)} for key, (n, f, out, d, r) in counts.items()}


def _row(name: str, key: str, agent: AgentInfo, mine: list[ScoredGame], conduct: Mapping[str, Any],
         seed: int) -> dict[str, Any]:
    # A forfeit is a loss of every seat of the agent that forfeited; another's forfeit leaves the
    # game out of this agent's rates (docs/metrics.md, "Forfeits").
    counted = [g for g in mine if g.counts_for(key)]
    seats = [(g, s) for g in counted for s in g.seats_of(key)]
    row: dict[str, Any] = {
        "agent": key, "label": agent.label, "provider": agent.provider, "design": agent.design,
        **conduct,
        "seats": len(seats),
        # Games in which it held every seat: they rate nothing, and a win rate of them says little.
        "self_play_games": sum(1 for g in mine if all(s.agent == key for s in g.seats)),
        "win_rate": clustered_rate(tables(counted, key, cooperative(name))),
        "roles": {role: clustered_rate(tables(counted, key, cooperative(name), role))
                  for role in sorted({s.role for _, s in seats})},
        # Its clues and statements that copy the answer form (language-model agents; every game it
        # played, forfeited ones too: a move is a move).
        "placeholders": placeholders.share(*placeholders.agent_copies(mine, key)),
    }
    score = SEAT_SCORES.get(name)
    if score:
        values = [v for g, s in seats if g.valid and (v := score[2](g, s)) is not None]
        row[score[0]] = _mean_with_ci(values, seed)
    return row


def tables(games: Iterable[ScoredGame], key: str, together: bool, role: str | None = None) -> list[tuple[int, int]]:
    """Per game, (seats of `key` that won, its seats), of `role` only if given: the trials of its
    win rate, which `stats.clustered_rate` counts by game, since the seats of a table share their
    outcome more often than not. `together` (a cooperative game: every seat of a table wins or
    loses with the others) makes each game one trial, (won, 1): the outcome is the table's, once."""
    out = []
    for game in games:
        mine = [s for s in game.seats_of(key) if role is None or s.role == role]
        if mine:
            won = sum(s.won for s in mine)
            out.append((int(won > 0), 1) if together else (won, len(mine)))
    return out


#: What `usage_counts` adds up per agent, in order.
USAGE_FIELDS = ("games", "calls", "input_tokens", "output_tokens", "latency_ms")


def usage(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo]) -> dict[str, Any]:
    """Model calls, tokens and latency per agent, summed from the evidence in the replays."""
    return usage_report(usage_counts(games), agents)


def usage_counts(games: Sequence[ScoredGame]) -> dict[str, list[float]]:
    """Per agent: its games, calls, input and output tokens and latency (ms) in `games`."""
    totals: dict[str, list[float]] = {}
    for game in games:
        for seat, spent in zip(game.seats, game.usage):
            entry = totals.setdefault(seat.agent, [0, 0, 0, 0, 0.0])
            for i, name in enumerate(USAGE_FIELDS[1:], start=1):
                entry[i] += spent.get(name, 0)  # a cached game leaves zeros out
        for key in {s.agent for s in game.seats}:
            totals[key][0] += 1
    return totals


def usage_report(totals: Mapping[str, Sequence[float]], agents: Mapping[str, AgentInfo]) -> dict[str, Any]:
    """`usage` from `usage_counts` (agents that made no model call are left out)."""
    out = {}
    for key, values in sorted(totals.items()):
        entry = dict(zip(USAGE_FIELDS, values))
        if not entry["calls"]:
            continue  # scripted agents make no model calls: nothing to account for
        out[key] = {"label": agents[key].label, **entry,
                    "tokens_per_game": (entry["input_tokens"] + entry["output_tokens"]) / entry["games"],
                    "mean_latency_ms": entry["latency_ms"] / entry["calls"]}
    return out
