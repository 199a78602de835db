"""The results file: every number the leaderboard shows, assembled from a scored corpus."""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import __version__ as runner_version
from runner import games as registry
from runner.prices import PriceTable
from runner.seeds import SCORING_SEED  # one default seed: the runner's --until-width reads the board's intervals
from runner.prices import load as load_prices
from site_builder.scoring import (SCORER_VERSION, chameleon, cost, head_to_head, judges, leaderboards, magic, people,
                                  ratings, theory, werewolf)
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.schema import Scored
from site_builder.scoring.sections import Sections

#: The field holding the number an entry stands for, first found wins: a composite's scaled value,
#: a rate's value, a rating (the CSV tables and the pages both show it).
HEADLINE_KEYS = ("scaled", "value", "rating")

RESULTS_FORMAT = "gamenight.results"
RESULTS_VERSION = 14  # what each version changed: docs/results-format.md, "Versions"


def assemble(corpus: Corpus, *, seed: int = SCORING_SEED, magic_reading: str = "paper",
             kept: Path | None = None, store: Sections | None = None,
             anchors: Mapping[str, Mapping[str, float]] | None = None,
             prices: PriceTable | None = None) -> Scored:
    """All results of a corpus as one JSON-able object (deterministic for a given replay set).

    `magic_reading` is the MAgIC reading the leaderboards headline ("paper" or "reference"); the
    other is kept beside it (docs/metrics/magic.md, "Two readings").

    With `kept` (a file of sections from earlier scorings, `scoring.sections`), a section whose
    games, agents and seed are unchanged is read back instead of recomputed: the results are
    the same, byte for byte, either way. `store` is such a file already open (the board scores
    several corpora into one, `scoring.board`); it is left open.

    `anchors` ({"overall" or a game: {agent: rating}}) holds those agents' ratings fixed in the
    rating tables and fits only the others: a contributor's games, rated against the maintainers'
    tables (`scoring.board`).

    `prices` is the price table the model rows are priced with (default: the shipped
    runner/prices.toml; scoring/cost.py).
    """
    games, agents = corpus.games, corpus.agents
    prices = load_prices() if prices is None else prices
    own_store = store is None
    store = Sections(kept, agents, games, seed) if store is None else store
    try:
        at = _Scoring(games, agents, leaderboards.games_by_name(games), seed, store, anchors)
        # Tallies of each game's games, added up: a new game re-counts only its game's tallies.
        counted = {name: at.section(f"conducts/{name}", at.of(name), lambda: leaderboards.conduct_counts(at.of(name)))
                   for name in at.names}
        used = [at.section(f"usage/{name}", at.of(name), lambda: leaderboards.usage_counts(at.of(name)))
                for name in at.names]
        results: Scored = {
            "format": RESULTS_FORMAT,
            "version": RESULTS_VERSION,
            "scorer_version": SCORER_VERSION,
            "runner_version": runner_version,
            "replay_set_hash": corpus.replay_set_hash,
            "seed": seed,
            "corpus": _corpus_section(corpus, at.by_game),
            "agents": _agents(agents, counted),
            "ratings": _ratings_section(at),
            "leaderboards": {name: at.section(f"leaderboards/{name}", at.of(name),
                                              lambda: leaderboards.board(name, at.of(name), agents, seed=seed,
                                                                         keep=store.section))
                             for name in at.played},
            # Per competitive game (every seat of a cooperative one wins or loses with the others).
            "head_to_head": {name: at.section(f"head_to_head/{name}", at.of(name),
                                              lambda: head_to_head.head_to_head(at.of(name)))
                             for name in at.played if not ratings.cooperative(name)},
            "people": _people_section(at),
            "magic": at.section(f"magic/{magic_reading}", games,
                                lambda: magic.magic(games, agents, seed=seed, reading=magic_reading,
                                                    keep=store.section)),
            "chameleon": _chameleon_section(at),
            "werewolf": _werewolf_section(at),
            "usage": leaderboards.usage_report(leaderboards.add_counts(used), agents),
            # Cheap sums of each game's usage: recomputed every time, so a new price table needs no new games.
            "cost": {**cost.agent_costs(games, agents, prices),
                     "prices": {key: entry.to_json() for key, entry in sorted(prices.entries.items())}},
        }
    finally:
        if own_store:
            store.close()
    return results


@dataclass(frozen=True)
class _Scoring:
    """What every section of one scoring reads: the games (all, and by game), the agents, the seed,
    the section store and the ratings held fixed (per table: "overall" or a game)."""

    games: list[ScoredGame]
    agents: Mapping[str, AgentInfo]
    by_game: dict[str, list[ScoredGame]]
    seed: int
    store: Sections
    anchors: Mapping[str, Mapping[str, float]] | None

    @property
    def section(self) -> Callable[..., Any]:
        """The store's section: read back if its games, agents and seed are unchanged, else made."""
        return self.store.section

    @property
    def names(self) -> list[str]:
        """The games played, by name."""
        return sorted(self.by_game)

    @property
    def played(self) -> list[str]:
        """The games played, in the registry's order (the order the pages list games in)."""
        return [name for name in registry.GAME_MODULES if self.by_game.get(name)]

    def of(self, name: str) -> list[ScoredGame]:
        """The games of one game (none: an empty list)."""
        return self.by_game.get(name, [])

    def fixed(self, table: str) -> Mapping[str, float] | None:
        """The ratings held fixed in one rating table (None: no table is anchored in this scoring)."""
        return self.anchors.get(table, {}) if self.anchors is not None else None


def _corpus_section(corpus: Corpus, by_game: Mapping[str, list[ScoredGame]]) -> dict[str, Any]:
    """How many files and games were read, by game, and the files refused or repeated."""
    games = corpus.games
    return {
        "files": corpus.files,
        "games": len(games),
        "valid_games": sum(1 for g in games if g.valid),
        "invalid_games": sum(1 for g in games if not g.valid),
        "by_game": {name: len(among) for name, among in sorted(by_game.items())},
        "invalid_replays": corpus.invalid_replays,
        "duplicates": corpus.duplicates,
    }


def _ratings_section(at: _Scoring) -> dict[str, Any]:
    """The same tables as ratings.leaderboard, each its own section (new games of one game re-fit
    the overall table and that game's, not the others'), fitted from each game's pattern tallies
    (new games re-count only their game's); a fit is kept under its patterns, so games that add
    none (self-play) re-fit nothing."""
    rated = [name for name in at.names if not ratings.cooperative(name)]  # every seat of a cooperative game ties
    patterns = {name: at.section(f"ratings/patterns/{name}", at.of(name), lambda: ratings.pattern_tally(at.of(name)))
                for name in rated}
    overall = at.section("ratings/overall" + _anchored(at.fixed("overall")), [g for g in at.games if g.game in patterns],
                         lambda: ratings.tallied_table(patterns.values(), at.agents, seed=at.seed,
                                                       keep=at.store.derived, anchors=at.fixed("overall")))
    return {"overall": overall,
            "by_game": {name: at.section(f"ratings/{name}" + _anchored(at.fixed(name)), at.of(name),
                                         lambda: ratings.tallied_table([patterns[name]], at.agents, seed=at.seed,
                                                                       game=name, keep=at.store.derived,
                                                                       anchors=at.fixed(name)))
                        for name in rated}}


def _people_section(at: _Scoring) -> dict[str, Any]:
    """Who played as a person, and each game's pooled row of people."""
    return {"played": people.played(at.games, at.agents),
            "boards": {name: row for name in at.played
                       if (row := at.section(f"people/{name}", at.of(name),
                                             lambda: people.pooled_row(name, at.of(name), at.agents, seed=at.seed)))}}


def _chameleon_section(at: _Scoring) -> dict[str, Any]:
    """The Chameleon's matchups, posterior curves, theoretical bounds and strategy checks."""
    chameleons = at.of(chameleon.GAME)
    groups = functools.cache(lambda: chameleon.grouped(chameleons))  # made once, if a section needs it
    return {
        "matchups": at.section("chameleon/matchups", chameleons,
                               lambda: chameleon.matchups(chameleons, at.agents, seed=at.seed, groups=groups())),
        "posterior": at.section("chameleon/posterior", chameleons,
                                lambda: chameleon.posterior_curves(chameleons, at.agents, seed=at.seed,
                                                                   keep=at.store.section)),
        "theory": at.section("chameleon/theory", chameleons, lambda: theory.curves(chameleons, at.agents, groups())),
        "strategy_checks": at.section("chameleon/strategy_checks", chameleons,
                                      lambda: theory.strategy_checks(chameleons, at.agents, groups())),
    }


def _werewolf_section(at: _Scoring) -> dict[str, Any]:
    """The Werewolf readings; the neural one, or why it is absent, under a section naming its embedder."""
    werewolves = at.of(werewolf.GAME)
    groups = functools.cache(lambda: werewolf.grouping(werewolves, at.agents))
    readings = (("text_distance", "werewolf/text_distance"),
                ("text_distance_neural", f"werewolf/text_distance_neural/{werewolf.neural_tag()}"),
                ("judgement_variation", "werewolf/judgement_variation"),
                ("judgement_variation_llm", "werewolf/judgement_variation_llm"),
                ("ewavm", "werewolf/ewavm"))
    return {name: at.section(where, werewolves,
                             lambda name=name, where=where: getattr(werewolf, name)(
                                 werewolves, at.agents, seed=at.seed, keep=at.store.section, section=where,
                                 groups=groups()))
            for name, where in readings}


def _anchored(anchors: Mapping[str, float] | None) -> str:
    """The part of a rating section's name that says which anchors it was fitted against."""
    if anchors is None:
        return ""
    return "/anchored/" + hashlib.sha256(json.dumps(sorted(anchors.items())).encode()).hexdigest()[:16]


def _agents(agents: Mapping[str, AgentInfo], counted: Mapping[str, Mapping[str, list[int]]]) -> list[dict[str, Any]]:
    """Each agent: its description, its conduct over all its games, and its games by game.

    `counted`: game -> `leaderboards.conduct_counts` of that game's games.
    """
    behaved = leaderboards.conduct_rates(leaderboards.add_counts(counted.values()))
    return [
        {"key": a.key, "label": a.label, "kind": a.kind, "provider": a.provider, "design": a.design,
         "description": dict(a.description), "models_reported": list(a.reported),
         **behaved[a.key],
         "by_game": {name: counts[a.key][0] for name, counts in counted.items() if a.key in counts}}
        for a in agents.values()
    ]


def dumps(results: Mapping[str, Any]) -> str:
    """Canonical JSON text of the results (NaN is refused: absent values are null)."""
    return json.dumps(results, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


#: What a spreadsheet takes for the start of a formula (OWASP, "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A CSV cell: rates and composites as their value, absent as empty, and a text that a
    spreadsheet would run as a formula (an agent named "=HYPERLINK(...)") quoted with a leading
    apostrophe, so it is shown as text."""
    if isinstance(value, Mapping):
        for key in HEADLINE_KEYS:
            if key in value:
                return value[key]
    if isinstance(value, str):
        # A lone carriage return would end the row for a reader (the writer only quotes "\n").
        value = value.replace("\r", "\\r")
        return "'" + value if value.startswith(_FORMULA_START) else value
    return "" if value is None else value


#: What each CSV table holds, for the downloads page.
CSV_WHAT = {
    "ratings.csv": "the overall ratings with their 95% intervals",
    "leaderboards.csv": "per game and agent: games, seats, win rate, forfeits, re-asks, free-text moves and how "
                        "many copy the answer form's placeholder",
    "magic.csv": "the MAgIC metrics per agent, a row per reading (the headline reading first)",
    "chameleon_matchups.csv": "The Chameleon per variant and pairing",
    "werewolf.csv": "Werewolf per agent: Text Distance per embedder and Judgement Variation in the probe "
                    "reading and each LLM judge's reading, a column group each, named with its embedder or judge",
    "werewolf_ewavm.csv": "Werewolf Engagement, Wonder, Attraction, Variation and Memorability, a row per agent "
                          "and judge (never pooled across judges)",
}


def csv_tables(results: Mapping[str, Any]) -> dict[str, str]:
    """The main tables as CSV texts, by file name."""
    tables: dict[str, str] = {}

    def write(name: str, header: list[str], rows: list[list[Any]]) -> None:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([_cell(h) for h in header])  # a header may hold a judge's model name
        writer.writerows([[_cell(v) for v in row] for row in rows])
        tables[name] = out.getvalue()

    labels = {a["key"]: a["label"] for a in results["agents"]}
    overall = results["ratings"].get("overall", {}).get("agents", [])
    write("ratings.csv", ["agent", "rating", "rating_low", "rating_high", "rank_upper_bound", "games"],
          [[labels.get(r["agent"], r["agent"]), r["rating"], *(r.get("rating_ci") or ["", ""]),
            r["rank_upper_bound"], r["games"]] for r in overall])
    rows = []
    for game, board in results["leaderboards"].items():
        for row in board["agents"]:
            copies = row.get("placeholders") or {}
            rows.append([game, row["label"], row["games"], row["seats"], row["win_rate"],
                         *(row["win_rate"]["ci"] if row["win_rate"] else ["", ""]), row["forfeits"],
                         row["forfeit_rate"], row["reask_rate"], copies.get("moves"), copies.get("copied")])
    write("leaderboards.csv", ["game", "agent", "games", "seats", "win_rate", "win_low", "win_high", "forfeits",
                               "forfeit_rate", "reask_rate", "free_text_moves", "copied_placeholders"], rows)
    metrics = ["win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation",
               "coordination", "rationality"]
    # The headline reading first, then the other one: one row per agent and reading.
    readings = [(results["magic"]["reading"], results["magic"]["agents"]),
                (results["magic"]["alternative"]["reading"], results["magic"]["alternative"]["agents"])]
    write("magic.csv", ["agent", "reading", *metrics, "radar_area"],
          [[labels.get(key, key), reading, *[entry.get(m) for m in metrics], (entry.get("radar") or {}).get("area")]
           for reading, entries in readings for key, entry in entries.items()])
    header, rows = _werewolf_readings(results, labels)
    if rows:
        write("werewolf.csv", header, rows)
    header, rows = _werewolf_ewavm(results, labels)
    if rows:
        write("werewolf_ewavm.csv", header, rows)
    write("chameleon_matchups.csv",
          ["players", "words", "clue", "ties", "chameleon", "non_chameleon", "games", "valid_ratio",
           "identification", "non_chameleon_win", "second_chance"],
          [[c["variant"]["players"], c["variant"]["words"], c["variant"]["clue"], c["variant"]["ties"],
            labels.get(c["chameleon"], c["chameleon"]), labels.get(c["non_chameleon"], c["non_chameleon"]),
            c["games"], c["valid_ratio"], c["identification"], c["non_chameleon_win"], c["second_chance"]]
           for c in results["chameleon"]["matchups"]["cells"]])
    return tables


#: Per composite of a CSV reading: its headline value, interval, raw value and games behind it.
_COMPOSITE_COLUMNS = ("", " low", " high", " raw", " n")


def _composite_cells(entry: Mapping[str, Any] | None) -> list[Any]:
    if not entry:
        return [None] * len(_COMPOSITE_COLUMNS)
    ci = entry.get("ci") or [None, None]
    return [entry.get("scaled"), ci[0], ci[1], entry.get("raw"), entry.get("n")]


def _werewolf_readings(results: Mapping[str, Any], labels: Mapping[str, str]) -> tuple[list[str], list[list[Any]]]:
    """werewolf.csv: per agent (and over all games), Text Distance in each embedder's reading and
    Judgement Variation J (scaled) in the probe reading and each LLM judge's reading, every column
    named with its reading, embedder or judge; an empty cell has no value (the site says why)."""
    ww = results.get("werewolf") or {}
    # (column name, part of the results, how to get the composite from an entry)
    readings: list[tuple[str, Mapping[str, Any], Any]] = []
    if ww.get("text_distance"):
        name = ww["text_distance"]["embedder"]["name"]
        readings.append((f"text_distance [{name}]", ww["text_distance"], lambda e: e.get("distance")))
    neural = ww.get("text_distance_neural")
    if neural:  # results of format 5 on; without the model package its cells are empty
        readings.append((f"text_distance [{neural['embedder']['name']}]", neural, lambda e: e.get("distance")))
    if ww.get("judgement_variation"):
        readings.append(("judgement_variation J [probe reading]", ww["judgement_variation"], lambda e: e.get("J")))
    llm = ww.get("judgement_variation_llm")
    if llm:
        names = judges.labels(judges.judges_of(ww.get("ewavm"), llm))
        for judge in judges.ranked((llm.get("all") or {}).get("judges") or {}):
            readings.append((f"judgement_variation J [LLM reading by {names[judge]}]", llm,
                             lambda e, j=judge: ((e.get("judges") or {}).get(j) or {}).get("J")))
    keys = sorted({k for _, part, _ in readings for k in part.get("agents") or {}}, key=lambda k: (labels.get(k, k), k))
    header = ["scope", "agent"] + [name + suffix for name, _, _ in readings for suffix in _COMPOSITE_COLUMNS]

    def cells(pick: Any, entry: Mapping[str, Any] | None) -> list[Any]:
        return _composite_cells(pick(entry) if entry else None)

    rows = [["agent", labels.get(k, k), *[c for _, part, pick in readings
                                          for c in cells(pick, (part.get("agents") or {}).get(k))]] for k in keys]
    if any(part.get("all") for _, part, _ in readings):
        rows.append(["all games", None, *[c for _, part, pick in readings for c in cells(pick, part.get("all"))]])
    return header, rows


def _werewolf_ewavm(results: Mapping[str, Any], labels: Mapping[str, str]) -> tuple[list[str], list[list[Any]]]:
    """werewolf_ewavm.csv: a row per agent and judge (and per judge over all games), each judge's
    own five dimensions (never pooled across judges), the headline judge first (judges.ranked)."""
    ww = results.get("werewolf") or {}
    ewavm = ww.get("ewavm") or {}
    names = judges.labels(judges.judges_of(ewavm, ww.get("judgement_variation_llm")))
    header = ["scope", "agent", "judge", "games judged",
              *[d + suffix for d in werewolf.DIMENSIONS for suffix in _COMPOSITE_COLUMNS]]
    scoped = [("agent", labels.get(k, k), entry) for k, entry in
              sorted((ewavm.get("agents") or {}).items(), key=lambda kv: (labels.get(kv[0], kv[0]), kv[0]))]
    if ewavm.get("all"):
        scoped.append(("all games", None, ewavm["all"]))
    rows = [[scope, label, names[j], entry["judges"][j]["games"],
             *[c for d in werewolf.DIMENSIONS for c in _composite_cells(entry["judges"][j][d])]]
            for scope, label, entry in scoped for j in judges.ranked(entry.get("judges") or {})]
    return header, rows


def write(results: Mapping[str, Any], out: Path, csv_dir: Path | None = None) -> list[Path]:
    """Write the results JSON (and the CSV tables); the paths written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(results), encoding="utf-8")
    written = [out]
    if csv_dir is not None:
        csv_dir.mkdir(parents=True, exist_ok=True)
        for name, text in csv_tables(results).items():
            path = csv_dir / name
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
