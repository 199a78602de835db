"""Which row ranks where (site_builder/boards.py): the exhibition table, each game's table and
line on the home page, rank ranges and the head-to-head matrix. `results` is the built-in
tournament's (tests/site/conftest.py)."""

from __future__ import annotations

import random

import pytest

from site_builder import boards, labels
from site_builder.scoring import stats


def test_the_cross_game_table_ranks_only_agents_of_every_rated_game_that_mostly_played(results):
    rows = boards.leaderboard_rows(results, labels.agent_refs(results))
    games = boards.rated_games(results)
    assert games and "cost_sharing" not in games  # a cooperative game is not rated
    ranked = [r for r in rows if r["rank"]]
    others = [r for r in rows if not r["rank"]]
    assert rows == ranked + others and ranked and others
    for r in ranked:
        assert set(games) <= set(r["played"]) and r["rating"] and r["unranked"] is None
        assert r["forfeit_rate"]["value"] <= boards.MAX_FORFEIT_RANKED
    for r in others:  # each says why it has no rank
        assert r["unranked"] and (r["covered"] < len(games) or not r["rating"] or "forfeited" in r["unranked"])
    assert [r["rank"][0] for r in ranked] == list(range(1, len(ranked) + 1))
    rated_rest = [r for r in others if r["rating"]]
    assert others == rated_rest + [r for r in others if not r["rating"]]
    assert [-r["rating"]["rating"] for r in rated_rest] == sorted(-r["rating"]["rating"] for r in rated_rest)


def test_an_agent_of_mostly_forfeits_is_never_ranked_above_one_that_played():
    agent = {"by_game": {"chameleon": 3}, "forfeit_rate": {"value": 0.9}}
    rated = {"rating": 1200.0, "rating_ci": [1100.0, 1300.0]}
    assert boards.why_unranked(agent, rated, ["chameleon"]) == "forfeited 90% of its games"
    assert boards.why_unranked({**agent, "forfeit_rate": {"value": 0.1}}, rated, ["chameleon"]) is None
    assert boards.why_unranked(agent, rated, ["chameleon", "werewolf"]) == "played 1 of the 2 rated games"


def test_a_cooperative_game_is_ranked_by_its_seat_win_rate(results):
    board = results["leaderboards"]["cost_sharing"]
    ranks = boards.game_ranks(results, "cost_sharing")
    by_rate = sorted((r for r in board["agents"] if r["win_rate"]), key=lambda r: -r["win_rate"]["value"])
    assert [ranks[r["agent"]][0] for r in by_rate] == sorted(ranks[r["agent"]][0] for r in by_rate)
    assert "cost_sharing" not in results["ratings"]["by_game"]


@pytest.mark.parametrize("intervals, expected", [
    # mu and its interval per agent -> (place by mu, best place, worst place)
    ({"a": (30, [28, 32]), "b": (20, [18, 22]), "c": (10, [8, 12])},
     {"a": (1, 1, 1), "b": (2, 2, 2), "c": (3, 3, 3)}),
    ({"a": (30, [20, 40]), "b": (25, [22, 28]), "c": (10, [8, 12])},
     {"a": (1, 1, 2), "b": (2, 1, 2), "c": (3, 3, 3)}),
    ({"a": (30, [10, 40]), "b": (25, [22, 28]), "c": (20, [15, 21])},
     {"a": (1, 1, 3), "b": (2, 1, 2), "c": (3, 2, 3)}),
])
def test_rank_ranges_say_which_places_the_intervals_allow(intervals, expected):
    rows = [{"agent": k, "rating": mu, "rating_ci": ci} for k, (mu, ci) in intervals.items()]
    assert boards.rank_ranges(rows) == expected


def test_rank_ranges_count_as_a_comparison_of_every_pair_would():
    draw = random.Random(7)
    rows = []
    for i in range(300):
        low = round(draw.uniform(800, 1200))  # whole numbers: ties between bounds are common
        rows.append({"agent": f"a{i}", "rating": low + 5 + draw.random(), "rating_ci": [low, low + draw.choice([0, 10, 60])]})
        if i % 7 == 0:
            rows[-1]["owner"] = {"id": i, "label": f"@c{i}"}  # a contributor's row: placed among the maintainers'
    rows.append({"agent": "no interval", "rating": 1000.0, "rating_ci": None})
    rated = [r for r in rows if r["rating_ci"]]
    ours = [r for r in rated if not r.get("owner")]
    order = sorted(ours, key=lambda r: -r["rating"])
    expected = {}
    for r in rated:
        others = [o for o in ours if o is not r]
        place = order.index(r) + 1 if r in order else 1 + sum(1 for o in others if o["rating"] > r["rating"])
        expected[r["agent"]] = (place, 1 + sum(1 for o in others if o["rating_ci"][0] > r["rating_ci"][1]),
                                1 + sum(1 for o in others if o["rating_ci"][1] >= r["rating_ci"][0]))
    assert boards.rank_ranges(rows) == expected


def test_the_line_per_game_says_how_sure_the_lead_is():
    row = lambda rank: {"rank": rank, "ref": None}
    summary = lambda *ranks: boards.game_summaries([{"rows": [row(r) for r in ranks]}])[0]["sure"]
    assert summary((1, 1, 1), (2, 2, 2)) == "surely first of 2: its interval is above every other's"
    assert summary((1, 1, 3), (2, 1, 3), (3, 1, 3)) == "could be anywhere from 1st to 3rd of 3"
    assert summary((1, 1, 1)) == "the only agent ranked so far"
    assert boards.game_summaries([{"rows": [row(None)]}])[0]["leader"] is None
    assert [boards.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_the_matrix_shows_the_first_agents_of_the_board_only(results):
    name = "prisoners_dilemma"
    order = [r["agent"] for r in boards.board_order(results, name, labels.agent_refs(results))]
    few = boards.matrix(results, name, order)
    assert few["agents"] and few["total"] == len(few["agents"]) <= boards.MAX_MATRIX_AGENTS
    many = {**results, "head_to_head": {name: {"pairs": [
        {"a": f"x{i:02}", "b": f"x{i + 1:02}", "met": 1, "a_won": 1, "b_won": 0, "beats": stats.rate(1, 1)}
        for i in range(20)]}}}
    drawn = boards.matrix(many, name, [f"x{i:02}" for i in range(21)])
    assert drawn["agents"] == [f"x{i:02}" for i in range(boards.MAX_MATRIX_AGENTS)] and drawn["total"] == 21
    assert drawn["cells"][0][1]["beats"]["value"] == 1.0 and drawn["cells"][1][0]["beats"]["value"] == 0.0
    assert drawn["cells"][0][0] is None and drawn["cells"][0][2] == {"met": 0, "beats": None}
    assert boards.matrix({**results, "head_to_head": {}}, name, order) is None
    # Contributed agents first on the board only fill the places the maintainers' agents leave.
    theirs = {f"x{i:02}" for i in range(5)}
    placed = boards.matrix(many, name, [f"x{i:02}" for i in range(21)], theirs)
    assert placed["agents"] == [f"x{i:02}" for i in range(5, 5 + boards.MAX_MATRIX_AGENTS)]
    roomy = boards.matrix(many, name, [f"x{i:02}" for i in range(8)], {"x00"})
    assert roomy["agents"] == [f"x{i:02}" for i in range(1, 8)] + ["x00"]
