"""The exhibition page: the overall board of every tournament played, filterable and sortable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.pages import cost
from site_builder.pages.boards import MAX_FORFEIT_RANKED, rated_games, role_gaps
from site_builder.pages.page import Page
from site_builder.scoring import ratings


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    results = ctx["results"]
    rows = ctx["overall_rows"]
    return [Page("exhibition.md", "exhibition.md.j2", nav=("Exhibition board",), context=dict(
        rows=rows, providers=sorted({r["provider"] for r in rows}),
        designs=sorted({r["design"] for r in rows}),
        played=[g for g in ctx["games"] if g in results["corpus"]["by_game"]],
        rated_games=rated_games(results), max_forfeits=MAX_FORFEIT_RANKED, min_games=ratings.MIN_GAMES,
        placed_contributors=any(r["rank"] and r["ref"].submitted for r in rows),
        gaps=role_gaps([r["rating"] for r in rows if r["rank"]]),
        overall_cost=cost.any_priced(results, [r["ref"].key for r in rows])))]
