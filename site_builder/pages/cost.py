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

from site_builder.pages.boards import forfeited_all
from site_builder.pages.page import Page
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


#: What a chart's cost axis measures (a row's "cost" there): dollars at list prices, which a model
#: served locally has none of, or what every model row records, priced or not.
USD, TOKENS, SECONDS = "usd", "tokens", "seconds"
USAGE = (TOKENS, SECONDS)
#: How each measure reads: the axis title, and what a row needs to have it.
MEASURES = {
    USD: ("mean cost per game (USD, list prices)", "a token price"),
    TOKENS: ("tokens per game (input and output)", "recorded tokens"),
    SECONDS: ("model-seconds per game", "recorded model time"),
}


def per_game(entry: Mapping[str, Any] | None, measure: str) -> float | None:
    """A row's cost figures' value per game in `measure`, or None (no price, nothing recorded)."""
    if not entry:
        return None
    if measure == USD:
        return entry.get("usd_per_game")
    if measure == SECONDS:
        seconds = entry.get("model_seconds_per_game")
        return seconds if seconds else None
    tokens = (entry.get("input_tokens") or 0) + (entry.get("output_tokens") or 0)
    return tokens / entry["games"] if tokens and entry.get("games") else None


def _chart(axis: str, percent: bool, points: list[dict[str, Any]], noun: str, measure: str = USD) -> dict[str, Any]:
    """A chart's data: its points with their frontier marks, or why there is no chart."""
    for point, mark in zip(points, frontier(points)):
        point["frontier"] = mark
    points.sort(key=lambda p: (p["cost"], -p["value"], p["label"]))
    why = None
    if len(points) < MIN_POINTS and measure == USD:
        why = (f"No cost chart: {'only one' if points else 'no'} {noun} has both a token price and a {axis} "
               "(models run locally, scripted agents and models missing from the price table have none)"
               + (", and a chart needs two." if points else "."))
    elif len(points) < MIN_POINTS:
        why = (f"No chart of {MEASURES[measure][0]}: {'only one' if points else 'no'} {noun} has both "
               f"{MEASURES[measure][1]} and a {axis}" + (", and a chart needs two." if points else "."))
    return {"axis": axis, "percent": percent, "points": points, "why": why, "measure": measure,
            "title": MEASURES[measure][0]}


def game_chart(results: Mapping[str, Any], refs: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One game's chart: each priced agent's cost per game in that game against its rating there
    (a cooperative game, which is not rated: its seat win rate)."""
    points = []
    board = results["leaderboards"].get(name) or {}
    apart = {r["agent"] for r in board.get("agents", []) if forfeited_all(r)}  # never played: no strength
    if ratings.cooperative(name):
        rows = [(r["agent"], r["win_rate"]["value"], r["win_rate"]["ci"]) for r in board.get("agents", [])
                if r.get("win_rate")]
        axis, percent = "seat win rate", True
    else:
        table = results["ratings"].get("by_game", {}).get(name) or {}
        rows = [(r["agent"], r["rating"], r.get("rating_ci")) for r in table.get("agents", [])]
        axis, percent = "rating", False
    for key, value, ci in rows:
        spent = agent_cost(results, key, name)
        if key in refs and key not in apart and priced(spent) and value is not None:
            points.append({"label": refs[key].display, "cost": spent["usd_per_game"], "value": value, "ci": ci,
                           "games": spent["games"]})
    return _chart(axis, percent, points, "agent of this game")


def overall_chart(results: Mapping[str, Any], refs: Mapping[str, Any], measure: str = USD) -> dict[str, Any]:
    """Every rated agent's cost per game over all its games (in `measure`) against its overall rating."""
    points = []
    apart = {a["key"] for a in results["agents"] if forfeited_all(a)}  # never played: no strength to draw
    for row in results["ratings"].get("overall", {}).get("agents", []):
        spent = agent_cost(results, row["agent"])
        cost = per_game(spent, measure)
        if row["agent"] in refs and row["agent"] not in apart and cost is not None:
            points.append({"label": refs[row["agent"]].display, "cost": cost, "value": row["rating"],
                           "ci": row.get("rating_ci"), "games": spent["games"]})
    return _chart("rating", False, points, "rated agent", measure)


def ranked_chart(rows: Sequence[Mapping[str, Any]], measure: str = USD) -> dict[str, Any]:
    """Each ranked row's cost per suite game (in `measure`) against its ranked score (boards.ranked_rows)."""
    points = [{"label": r["ref"].display if r.get("ref") else r["label"], "cost": per_game(r["cost"], measure),
               "value": r["score"]["value"], "ci": r["score"]["ci"], "games": r["cost"]["games"]}
              for r in rows if r.get("score") and per_game(r.get("cost"), measure) is not None]
    return _chart("ranked score", True, points, "ranked row", measure)


def chart_data(results: Mapping[str, Any], refs: Mapping[str, Any], ranked: Sequence[Mapping[str, Any]],
               games: Sequence[str]) -> dict[str, Any]:
    """data/cost.json: the ranked board's, the overall and each played game's chart in dollars, and
    the ranked board's and the overall one in tokens and in model-seconds (every model row has those)."""
    return {"ranked": ranked_chart(ranked), "overall": overall_chart(results, refs),
            **{measure: {"ranked": ranked_chart(ranked, measure), "overall": overall_chart(results, refs, measure)}
               for measure in USAGE},
            "games": {name: game_chart(results, refs, name) for name in games if results["leaderboards"].get(name)}}


def why_unpriced(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The cost page's reasons a row has no price, each once: its status word as the table shows
    it, the reason, and how many rows it holds for, in the table's order."""
    reasons: dict[tuple[str, str], int] = {}
    for row in rows:
        cost = row["cost"]
        if cost["usd_per_game"] is None:
            key = (status_word(cost), cost.get("why") or "no price")
            reasons[key] = reasons.get(key, 0) + 1
    return [{"word": word, "why": why, "rows": n} for (word, why), n in reasons.items()]


def status_word(cost: Mapping[str, Any]) -> str:
    """What the cost page's table says of a row without a price: why in one word or two."""
    return "local" if cost.get("status") == "local" else "no price"


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


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    rows = page_rows(ctx["results"], ctx["refs"])
    return [Page(PAGE, "cost.md.j2", nav=("Cost",), context=dict(rows=rows, unpriced=why_unpriced(rows),
                                                                  status_word=status_word))]


def data(ctx: Mapping[str, Any]) -> dict[str, Any]:
    """data/cost.json: the shared `cost_data` (the game pages draw their charts from it too)."""
    return {"data/cost.json": ctx["cost_data"]}
