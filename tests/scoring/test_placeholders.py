"""Copied placeholders: per seat of a game, a language model's free-text moves and how many copy the
answer form of the prompt set that prompted it; kept in the digest, summed per leaderboard row,
and counted on the shipped real-model games as the issue reported them."""

from __future__ import annotations

import random
from pathlib import Path

from runner import games
from site_builder.scoring import leaderboards, placeholders
from site_builder.scoring.corpus import load
from site_builder.scoring.digest import compact
from site_builder.scoring.model import agent_key
from site_builder.scoring.results import assemble, csv_tables
from tests.scoring.builders import builtin, infos, llm, replay, scored

SHIPPED = Path(__file__).resolve().parents[2] / "replays"
RULES = {"players": 4, "clue": "sentence", "rounds": 2}


def model(version: str | None, name: str = "gemma") -> dict:
    described = llm(name, "gemma-3-270m")
    if version is not None:
        described["prompt_version"] = version
    return described


def undercover(seat0: dict, clues: list[str], game_id: str = "golden-1"):
    """A 4-player, 2-round Undercover game: seat 0 gives `clues`, built-ins the rest, then a vote."""
    game = games.get("undercover")
    params = game.params(RULES)
    setup = game.deal(params, random.Random(1))
    agents = [seat0, *(builtin(f"b{s}", "undercover/associative") for s in range(1, 4))]
    inputs = []
    for round_ in range(2):
        inputs.append(("act", 0, {"clue": clues[round_]}))
        inputs += [("act", s, {"clue": f"Something I saw in town {s}"}) for s in range(1, 4)]
    inputs += [("act", s, {"vote": (s + 1) % 4}) for s in range(4)]
    return scored(replay("undercover", setup, agents, inputs, rules=RULES, game_id=game_id)), agents


def test_a_models_copied_clues_are_counted_and_built_in_seats_are_not():
    game, _ = undercover(model("3"), ["<your clue, one line>", "Something with four legs"])
    assert placeholders.game_copies(game) == [[2, 1], None, None, None]
    game, _ = undercover(model("2"), ["your clue, one line", "  <Your Clue>, one line> "])
    assert placeholders.game_copies(game) == [[2, 2], None, None, None]


def test_the_prompt_set_the_seat_names_decides_what_is_copied():
    # "It is your turn ..." is the instruction of every set; "in your own words" a placeholder of set 4 only.
    clues = ["in your own words", "It is your turn to give a clue about your word"]
    assert placeholders.game_copies(undercover(model("3"), clues)[0])[0] == [2, 1]
    assert placeholders.game_copies(undercover(model("4"), clues)[0])[0] == [2, 2]
    # A set this gamenight does not have is not counted rather than guessed; nor is a model without one.
    assert placeholders.game_copies(undercover(model("99"), clues)[0]) == [None] * 4
    assert placeholders.game_copies(undercover(model(None), clues)[0]) == [None] * 4


def test_the_digest_keeps_the_counts_of_a_cached_game():
    game, agents = undercover(model("3"), ["<your clue, one line>", "<your clue, one line>"])
    cached = compact(game)
    assert cached.events == () and cached.digest[placeholders.PIECE] == [[2, 2], None, None, None]
    key = agent_key(agents[0])
    assert placeholders.agent_copies([cached], key) == placeholders.agent_copies([game], key) == [2, 2]


def test_each_leaderboard_row_carries_its_share_and_the_csv_its_counts():
    first, agents = undercover(model("3"), ["<your clue, one line>", "Something with four legs"])
    second, _ = undercover(model("3"), ["<your clue, one line>", "<your clue, one line>"], game_id="golden-2")
    board = leaderboards.board("undercover", [first, second], infos(*agents), seed=1)
    rows = {row["label"]: row for row in board["agents"]}
    copies = rows["gemma"]["placeholders"]
    assert copies["moves"] == 4 and copies["copied"] == 3 and copies["share"]["value"] == 0.75
    assert copies["share"]["n"] == 4 and 0 < copies["share"]["ci"][0] < 0.75 < copies["share"]["ci"][1] <= 1
    assert len(rows) == 2 and all(row["placeholders"] is None for label, row in rows.items() if label != "gemma")
    table = csv_tables({"agents": [], "ratings": {}, "leaderboards": {"undercover": board},
                        "magic": {"reading": "paper", "agents": {}, "alternative": {"reading": "reference",
                                                                                     "agents": {}}},
                        "chameleon": {"matchups": {"cells": []}}})["leaderboards.csv"].splitlines()
    assert table[0].endswith(",free_text_moves,copied_placeholders")
    assert next(line for line in table[1:] if ",gemma," in line).endswith(",4,3")


def test_the_shipped_model_games_copy_as_the_issue_reported():
    """Issue 33: the real model's Undercover clues were all `<your clue, one line>`, and most of its
    Werewolf statements `<your statement>` (prompt sets 2 and 3). A few shipped games of each."""
    paths = sorted((SHIPPED / "local-cpu").glob("local-cpu-undercover-*.jsonl"))[:3]
    paths += sorted((SHIPPED / "local-cpu-strategy").glob("local-cpu-strategy-werewolf-*.jsonl"))[:2]
    results = assemble(load(paths), seed=1)
    shares = {(game, row["label"]): row["placeholders"] for game, board in results["leaderboards"].items()
              for row in board["agents"] if row["placeholders"]}
    undercover_row = shares[("undercover", "gemma3-270m")]
    assert undercover_row["moves"] > 0 and undercover_row["copied"] == undercover_row["moves"]
    werewolf_rows = [entry for (game, _), entry in shares.items() if game == "werewolf"]
    assert werewolf_rows and all(entry["copied"] > 0 for entry in werewolf_rows)
    assert {label for _, label in shares} <= {"gemma3-270m", "gemma3-270m-ww", "gemma3-270m-ww-strategy"}
