"""The home page: the ranked board's headline (its reading and compact table) first, then a line
per game; the boards themselves are on the game pages and the exhibition page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from site_builder.pages import cost
from site_builder.pages.boards import game_rankings, game_summaries, ranked_reading, ranked_rows
from site_builder.pages.page import Page
from site_builder.scoring.ranked import WANTED_MOST

#: The home page's compact ranked table shows at most this many rows: with the reading and the
#: sentence on tiers, five rows fit a phone's first screen (390 x 844). Every row is in the full
#: table a tap below it.
HEADLINE_ROWS = 5


def headline_rows(ranked: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows of the home page's compact ranked table: the first HEADLINE_ROWS of the maintainers'
    and the verified rows, in the board's order. A self-reported row is in the full table under them,
    never here, so what the headline shows is a function of the maintainers' games only (theirs, and
    their verifications of others'), as its reading is: rows a pull request adds can never push the
    maintainers' rows off the first screen."""
    return [r for r in ranked if r["counted"]][:HEADLINE_ROWS]


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    results, refs = ctx["results"], ctx["refs"]
    ranked = ranked_rows(results, refs)
    return [Page("index.md", "index.md.j2", nav=("Leaderboard",), context=dict(
        people_played=results.get("people", {}).get("played"),
        summaries=game_summaries(game_rankings(results, refs, ctx["games"])),
        ranked=ranked, ranked_reading=ranked_reading(ranked), headline_rows=headline_rows(ranked),
        contributed=sum(1 for r in ranked if r.get("owner") and r["counted"]),
        uncounted=[r for r in ranked if r.get("score") and not r["counted"] and r["state"] != "inconsistent"],
        inconsistent=[r for r in ranked if r["state"] == "inconsistent"],
        ranked_stage_size=max((sum(d.values()) for d in (results.get("ranked") or {}).get("stage_deals", {}).values()),
                              default=0), wanted_most=WANTED_MOST,
        ranked_games=[g for g in ctx["games"] if any(g in (r.get("score") or {}).get("by_game", {}) for r in ranked)],
        ranked_cost=any(cost.priced(r.get("cost")) for r in ranked)))]
