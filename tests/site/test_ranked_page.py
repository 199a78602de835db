"""The home page leads with the ranked board: suite rows in rank order, what they mean, and the
exhibition tables after it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder import pages
from site_builder.scoring.board import assemble_board
from site_builder.scoring.corpus import load


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("replays")
    for model in ("builtin:random", "builtin:scripted"):
        played = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", model, "--stages", "2",
                                                "--out", str(out / model.replace(":", "-"))])
        assert played.exit_code == 0, played.output
    played = CliRunner().invoke(gamenight, ["run", "--games", "1", "--out", str(out / "builtin")])
    assert played.exit_code == 0, played.output
    return assemble_board(load([out]), seed=1)


def test_the_home_page_leads_with_the_ranked_board(results):
    home = pages.render(results).markdown["index.md"]
    ranked, exhibition = home.index("## Ranked board"), home.index("## Leaderboards by game (exhibition)")
    assert ranked < exhibition and "## Overall leaderboard (exhibition)" in home
    board = " ".join(home[ranked:exhibition].split())  # as read: line breaks are spaces
    rows = results["ranked"]["rows"]
    assert [r["row"] for r in rows] == sorted((r["row"] for r in rows),
                                              key=lambda name: -next(r for r in rows if r["row"] == name)["score"]["value"])
    first, second = rows
    assert board.index(first["label"] if len(set(first["agents"].values())) > 1 else ">random<") < \
        board.index(second["label"] if len(set(second["agents"].values())) > 1 else ">random<")
    assert "Reading:" in board and f"of {sum(results['ranked']['stage_deals']['ranked-1'].values())} games" in board
    score = f"{first['score']['value'] * 100:.1f}%"
    assert score in board


def test_without_suite_games_the_board_says_how_to_play_one(results):
    empty = {**results, "ranked": {"rows": [], "stage_deals": results["ranked"]["stage_deals"]}}
    home = pages.render(empty).markdown["index.md"]
    assert "No game of the ranked suite has been played yet" in home
