"""The rows of the leaderboards: who is ranked, in which place, with which range of places.

Pure functions of the results dict: the overall (exhibition) table, each game's table and its
head-to-head matrix, the ranked suite's rows and the home page's reading of them. The pages and
the charts order their rows with these, so a table and its chart cannot disagree.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from runner import games as registry
from runner.replay.format import agent_kind
from site_builder.pages.labels import AgentRef
from site_builder.scoring import head_to_head, ratings, stats
from site_builder.scoring.verification import counted as counted_row


#: An agent that forfeited more than this share of its games is never ranked across games: it
#: mostly did not play, and must not sit above agents that did.
MAX_FORFEIT_RANKED = 0.5


def forfeited_all(row: Mapping[str, Any]) -> bool:
    """Whether an agent forfeited every game of a board (a leaderboard row or an agent's entry):
    it never played, so every board lists it apart, below the others, with no place (a rating
    of forfeits alone could still sit above an agent that won games)."""
    games = row.get("games") or 0
    return games > 0 and (row.get("forfeits") or 0) >= games


def rated_games(results: Mapping[str, Any]) -> list[str]:
    """The games the overall table rates: every competitive game of the board (cooperative ones,
    ranked by their deal rate, are not rated)."""
    return sorted(results["ratings"].get("by_game", {}))


def why_unranked(agent: Mapping[str, Any], rated: Mapping[str, Any] | None, games: Sequence[str]) -> str | None:
    """Why an agent has no rank across games (None: it is ranked): the overall table ranks only
    agents that played every rated game, and that played more than they forfeited."""
    covered = [g for g in games if g in agent["by_game"]]
    if forfeited_all(agent):
        return "forfeited every game"
    if rated is None or not rated.get("rating_ci"):
        return "not rated: no game against another agent"
    if len(covered) < len(games):
        return f"played {len(covered)} of the {len(games)} rated games"
    forfeits = (agent.get("forfeit_rate") or {}).get("value") or 0.0
    if forfeits > MAX_FORFEIT_RANKED:
        return f"forfeited {forfeits:.0%} of its games"
    if ratings.provisional(rated):
        return provisional_why(rated)
    return None


def provisional_why(rated: Mapping[str, Any]) -> str:
    """Why a provisional rating row has no place, and how far its virtual draw pulls it."""
    pulled = rated.get("shrinkage")
    pull = f"; its one virtual draw pulls it {pulled:.0%} of the way to 1000" if pulled is not None else ""
    return f"provisional: {rated['games']} rated games of the {ratings.MIN_GAMES} a place needs{pull}"


def role_gaps(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The groups of a rating table's placed rows that the games cannot compare (`ratings.comparable`),
    as pairs of groups {"roles", "agents"} (agents in the rows' order) with `why`: "roles" where in
    some game both played they held no role in common, "linked" where the games do not tie them
    together at all (their difference rests on the virtual draws). The table claims no "above"
    between two such agents."""
    groups: dict[Any, dict[str, Any]] = {}
    for row in rows:
        if ratings.provisional(row) or not row.get("rating_ci"):
            continue
        group = groups.setdefault(ratings.signature(row), {"roles": sorted(row.get("roles") or {}), "agents": [],
                                                           "row": row})
        group["agents"].append(row["agent"])
    found = list(groups.values())
    out = []
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            if not ratings.comparable(a["row"], b["row"]):
                why = "roles" if not ratings.share_a_role(a["row"].get("roles") or {}, b["row"].get("roles") or {}) \
                    else "linked"
                out.append({"a": {k: a[k] for k in ("roles", "agents")}, "b": {k: b[k] for k in ("roles", "agents")},
                            "why": why})
    return out


def leaderboard_rows(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> list[dict[str, Any]]:
    """Rows of the overall leaderboard, best first: the agents ranked across games (every rated
    game played, most games not forfeited) by their place, then every other agent, by rating,
    with the reason it has no rank."""
    rated = {r["agent"]: r for r in results["ratings"].get("overall", {}).get("agents", [])}
    games = rated_games(results)
    why = {a["key"]: why_unranked(a, rated.get(a["key"]), games) for a in results["agents"]}
    ranges = rank_ranges([rated[a["key"]] for a in results["agents"] if why[a["key"]] is None])
    magic = results["magic"]["agents"]
    rows = []
    for agent in results["agents"]:
        key = agent["key"]
        rows.append({"ref": refs[key], "rating": rated.get(key), "rank": ranges.get(key), "unranked": why[key],
                     "forfeited_all": forfeited_all(agent),
                     "games": agent["games"], "win_rate": (magic.get(key) or {}).get("win_rate"),
                     "forfeit_rate": agent["forfeit_rate"], "reask_rate": agent["reask_rate"],
                     "provider": agent["provider"], "design": agent["design"],
                     "played": sorted(agent["by_game"]), "covered": sum(1 for g in games if g in agent["by_game"])})
    return sorted(rows, key=row_order)


def game_ranks(results: Mapping[str, Any], name: str) -> dict[str, tuple[int, int, int]]:
    """Each agent's rank in one game's table, as every board and the game's page show it: by the
    game's rating, or for a cooperative game (whose every comparison is a draw) by its seat win
    rate, which there is the share of its games whose table agreed (`rank_ranges` on either).
    An agent that forfeited every game of it has no rank, and counts in no other's range."""
    board = results["leaderboards"].get(name) or {}
    apart = {r["agent"] for r in board.get("agents", []) if forfeited_all(r)}
    if ratings.cooperative(name):
        rated = [r for r in board.get("agents", []) if r.get("win_rate") and r["agent"] not in apart]
        # Board-wide: each rate's Wilson interval at 95% / (the maintainers' rows), so that all hold at once.
        z = stats.bonferroni_z(sum(1 for r in rated if not r.get("owner")))
        rows = [{"agent": r["agent"], "rating": r["win_rate"]["value"], "rating_ci": r["win_rate"]["ci"],
                 "band": list(stats.wilson(r["win_rate"]["value"] * r["win_rate"]["n"], r["win_rate"]["n"], z) or ()),
                 "owner": r.get("owner")} for r in rated]
        return rank_ranges(rows)
    return rank_ranges([r for r in results["ratings"].get("by_game", {}).get(name, {}).get("agents", [])
                        if r["agent"] not in apart])


def ranked_by(name: str) -> str:
    """What a game's table is ranked by, in a sentence."""
    if ratings.cooperative(name):
        return ("Ranked by seat win rate: the seats of a table win or lose together, so a rating would compare "
                "only draws; here the win rate is the share of an agent's games whose airlines agreed on a split")
    return "Ranked by this game's rating, which takes out the advantage of the roles each agent was dealt"


def rank_ranges(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per agent of one rating table: its rank by rating, and the best and worst rank the table's
    board-wide intervals allow (1 + how many are surely better; the count of those not surely
    worse), as `ratings.surely_above` reads them: on each row's `band` (its rating_ci where a row
    has no band field), never between two rows the games cannot compare (`ratings.comparable`). A provisional row
    (`ratings.provisional`) has no rank.

    Ranks are places among the maintainers' rows: a contributor's row (one with an "owner",
    scoring/board.py) gets the place it would take among them, and never moves theirs or another
    contributor's. Counted by bisection in sorted bounds (`ratings.Sure`), so a table of N agents
    costs N log N, not N squared."""
    rated = [{**r, "band": r["band"] if "band" in r else r.get("rating_ci")} for r in rows
             if not ratings.provisional(r)]
    rated = [r for r in rated if r["band"]]
    ours = [r for r in rated if not r.get("owner")]
    order = sorted(ours, key=lambda r: -r["rating"])
    places = {id(r): place for place, r in enumerate(order, start=1)}
    descending = sorted(-r["rating"] for r in ours)
    sure = ratings.Sure(ours)
    out: dict[str, tuple[int, int, int]] = {}
    for row in rated:
        mine = id(row) in places
        place = places[id(row)] if mine else 1 + bisect.bisect_left(descending, -row["rating"])
        out[row["agent"]] = (place, 1 + sure.above(row), sure.count - sure.below(row) + (0 if mine else 1))
    return out


def self_play_only(row: Mapping[str, Any]) -> bool:
    """Whether an agent's row of a game rests on self-play alone (it held every seat of every game)."""
    return bool(row.get("games")) and row.get("self_play_games") == row["games"]


def game_rankings(results: Mapping[str, Any], refs: Mapping[str, AgentRef], games: Mapping[str, str]
                  ) -> list[dict[str, Any]]:
    """Each played game's agents ranked within that game by the game's own rating, then the
    unrated ones (the home page's line per game says who leads)."""
    out = []
    for name, title in games.items():
        board = results["leaderboards"].get(name)
        if not board:
            continue
        rated = results["ratings"].get("by_game", {}).get(name, {}).get("agents", [])
        by_agent = {r["agent"]: r for r in rated}
        ranges = game_ranks(results, name)
        rows = []
        for row in board["agents"]:
            key = row["agent"]
            rows.append({"ref": refs[key], "rating": by_agent.get(key), "rank": ranges.get(key),
                         "games": row["games"], "win_rate": row["win_rate"], "forfeit_rate": row["forfeit_rate"],
                         "self_play": self_play_only(row), "forfeited_all": forfeited_all(row)})
        rows.sort(key=lambda r: (r["forfeited_all"], r["rank"] is None, r["rank"][0] if r["rank"] else 0,
                                 r["ref"].display))
        out.append({"name": name, "title": title, "winning": registry.facts_of(name).winning, "rows": rows,
                    "games": board["games"], "ranked_by": ranked_by(name), "cooperative": ratings.cooperative(name)})
    return out


def ranked_rows(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> list[dict[str, Any]]:
    """The ranked board's rows as the home page shows them: a row named by its agent when one agent
    holds the candidate's seat in every game (linked to its page), else by its label; `reference`
    when built-in agents hold that seat in every game of a maintainers' row (a fixed point of the
    board, like random); `counted` when it takes a place among the maintainers' rows (theirs, or
    verified), `state` its status (scoring/verification.py)."""
    builtin = {a["key"] for a in results["agents"] if agent_kind(a) == "builtin"}
    out = []
    for row in (results.get("ranked") or {}).get("rows", []):
        agents = set(row["agents"].values())
        ref = refs.get(next(iter(agents))) if len(agents) == 1 else None
        status = row.get("status") or {"state": "self-reported" if row.get("owner") else "maintainers",
                                       "verification": None}
        out.append({"score": None, "unranked": None, "tier": None, "wanted": None, **row, "ref": ref,
                    "owner_label": (row.get("owner") or {}).get("label", ""),
                    "reference": bool(agents) and agents <= builtin and not row.get("owner"),
                    "status": status, "state": status["state"], "counted": counted_row({**row, "status": status})})
    return out


def ranked_reading(rows: Sequence[Mapping[str, Any]]) -> str:
    """One sentence on what the ranked board says of its first two counted rows (plain text)."""
    ranked = [r for r in rows if r.get("score") and r["counted"]]
    if not ranked:
        return ""
    first = ranked[0]
    name = first["ref"].display if first["ref"] else first["label"]
    said = f"{name} leads with a score of {first['score']['value'] * 100:.1f}%"
    if len(ranked) == 1:
        return said + "; no other row has played a whole stage yet."
    second = ranked[1]
    other = second["ref"].display if second["ref"] else second["label"]
    pair = first["compared"].get(second["row"])
    if pair and pair["separated"]:
        return (f"{said}, surely ahead of {other}: {pair['difference'] * 100:+.1f} points on the "
                f"{pair['deals']:,} deals both played [{pair['ci'][0] * 100:+.1f}, {pair['ci'][1] * 100:+.1f}], "
                "a claim that holds with the whole table's at 95%.")
    wanted = first.get("wanted")
    more = (f" if the gap seen is real, about {wanted['stages']} more stage{'s' if wanted['stages'] != 1 else ''} "
            "would tell them apart 4 times in 5" if wanted else "")
    return f"{said}, but the deals played cannot yet tell it from {other};{more or ' no difference is seen'}."


def row_order(row: Mapping[str, Any]) -> tuple:
    """Default leaderboard order: ranked across games by place, then the other rated agents by
    higher rating, then the unrated, each by label; those that forfeited every game last, apart."""
    rating = row["rating"]
    if row.get("forfeited_all"):
        return (3, 0, 0.0, row["ref"].display)
    if row.get("rank"):
        return (0, row["rank"][0], 0.0, row["ref"].display)
    if rating is None:
        return (2, 0, 0.0, row["ref"].display)
    return (1, 0, -rating["rating"], row["ref"].display)


def game_summaries(per_game: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The home page's line per game (from `game_rankings`): who leads the maintainers' rows of its
    board, and how sure that is in words: the range of places the leader's interval allows among
    them (as `rank_ranges` counts it). A contributor's row, placed among them on the game's page,
    neither leads here nor counts in "of N": the home page says what the maintainers' games say."""
    out = []
    for g in per_game:
        ranked = [r for r in g["rows"] if r["rank"] and not (r["ref"] is not None and r["ref"].submitted)]
        leader = ranked[0] if ranked else None
        if leader is None:
            sure = ""
        elif len(ranked) == 1:
            sure = "the only agent ranked so far"
        elif leader["rank"][2] == 1:
            sure = f"surely first of {len(ranked)}: its interval is above every other's"
        else:
            sure = f"could be anywhere from 1st to {ordinal(leader['rank'][2])} of {len(ranked)}"
        out.append({**g, "leader": leader, "sure": sure, "ranked": len(ranked)})
    return out


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

#: The head-to-head matrix of a game page shows at most this many agents a side, the first of the
#: game's board: its cells grow with the square of the agents, and past a dozen columns a phone
#: reads it one screen at a time. Every pair is in results.json (`head_to_head`).
MAX_MATRIX_AGENTS = 12


def matrix(results: Mapping[str, Any], name: str, order: Sequence[str],
           contributed: Collection[str] = frozenset()) -> dict[str, Any] | None:
    """A game page's head-to-head matrix: the first MAX_MATRIX_AGENTS agents of its board's
    `order` that met another agent, the maintainers' before the `contributed` ones (so rows a
    pull request adds only fill free places, never take one of theirs), and per (row, column) how
    often the row's agent beat the column's (`head_to_head.beats`, None where no game decided
    between them), the games both played (0: they never met) and `shaded`: "ahead" or "behind"
    where the pair's winner is sure over the matrix's pairs together (`head_to_head.sure`), else
    None. `tested`: the pairs the matrix tests; `chance`: how many cells each cell's own interval
    would shade among equal agents. None for a game without head-to-head results (cooperative)."""
    table = (results.get("head_to_head") or {}).get(name)
    if table is None:
        return None
    pairs = {(p["a"], p["b"]): p for p in table["pairs"]}
    met = {k for pair in pairs for k in pair}
    agents = [k for k in order if k in met]
    shown = sorted(agents, key=lambda k: k in contributed)[:MAX_MATRIX_AGENTS]  # stable: board order kept
    inside = set(shown)
    family = [p for (a, b), p in pairs.items() if a in inside and b in inside]
    sure = head_to_head.sure(family)
    tests = len(head_to_head.tested(family))

    def cell(row: str, column: str) -> dict[str, Any]:
        pair = pairs.get((row, column)) or pairs.get((column, row))
        if pair is None:
            return {"met": 0, "beats": None, "shaded": None}
        beats = head_to_head.beats(pair, row)
        shaded = None
        if (pair["a"], pair["b"]) in sure and beats is not None:
            shaded = "ahead" if beats["value"] > 0.5 else "behind"
        return {"met": pair["met"], "beats": beats, "shaded": shaded}

    return {"agents": shown, "total": len(agents), "tested": tests, "chance": head_to_head.chance_cells(tests),
            "min_decided": head_to_head.MIN_DECIDED,
            "cells": [[None if r == c else cell(r, c) for c in shown] for r in shown]}


def board_order(results: Mapping[str, Any], name: str, refs: Mapping[str, AgentRef]) -> list[Mapping[str, Any]]:
    """A game's leaderboard rows in its page's order: by rank, then the unranked, each by name, then
    those that forfeited every game (listed apart)."""
    board = results["leaderboards"].get(name) or {}
    ranks = game_ranks(results, name) if board else {}
    return sorted(board.get("agents", []), key=lambda r: (
        forfeited_all(r), r["agent"] not in ranks, ranks[r["agent"]][0] if r["agent"] in ranks else 0,
        refs[r["agent"]].display if r["agent"] in refs else r["label"]))

#: How the pages name the pooled row of all human seats (docs/metrics.md, "People").
PEOPLE_LABEL = "People (pooled)"


def people_row(results: Mapping[str, Any], game: str) -> Mapping[str, Any] | None:
    """The pooled "people" row of a game's board, if anyone played it."""
    return results.get("people", {}).get("boards", {}).get(game)
