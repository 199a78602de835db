"""A page per game: its board (ratings or seat win rates, per role), the head-to-head matrix, the
chart of seat win rates (data/games.json) and a few games worth watching."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner import games as registry
from site_builder.pages import cost
from site_builder.pages.boards import (PEOPLE_LABEL, board_order, game_ranks, matrix, people_row, provisional_why,
                                       ranked_by, role_gaps)
from site_builder.pages.charts import game_chart_data
from site_builder.pages.page import Page
from site_builder.scoring import ratings

#: The rules behind each game page's featured games (build.featured_games), as the page says them.
FEATURED_RULES = {
    "longest": "the longest game: the most moves (the first by id on a tie)",
    "upset": "the biggest upset: the game whose winners' best rating in this game's table is furthest "
             "below its losers' best",
    "newest": "the newest game",
}


def titles() -> dict[str, str]:
    """Every game of the registry with its title, in display order."""
    return {name: registry.get(name).title for name in registry.available()}


def page(name: str) -> str:
    """The docs-relative Markdown path of a game's page."""
    return f"games/{name}.md"


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    return [_game_page(name, ctx) for name in ctx["games"]]


def _game_page(name: str, ctx: Mapping[str, Any]) -> Page:
    results = ctx["results"]
    board = results["leaderboards"].get(name)
    rating = results["ratings"].get("by_game", {}).get(name)
    rated = {r["agent"]: r for r in (rating or {}).get("agents", [])}
    ranks = game_ranks(results, name) if board else {}
    ordered = board_order(results, name, ctx["refs"])
    return Page(page(name), "game.md.j2", nav=("Games", ctx["games"][name]), context=dict(
        name=name, title=ctx["games"][name], board=board, rating=rating, ratings=rated,
        ranks=ranks, ordered=ordered, ranked_by=ranked_by(name), cooperative=ratings.cooperative(name),
        winning=registry.facts_of(name).winning,
        matrix=matrix(results, name, [r["agent"] for r in ordered],
                      {r["agent"] for r in ordered if r["agent"] in ctx["refs"] and ctx["refs"][r["agent"]].submitted}),
        people=people_row(results, name), people_label=PEOPLE_LABEL,
        min_games=ratings.MIN_GAMES, provisional_why=provisional_why, gaps=role_gaps((rating or {}).get("agents", [])),
        placed_contributors=any(k in ctx["refs"] and ctx["refs"][k].submitted for k in ranks),
        roles=board["roles"] if board else list(registry.get(name).roles),
        game_cost=cost.any_priced(results, [r["agent"] for r in ordered], name),
        cost_chart=ctx["cost_data"]["games"].get(name)))


def data(ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"data/games.json": game_chart_data(ctx["results"], ctx["refs"])}
