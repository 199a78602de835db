"""The results file: every number the leaderboard shows, assembled from a scored corpus."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from runner import __version__ as runner_version
from site_builder.scoring import SCORER_VERSION, chameleon, leaderboards, magic, ratings, theory, werewolf
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.model import games_by_agent

#: The field holding the number an entry stands for, first found wins: a composite's scaled value,
#: a rate's value, a rating (the CSV tables and the pages both show it).
HEADLINE_KEYS = ("scaled", "value", "rating")

RESULTS_FORMAT = "gamenight.results"
RESULTS_VERSION = 3  # 3: magic has both readings (reading, agents, alternative)
# 2: ratings are a Bradley-Terry fit on the Elo scale (rating, rating_ci)
DEFAULT_SEED = 2026


def assemble(corpus: Corpus, *, seed: int = DEFAULT_SEED, magic_reading: str = "paper") -> dict[str, Any]:
    """All results of a corpus as one JSON-able object (deterministic for a given replay set).

    `magic_reading` is the MAgIC reading the leaderboards headline ("paper" or "reference"); the
    other is kept beside it (docs/metrics/magic.md, "Two readings")."""
    games, agents = corpus.games, corpus.agents
    by_game = Counter(g.game for g in games)
    played = games_by_agent(games)
    behaved = leaderboards.conducts(games)
    return {
        "format": RESULTS_FORMAT,
        "version": RESULTS_VERSION,
        "scorer_version": SCORER_VERSION,
        "runner_version": runner_version,
        "replay_set_hash": corpus.replay_set_hash,
        "seed": seed,
        "corpus": {
            "files": corpus.files,
            "games": len(games),
            "valid_games": sum(1 for g in games if g.valid),
            "invalid_games": sum(1 for g in games if not g.valid),
            "by_game": dict(sorted(by_game.items())),
            "invalid_replays": corpus.invalid_replays,
            "duplicates": corpus.duplicates,
        },
        "agents": [
            {"key": a.key, "label": a.label, "kind": a.kind, "provider": a.provider, "design": a.design,
             "description": dict(a.description), "models_reported": list(a.reported),
             **behaved[a.key],
             "by_game": dict(sorted(Counter(g.game for g in played.get(a.key, [])).items()))}
            for a in agents.values()
        ],
        "ratings": ratings.leaderboard(games, agents, seed=seed),
        "leaderboards": leaderboards.leaderboards(games, agents, seed=seed),
        "magic": magic.magic(games, agents, seed=seed, reading=magic_reading),
        "chameleon": {
            "matchups": chameleon.matchups(games, agents, seed=seed),
            "posterior": chameleon.posterior_curves(games, agents, seed=seed),
            "theory": theory.curves(games, agents),
            "strategy_checks": theory.strategy_checks(games, agents),
        },
        "werewolf": {
            "text_distance": werewolf.text_distance(games, agents, seed=seed),
            "judgement_variation": werewolf.judgement_variation(games, agents, seed=seed),
            "ewavm": werewolf.ewavm(games, agents, seed=seed),
        },
        "usage": leaderboards.usage(games, agents),
    }


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


def csv_tables(results: Mapping[str, Any]) -> dict[str, str]:
    """The main tables as CSV texts, by file name."""
    tables: dict[str, str] = {}

    def write(name: str, header: list[str], rows: list[list[Any]]) -> None:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
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
            rows.append([game, row["label"], row["games"], row["seats"], row["win_rate"],
                         *(row["win_rate"]["ci"] if row["win_rate"] else ["", ""]), row["forfeits"],
                         row["forfeit_rate"], row["reask_rate"]])
    write("leaderboards.csv", ["game", "agent", "games", "seats", "win_rate", "win_low", "win_high", "forfeits",
                               "forfeit_rate", "reask_rate"], rows)
    metrics = ["win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation",
               "coordination", "rationality"]
    # The headline reading first, then the other one: one row per agent and reading.
    readings = [(results["magic"]["reading"], results["magic"]["agents"]),
                (results["magic"]["alternative"]["reading"], results["magic"]["alternative"]["agents"])]
    write("magic.csv", ["agent", "reading", *metrics, "radar_area"],
          [[labels.get(key, key), reading, *[entry.get(m) for m in metrics], (entry.get("radar") or {}).get("area")]
           for reading, entries in readings for key, entry in entries.items()])
    write("chameleon_matchups.csv",
          ["players", "words", "clue", "ties", "chameleon", "non_chameleon", "games", "valid_ratio",
           "identification", "non_chameleon_win", "second_chance"],
          [[c["variant"]["players"], c["variant"]["words"], c["variant"]["clue"], c["variant"]["ties"],
            labels.get(c["chameleon"], c["chameleon"]), labels.get(c["non_chameleon"], c["non_chameleon"]),
            c["games"], c["valid_ratio"], c["identification"], c["non_chameleon_win"], c["second_chance"]]
           for c in results["chameleon"]["matchups"]["cells"]])
    return tables


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
