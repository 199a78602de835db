"""The chart files of the site (data/*.json): each a pure function of the results dict.

site.js draws them with Plotly: the labels in them come from replays and reach the page through
textContent, or escaped where Plotly would read markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from site_builder.pages.boards import PEOPLE_LABEL, forfeited_all, game_ranks, people_row, self_play_only
from site_builder.pages.labels import AgentRef, fmt_ci, fmt_pct, headline
from site_builder.pages.magic import READING_NAMES


MAGIC_AXES = ("judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination",
              "rationality")

AXIS_TITLES = {"win_rate": "Win Rate", "judgement": "Judgement", "reasoning": "Reasoning",
               "deception": "Deception", "self_awareness": "Self-awareness", "cooperation": "Cooperation",
               "coordination": "Coordination", "rationality": "Rationality"}

MATCHUP_METRICS = {"valid_ratio": "Complete-game ratio", "identification": "Identification rate",
                   "non_chameleon_win": "Non-chameleon win rate", "second_chance": "Second-chance guess accuracy"}

#: A radar needs this many measured axes to be a shape; with fewer, the table says it all.
MIN_RADAR_AXES = 3


def measured_axes(entry: Mapping[str, Any] | None) -> int:
    """How many of the seven MAgIC abilities an agent has been measured on."""
    return sum(1 for v in ((entry or {}).get("radar") or {}).get("values", []) if v is not None)


def drawable(entry: Mapping[str, Any] | None) -> bool:
    return measured_axes(entry) >= MIN_RADAR_AXES


def game_chart_data(results: Mapping[str, Any], refs: Mapping[str, AgentRef]) -> dict[str, Any]:
    """Each game page's chart: every agent's seat win rate with its 95% interval, in the order of the
    game's table (its rank), then the unranked (the leaderboards' own entries, so the chart and the
    tables cannot disagree)."""
    out = {}
    for name, board in results["leaderboards"].items():
        rows = [r for r in board["agents"] if r["win_rate"] and r["agent"] in refs]
        ranks = game_ranks(results, name)  # the bars in the order of the game's table
        rows.sort(key=lambda r: (forfeited_all(r), r["agent"] not in ranks, ranks.get(r["agent"], (0,))[0],
                                 -r["win_rate"]["value"], refs[r["agent"]].display))
        bars = [{"label": refs[r["agent"]].display, "value": r["win_rate"]["value"], "ci": r["win_rate"]["ci"],
                 "n": r["win_rate"]["n"], "self_play": self_play_only(r)} for r in rows]
        pooled = people_row(results, name)
        if pooled and pooled["win_rate"]:
            bars.append({"label": PEOPLE_LABEL, "value": pooled["win_rate"]["value"], "ci": pooled["win_rate"]["ci"],
                         "n": pooled["win_rate"]["n"], "self_play": False})  # last: the pooled row has no rank
        out[name] = bars
    return out


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
