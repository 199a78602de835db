"""Cost on the pages: the "Cost / game" cells, the strength-against-cost charts with their cost
frontier (data/cost.json, drawn by assets/gamenight/site.js), and the Cost page.

Every number comes from the results' `cost` section (scoring/cost.py) and the rating tables and
ranked board beside it; a chart is drawn only where at least two rows have a price, and the page
says in one line why there is none otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from site_builder.scoring import ratings

#: Fewest priced rows a chart is drawn for (one point has no frontier to show).
MIN_POINTS = 2
#: What the cost page is.
PAGE = "cost.md"


def fmt_usd(value: float | None) -> str:
    """USD with three significant digits below a dollar ("$0.00434"), cents above, or "none"."""
    if value is None or not math.isfinite(value):
        return "none"
    if value == 0:
        return "$0"
    if value >= 1:
        return f"${value:,.2f}"
    decimals = max(2, 2 - math.floor(math.log10(value)))
    return f"${value:.{decimals}f}"


def agent_cost(results: Mapping[str, Any], key: str, game: str | None = None) -> Mapping[str, Any] | None:
    """An agent's cost figures (in one game's games if `game`), or None (a scripted agent, a
    person, or results without costs)."""
    entry = ((results.get("cost") or {}).get("agents") or {}).get(key)
    if entry is None or game is None:
        return entry
    return entry["by_game"].get(game)


def priced(entry: Mapping[str, Any] | None) -> bool:
    return bool(entry) and entry.get("usd_per_game") is not None


def frontier(points: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Per point (cost, value): whether it is on the cost frontier, i.e. no other point is at most
    as costly and at least as strong, one of them strictly. Ties in both keep the first by label."""
    order = sorted(range(len(points)), key=lambda i: (points[i]["cost"], -points[i]["value"], points[i]["label"]))
    marks = [False] * len(points)
    best = -math.inf
    for i in order:
        if points[i]["value"] > best:
            marks[i] = True
            best = points[i]["value"]
    return marks


def _chart(axis: str, percent: bool, points: list[dict[str, Any]], noun: str) -> dict[str, Any]:
    """A chart's data: its points with their frontier marks, or why there is no chart."""
    for point, mark in zip(points, frontier(points)):
        point["frontier"] = mark
    points.sort(key=lambda p: (p["cost"], -p["value"], p["label"]))
    why = None
    if len(points) < MIN_POINTS:
        why = (f"No cost chart: {'only one' if points else 'no'} {noun} has both a token price and a {axis} "
               "(models run locally, scripted agents and models missing from the price table have none)"
               + (", and a chart needs two." if points else "."))
    return {"axis": axis, "percent": percent, "points": points, "why": why}


def game_chart(results: Mapping[str, Any], refs: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One game's chart: each priced agent's cost per game in that game against its rating there
    (a cooperative game, which is not rated: its seat win rate)."""
    points = []
    if ratings.cooperative(name):
        board = results["leaderboards"].get(name) or {}
        rows = [(r["agent"], r["win_rate"]["value"], r["win_rate"]["ci"]) for r in board.get("agents", [])
                if r.get("win_rate")]
        axis, percent = "seat win rate", True
    else:
        table = results["ratings"].get("by_game", {}).get(name) or {}
        rows = [(r["agent"], r["rating"], r.get("rating_ci")) for r in table.get("agents", [])]
        axis, percent = "rating", False
    for key, value, ci in rows:
        spent = agent_cost(results, key, name)
        if key in refs and priced(spent) and value is not None:
            points.append({"label": refs[key].display, "cost": spent["usd_per_game"], "value": value, "ci": ci,
                           "games": spent["games"]})
    return _chart(axis, percent, points, "agent of this game")


def overall_chart(results: Mapping[str, Any], refs: Mapping[str, Any]) -> dict[str, Any]:
    """Every rated agent's cost per game over all its games against its overall rating."""
    points = []
    for row in results["ratings"].get("overall", {}).get("agents", []):
        spent = agent_cost(results, row["agent"])
        if row["agent"] in refs and priced(spent):
            points.append({"label": refs[row["agent"]].display, "cost": spent["usd_per_game"], "value": row["rating"],
                           "ci": row.get("rating_ci"), "games": spent["games"]})
    return _chart("rating", False, points, "rated agent")


def ranked_chart(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each ranked row's cost per suite game against its ranked score (boards.ranked_rows)."""
    points = [{"label": r["ref"].display if r.get("ref") else r["label"], "cost": r["cost"]["usd_per_game"],
               "value": r["score"]["value"], "ci": r["score"]["ci"], "games": r["cost"]["games"]}
              for r in rows if r.get("score") and priced(r.get("cost"))]
    return _chart("ranked score", True, points, "ranked row")


def chart_data(results: Mapping[str, Any], refs: Mapping[str, Any], ranked: Sequence[Mapping[str, Any]],
               games: Sequence[str]) -> dict[str, Any]:
    """data/cost.json: the ranked board's, the overall and each played game's chart."""
    return {"ranked": ranked_chart(ranked), "overall": overall_chart(results, refs),
            "games": {name: game_chart(results, refs, name) for name in games if results["leaderboards"].get(name)}}


def any_priced(results: Mapping[str, Any], keys: Sequence[str], game: str | None = None) -> bool:
    """Whether any of these agents has a cost per game (in `game`'s games if given): a table shows
    its "Cost / game" column only then."""
    return any(priced(agent_cost(results, key, game)) for key in keys)


def page_rows(results: Mapping[str, Any], refs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cost page's table: every language-model agent, priced ones cheapest first, then local,
    then unpriced, each by name."""
    order = {"priced": 0, "local": 1, "unpriced": 2}
    agents = (results.get("cost") or {}).get("agents") or {}
    rows = [{"ref": refs[key], "cost": entry} for key, entry in agents.items() if key in refs]
    rows.sort(key=lambda r: (order.get(r["cost"]["status"], 3), r["cost"]["usd_per_game"] or 0, r["ref"].display))
    return rows
