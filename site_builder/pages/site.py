"""The site's pages as data: Markdown rendered from Jinja2 templates, plus JSON files for charts.

Everything here is a pure function of the results dict (`site_builder.scoring.results.assemble`)
and a little corpus data, so the set of pages depends on the agents and games, never on how many
replays there are. Strings from replays only ever reach Markdown through autoescaped HTML
blocks; headings and titles that Markdown or the theme would interpret hold trusted text only.
How agents are named and numbers written is `labels`; which rows rank where, `boards`; the chart
files, `charts`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from runner import games as registry
from site_builder.pages import cost as cost_views, history as history_pages, magic as magic_views
from site_builder.pages.boards import (MAX_FORFEIT_RANKED, PEOPLE_LABEL, board_order, forfeited_all, game_rankings,
                                 game_ranks, game_summaries, leaderboard_rows, matrix, people_row, provisional_why,
                                 rated_games, ranked_by, ranked_reading, ranked_rows, role_gaps, self_play_only)
from site_builder.pages.charts import (AXIS_TITLES, MATCHUP_METRICS, MIN_RADAR_AXES, chameleon_data, drawable,
                                 game_chart_data, measured_axes, radar_data, variant_title)
from site_builder.pages.labels import (AgentRef, agent_refs, agent_slug, breakable, fmt_ci, fmt_ci_n, fmt_num, fmt_pct,
                                 headline, href, sort_value, yaml_string)
from site_builder.pages.magic import READING_TITLES
from site_builder.scoring import judges, ratings
from site_builder.scoring.ranked import WANTED_MOST
from site_builder.scoring.results import CSV_WHAT

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "pages"
EWAVM_DIMENSIONS = ("engagement", "wonder", "attraction", "variation", "memorability")
RECENT_REPLAYS = 10


@dataclass
class SitePages:
    """What the build writes into the MkDocs docs folder: pages, JSON data and the navigation."""

    markdown: dict[str, str] = field(default_factory=dict)   # docs-relative path -> Markdown text
    data: dict[str, Any] = field(default_factory=dict)       # docs-relative path -> JSON-able object
    nav: list[Any] = field(default_factory=list)             # the mkdocs.yml `nav`


#: Every term a table header or metric name uses, explained in a line: the "?" buttons show these
#: (tap or keyboard, not hover only) and the Glossary page lists them all. Order: the Glossary's.
GLOSSARY: dict[str, tuple[str, str]] = {
    "rank": ("Game rank", "The place on this game's board: by its rating, or for a cooperative game by its seat win "
                          "rate. In "
                     "brackets, the range of places the table allows at 95% for the whole table at once: \"2 (1-4)\" "
                     "means second, but the data cannot tell it from first or fourth. No place is claimed between "
                     "agents the games cannot compare (seen in no common role, say). An agent rated on fewer than "
                     f"{ratings.MIN_GAMES} games is provisional and has no place, and one that forfeited every game "
                     "is listed apart, below the board. A contributor's row, marked *, gets the place it would take "
                     "among the maintainers' rows."),
    "rank_across": ("Exhibition rank", "The place on the exhibition board: by the rating over every rated game, "
                                       "each weighing the same, "
                                         "among the agents that played all of them, forfeited at most half their "
                                         f"games and were rated on at least {ratings.MIN_GAMES}; in brackets, the "
                                         "range of places the table allows at 95% for the whole table at once. Any "
                                         "other agent has no rank here (it says why): its games' tables rank it."),
    "tier": ("Tier", "Rows the ranked board cannot yet tell apart share a tier: a new tier starts below a row only "
                     "where the next row is surely below it, a claim that holds together with every other claim "
                     "of the table at 95% and stays true however many stages are added."),
    "ranked_rank": ("Ranked place", "The place on the ranked board (the headline), by score among the "
                                    "maintainers' rows and those they verified; in "
                                    "brackets, the best and worst place the board's claims allow. \"Surely above\" "
                                    "is claimed only where it holds for the whole table at once, at 95%, and at every "
                                    "number of stages: looking again after each stage or merge does not make a false "
                                    "claim likelier. A self-reported row (not yet verified) is listed under them with "
                                    "the place it would take, and its range from its own comparisons with them."),
    "verified": ("Held-out score", "The score the maintainers measured when they verified the row: its model (the "
                                   "same provider, model and settings) played deals of the suite nobody could play "
                                   "in advance, their seeds drawn from a secret the maintainers committed to before. "
                                   "Consistent: the two scores differ by no more than chance would make them differ "
                                   "in 99 of 100 honest rows. Exact: deals of the row played again gave every reply "
                                   "byte for byte."),
    "ranked_score": ("Ranked score", "The mean over the suite's games of the row's deal values: 1 a win, 0 a loss or a "
                              "forfeit, and in between where the game keeps a score (the Prisoner's Dilemma and "
                              "Public Good: the seat's points over the best seat's; The Chameleon and Undercover: "
                              "MAgIC's credit). Its 95% interval covers the truth at least 93 times in 100 from one "
                              "stage on, as simulated boards measure it (methodology: the ranked board)."),
    "rating": ("Rating", "A skill rating on the Elo scale, fitted to every game's ranking of the agents in it "
                         "(Bradley-Terry, with an advantage per role taken out): 400 points more means 10-to-1 "
                         "odds of ranking higher, and an agent about which nothing is known sits at 1000: one "
                         "virtual draw against 1000 pulls every rating toward it, a large share of the way for an "
                         "agent of few games (provisional below " + str(ratings.MIN_GAMES) + "). The interval is a "
                         "95% bootstrap over games."),
    "win_rate": ("Win Rate", "MAgIC's win rate: the credit an agent earned over the most it could earn, over "
                             "the roles it played."),
    "seat_win_rate": ("Seat win rate", "The share of an agent's seats that were among the winners; shared wins "
                                       "count for every tied seat."),
    "forfeit_rate": ("Forfeit rate", "The share of its games an agent lost by never producing a legal move "
                                     "after the allowed re-asks."),
    "reask_rate": ("Re-ask rate", "The share of an agent's decisions that needed more than one attempt."),
    "placeholders": ("Copied placeholders", "The share of a language-model agent's free-text moves (clues and "
                                            "statements) that copy the answer form instead of playing: its "
                                            "placeholder (\"<your clue, one line>\"), a template in brackets, or "
                                            "a sentence of the prompt's own instructions. From prompt set 4 on "
                                            "such a move is refused and asked again; older games keep theirs."),
    "games": ("Games", "Complete games the agent played, and the games it forfeited."),
    "complete": ("Complete game", "A game no seat forfeited: every player produced a legal move at every turn "
                                  "(within the allowed re-asks). A forfeited game is kept: it is a loss of the "
                                  "seats of the agent that forfeited, and counts in the complete-game ratio."),
    "accepted": ("Accepted replay", "A replay file that passes every check: the format, the rules engine "
                                    "re-deriving every move and outcome, and the deal derived again from its "
                                    "seed (gamenight validate says the same). A replay that fails one is left "
                                    "out of every table, naming the file, line and field."),
    "forfeited_all": ("Forfeited every game", "An agent that forfeited every game of a board never played "
                                              "there: it has no place and is listed apart, below the board."),
    "self_play": ("Self-play", "Every game of this row had the agent in every seat, playing itself. Such "
                               "games rate nothing (no other agent to compare with), so the row has no "
                               "rank; its win rate only says how the game's roles fare."),
    "interval": ("95% interval", "The range the value would fall in 95 times out of 100 if the games were "
                                 "played again: Wilson intervals for rates, bootstrap intervals otherwise. "
                                 "[n = 3] means too few observations to say more; [no spread] that every "
                                 "resample gave the same value."),
    "judgement": ("Judgement", "How often the agent's vote names the hidden player (the chameleon or the "
                               "undercover)."),
    "reasoning": ("Reasoning", "How often its private answers about who holds the hidden role, what others "
                               "suspect, or the secret word are right."),
    "deception": ("Deception", "How often it wins while holding the hidden role, and how often its clues lead "
                               "the chameleon to a wrong guess."),
    "self_awareness": ("Self-awareness", "How often it names its own role right when it is not told it "
                                         "(Undercover)."),
    "cooperation": ("Cooperation", "How often the airline negotiations it takes part in end in agreement."),
    "coordination": ("Coordination", "How often the agreed split is the one it proposed."),
    "rationality": ("Rationality", "How often it makes the self-interested move: defecting in the Prisoner's "
                                   "Dilemma, contributing the least in Public Good."),
    "provider": ("Provider", "Who served the agent: a language-model API, or builtin for a scripted strategy."),
    "design": ("Design", "How an agent thinks before it moves: vanilla, or one of the papers' designs (pgm, "
                         "b5p, favor, strategy)."),
    "cost_per_game": ("Cost / game", "What a model row's games cost on average, in US dollars: every token its "
                                     "replays record (input, input read from and written to the provider's "
                                     "prompt cache, output) at the list prices of the maintainers' price table. "
                                     "\"local\": a model served from the machine that played its games, which has no "
                                     "token price; \"no price\": a model the table does not price."),
}


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the page templates: autoescape always on, undefined is an error."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(num=fmt_num, pct=fmt_pct, ci=fmt_ci, ci_n=fmt_ci_n, sortval=sort_value, headline=headline,
                       yaml_str=yaml_string, breakable=breakable, usd=cost_views.fmt_usd)
    env.globals.update(axis_titles=AXIS_TITLES, glossary=GLOSSARY, self_play_only=self_play_only,
                       forfeited_all=forfeited_all, reading_titles=READING_TITLES, ranked_judges=judges.ranked)
    env.tests.update(forfeited_all=forfeited_all)
    return env


def game_titles() -> dict[str, str]:
    """Every game of the registry with its title, in display order."""
    return {name: registry.get(name).title for name in registry.available()}


def _home(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    """The home page: the ranked board's headline (its reading and compact table) first, then a
    line per game; the boards themselves are on the game pages and the exhibition page."""
    results, refs = ctx["results"], ctx["refs"]
    ranked = ranked_rows(results, refs)
    pages.markdown["index.md"] = env.get_template("index.md.j2").render(
        **ctx, page="index.md", people_played=results.get("people", {}).get("played"),
        summaries=game_summaries(game_rankings(results, refs, ctx["games"])),
        ranked=ranked, ranked_reading=ranked_reading(ranked), headline_rows=headline_rows(ranked),
        contributed=sum(1 for r in ranked if r.get("owner") and r["counted"]),
        uncounted=[r for r in ranked if r.get("score") and not r["counted"] and r["state"] != "inconsistent"],
        inconsistent=[r for r in ranked if r["state"] == "inconsistent"],
        ranked_stage_size=max((sum(d.values()) for d in (results.get("ranked") or {}).get("stage_deals", {}).values()),
                              default=0), wanted_most=WANTED_MOST,
        ranked_games=[g for g in ctx["games"] if any(g in (r.get("score") or {}).get("by_game", {}) for r in ranked)],
        ranked_cost=any(cost_views.priced(r.get("cost")) for r in ranked))


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


def _exhibition(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    """The overall board of every tournament played (the exhibition), filterable and sortable."""
    results = ctx["results"]
    rows = ctx["overall_rows"]
    pages.markdown["exhibition.md"] = env.get_template("exhibition.md.j2").render(
        **ctx, page="exhibition.md", rows=rows, providers=sorted({r["provider"] for r in rows}),
        designs=sorted({r["design"] for r in rows}),
        played=[g for g in ctx["games"] if g in results["corpus"]["by_game"]],
        rated_games=rated_games(results), max_forfeits=MAX_FORFEIT_RANKED, min_games=ratings.MIN_GAMES,
        placed_contributors=any(r["rank"] and r["ref"].submitted for r in rows),
        gaps=role_gaps([r["rating"] for r in rows if r["rank"]]),
        overall_cost=cost_views.any_priced(results, [r["ref"].key for r in rows]))


def _game_page(name: str, ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    results = ctx["results"]
    board = results["leaderboards"].get(name)
    rating = results["ratings"].get("by_game", {}).get(name)
    rated = {r["agent"]: r for r in (rating or {}).get("agents", [])}
    path = f"games/{name}.md"
    ranks = game_ranks(results, name) if board else {}
    ordered = board_order(results, name, ctx["refs"])
    pages.markdown[path] = env.get_template("game.md.j2").render(
        **ctx, page=path, name=name, title=ctx["games"][name], board=board, rating=rating, ratings=rated,
        ranks=ranks, ordered=ordered, ranked_by=ranked_by(name), cooperative=ratings.cooperative(name),
        winning=registry.facts_of(name).winning,
        matrix=matrix(results, name, [r["agent"] for r in ordered],
                      {r["agent"] for r in ordered if r["agent"] in ctx["refs"] and ctx["refs"][r["agent"]].submitted}),
        people=people_row(results, name), people_label=PEOPLE_LABEL,
        min_games=ratings.MIN_GAMES, provisional_why=provisional_why, gaps=role_gaps((rating or {}).get("agents", [])),
        placed_contributors=any(k in ctx["refs"] and ctx["refs"][k].submitted for k in ranks),
        roles=board["roles"] if board else list(registry.get(name).roles),
        game_cost=cost_views.any_priced(results, [r["agent"] for r in ordered], name),
        cost_chart=ctx["cost_data"]["games"].get(name))


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


def _agent_page(ref: AgentRef, ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    results, rows = ctx["results"], ctx["agent_rows"]
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
    pages.markdown[ref.page] = env.get_template("agent.md.j2").render(
        **ctx, page=ref.page, ref=ref, agent=agent, magic=magic, per_game=per_game,
        magic_table=_abilities_table(magic, ref.page, "headline-note", key),
        other_table=_abilities_table(other_entry, ref.page, "other-note") if other_entry else None,
        other_entry=other_entry, paper_reading=READING_TITLES["paper"],
        comparisons=comparisons,
        werewolf=werewolf, usage=results["usage"].get(key), cost=cost_views.agent_cost(results, key),
        default_compare=_default_comparison(key, comparisons, results["magic"]["agents"], ctx["refs"]),
        measured=measured_axes(magic), radar_ok=drawable(magic), min_axes=MIN_RADAR_AXES,
        rating=rows.overall.get(key),
        mine=ctx["recent"].get(key, []), description=_description_rows(agent["description"]),
        people_label=PEOPLE_LABEL)


def _abilities_table(entry: Mapping[str, Any] | None, page: str, prefix: str, win_of: str | None = None
                     ) -> dict[str, Any] | None:
    """An agent's MAgIC metrics in one reading, a row per metric linked to the metric's page;
    `win_of` (the agent key) marks its Win Rate cell with its source in the results."""
    if entry is None:
        return None
    return magic_views.table([{"title": magic_views.TITLES[name], "href": href(page, magic_views.page(name)),
                               "cell": magic_views.cell(entry, name),
                               "win": f"magic||{win_of}|" if win_of and name == "win_rate" else None}
                              for name in magic_views.METRICS], prefix)


def _metric_page(name: str, ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    """One MAgIC metric over every agent measured on it in either reading: the headline reading's
    table, best first, and the other reading's a tap away."""
    results, refs = ctx["results"], ctx["refs"]
    path = magic_views.page(name)
    head, other = results["magic"]["agents"], results["magic"]["alternative"]["agents"]
    shown = [k for k in refs if magic_views.listed(name, head.get(k), other.get(k))]
    shown.sort(key=lambda k: (magic_views.sort_key((head.get(k) or {}).get(name)), refs[k].display))
    unmeasured = sum(1 for k in refs if k in head and k not in shown)
    measured = sum(1 for k in shown if (head.get(k) or {}).get(name) is not None)

    def rows(entries: Mapping[str, Any], win: bool) -> list[dict[str, Any]]:
        return [{"title": refs[k].display, "href": href(path, refs[k].page), "cell": magic_views.cell(entries.get(k), name),
                 "win": f"magic||{k}|" if win and name == "win_rate" else None} for k in shown]

    paper, reference = magic_views.DEFINITIONS[name]
    pages.markdown[path] = env.get_template("magic.md.j2").render(
        **ctx, page=path, name=name, title=magic_views.TITLES[name], unmeasured=unmeasured, measured=measured,
        paper_text=paper, reference_text=reference,
        head_table=magic_views.table(rows(head, True), "headline-note"),
        other_table=magic_views.table(rows(other, False), "other-note"))


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


def _agents_index(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    refs = sorted(ctx["refs"].values(), key=lambda r: r.display)
    agents = {a["key"]: a for a in ctx["results"]["agents"]}
    pages.markdown["agents/index.md"] = env.get_template("agents.md.j2").render(
        **ctx, page="agents/index.md", listed=[(r, agents[r.key]) for r in refs])


def judge_labels(ewavm: Mapping[str, Any], judgement_llm: Mapping[str, Any] | None = None) -> dict[str, str]:
    """A readable, distinct label per judge key of the EWAVM results and of the LLM reading of
    Judgement Variation (`scoring.judges.labels`)."""
    return judges.labels(judges.judges_of(ewavm, judgement_llm))


def text_distance_readings(werewolf: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Text Distance's readings in page order, each with its title: the offline bag of words, then
    the neural embedder (present in results of format 5 on, with numbers or why there are none)."""
    readings = [{"id": "td-bow", "title": "Bag-of-words reading (offline)", "data": werewolf["text_distance"]}]
    if "text_distance_neural" in werewolf:
        readings.append({"id": "td-neural", "title": "Neural reading (sentence embeddings)",
                         "data": werewolf["text_distance_neural"]})
    return readings


def _studies(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    results = ctx["results"]
    cham = results["chameleon"]
    pages.markdown["studies/chameleon.md"] = env.get_template("chameleon.md.j2").render(
        **ctx, page="studies/chameleon.md", data=chameleon_data(results, ctx["refs"]),
        checks=cham["strategy_checks"], cells=cham["matchups"]["cells"])
    pages.markdown["studies/werewolf.md"] = env.get_template("werewolf.md.j2").render(
        **ctx, page="studies/werewolf.md", ww=results["werewolf"],
        text_distance_readings=text_distance_readings(results["werewolf"]),
        agents_seen=sorted({k for part in ("text_distance", "judgement_variation", "ewavm")
                            for k in results["werewolf"][part]["agents"]},
                           key=lambda k: ctx["refs"][k].display if k in ctx["refs"] else k))


def _downloads(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages, csv_names: Sequence[str]) -> None:
    pages.markdown["downloads.md"] = env.get_template("downloads.md.j2").render(
        **ctx, page="downloads.md", csv_names=list(csv_names), csv_what=CSV_WHAT)

#: The rules behind each game page's featured games (build.featured_games), as the page says them.
FEATURED_RULES = {
    "longest": "the longest game: the most moves (the first by id on a tie)",
    "upset": "the biggest upset: the game whose winners' best rating in this game's table is furthest "
             "below its losers' best",
    "newest": "the newest game",
}


def render(results: Mapping[str, Any], *, recent: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
           featured: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
           has_replays: bool = False, methodology: Sequence[Any] = (),
           csv_names: Sequence[str] = (), site_name: str = "gamenight") -> SitePages:
    """Every generated page and chart file of the site.

    `recent`: a few recent games per agent key (build.recent_games; listed on agent pages when `has_replays`);
    `methodology`: the nav entries of the copied formula pages (see `methodology.methodology_pages`).
    """
    refs = agent_refs(results)
    env = environment()
    ctx = {"results": results, "refs": refs, "games": game_titles(), "has_replays": has_replays,
           "recent": dict(recent or {}), "featured": dict(featured or {}), "featured_rules": FEATURED_RULES,
           "site_name": site_name, "has_methodology": bool(methodology), "href": href, "slug": agent_slug,
           "matchup_metrics": MATCHUP_METRICS, "ewavm_dimensions": EWAVM_DIMENSIONS,
           "variant_title": variant_title,
           "judge_labels": judge_labels(results["werewolf"]["ewavm"], results["werewolf"].get("judgement_variation_llm"))}
    ctx["readings"] = magic_views.readings(results)  # every page with MAgIC numbers names its reading
    ctx["magic_pages"] = {name: magic_views.page(name) for name in magic_views.METRICS}
    ctx["overall_rows"] = leaderboard_rows(results, refs)  # the exhibition table, and each agent's place in it
    ctx["cross_ranks"] = {row["ref"].key: row["rank"] for row in ctx["overall_rows"]}
    ctx["cross_unranked"] = {row["ref"].key: row["unranked"] for row in ctx["overall_rows"]}
    ranked = ranked_rows(results, refs)
    ctx["ranked_places"] = {}  # agent key -> the ranked board rows it holds the candidate's seat of
    for row in ranked:
        for key in sorted(set(row["agents"].values())) if row.get("score") else ():
            ctx["ranked_places"].setdefault(key, []).append(row)
    ctx["agent_rows"] = AgentRows.of(results)
    ctx["cost_prices"] = (results.get("cost") or {}).get("prices") or {}
    ctx["cost_of"] = cost_views.agent_cost
    ctx["cost_data"] = cost_views.chart_data(results, refs, ranked, list(ctx["games"]))
    pages = SitePages()
    _home(ctx, env, pages)
    _exhibition(ctx, env, pages)
    for name in ctx["games"]:
        _game_page(name, ctx, env, pages)
    _agents_index(ctx, env, pages)
    for ref in refs.values():
        _agent_page(ref, ctx, env, pages)
    for name in magic_views.METRICS:
        _metric_page(name, ctx, env, pages)
    _studies(ctx, env, pages)
    _downloads(ctx, env, pages, csv_names)
    cost_rows = cost_views.page_rows(results, refs)
    pages.markdown[cost_views.PAGE] = env.get_template("cost.md.j2").render(
        **ctx, page=cost_views.PAGE, rows=cost_rows, unpriced=cost_views.why_unpriced(cost_rows),
        status_word=cost_views.status_word)
    history_pages.render(ctx, env, pages.markdown, pages.data)  # the board over time, and each release's
    pages.markdown["glossary.md"] = env.get_template("glossary.md.j2").render(**ctx, page="glossary.md")
    pages.data["data/radar.json"] = radar_data(results, refs)
    pages.data["data/games.json"] = game_chart_data(results, refs)
    pages.data["data/chameleon.json"] = chameleon_data(results, refs)
    pages.data["data/cost.json"] = ctx["cost_data"]
    pages.nav = navigation(ctx["games"], has_replays, methodology)
    return pages

#: The agents' own pages, left out of the nav on purpose (mkdocs.yml `not_in_nav`, gitignore
#: patterns): a nav entry per agent would put every agent on every page, N pages of N links.
AGENT_PAGES_NOT_IN_NAV = "/agents/*.md\n!/agents/index.md"


def navigation(games: Mapping[str, str], has_replays: bool, methodology: Sequence[Any]) -> list[Any]:
    """The mkdocs.yml nav: titles are trusted text. Its size does not depend on the agents: they
    are reached from the agents' index (searchable) and the tables (AGENT_PAGES_NOT_IN_NAV)."""
    nav: list[Any] = [
        {"Leaderboard": "index.md"},
        {"Exhibition board": "exhibition.md"},
        {"Games": [{title: f"games/{name}.md"} for name, title in games.items()]},
        {"Agents": [{"All agents": "agents/index.md"}]},
        {"MAgIC metrics": [{magic_views.TITLES[name]: magic_views.page(name)} for name in magic_views.METRICS]},
        {"Studies": [{"The Chameleon study": "studies/chameleon.md"}, {"Werewolf study": "studies/werewolf.md"}]},
        {"Cost": cost_views.PAGE},
        *history_pages.NAV,
    ]
    if has_replays:
        nav.append({"Replays": [{"Replay index": "replays/index.md"}, {"Replay viewer": "replays/viewer.md"}]})
    if methodology:
        nav.append({"Methodology": list(methodology)})
    nav.append({"Glossary": "glossary.md"})
    nav.append({"Downloads": "downloads.md"})
    return nav
