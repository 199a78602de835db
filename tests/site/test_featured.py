"""Featured games: chosen by the rules the game page states, and linked from it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.pages import labels
from site_builder.pages.games import FEATURED_RULES
from site_builder.pages.site import render
from site_builder.viewer import pages as viewer_pages
from site_builder.build import featured_games
from site_builder.scoring import digest
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble


@pytest.fixture(scope="module")
def corpus_and_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("replays")
    played = CliRunner().invoke(gamenight, ["run", "--games", "2", "--out", str(out)])
    assert played.exit_code == 0, played.output
    corpus = load([out], tmp_path_factory.mktemp("cache") / "cache.sqlite")
    return corpus, assemble(corpus, seed=1)


def test_featured_games_follow_their_rules(corpus_and_results):
    corpus, results = corpus_and_results
    featured = featured_games(corpus, results)
    by_id = {g.game_id: g for g in corpus.games}
    assert set(featured) == {g.game for g in corpus.games if g.valid}
    for name, picks in featured.items():
        played = [g for g in corpus.games if g.game == name and g.valid]
        rules = [p["rule"] for p in picks]
        assert rules[0] == "longest" and rules[-1] == "newest"
        longest = by_id[picks[0]["id"]]
        most = max(digest.moves(g) for g in played)
        assert picks[0]["moves"] == most == digest.moves(longest)
        assert picks[-1]["id"] == max(played, key=lambda g: (g.created, g.game_id)).game_id
        rating = {r["agent"]: r["rating"] for r in results["ratings"]["by_game"].get(name, {}).get("agents", [])}
        if "upset" in rules:
            assert name in results["ratings"]["by_game"], f"{name} is not rated, so it has no upset"
            upset = by_id[picks[1]["id"]]
            won = {s.agent for s in upset.seats if s.won}
            lost = {s.agent for s in upset.seats} - won
            assert picks[1]["gap"] > 0
            assert max(rating[a] for a in lost) - max(rating[a] for a in won) == pytest.approx(picks[1]["gap"])
    assert any("upset" in [p["rule"] for p in picks] for picks in featured.values())


def test_the_game_page_links_its_featured_games_and_states_the_rules(corpus_and_results):
    corpus, results = corpus_and_results
    featured = featured_games(corpus, results)
    page = render(results, featured=featured, replays=viewer_pages.pages({})).markdown["games/werewolf.md"]
    assert "## Featured games" in page and FEATURED_RULES["longest"] in page
    for pick in featured["werewolf"]:
        assert f"?id={pick['id']}" in page


def test_an_agents_recent_games_say_whom_it_played_and_how_it_went(corpus_and_results):
    from site_builder.build import recent_games

    corpus, results = corpus_and_results
    recent = recent_games(corpus, limit=5)
    by_id = {g.game_id: g for g in corpus.games}
    for key, games in recent.items():
        assert 0 < len(games) <= 5
        order = [(by_id[g["id"]].created, g["id"]) for g in games]
        assert order == sorted(order, reverse=True)
        for g in games:
            game = by_id[g["id"]]
            seats = game.seats_of(key)
            assert seats and key not in g["against"] and set(g["against"]) == {s.agent for s in game.seats} - {key}
            if game.valid:
                assert g["result"] == ("won" if all(s.won for s in seats) else "lost" if not any(s.won for s in seats)
                                       else f"won {sum(s.won for s in seats)} of {len(seats)} seats")
            assert g["moves"] == digest.moves(game)
    refs = labels.agent_refs(results)
    key = next(iter(recent))
    page = render(results, recent=recent, replays=viewer_pages.pages({})).markdown[refs[key].page]
    assert all(f"?id={g['id']}" in page for g in recent[key]) and f"{recent[key][0]['result']} as" in page
