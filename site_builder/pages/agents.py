"""The agents' pages: their index (searchable) and a page per agent, with its rows of every board,
its MAgIC abilities and radar (data/radar.json), its Werewolf metrics, cost and recent games.

The agents' own pages are reached from the index and the tables, not the navigation (MkDocs puts
the navigation on every page: an entry per agent would make N pages of N links).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from site_builder.pages import cost
from site_builder.pages.boards import PEOPLE_LABEL, people_row
from site_builder.pages.charts import MIN_RADAR_AXES, drawable, measured_axes, radar_data
from site_builder.pages.labels import AgentRef, href
from site_builder.pages.magic import METRICS, READING_TITLES, TITLES, cell, table
from site_builder.pages.magic import page as metric_page
from site_builder.pages.page import Page

#: The most recent games an agent's page lists (build.recent_games).
RECENT_REPLAYS = 10
INDEX = "agents/index.md"


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    refs = sorted(ctx["refs"].values(), key=lambda r: r.display)
    agents = {a["key"]: a for a in ctx["results"]["agents"]}
    rows = AgentRows.of(ctx["results"])
    return [Page(INDEX, "agents.md.j2", nav=("Agents", "All agents"),
                 context=dict(listed=[(r, agents[r.key]) for r in refs])),
            *(_agent_page(ref, rows, ctx) for ref in ctx["refs"].values())]


def data(ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"data/radar.json": radar_data(ctx["results"], ctx["refs"])}


@dataclass(frozen=True)
class AgentRows:
    """Each agent's rows of the results, found by key: an agent page looks its own rows up here
    instead of scanning every agent's (N pages scanning N rows each grew with N squared)."""

    agents: dict[str, Mapping[str, Any]]
    boards: dict[str, dict[str, Mapping[str, Any]]]        # game -> agent -> leaderboard row
    game_ratings: dict[str, dict[str, Mapping[str, Any]]]  # game -> agent -> rating row
    overall: dict[str, Mapping[str, Any]]                   # agent -> overall rating row
    comparisons: dict[str, list[Mapping[str, Any]]]         # agent -> its vanilla/enhanced comparisons

    @classmethod
    def of(cls, results: Mapping[str, Any]) -> "AgentRows":
        comparisons: dict[str, list[Mapping[str, Any]]] = {}
        for c in results["magic"]["comparisons"]:
            for key in dict.fromkeys((c["vanilla"], c["enhanced"])):
                comparisons.setdefault(key, []).append(c)
        tables = results["ratings"]
        return cls(agents={a["key"]: a for a in results["agents"]},
                   boards={name: {r["agent"]: r for r in board["agents"]}
                           for name, board in results["leaderboards"].items() if board},
                   game_ratings={name: {r["agent"]: r for r in table.get("agents", [])}
                                 for name, table in tables.get("by_game", {}).items()},
                   overall={r["agent"]: r for r in tables.get("overall", {}).get("agents", [])},
                   comparisons=comparisons)


def _agent_page(ref: AgentRef, rows: AgentRows, ctx: Mapping[str, Any]) -> Page:
    results = ctx["results"]
    key = ref.key
    agent = rows.agents[key]
    magic = results["magic"]["agents"].get(key)
    other_entry = results["magic"]["alternative"]["agents"].get(key)
    per_game = []
    for name, title in ctx["games"].items():
        board = results["leaderboards"].get(name)
        row = rows.boards.get(name, {}).get(key)
        if row is None:
            continue
        rated = rows.game_ratings.get(name, {}).get(key)
        score = board["score"]
        per_game.append({"name": name, "title": title, "row": row, "rating": rated, "people": people_row(results, name),
                         "score": row.get(score["name"]) if score else None,
                         "row_score_name": score["name"] if score else None,
                         "score_label": score["label"] if score else None})
    comparisons = rows.comparisons.get(key, [])
    werewolf = {part: (results["werewolf"][part]["agents"].get(key))
                for part in ("text_distance", "judgement_variation", "ewavm")}
    llm_reading = results["werewolf"].get("judgement_variation_llm")  # results of format 5 on
    werewolf["judgement_variation_llm"] = llm_reading and (llm_reading["agents"].get(key)
                                                           or {"judges": {}, "unread": {}, "games": 0})
    neural = results["werewolf"].get("text_distance_neural")
    werewolf["text_distance_neural"] = neural and {"embedder": neural["embedder"], "absent": neural.get("absent"),
                                                   "entry": neural.get("agents", {}).get(key)}
    return Page(ref.page, "agent.md.j2", context=dict(
        ref=ref, agent=agent, magic=magic, per_game=per_game,
        magic_table=_abilities_table(magic, ref.page, "headline-note", key),
        other_table=_abilities_table(other_entry, ref.page, "other-note") if other_entry else None,
        other_entry=other_entry, paper_reading=READING_TITLES["paper"],
        comparisons=comparisons,
        werewolf=werewolf, usage=results["usage"].get(key), cost=cost.agent_cost(results, key),
        default_compare=_default_comparison(key, comparisons, results["magic"]["agents"], ctx["refs"]),
        measured=measured_axes(magic), radar_ok=drawable(magic), min_axes=MIN_RADAR_AXES,
        rating=rows.overall.get(key),
        mine=ctx["recent"].get(key, []), description=_description_rows(agent["description"]),
        people_label=PEOPLE_LABEL))


def _abilities_table(entry: Mapping[str, Any] | None, page: str, prefix: str, win_of: str | None = None
                     ) -> dict[str, Any] | None:
    """An agent's MAgIC metrics in one reading, a row per metric linked to the metric's page;
    `win_of` (the agent key) marks its Win Rate cell with its source in the results."""
    if entry is None:
        return None
    return table([{"title": TITLES[name], "href": href(page, metric_page(name)), "cell": cell(entry, name),
                   "win": f"magic||{win_of}|" if win_of and name == "win_rate" else None}
                  for name in METRICS], prefix)


def _default_comparison(key: str, comparisons: Sequence[Mapping[str, Any]], magic: Mapping[str, Any],
                        refs: Mapping[str, AgentRef]) -> AgentRef | None:
    """The agent drawn beside this one at first: its vanilla/enhanced counterpart (`comparisons`:
    this agent's), if the scorer paired one and it has a radar (`magic`: the MAgIC entries by agent).
    The page names only this one; the other agents to compare with come from data/radar.json in
    the browser, so a page's size does not grow with the agents."""
    for c in comparisons:
        other = c["enhanced"] if c["vanilla"] == key else c["vanilla"] if c["enhanced"] == key else None
        if other is not None and other != key and other in refs and drawable(magic.get(other)):
            return refs[other]
    return None


def _description_rows(description: Mapping[str, Any]) -> list[tuple[str, str]]:
    """An agent's description as (field, text) rows; nested values as compact JSON."""
    return [(str(k), v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True))
            for k, v in sorted(description.items())]
