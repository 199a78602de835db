"""The home page leads with the ranked board: its reading, then suite rows in rank order with
tier and score, what they mean; a line per game after it, and no exhibition table."""

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
    reading, table, games = home.index("Reading:"), home.index("gn-ranked-headline"), home.index("## Each game")
    assert home.index("<h1>") < reading < table < games
    assert 'id="gn-overall"' not in home and "gn-game-table" not in home  # on their own pages now
    headline = home[table:home.index("</table>", table)]
    assert headline.count("<th ") == 4 and "Tier" in headline and "Score [95%]" in headline
    assert "A <strong>tier</strong> holds the rows" in home[table:games]  # tiers said in a sentence
    board = " ".join(home[:games].split())  # as read: line breaks are spaces
    rows = results["ranked"]["rows"]
    assert [r["row"] for r in rows] == sorted((r["row"] for r in rows),
                                              key=lambda name: -next(r for r in rows if r["row"] == name)["score"]["value"])
    first, second = rows
    assert board.index(first["label"] if len(set(first["agents"].values())) > 1 else ">random<") < \
        board.index(second["label"] if len(set(second["agents"].values())) > 1 else ">random<")
    assert f"of {sum(results['ranked']['stage_deals']['ranked-1'].values())} games" in board  # stages wanted
    score = f"{first['score']['value'] * 100:.1f}%"
    assert score in board


def test_without_suite_games_the_board_says_how_to_play_one(results):
    empty = {**results, "ranked": {"rows": [], "stage_deals": results["ranked"]["stage_deals"]}}
    home = pages.render(empty).markdown["index.md"]
    assert "No game of the ranked suite has been played yet" in home
