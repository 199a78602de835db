"""Containment on the pages: what the home page says comes from the maintainers' games alone.

The board keeps a contributor's numbers to its own rows (tests/scoring/test_board.py); these
tests render the site's pages from the same board before and after Mallory's made-up games and
hold the pages to it: the home page is the same but for the size of the corpus it was built
from, and a game page's head-to-head matrix keeps every maintainers' agent it showed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from site_builder.pages.site import render
from tests.scoring.test_board import MAINTAINERS, MALLORY, attack, sample, scored


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any], dict[str, str],
                                                                  dict[str, str]]:
    base = sample()
    owner_of = {str(p): MAINTAINERS for p in base}
    before = scored(base, owner_of)
    made = attack(tmp_path_factory.mktemp("corpus"))
    after = scored(base + made, {**owner_of, **{str(p): MALLORY for p in made}})
    return before, after, render(before).markdown, render(after).markdown


def corpus_facts_aside(home: str) -> str:
    """The home page without the size and hash of the corpus it was built from (those count every game)."""
    home = re.sub(r"recomputed from [\d,]+ accepted replays", "recomputed from N replays", home)
    home = re.sub(r"[\d,]+ complete games and [\d,]+ forfeited", "N complete games and K forfeited", home)
    return re.sub(r"replay set `[0-9a-f]+`", "replay set `H`", home)


def test_the_home_page_says_the_same_after_a_contributors_games(rendered):
    _, _, before, after = rendered
    assert corpus_facts_aside(after["index.md"]) == corpus_facts_aside(before["index.md"])
    assert after["index.md"] != before["index.md"]  # the corpus did grow


def test_a_contributors_rows_are_on_the_game_pages_but_take_no_maintainers_place_in_the_matrix(rendered):
    before_results, after_results, before, after = rendered
    hers = [a["label"] for a in after_results["agents"] if a["owner"]["id"] == MALLORY.id]
    page = "games/prisoners_dilemma.md"
    assert "Submitted by @mallory" in after[page] and "Submitted by @mallory" not in before[page]
    assert "Person0" in after[page] and hers
    shown = lambda markdown: re.findall(r'<th scope="col">(.*?)</th>', markdown.split("## Head to head")[1])
    assert set(shown(before[page])) <= set(shown(after[page]))
