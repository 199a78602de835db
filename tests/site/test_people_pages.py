"""People on the pages: each person's row, the pooled people row, the home page's count."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner.agents.human import Question
from runner.cli import main as gamenight
from runner.table import Person, deal, play_table, seat_agents, write_replay
from site_builder.pages import boards, charts, labels
from site_builder.pages.site import render
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble
from tests.people import legal_answer


class Careful:
    """A scripted person who makes legal moves and skips every probe."""

    async def ask(self, question: Question) -> Any:
        return None if question.kind == "probe" else legal_answer(question)

    def accepted(self, question: Question, answer: Any) -> None:
        pass


def play(out: Path, game: str, seed: int, people: list[Person]) -> None:
    table = deal(game, {}, seed, people)
    write_replay(asyncio.run(play_table(table, seat_agents(table, lambda seat: Careful()))), out)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The built-in tournament (one game per matchup) and four games played by Ann and Bob."""
    out = tmp_path_factory.mktemp("replays")
    ran = CliRunner().invoke(gamenight, ["run", "--games", "1", "--out", str(out / "run")])
    assert ran.exit_code == 0, ran.output
    played = out / "play"
    play(played, "prisoners_dilemma", 1, [Person("Ann", seat=0)])
    play(played, "prisoners_dilemma", 2, [Person("Ann", seat=0)])
    play(played, "prisoners_dilemma", 3, [Person("Ann", seat=0), Person("Bob", seat=1)])
    play(played, "public_good", 4, [Person("Cy", seat=2)])
    return out


@pytest.fixture(scope="module")
def results(corpus) -> dict:
    return assemble(load([corpus]), seed=1)


def test_the_results_count_people_and_pool_their_seats_per_game(results):
    assert results["people"]["played"] == {"people": 3, "games": 4}
    boards = results["people"]["boards"]
    assert set(boards) == {"prisoners_dilemma", "public_good"}
    pd = boards["prisoners_dilemma"]
    assert (pd["people"], pd["games"], pd["seats"]) == (2, 3, 4)
    assert pd["win_rate"]["n"] == 4 and pd["win_rate"]["ci"] is not None and pd["mean_total"]["n"] == 4
    labels = {r["label"] for r in results["leaderboards"]["prisoners_dilemma"]["agents"]}
    assert {"Ann", "Bob"} <= labels  # each person is still a row of their own


def test_the_game_page_shows_the_pooled_row_beside_the_agents_and_says_how_it_is_computed(results):
    site = render(results)
    pd = site.markdown["games/prisoners_dilemma.md"]
    row = next(line for line in pd.splitlines() if 'class="gn-pooled"' in line)
    assert "People (pooled)" in row and "2 people" in row
    assert labels.fmt_pct(results["people"]["boards"]["prisoners_dilemma"]["win_rate"]["value"]) in row
    assert "bootstrap over games" in pd
    assert "gn-pooled" not in site.markdown["games/chameleon.md"]  # nobody played it
    chart = charts.game_chart_data(results, labels.agent_refs(results))
    assert any(bar["label"] == boards.PEOPLE_LABEL for bar in chart["prisoners_dilemma"])
    assert not any(bar["label"] == boards.PEOPLE_LABEL for bar in chart["chameleon"])


def test_the_home_page_says_how_many_people_played(results):
    home = render(results).markdown["index.md"]
    assert "<strong>3</strong> people have played, in <strong>4</strong> games" in home


def test_an_agent_page_shows_the_pooled_row_of_the_games_it_played(results):
    site = render(results)
    refs = labels.agent_refs(results)
    bot = next(r for k, r in refs.items() if '"prisoners_dilemma/' in k)
    page = site.markdown[bot.page]
    assert "Prisoner&#39;s Dilemma: <strong>People (pooled)</strong>" in page or \
        "Prisoner's Dilemma: <strong>People (pooled)</strong>" in page


def test_a_corpus_nobody_played_says_so(results):
    empty = {**results, "people": {"played": {"people": 0, "games": 0}, "boards": {}}}
    home = render(empty).markdown["index.md"]
    assert "Nobody has played yet" in home
