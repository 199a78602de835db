"""The home page leads with the ranked board: its reading, then suite rows in rank order with
tier and score, what they mean; a line per game after it, and no exhibition table."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.pages.home import HEADLINE_ROWS
from site_builder.pages.site import render
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
    home = render(results).markdown["index.md"]
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
    # Both rows put built-in agents in the candidate's seat: both are fixed points, whether the row
    # is named by its one agent (random) or by its label (scripted: a strategy per game).
    assert headline.count(">reference</span>") == 2


def test_without_suite_games_the_board_says_how_to_play_one(results):
    empty = {**results, "ranked": {"rows": [], "stage_deals": results["ranked"]["stage_deals"]}}
    home = render(empty).markdown["index.md"]
    assert "No game of the ranked suite has been played yet" in home


def _more_rows(results: dict, maintainers: int, contributed: int) -> dict:
    """The results with the ranked board grown to `maintainers` rows of the maintainers' and
    `contributed` rows of a contributor's, copies of its first row under other names, best first."""
    first = results["ranked"]["rows"][0]
    rows = []
    for n in range(maintainers + contributed):
        theirs = n % 2 == 1 and n // 2 < contributed  # contributors' rows interleaved near the top
        row = {**first, "row": f"row-{n:02}", "label": f"Row {n:02}", "agents": {"x": f"agent-{n}"},
               "score": {**first["score"], "value": 0.9 - n / 100}}
        if theirs:
            row["owner"] = {"id": "1", "label": "@someone"}
        rows.append(row)
    assert sum(1 for r in rows if r.get("owner")) == contributed
    return {**results, "ranked": {**results["ranked"], "rows": rows}}


def test_the_headline_shows_the_maintainers_first_rows_and_the_full_table_shows_every_row(results):
    grown = _more_rows(results, 9, 3)
    home = render(grown).markdown["index.md"]
    table = home.index("gn-ranked-headline")
    headline = home[table:home.index("</table>", table)]
    full = home[home.index("gn-ranked-more"):]
    full = full[:full.index("</details>")]
    shown = [f"Row {n:02}" for n in range(12) if f'data-sort="Row {n:02}"' in headline]
    # Five rows, all the maintainers': rows a pull request adds never push theirs off the first screen.
    assert shown == ["Row 00", "Row 02", "Row 04", "Row 06", "Row 07"] and len(shown) == HEADLINE_ROWS
    assert "@someone" not in headline
    assert all(f'data-sort="Row {n:02}"' in full for n in range(12)) and full.count("@someone") == 3
    said = " ".join(home[table:].split())
    assert "Above: the first 5 of those 9 rows; the full table below holds all 12, with 3 <strong>self-reported" \
           "</strong> rows under them at the places they would take." in said
    assert "<summary>All 12 rows, with each game's rate" in said


def test_a_board_that_fits_the_headline_shows_every_row_and_says_nothing_more(results):
    home = render(_more_rows(results, 5, 0)).markdown["index.md"]
    table = home.index("gn-ranked-headline")
    headline = home[table:home.index("</table>", table)]
    assert all(f'data-sort="Row {n:02}"' in headline for n in range(5))
    assert "Above:" not in home and "<summary>Each game's rate" in home
