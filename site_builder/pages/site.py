"""Every page of the site and the chart files they read, from the page families' declarations.

Everything here is a pure function of the results dict (`site_builder.scoring.results.assemble`)
and a little corpus data, so the set of pages depends on the agents and games, never on how many
replays there are. Each family (a module of this package) declares its pages (`page.Page`: path,
where the navigation lists it, template, context) and its chart files; `render` puts them in the
navigation's order with the pages the build brings (the replay viewer's, the methodology), renders
them in one environment with the variables every page shares, and derives the navigation and the
pages left out of it from the same declarations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from site_builder.pages import (agents, cost, downloads, exhibition, games, glossary, history, home, magic, page,
                                studies)
from site_builder.pages.boards import forfeited_all, leaderboard_rows, ranked_rows, self_play_only
from site_builder.pages.charts import AXIS_TITLES, MATCHUP_METRICS, variant_title
from site_builder.pages.labels import (agent_refs, agent_slug, breakable, fmt_ci, fmt_ci_n, fmt_num, fmt_pct, headline,
                                       href, sort_value, yaml_string)
from site_builder.pages.page import Page
from site_builder.scoring import judges

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "pages"
EWAVM_DIMENSIONS = ("engagement", "wonder", "attraction", "variation", "memorability")


@dataclass
class SitePages:
    """What the build writes into the MkDocs docs folder: pages, JSON data and the navigation."""

    markdown: dict[str, str] = field(default_factory=dict)   # docs-relative path -> Markdown text
    data: dict[str, Any] = field(default_factory=dict)       # docs-relative path -> JSON-able object
    nav: list[Any] = field(default_factory=list)             # the mkdocs.yml `nav`
    not_in_nav: str = ""                                     # the mkdocs.yml `not_in_nav`
    pages: list[Page] = field(default_factory=list)          # the declarations, in the navigation's order


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the page templates: autoescape always on, undefined is an error."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(num=fmt_num, pct=fmt_pct, ci=fmt_ci, ci_n=fmt_ci_n, sortval=sort_value, headline=headline,
                       yaml_str=yaml_string, breakable=breakable, usd=cost.fmt_usd)
    env.globals.update(axis_titles=AXIS_TITLES, glossary=glossary.GLOSSARY, self_play_only=self_play_only,
                       forfeited_all=forfeited_all, reading_titles=magic.READING_TITLES, ranked_judges=judges.ranked)
    env.tests.update(forfeited_all=forfeited_all)
    return env


def render(results: Mapping[str, Any], *, recent: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
           featured: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
           replays: Sequence[Page] = (), methodology: Sequence[Page] = (),
           csv_names: Sequence[str] = (), results_files: Mapping[str, Any] | None = None,
           site_name: str = "gamenight") -> SitePages:
    """Every generated page and chart file of the site, with the navigation.

    `recent`: a few recent games per agent key (build.recent_games; listed on agent pages when the
    site has the replay viewer); `replays`: the replay viewer's pages, rendered (viewer.pages.pages;
    none: a site without the viewer); `methodology`: the copied formula pages (methodology.pages).
    """
    refs = agent_refs(results)
    ctx = {"results": results, "refs": refs, "games": games.titles(), "has_replays": bool(replays),
           "recent": dict(recent or {}), "featured": dict(featured or {}), "featured_rules": games.FEATURED_RULES,
           "site_name": site_name, "has_methodology": bool(methodology), "href": href, "slug": agent_slug,
           "matchup_metrics": MATCHUP_METRICS, "ewavm_dimensions": EWAVM_DIMENSIONS,
           "variant_title": variant_title, "csv_names": list(csv_names),
           "results_files": dict(results_files or {"whole": True, "parts": []}),
           "judge_labels": studies.judge_labels(results["werewolf"]["ewavm"],
                                                results["werewolf"].get("judgement_variation_llm"))}
    ctx["readings"] = magic.readings(results)  # every page with MAgIC numbers names its reading
    ctx["magic_pages"] = {name: magic.page(name) for name in magic.METRICS}
    ctx["overall_rows"] = leaderboard_rows(results, refs)  # the exhibition table, and each agent's place in it
    ctx["cross_ranks"] = {row["ref"].key: row["rank"] for row in ctx["overall_rows"]}
    ctx["cross_unranked"] = {row["ref"].key: row["unranked"] for row in ctx["overall_rows"]}
    ranked = ranked_rows(results, refs)
    ctx["ranked_places"] = {}  # agent key -> the ranked board rows it holds the candidate's seat of
    for row in ranked:
        for key in sorted(set(row["agents"].values())) if row.get("score") else ():
            ctx["ranked_places"].setdefault(key, []).append(row)
    ctx["cost_prices"] = (results.get("cost") or {}).get("prices") or {}
    ctx["cost_of"] = cost.agent_cost
    ctx["cost_data"] = cost.chart_data(results, refs, ranked, list(ctx["games"]))
    # The families in the navigation's order.
    declared = [*home.pages(ctx), *exhibition.pages(ctx), *games.pages(ctx), *agents.pages(ctx),
                *magic.pages(ctx), *studies.pages(ctx), *cost.pages(ctx), *history.pages(ctx), *replays,
                *methodology, *glossary.pages(ctx), *downloads.pages(ctx)]
    data = {**agents.data(ctx), **games.data(ctx), **studies.data(ctx), **cost.data(ctx), **history.data(ctx)}
    return SitePages(markdown=page.render(declared, environment(), ctx), data=data, nav=page.navigation(declared),
                     not_in_nav=page.not_in_nav(declared), pages=declared)
