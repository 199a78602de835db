"""Which row ranks where (site_builder/pages/boards.py): the exhibition table, each game's table and
line on the home page, rank ranges and the head-to-head matrix. `results` is the built-in
tournament's (tests/site/conftest.py)."""

from __future__ import annotations

import copy
import random

import pytest

from site_builder.pages import boards, charts, cost, labels
from site_builder.scoring import head_to_head, ratings, stats


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
        assert r["unranked"] and (r["covered"] < len(games) or not r["rating"] or "forfeited" in r["unranked"]
                                  or r["unranked"].startswith("provisional"))
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
    assert drawn["cells"][0][0] is None and drawn["cells"][0][2] == {"met": 0, "beats": None, "shaded": None}
    assert boards.matrix({**results, "head_to_head": {}}, name, order) is None
    # Contributed agents first on the board only fill the places the maintainers' agents leave.
    theirs = {f"x{i:02}" for i in range(5)}
    placed = boards.matrix(many, name, [f"x{i:02}" for i in range(21)], theirs)
    assert placed["agents"] == [f"x{i:02}" for i in range(5, 5 + boards.MAX_MATRIX_AGENTS)]
    roomy = boards.matrix(many, name, [f"x{i:02}" for i in range(8)], {"x00"})
    assert roomy["agents"] == [f"x{i:02}" for i in range(1, 8)] + ["x00"]


def test_a_provisional_rating_has_no_place_and_says_why():
    agent = {"by_game": {"chameleon": 3}, "forfeit_rate": {"value": 0.0}}
    rated = {"rating": 1010.0, "rating_ci": [700.0, 1300.0], "games": 3, "provisional": True, "shrinkage": 0.42}
    assert boards.why_unranked(agent, rated, ["chameleon"]) == (
        f"provisional: 3 rated games of the {ratings.MIN_GAMES} a place needs; "
        "its one virtual draw pulls it 42% of the way to 1000")
    rows = [{"agent": "few", **rated, "band": None},
            {"agent": "many", "rating": 990.0, "rating_ci": [980.0, 1000.0], "band": [975.0, 1005.0], "games": 80}]
    assert boards.rank_ranges(rows) == {"many": (1, 1, 1)}


def test_rank_ranges_claim_nothing_between_rows_the_games_cannot_compare():
    row = lambda agent, rating, roles, linked=0: {"agent": agent, "rating": rating, "band": [rating - 5, rating + 5],
                                                  "games": 50, "roles": roles, "linked": linked}
    rows = [row("top", 100, {"chameleon": 50, "non_chameleon": 50}), row("chameleon only", 80, {"chameleon": 50}),
            row("non-chameleon only", 60, {"non_chameleon": 50}), row("untied", 40, {"chameleon": 50}, linked=1)]
    # top is above the two it shares a role with; the two one-role rows share none; untied is tied to nobody.
    assert boards.rank_ranges(rows) == {"top": (1, 1, 2), "chameleon only": (2, 2, 4),
                                        "non-chameleon only": (3, 2, 4), "untied": (4, 1, 4)}
    gaps = boards.role_gaps([{**r, "rating_ci": r["band"]} for r in rows])
    assert [(g["a"]["agents"], g["b"]["agents"], g["why"]) for g in gaps] == [
        (["top"], ["untied"], "linked"), (["chameleon only"], ["non-chameleon only"], "roles"),
        (["chameleon only"], ["untied"], "linked"), (["non-chameleon only"], ["untied"], "roles")]


def test_a_cooperative_board_ranks_on_intervals_that_hold_together():
    rates = {"a": (19, 20), "b": (10, 20), "c": (10, 20)}
    board = {"agents": [{"agent": k, "win_rate": {"value": w / n, "ci": list(stats.wilson(w, n)), "n": n}}
                        for k, (w, n) in rates.items()]}
    ranks = boards.game_ranks({"leaderboards": {"cost_sharing": board}}, "cost_sharing")
    # a's own interval [0.76, 0.99] clears b's [0.30, 0.70]; held together over three rows it no longer does.
    assert stats.wilson(19, 20)[0] > stats.wilson(10, 20)[1]
    assert ranks == {"a": (1, 1, 3), "b": (2, 1, 3), "c": (3, 1, 3)}


def test_the_matrix_shades_only_what_holds_over_all_its_pairs():
    def pair(a, b, a_won, b_won):
        return {"a": a, "b": b, "met": a_won + b_won, "a_won": a_won, "b_won": b_won,
                "beats": stats.rate(a_won, a_won + b_won), "p_value": stats.sign_test(a_won, b_won)}
    # 15-5 (p = 0.041) and 4-0 alone: the first is sure, the 4-0 below MIN_DECIDED is never shaded.
    alone = {"head_to_head": {"chameleon": {"pairs": [pair("a", "b", 15, 5), pair("c", "d", 4, 0)]}}}
    drawn = boards.matrix(alone, "chameleon", ["a", "b", "c", "d"])
    shaded = {(drawn["agents"][i], drawn["agents"][j]): c["shaded"] for i, row in enumerate(drawn["cells"])
              for j, c in enumerate(row) if c and c["shaded"]}
    assert shaded == {("a", "b"): "ahead", ("b", "a"): "behind"}
    assert drawn["tested"] == 1 and drawn["chance"] == pytest.approx(0.1) and drawn["min_decided"] == head_to_head.MIN_DECIDED
    # Beside ten more pairs of 12-8 (none sure), 15-5 no longer holds at 0.05 / 11.
    crowded = {"head_to_head": {"chameleon": {"pairs": [pair("a", "b", 15, 5)] + [
        pair(f"x{i:02}", f"y{i:02}", 12, 8) for i in range(10)]}}}
    order = ["a", "b"] + [f"{s}{i:02}" for i in range(5) for s in "xy"]
    drawn = boards.matrix(crowded, "chameleon", order)
    assert drawn["tested"] == 6 and not any(c and c["shaded"] for row in drawn["cells"] for c in row)


def forfeiting(results: dict, game: str) -> tuple[dict, str]:
    """`results` with the last agent of `game`'s board made to forfeit every game it played there,
    and rated far above every other agent of the game on enough games to be placed: what two
    agents of 100% forfeits did on The Chameleon's board (issue #44)."""
    out = copy.deepcopy(results)
    row = out["leaderboards"][game]["agents"][-1]
    row["forfeits"] = row["games"]
    row["forfeit_rate"] = {"value": 1.0, "ci": [0.5, 1.0], "n": row["games"]}
    rated = out["ratings"]["by_game"][game]["agents"]
    best = max(r["rating"] for r in rated)
    for r in rated:  # as if every agent had played enough games for a place
        ci = r.get("rating_ci") or [r["rating"] - 50, r["rating"] + 50]
        r.update(games=max(r["games"], ratings.MIN_GAMES), provisional=False, rating_ci=ci, band=ci)
        if r["agent"] == row["agent"]:
            r.update(rating=best + 500, rating_ci=[best + 450, best + 550], band=[best + 450, best + 550],
                     games=max(r["games"], ratings.MIN_GAMES), provisional=False)
    return out, row["agent"]


def test_an_agent_that_forfeited_every_game_has_no_place_and_is_listed_after_every_other(results):
    forfeited, key = forfeiting(results, "chameleon")
    played = copy.deepcopy(forfeited)
    played["leaderboards"]["chameleon"]["agents"][-1]["forfeits"] = 0
    assert boards.game_ranks(played, "chameleon")[key][0] == 1  # by its rating alone, it would lead
    ranks = boards.game_ranks(forfeited, "chameleon")
    assert len(ranks) >= 3 and key not in ranks and sorted(p for p, _, _ in ranks.values()) == list(range(1, len(ranks) + 1))
    order = boards.board_order(forfeited, "chameleon", labels.agent_refs(forfeited))
    assert order[-1]["agent"] == key and boards.forfeited_all(order[-1])
    assert not any(boards.forfeited_all(r) for r in order[:-1])
    refs = labels.agent_refs(forfeited)
    line = next(g for g in boards.game_rankings(forfeited, refs, {"chameleon": "The Chameleon"}))
    assert line["rows"][-1]["ref"].key == key and line["rows"][-1]["rank"] is None
    assert boards.game_summaries([line])[0]["leader"]["ref"].key != key
    bars = charts.game_chart_data(forfeited, refs)["chameleon"]
    assert bars[-1]["label"] == refs[key].display  # the chart keeps the table's order


def test_an_agent_that_forfeited_every_game_is_last_on_the_exhibition_board_and_off_the_cost_charts(results):
    out = copy.deepcopy(results)
    rated = {r["agent"] for r in out["ratings"]["overall"]["agents"]}
    agent = next(a for a in out["agents"] if a["key"] in rated)
    agent["forfeits"] = agent["games"]
    agent["forfeit_rate"] = {"value": 1.0, "ci": [0.5, 1.0], "n": agent["games"]}
    rows = boards.leaderboard_rows(out, labels.agent_refs(out))
    assert rows[-1]["ref"].key == agent["key"] and rows[-1]["forfeited_all"]
    assert rows[-1]["rank"] is None and rows[-1]["unranked"] == "forfeited every game"
    assert not any(r["forfeited_all"] for r in rows[:-1])
    out["cost"] = {"agents": {a["key"]: {"usd_per_game": 0.001, "games": a["games"], "status": "priced"}
                              for a in out["agents"]}, "prices": {}}
    drawn = [p["label"] for p in cost.overall_chart(out, labels.agent_refs(out))["points"]]
    assert drawn and labels.agent_refs(out)[agent["key"]].display not in drawn


@pytest.mark.parametrize("row, apart", [
    ({"games": 3, "forfeits": 3}, True), ({"games": 3, "forfeits": 2}, False), ({"games": 0, "forfeits": 0}, False),
    ({"games": 4}, False),
])
def test_forfeited_all_means_every_game_and_at_least_one(row, apart):
    assert boards.forfeited_all(row) is apart
