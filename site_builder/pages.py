"""The site's pages as data: Markdown rendered from Jinja2 templates, plus JSON files for charts.

Everything here is a pure function of the results dict (`site_builder.scoring.results.assemble`)
and a little corpus data, so the set of pages depends on the agents and games, never on how many
replays there are. Strings from replays only ever reach Markdown through autoescaped HTML
blocks; headings and titles that Markdown or the theme would interpret hold trusted text only.
"""

from __future__ import annotations


import bisect
import hashlib
import json
import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
import markupsafe

from runner import games as registry
from runner.replay.format import agent_kind
from site_builder import cost_views, history_pages, magic_views
from site_builder.magic_views import READING_NAMES, READING_TITLES
from site_builder.scoring import head_to_head, judges, ratings
from site_builder.scoring.corpus import REFERENCE
from site_builder.scoring.results import CSV_WHAT, HEADLINE_KEYS

TEMPLATES = Path(__file__).parent / "templates" / "pages"
MAGIC_AXES = ("judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination",
              "rationality")
AXIS_TITLES = {"win_rate": "Win Rate", "judgement": "Judgement", "reasoning": "Reasoning",
               "deception": "Deception", "self_awareness": "Self-awareness", "cooperation": "Cooperation",
               "coordination": "Coordination", "rationality": "Rationality"}
MATCHUP_METRICS = {"valid_ratio": "Valid-game ratio", "identification": "Identification rate",
                   "non_chameleon_win": "Non-chameleon win rate", "second_chance": "Second-chance guess accuracy"}
EWAVM_DIMENSIONS = ("engagement", "wonder", "attraction", "variation", "memorability")
RECENT_REPLAYS = 10
MAX_TITLE = 60


# -- names, slugs and URLs -------------------------------------------------------------------

#: The readable part of an agent's slug is at most this long.
MAX_SLUG_NAME = 40


def agent_slug(key: str) -> str:
    """A file-name-safe, stable, readable slug for an agent, from its key (never its label, which
    changes with the names replays give it): what it is (a built-in's strategy, a model and its
    design) in lower-case ASCII, then a hash of the whole key, e.g. "gemma3-270m-pgm-1a2b3c4d"."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    try:
        description = json.loads(key)
    except ValueError:
        description = None
    parts: list[Any] = []
    if isinstance(description, dict):
        parts = [description.get("strategy")] if agent_kind(description) == "builtin" else \
            [description.get("model"), description.get("design")]
    words = re.findall(r"[a-z0-9]+", " ".join(p for p in parts if isinstance(p, str) and p != "vanilla").casefold())
    name = "-".join(words)[:MAX_SLUG_NAME].strip("-")
    return f"{name}-{digest}" if name else f"a-{digest}"


def safe_title(text: str) -> str:
    """Text safe where MkDocs and the theme insert it unescaped (nav, <title>): a conservative whitelist."""
    cleaned = re.sub(r"\s+", " ", text).strip()
    cleaned = re.sub(r"[^\w .:/+()#-]", "_", cleaned, flags=re.UNICODE)
    return cleaned[:MAX_TITLE] or "agent"


def submitted(agent: Mapping[str, Any]) -> bool:
    """Whether an agent's row is a contributor's (scoring/board.py), not the maintainers'."""
    return (agent.get("owner") or {}).get("id", REFERENCE) != REFERENCE


def display_labels(agents: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Labels by agent key, made unique. The maintainers' rows are told apart among themselves (a
    label shared by several gets its slug's tail); a contributor's row whose label another row has
    gets its owner, then the tail: what a submission calls its agents never renames another row."""
    ours = [a for a in agents if not submitted(a)]
    counts = Counter(a["label"] for a in ours)
    shown = {a["key"]: a["label"] if counts[a["label"]] == 1 else f"{a['label']} ({agent_slug(a['key'])[-6:]})"
             for a in ours}
    taken = set(shown.values()) | set(counts)
    theirs = [a for a in agents if submitted(a)]
    labelled = Counter(a["label"] for a in theirs)
    for a in theirs:
        label = a["label"]
        if label in taken or labelled[label] > 1:
            label = f"{label} ({a['owner']['label']})"
        shown[a["key"]] = label
    again = Counter(shown[a["key"]] for a in theirs)
    for a in theirs:
        if again[shown[a["key"]]] > 1 or shown[a["key"]] in taken:
            shown[a["key"]] += f" ({agent_slug(a['key'])[-6:]})"
    return shown


def page_url(md_path: str) -> str:
    """The URL (relative to the site root) of a Markdown page under use_directory_urls."""
    if md_path == "index.md":
        return ""
    if md_path.endswith("/index.md"):
        return md_path[: -len("index.md")]
    return md_path[: -len(".md")] + "/"


def href(from_page: str, target: str, query: Mapping[str, str] | None = None, fragment: str = "") -> str:
    """A relative link from one page to a page (`*.md`) or a site file, with an encoded query."""
    here = page_url(from_page) or "."
    there = page_url(target) if target.endswith(".md") else target
    rel = posixpath.relpath(there or ".", here)
    if target.endswith(".md"):
        rel = "./" if rel == "." else rel + "/"
    if query:
        rel += "?" + urlencode(query)
    if fragment:
        rel += "#" + fragment
    return rel


# -- number formatting (used by the templates) -----------------------------------------------

def headline(entry: Mapping[str, Any] | None) -> float | None:
    """The number a metric entry stands for: a composite's scaled value, else its value or rating."""
    if not entry:
        return None
    for key in HEADLINE_KEYS:
        if key in entry and isinstance(entry[key], (int, float)):
            return float(entry[key])
    return None


def fmt_num(value: float | None, digits: int = 2) -> str:
    """A plain number, or an em dash for an absent one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "\u2014"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A rate as a percentage, or an em dash."""
    return "\u2014" if value is None else f"{100 * value:.{digits}f}%"


#: Below this many observations an interval says little: it is shown as the count instead.
MIN_INTERVAL_N = 5


def fmt_ci(entry: Mapping[str, Any] | None, percent: bool = True, digits: int = 1, key: str = "ci") -> str:
    """The interval of a metric entry as "[lo, hi]" (empty when there is none). An interval of a
    point ("[100.0, 100.0]": every resample alike) reads "[no spread, n = k]", and one behind fewer
    than MIN_INTERVAL_N observations "[n = k]": never a certainty the data do not give."""
    ci = (entry or {}).get(key)
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    n = (entry or {}).get("n")
    if isinstance(n, int) and n < MIN_INTERVAL_N:
        return f"[n = {n}]"
    if ci[0] == ci[1]:
        return f"[no spread, n = {n}]" if isinstance(n, int) else "[no spread]"
    if percent:
        return f"[{100 * ci[0]:.{digits}f}, {100 * ci[1]:.{digits}f}]"
    return f"[{ci[0]:,.{digits}f}, {ci[1]:,.{digits}f}]"


def sort_value(value: Any) -> str:
    """The data-sort attribute of a table cell: a number as text, or empty (always sorted last)."""
    if isinstance(value, Mapping):
        value = headline(value)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return repr(float(value)) if math.isfinite(value) else ""


# -- page model ------------------------------------------------------------------------------

@dataclass
class SitePages:
    """What the build writes into the MkDocs docs folder: pages, JSON data and the navigation."""

    markdown: dict[str, str] = field(default_factory=dict)   # docs-relative path -> Markdown text
    data: dict[str, Any] = field(default_factory=dict)       # docs-relative path -> JSON-able object
    nav: list[Any] = field(default_factory=list)             # the mkdocs.yml `nav`


@dataclass(frozen=True)
class AgentRef:
    """How pages name and link one agent."""

    key: str
    label: str      # as in the replays (escaped where shown)
    display: str    # unique among agents
    slug: str
    page: str       # docs-relative Markdown path
    owner: str = ""  # a contributor's "@login" (escaped where shown); "" for the maintainers' rows
    person: bool = False  # a person's row: self-reported, as no check can tell a person from a script

    @property
    def submitted(self) -> bool:
        return bool(self.owner)

    @property
    def title(self) -> str:
        return safe_title(self.display)


def agent_refs(results: Mapping[str, Any]) -> dict[str, AgentRef]:
    """Every agent of the results, by key."""
    shown = display_labels(results["agents"])
    return {a["key"]: AgentRef(a["key"], a["label"], shown[a["key"]], agent_slug(a["key"]),
                               f"agents/{agent_slug(a['key'])}.md",
                               a["owner"]["label"] if submitted(a) else "", agent_kind(a) == "human")
            for a in results["agents"]}


def yaml_string(text: str) -> markupsafe.Markup:
    """A trusted or whitelisted title as a YAML (JSON) string for front matter, left unescaped."""
    return markupsafe.Markup(json.dumps(text, ensure_ascii=False))


#: Every term a table header or metric name uses, explained in a line: the "?" buttons show these
#: (tap or keyboard, not hover only) and the Glossary page lists them all. Order: the Glossary's.
GLOSSARY: dict[str, tuple[str, str]] = {
    "rank": ("Rank", "The place in this game: by its rating, or for a cooperative game by its seat win rate. In "
                     "brackets, the range of places the 95% intervals allow: \"2 (1-4)\" means second, but the "
                     "data cannot tell it from first or fourth. A contributor's row gets the place it would take "
                     "among the maintainers' rows."),
    "rank_across": ("Rank across games", "The place by the rating over every rated game, each weighing the same, "
                                         "among the agents that played all of them and forfeited at most half "
                                         "their games; in brackets, the range of places the 95% intervals allow. "
                                         "Any other agent has no rank here (it says why): its games' tables "
                                         "rank it."),
    "tier": ("Tier", "Rows the deal-by-deal comparisons of the ranked suite cannot yet tell apart share a tier: a "
                     "new tier starts below a row only where the next row is surely worse (its paired difference's "
                     "95% interval leaves out zero)."),
    "rating": ("Rating", "A skill rating on the Elo scale, fitted to every game's ranking of the agents in it "
                         "(Bradley-Terry, with an advantage per role taken out): 400 points more means 10-to-1 "
                         "odds of ranking higher, and an agent about which nothing is known sits at 1000. The "
                         "interval is a 95% bootstrap over games."),
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


def breakable(name: str) -> markupsafe.Markup:
    """A name (escaped) that may wrap after each slash or underscore, never inside a word:
    `prisoners_<wbr>dilemma/<wbr>tit_<wbr>for_<wbr>tat`."""
    return markupsafe.Markup("").join(
        markupsafe.escape(part) + (markupsafe.Markup("<wbr>") if part[-1:] in "/_" and part else "")
        for part in re.split(r"(?<=[/_])", name))


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the page templates: autoescape always on, undefined is an error."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(num=fmt_num, pct=fmt_pct, ci=fmt_ci, sortval=sort_value, headline=headline,
                       yaml_str=yaml_string, breakable=breakable, usd=cost_views.fmt_usd)
    env.globals.update(axis_titles=AXIS_TITLES, glossary=GLOSSARY, self_play_only=self_play_only,
                       reading_titles=READING_TITLES, ranked_judges=judges.ranked)
    return env


# -- the pages -------------------------------------------------------------------------------

def game_titles() -> dict[str, str]:
    """Every game of the registry with its title, in display order."""
    return {name: registry.get(name).title for name in registry.available()}


#: An agent that forfeited more than this share of its games is never ranked across games: it
#: mostly did not play, and must not sit above agents that did.
MAX_FORFEIT_RANKED = 0.5


def rated_games(results: Mapping[str, Any]) -> list[str]:
    """The games the overall table rates: every competitive game of the board (cooperative ones,
    ranked by their deal rate, are not rated)."""
    return sorted(results["ratings"].get("by_game", {}))


def why_unranked(agent: Mapping[str, Any], rated: Mapping[str, Any] | None, games: Sequence[str]) -> str | None:
    """Why an agent has no rank across games (None: it is ranked): the overall table ranks only
    agents that played every rated game, and that played more than they forfeited."""
    covered = [g for g in games if g in agent["by_game"]]
    if rated is None or not rated.get("rating_ci"):
        return "not rated: no game against another agent"
    if len(covered) < len(games):
        return f"played {len(covered)} of the {len(games)} rated games"
    forfeits = (agent.get("forfeit_rate") or {}).get("value") or 0.0
    if forfeits > MAX_FORFEIT_RANKED:
        return f"forfeited {forfeits:.0%} of its games"
    return None


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
                     "games": agent["games"], "win_rate": (magic.get(key) or {}).get("win_rate"),
                     "forfeit_rate": agent["forfeit_rate"], "reask_rate": agent["reask_rate"],
                     "provider": agent["provider"], "design": agent["design"],
                     "played": sorted(agent["by_game"]), "covered": sum(1 for g in games if g in agent["by_game"])})
    return sorted(rows, key=row_order)


def game_ranks(results: Mapping[str, Any], name: str) -> dict[str, tuple[int, int, int]]:
    """Each agent's rank in one game's table, as every board and the game's page show it: by the
    game's rating, or for a cooperative game (whose every comparison is a draw) by its seat win
    rate, which there is the share of its games whose table agreed (`rank_ranges` on either)."""
    if ratings.cooperative(name):
        board = results["leaderboards"].get(name) or {}
        rows = [{"agent": r["agent"], "rating": r["win_rate"]["value"], "rating_ci": r["win_rate"]["ci"],
                 "owner": r.get("owner")} for r in board.get("agents", []) if r.get("win_rate")]
        return rank_ranges(rows)
    return rank_ranges(results["ratings"].get("by_game", {}).get(name, {}).get("agents", []))


def ranked_by(name: str) -> str:
    """What a game's table is ranked by, in a sentence."""
    if ratings.cooperative(name):
        return ("Ranked by seat win rate: the seats of a table win or lose together, so a rating would compare "
                "only draws; here the win rate is the share of an agent's games whose airlines agreed on a split")
    return "Ranked by this game's rating, which takes out the advantage of the roles each agent was dealt"


def rank_ranges(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per agent of one rating table: its rank by rating, and the best and worst rank its interval
    allows against the others' (1 + how many are surely better; the count of those not surely worse).

    Ranks are places among the maintainers' rows: a contributor's row (one with an "owner",
    scoring/board.py) gets the place it would take among them, and never moves theirs or another
    contributor's. Counted by bisection in sorted bounds, so a table of N agents costs N log N,
    not N squared."""
    rated = [r for r in rows if r.get("rating_ci")]
    ours = [r for r in rated if not r.get("owner")]
    order = sorted(ours, key=lambda r: -r["rating"])
    places = {id(r): place for place, r in enumerate(order, start=1)}
    descending = sorted(-r["rating"] for r in ours)
    lows = sorted(r["rating_ci"][0] for r in ours)
    highs = sorted(r["rating_ci"][1] for r in ours)
    out: dict[str, tuple[int, int, int]] = {}
    for row in rated:
        low, high = row["rating_ci"]
        mine = id(row) in places
        place = places[id(row)] if mine else 1 + bisect.bisect_left(descending, -row["rating"])
        better = len(lows) - bisect.bisect_right(lows, high)  # others' low above this high (never itself)
        not_worse = len(highs) - bisect.bisect_left(highs, low) - mine  # others' high at or above this low
        out[row["agent"]] = (place, 1 + better, 1 + not_worse)
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
                         "self_play": self_play_only(row)})
        rows.sort(key=lambda r: (r["rank"] is None, r["rank"][0] if r["rank"] else 0, r["ref"].display))
        out.append({"name": name, "title": title, "winning": registry.facts_of(name).winning, "rows": rows,
                    "games": board["games"], "ranked_by": ranked_by(name), "cooperative": ratings.cooperative(name)})
    return out


def ranked_rows(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> list[dict[str, Any]]:
    """The ranked board's rows as the home page shows them: a row named by its agent when one agent
    holds the candidate's seat in every game (linked to its page), else by its label."""
    out = []
    for row in (results.get("ranked") or {}).get("rows", []):
        agents = set(row["agents"].values())
        ref = refs.get(next(iter(agents))) if len(agents) == 1 else None
        out.append({"score": None, "unranked": None, "tier": None, "wanted": None, **row, "ref": ref,
                    "owner_label": (row.get("owner") or {}).get("label", "")})
    return out


def ranked_reading(rows: Sequence[Mapping[str, Any]]) -> str:
    """One sentence on what the ranked board says of its first two rows (plain text)."""
    ranked = [r for r in rows if r.get("score") and not r.get("owner")]
    if not ranked:
        return ""
    first = ranked[0]
    name = first["ref"].display if first["ref"] else first["label"]
    said = f"{name} leads with {first['score']['value'] * 100:.1f}% of its seats won"
    if len(ranked) == 1:
        return said + "; no other row has played a whole stage yet."
    second = ranked[1]
    other = second["ref"].display if second["ref"] else second["label"]
    pair = first["compared"].get(second["row"])
    if pair and pair["separated"]:
        return (f"{said}, surely ahead of {other}: {pair['difference'] * 100:+.1f} points on the "
                f"{pair['deals']:,} deals both played [{pair['ci'][0] * 100:+.1f}, {pair['ci'][1] * 100:+.1f}].")
    wanted = first.get("wanted")
    more = f" about {wanted['stages']} more stage{'s' if wanted['stages'] != 1 else ''} would tell" if wanted else ""
    return f"{said}, but the deals played cannot yet tell it from {other};{more or ' no difference is seen'}."


def row_order(row: Mapping[str, Any]) -> tuple:
    """Default leaderboard order: ranked across games by place, then the other rated agents by
    higher rating, then the unrated, each by label."""
    rating = row["rating"]
    if row.get("rank"):
        return (0, row["rank"][0], 0.0, row["ref"].display)
    if rating is None:
        return (2, 0, 0.0, row["ref"].display)
    return (1, 0, -rating["rating"], row["ref"].display)


def game_summaries(per_game: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The home page's line per game (from `game_rankings`): who leads its board, and how sure
    that is in words: the range of places the leader's interval allows among the ranked rows."""
    out = []
    for g in per_game:
        ranked = [r for r in g["rows"] if r["rank"]]
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


def _home(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    """The home page: the ranked board's headline (its reading and compact table) first, then a
    line per game; the boards themselves are on the game pages and the exhibition page."""
    results, refs = ctx["results"], ctx["refs"]
    ranked = ranked_rows(results, refs)
    pages.markdown["index.md"] = env.get_template("index.md.j2").render(
        **ctx, page="index.md", people_played=results.get("people", {}).get("played"),
        summaries=game_summaries(game_rankings(results, refs, ctx["games"])),
        ranked=ranked, ranked_reading=ranked_reading(ranked),
        ranked_stage_size=max((sum(d.values()) for d in (results.get("ranked") or {}).get("stage_deals", {}).values()),
                              default=0),
        ranked_games=[g for g in ctx["games"] if any(g in (r.get("score") or {}).get("by_game", {}) for r in ranked)],
        ranked_cost=any(cost_views.priced(r.get("cost")) for r in ranked))


def _exhibition(ctx: dict[str, Any], env: jinja2.Environment, pages: SitePages) -> None:
    """The overall board of every tournament played (the exhibition), filterable and sortable."""
    results = ctx["results"]
    rows = ctx["overall_rows"]
    pages.markdown["exhibition.md"] = env.get_template("exhibition.md.j2").render(
        **ctx, page="exhibition.md", rows=rows, providers=sorted({r["provider"] for r in rows}),
        designs=sorted({r["design"] for r in rows}),
        played=[g for g in ctx["games"] if g in results["corpus"]["by_game"]],
        rated_games=rated_games(results), max_forfeits=MAX_FORFEIT_RANKED,
        overall_cost=cost_views.any_priced(results, [r["ref"].key for r in rows]))


#: The head-to-head matrix of a game page shows at most this many agents a side, the first of the
#: game's board: its cells grow with the square of the agents, and past a dozen columns a phone
#: reads it one screen at a time. Every pair is in results.json (`head_to_head`).
MAX_MATRIX_AGENTS = 12


def matrix(results: Mapping[str, Any], name: str, order: Sequence[str]) -> dict[str, Any] | None:
    """A game page's head-to-head matrix: the first MAX_MATRIX_AGENTS agents of its board's
    `order` that met another agent, and per (row, column) how often the row's agent beat the
    column's (`head_to_head.beats`, None where no game decided between them) and the games both
    played (0: they never met). None for a game without head-to-head results (cooperative)."""
    table = (results.get("head_to_head") or {}).get(name)
    if table is None:
        return None
    pairs = {(p["a"], p["b"]): p for p in table["pairs"]}
    met = {k for pair in pairs for k in pair}
    agents = [k for k in order if k in met]
    shown = agents[:MAX_MATRIX_AGENTS]

    def cell(row: str, column: str) -> dict[str, Any]:
        pair = pairs.get((row, column)) or pairs.get((column, row))
        if pair is None:
            return {"met": 0, "beats": None}
        return {"met": pair["met"], "beats": head_to_head.beats(pair, row)}

    return {"agents": shown, "total": len(agents),
            "cells": [[None if r == c else cell(r, c) for c in shown] for r in shown]}


def board_order(results: Mapping[str, Any], name: str, refs: Mapping[str, AgentRef]) -> list[Mapping[str, Any]]:
    """A game's leaderboard rows in its page's order: by rank, then the unranked, each by name."""
    board = results["leaderboards"].get(name) or {}
    ranks = game_ranks(results, name) if board else {}
    return sorted(board.get("agents", []), key=lambda r: (
        r["agent"] not in ranks, ranks[r["agent"]][0] if r["agent"] in ranks else 0,
        refs[r["agent"]].display if r["agent"] in refs else r["label"]))


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
        winning=registry.facts_of(name).winning, matrix=matrix(results, name, [r["agent"] for r in ordered]),
        people=people_row(results, name), people_label=PEOPLE_LABEL,
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


#: A radar needs this many measured axes to be a shape; with fewer, the table says it all.
MIN_RADAR_AXES = 3


def measured_axes(entry: Mapping[str, Any] | None) -> int:
    """How many of the seven MAgIC abilities an agent has been measured on."""
    return sum(1 for v in ((entry or {}).get("radar") or {}).get("values", []) if v is not None)


def drawable(entry: Mapping[str, Any] | None) -> bool:
    return measured_axes(entry) >= MIN_RADAR_AXES


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


# -- chart data ------------------------------------------------------------------------------

def game_chart_data(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> dict[str, Any]:
    """Each game page's chart: every agent's seat win rate with its 95% interval, in the order of the
    game's table (its rank), then the unranked (the leaderboards' own entries, so the chart and the
    tables cannot disagree)."""
    out = {}
    for name, board in results["leaderboards"].items():
        rows = [r for r in board["agents"] if r["win_rate"] and r["agent"] in refs]
        ranks = game_ranks(results, name)  # the bars in the order of the game's table
        rows.sort(key=lambda r: (r["agent"] not in ranks, ranks.get(r["agent"], (0,))[0], -r["win_rate"]["value"],
                                 refs[r["agent"]].display))
        bars = [{"label": refs[r["agent"]].display, "value": r["win_rate"]["value"], "ci": r["win_rate"]["ci"],
                 "n": r["win_rate"]["n"], "self_play": self_play_only(r)} for r in rows]
        pooled = people_row(results, name)
        if pooled and pooled["win_rate"]:
            bars.append({"label": PEOPLE_LABEL, "value": pooled["win_rate"]["value"], "ci": pooled["win_rate"]["ci"],
                         "n": pooled["win_rate"]["n"], "self_play": False})  # last: the pooled row has no rank
        out[name] = bars
    return out


#: How the pages name the pooled row of all human seats (docs/metrics.md, "People").
PEOPLE_LABEL = "People (pooled)"


def people_row(results: Mapping[str, Any], game: str) -> Mapping[str, Any] | None:
    """The pooled "people" row of a game's board, if anyone played it."""
    return results.get("people", {}).get("boards", {}).get(game)


def radar_data(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> dict[str, Any]:
    """The radar file: the seven scaled MAgIC values of every agent the MAgIC games scored, in
    the headline reading and (`other`, drawn on request) in the other reading."""
    agents = {}
    others = results["magic"]["alternative"]["agents"]
    for key, entry in results["magic"]["agents"].items():
        if key not in refs or not drawable(entry):
            continue
        radar = entry["radar"]
        agents[refs[key].slug] = {"label": refs[key].display, "values": radar["values"],
                                  "area": headline(radar["area"]), "relative_area": headline(radar["relative_area"])}
        if others.get(key):
            agents[refs[key].slug]["other"] = {"values": others[key]["radar"]["values"]}
    return {"axes": [AXIS_TITLES[a] for a in MAGIC_AXES], "agents": agents,
            "readings": {"headline": READING_NAMES[results["magic"]["reading"]],
                         "other": READING_NAMES[results["magic"]["alternative"]["reading"]]}}


def _label_of(key: str, labels: Mapping[str, str], refs: Mapping[str, AgentRef]) -> str:
    if key in refs:
        return refs[key].display
    return "mixed" if key == "mixed" else labels.get(key, key)


def _cell_text(entry: Mapping[str, Any] | None, games: int) -> str:
    if entry is None:
        return f"no data ({games} games)"
    return f"{fmt_pct(entry['value'])} {fmt_ci(entry)}, n = {entry['n']}"


def chameleon_data(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> dict[str, Any]:
    """Heatmaps per variant, posterior curves and theory-beside-practice series of the Chameleon page."""
    cham = results["chameleon"]
    labels = cham["matchups"]["labels"]
    name = lambda key: _label_of(key, labels, refs)
    variants = []
    by_variant: dict[str, list[Mapping[str, Any]]] = {}
    for c in cham["matchups"]["cells"]:
        by_variant.setdefault(c["key"], []).append(c)
    for v in cham["matchups"]["variants"]:
        cells = {(c["chameleon"], c["non_chameleon"]): c for c in by_variant.get(v["key"], [])}
        rows = most_played(v["chameleon_agents"], cells.values(), "chameleon", name)
        cols = most_played(v["non_chameleon_agents"], cells.values(), "non_chameleon", name)
        metrics = {}
        for metric, title in MATCHUP_METRICS.items():
            z = [[headline(cells[(r, c)][metric]) if (r, c) in cells else None for c in cols] for r in rows]
            text = [[_cell_text(cells[(r, c)][metric], cells[(r, c)]["games"]) if (r, c) in cells else "not played"
                     for c in cols] for r in rows]
            metrics[metric] = {"title": title, "z": z, "text": text}
        variants.append({"key": v["key"], "title": variant_title(v["variant"]), "games": v["games"],
                         "chameleon": [name(k) for k in rows], "non_chameleon": [name(k) for k in cols],
                         "chameleon_total": len(v["chameleon_agents"]),
                         "non_chameleon_total": len(v["non_chameleon_agents"]), "metrics": metrics})
    posterior = []
    for curve in cham["posterior"]["curves"]:
        points = curve["points"]
        posterior.append({
            "key": curve["key"], "title": variant_title(curve["variant"]), "non_chameleon": name(curve["non_chameleon"]),
            "games": curve["games"], "prior_bits": curve["prior_bits"], "estimator": curve["estimator"]["name"],
            "m": [p["m"] for p in points],
            "entropy": [headline(p["entropy"]) for p in points],
            "entropy_ci": [p["entropy"]["ci"] if p["entropy"] else None for p in points],
            "top_k": [{"m": p["m"], "k": [t["k"] for t in p["top_k"]], "value": [t["value"] for t in p["top_k"]]}
                      for p in points]})
    theory = []
    for t in cham["theory"]:
        prop3 = t["prop3"]
        theory.append({
            "players": t["players"], "words": t["words"], "title": f"N = {t['players']}, K = {t['words']}",
            "trivial": t["trivial"]["win"], "revealing": t["revealing"]["win"],
            "prop1": {"alpha": [p["alpha"] for p in t["prop1"]], "value": [p["value"] for p in t["prop1"]]},
            "prop2": {"alpha": [p["alpha"] for p in t["prop2"]], "value": [p["value"] for p in t["prop2"]],
                      "proof_value": [p["proof_value"] for p in t["prop2"]]},
            "prop3": None if prop3 is None else {"l": prop3["l"], "bound": prop3["bound"],
                                                 "ambiguity_win": prop3["ambiguity_win"]},
            "measured": [{"label": f"{name(m['chameleon'])} vs {name(m['non_chameleon'])}",
                          "variant": variant_title(m["variant"]),
                          "value": headline(m["non_chameleon_win"]),
                          "ci": (m["non_chameleon_win"] or {}).get("ci"), "games": m["games"]}
                         for m in t["measured"]]})
    return {"variants": variants, "posterior": posterior, "theory": theory}


#: A heatmap draws at most this many agents a side: one of every agent against every agent would
#: grow with the square of the agents (1,000 agents made a 73 MB chart file), and past a few dozen
#: rows no square can be read. The table under the heatmaps lists every matchup.
MAX_HEATMAP_AGENTS = 30


def most_played(agents: Sequence[str], cells: Iterable[Mapping[str, Any]], side: str,
                name: Callable[[str], str]) -> list[str]:
    """The agents of one side of a heatmap (in their order), cut to the MAX_HEATMAP_AGENTS that
    played the most games on that side (ties: by name)."""
    if len(agents) <= MAX_HEATMAP_AGENTS:
        return list(agents)
    games = Counter()
    for cell in cells:
        games[cell[side]] += cell["games"]
    kept = set(sorted(agents, key=lambda k: (-games[k], name(k), k))[:MAX_HEATMAP_AGENTS])
    return [k for k in agents if k in kept]


def variant_title(variant: Mapping[str, Any]) -> str:
    """A Chameleon variant in words, e.g. "4 players, 16 words, word clues, random ties"."""
    word = lambda v: re.sub(r"[^a-z_]", "", str(v))
    return (f"{int(variant['players'])} players, {int(variant['words'])} words, {word(variant['clue'])} clues, "
            f"{word(variant['ties'])} ties")


# -- entry point -----------------------------------------------------------------------------

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
    ctx["agent_rows"] = AgentRows.of(results)
    ctx["cost_prices"] = (results.get("cost") or {}).get("prices") or {}
    ctx["cost_of"] = cost_views.agent_cost
    ctx["cost_data"] = cost_views.chart_data(results, refs, ranked_rows(results, refs), list(ctx["games"]))
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
    pages.markdown[cost_views.PAGE] = env.get_template("cost.md.j2").render(
        **ctx, page=cost_views.PAGE, rows=cost_views.page_rows(results, refs))
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
