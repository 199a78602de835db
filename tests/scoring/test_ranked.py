"""The ranked board (scoring/ranked.py): suite games only, rows compared deal by deal, and no row
moved by another's games."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.scoring import ranked
from site_builder.scoring.model import ScoredGame, SeatInfo

STAGE = {"ranked-1": {"prisoners_dilemma": 2, "public_good": 1}}


def deal(row: str, game: str, index: int, won: bool, *, forfeit: bool = False, seat: int = 0,
         candidate: str = "model") -> ScoredGame:
    """Deal `index` of `game` in row `row`: the candidate at `seat`, won or lost (or forfeited)."""
    seats = tuple(SeatInfo(i, f"P{i}", "player", candidate if i == seat else f"bot{i}",
                           won and not forfeit if i == seat else False) for i in range(3))
    # Points won or lost outright (the best seat's points, or none), so that the deal is worth 1 or 0.
    points = [(10 if won else 0) if i == seat else (5 if won else 10) for i in range(3)]
    return ScoredGame(
        game_id=f"{row}-{game}-{index}", game=game, variant={}, setup={}, tournament=row, created="2026-11-28",
        content_hash=f"{row}{game}{index}", status="invalid" if forfeit else "complete", seats=seats,
        winners=(seat,) if won and not forfeit else (),
        result={"forfeit": {"seat": seat}} if forfeit else {"totals": points, "finals": points}, events=(), probes=(),
        usage=(),
        suite={"name": "ranked", "version": 1, "stage": index // STAGE["ranked-1"][game] + 1, "deal": index,
               "seat": seat})


def row_games(row: str, wins: dict[str, list[bool]], **kwargs) -> list[ScoredGame]:
    return [deal(row, game, i, w, **kwargs) for game, results in wins.items() for i, w in enumerate(results)]


def by_row(board: dict) -> dict[str, dict]:
    return {r["row"]: r for r in board["rows"]}


def test_the_score_is_the_mean_of_each_games_win_rate():
    games = row_games("ranked-1-a", {"prisoners_dilemma": [True, True, False, False], "public_good": [True, True]})
    row = by_row(ranked.board(games, {}, STAGE, seed=1))["ranked-1-a"]
    assert row["score"]["by_game"]["prisoners_dilemma"]["value"] == 0.5
    assert row["score"]["by_game"]["public_good"]["value"] == 1.0
    assert row["score"]["value"] == pytest.approx(0.75)  # each game weighs the same, not each deal
    assert row["score"]["n"] == 6 and row["stages"] == 2
    low, high = row["score"]["ci"]
    assert low <= 0.75 <= high and 0 < high - low < 1


def test_a_forfeit_of_the_candidate_is_a_loss_and_other_games_are_not_counted():
    games = [deal("ranked-1-a", "prisoners_dilemma", 0, True, forfeit=True),
             deal("ranked-1-a", "prisoners_dilemma", 1, True), deal("ranked-1-a", "public_good", 0, True)]
    bot_forfeit = dataclass_replace(deal("ranked-1-a", "prisoners_dilemma", 2, False), status="invalid",
                                    result={"forfeit": {"seat": 1}})
    not_suite = dataclass_replace(deal("ranked-1-a", "prisoners_dilemma", 3, True), suite=None)
    row = by_row(ranked.board([*games, bot_forfeit, not_suite], {}, STAGE, seed=1))["ranked-1-a"]
    assert dict(row["deals"]["prisoners_dilemma"]) == {0: 0.0, 1: 1.0} and row["forfeits"] == 1


def dataclass_replace(game: ScoredGame, **changes) -> ScoredGame:
    import dataclasses

    return dataclasses.replace(game, **changes)


def test_a_row_without_a_whole_stage_of_every_game_is_listed_not_ranked():
    games = row_games("ranked-1-a", {"prisoners_dilemma": [True, False]})
    row = by_row(ranked.board(games, {}, STAGE, seed=1))["ranked-1-a"]
    assert row.get("score") is None
    assert row["unranked"] == "provisional: lacks 1 of 1 Public Good deals of stage 1"


def test_rows_are_compared_deal_by_deal():
    wins = [True, False] * 10
    a = row_games("ranked-1-a", {"prisoners_dilemma": wins, "public_good": wins[:10]})
    b = row_games("ranked-1-b", {"prisoners_dilemma": [not w for w in wins], "public_good": [False] * 10})
    same = row_games("ranked-1-c", {"prisoners_dilemma": wins, "public_good": wins[:10]})
    rows = by_row(ranked.board(a + b + same, {}, STAGE, seed=1))
    a_vs_c = rows["ranked-1-a"]["compared"]["ranked-1-c"]
    assert a_vs_c["difference"] == 0 and not a_vs_c["separated"]
    assert a_vs_c["ci"][0] < 0 < a_vs_c["ci"][1] and a_vs_c["ci"][1] - a_vs_c["ci"][0] < 0.1  # Jeffreys' terms only
    a_vs_b = rows["ranked-1-a"]["compared"]["ranked-1-b"]
    # Prisoner's Dilemma: a wins exactly the deals b loses (0 on average); Public Good: +0.5
    assert a_vs_b["difference"] == pytest.approx(0.25) and a_vs_b["deals"] == 30
    assert rows["ranked-1-a"]["tier"] == rows["ranked-1-c"]["tier"] == 1


def test_paired_deals_cancel_the_luck_of_the_deal():
    """Most of a deal's outcome is the deal (easy or hard), the same for every row; the stronger
    row wins a few more. Deal by deal the difference is clear; as independent samples it is not."""
    rng = random.Random(7)
    easy = [rng.random() < 0.5 for _ in range(200)]
    extra = set(rng.sample(range(200), 40))  # hard deals the stronger row still wins
    strong = [e or i in extra for i, e in enumerate(easy)]
    games = row_games("ranked-1-strong", {"prisoners_dilemma": strong, "public_good": strong[:100]}) + \
        row_games("ranked-1-weak", {"prisoners_dilemma": easy, "public_good": easy[:100]})
    rows = by_row(ranked.board(games, {}, STAGE, seed=3))
    pair = rows["ranked-1-strong"]["compared"]["ranked-1-weak"]
    assert pair["separated"] and pair["difference"] > 0
    own = [rows[r]["score"]["ci"] for r in ("ranked-1-strong", "ranked-1-weak")]
    assert own[0][0] < own[1][1]  # their own intervals overlap: unpaired, they could not be told apart
    assert (rows["ranked-1-strong"]["place"], rows["ranked-1-strong"]["best"], rows["ranked-1-strong"]["worst"]) == \
        (1, 1, 1)
    assert rows["ranked-1-weak"]["tier"] == 2


def test_wanted_stages_are_those_that_would_separate_the_gap_seen_four_times_in_five():
    comparison = {"difference": 0.1, "se": 0.05, "critical": 3.0, "stages": 2, "separated": False}
    more = ranked.wanted_stages(comparison)
    assert more is not None
    def enough(n):
        se = 0.05 * (2 / (2 + n)) ** 0.5
        return 0.1 >= (ranked.critical_at(comparison, 2 + n) + ranked.Z_POWER) * se
    assert enough(more) and not enough(more - 1)
    assert ranked.wanted_stages({**comparison, "separated": True}) is None
    assert ranked.wanted_stages({**comparison, "difference": 0.0}) is None
    assert ranked.wanted_stages({**comparison, "difference": 0.001}) is None  # more than WANTED_MOST


def test_a_contributors_rows_move_no_maintainers_row():
    rng = random.Random(1)
    ours = [g for name in ("ranked-1-a", "ranked-1-b", "ranked-1-c") for g in row_games(
        name, {"prisoners_dilemma": [rng.random() < 0.5 for _ in range(8)],
               "public_good": [rng.random() < 0.5 for _ in range(4)]})]
    before = by_row(ranked.board(ours, {}, STAGE, seed=5))
    theirs = [g for name in ("ranked-1-x", "ranked-1-y") for g in row_games(
        name, {"prisoners_dilemma": [True] * 8, "public_good": [True] * 4}, candidate=name)]
    owners = {"ranked-1-x": {"id": "id:9", "label": "@x"}, "ranked-1-y": {"id": "id:9", "label": "@x"}}
    after = by_row(ranked.board(ours + theirs, owners, STAGE, seed=5))
    for name, row in before.items():
        mine = {k: v for k, v in after[name].items()}
        assert json.dumps(mine, sort_keys=True) == json.dumps(row, sort_keys=True)
    assert after["ranked-1-x"]["place"] == 1 and after["ranked-1-x"]["tier"] is None
    assert after["ranked-1-x"]["best"] == 1 and after["ranked-1-x"]["worst"] <= len(before) + 1
    assert set(after["ranked-1-x"]["compared"]) == set(before)  # compared with the maintainers' rows only


def test_a_played_suite_stage_is_on_the_board(tmp_path):
    out = tmp_path / "replays"
    for model in ("builtin:random", "builtin:scripted"):
        result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", model, "--stages", "1",
                                                "--out", str(out / model.replace(":", "-"))])
        assert result.exit_code == 0, result.output
    from site_builder.scoring.board import assemble_board
    from site_builder.scoring.corpus import load

    results = assemble_board(load([out]), seed=1)
    rows = by_row(results["ranked"])
    assert set(rows) == {"ranked-1-builtin-random", "ranked-1-builtin-scripted"}
    for row in rows.values():
        assert row["stages"] == 1 and row["score"]["n"] == sum(results["ranked"]["stage_deals"]["ranked-1"].values())
        assert set(row["score"]["by_game"]) == set(results["ranked"]["stage_deals"]["ranked-1"])
    # `--until-width` stops at the interval the board shows: the runner's standing of each folder
    # is the row's board score and interval (at the site's default seed).
    from runner import suite as suites
    from runner.seeds import SCORING_SEED

    at_default = by_row(assemble_board(load([out]), seed=SCORING_SEED)["ranked"])
    for model in ("builtin:random", "builtin:scripted"):
        name = "ranked-1-" + model.replace(":", "-")
        seen = suites.standing(out / model.replace(":", "-"), name)
        assert (seen.score, [seen.low, seen.high]) == (at_default[name]["score"]["value"], at_default[name]["score"]["ci"])


def test_claims_hold_for_the_whole_table_so_more_rows_ask_more_of_each_pair():
    rng = random.Random(4)
    results = {name: {"prisoners_dilemma": [rng.random() < 0.5 for _ in range(8)],
                      "public_good": [rng.random() < 0.5 for _ in range(4)]} for name in "abcdef"}
    two = by_row(ranked.board([g for n in "ab" for g in row_games(f"ranked-1-{n}", results[n])], {}, STAGE, seed=2))
    six = ranked.board([g for n in "abcdef" for g in row_games(f"ranked-1-{n}", results[n])], {}, STAGE, seed=2)
    pair_two = two["ranked-1-a"]["compared"]["ranked-1-b"]
    pair_six = by_row(six)["ranked-1-a"]["compared"]["ranked-1-b"]
    assert pair_two["difference"] == pair_six["difference"] and pair_two["se"] == pair_six["se"]
    assert pair_six["critical"] > pair_two["critical"] > 1.96  # every pair shown, every number of stages
    assert six["claims"] == {"ranked-1": {"rows": 6, "pairs": 15, "level": 0.95}}


def test_a_row_keeps_the_shape_the_pages_and_the_report_read():
    games = row_games("ranked-1-a", {"prisoners_dilemma": [True, False] * 2, "public_good": [True, True]}) + \
        row_games("ranked-1-b", {"prisoners_dilemma": [False] * 4, "public_good": [False, True]})
    row = by_row(ranked.board(games, {}, STAGE, seed=1))["ranked-1-a"]
    assert {"row", "suite", "label", "agents", "owner", "stages", "forfeits", "deals", "score", "tier", "place",
            "best", "worst", "wanted", "compared"} <= set(row)
    assert {"value", "ci", "n", "by_game"} <= set(row["score"])
    assert {"difference", "ci", "deals", "separated"} <= set(row["compared"]["ranked-1-b"])
