"""The board over time (scoring/history.py): points in merge order, each ranked row's score and each
agent's rating as the games merged up to each point made them, and nothing drawn for games that
came from no commit."""

from __future__ import annotations

import pytest

from site_builder.scoring import board, ranked
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.history import Merge, board_over_time, points
from site_builder.scoring.model import AgentInfo, ScoredGame, SeatInfo

STAGE = ranked.shipped_stage_deals()["ranked-1"]  # deals per stage of each game of the shipped suite
A = Merge("a" * 40, "2026-01-01T10:00:00+05:00", "the maintainers")   # 05:00 UTC: the first
B = Merge("b" * 40, "2026-01-01T06:00:00+00:00", "pull request #7 by @alice")
C = Merge("c" * 40, "2026-01-02T00:00:00Z", "the maintainers")


def duel(game_id: str, winner: str, loser: str, game: str = "prisoners_dilemma") -> ScoredGame:
    """A two-seat game of `game` that `winner` won."""
    seats = (SeatInfo(0, "P0", "player", winner, True), SeatInfo(1, "P1", "player", loser, False))
    return ScoredGame(game_id=game_id, game=game, variant={}, setup={}, tournament="duels", created="2026-01-01",
                      content_hash=game_id, status="complete", seats=seats, winners=(0,), result={}, events=(),
                      probes=(), usage=())


def stage(row: str, won: float, first_deal: int = 0) -> list[ScoredGame]:
    """One whole stage of the ranked suite for row `row`: the candidate wins the first `won` share
    of each game's deals."""
    out = []
    for game, deals in STAGE.items():
        for k in range(first_deal, first_deal + deals):
            wins = (k - first_deal) < won * deals
            seats = (SeatInfo(0, "P0", "player", f"{row}-model", wins), SeatInfo(1, "P1", "player", "bot", not wins))
            out.append(ScoredGame(
                game_id=f"{row}-{game}-{k}", game=game, variant={}, setup={}, tournament=f"ranked-1-{row}",
                created="2026-01-01", content_hash=f"{row}{game}{k}", status="complete", seats=seats,
                winners=(0,) if wins else (1,), result={}, events=(), probes=(), usage=(),
                suite={"name": "ranked", "version": 1, "stage": 1, "deal": k, "seat": 0}))
    return out


def corpus_of(games: list[ScoredGame]) -> Corpus:
    keys = sorted({s.agent for g in games for s in g.seats})
    return Corpus(games, {k: AgentInfo(k, k.upper(), {"name": k, "kind": "builtin"}) for k in keys},
                  paths={g.game_id: f"{g.game_id}.jsonl" for g in games})


def values(line: dict, field: str) -> list:
    return [None if v is None else round(v[field], 6) for v in line["values"]]


@pytest.mark.parametrize("merged, expected", [
    ({}, []),
    ({"g1": A, "g2": None}, [A]),
    ({"g1": C, "g2": A, "g3": B, "g4": A}, [A, B, C]),   # by the instant in UTC, not the text of the date
    ({"g1": Merge("d" * 40, C.date), "g2": C}, [C, Merge("d" * 40, C.date)]),  # same instant: by commit id
])
def test_points_are_the_distinct_merges_oldest_first(merged, expected):
    assert points(merged) == expected


# (games merged at each point, then games with no git source) -> ratings of "x" and "y" at each point
SCENARIOS = [
    pytest.param({A: [("x", "y")]}, [], {"x": [True], "y": [True]}, id="one point"),
    pytest.param({A: [("x", "y")], B: [("x", "z")]}, [("y", "z")], {"x": [True, True], "y": [True, True],
                                                                    "z": [False, True]}, id="a newcomer"),
    pytest.param({A: [("x", "y"), ("y", "x")], C: [("y", "x"), ("y", "x")]}, [], {"x": [True, True], "y": [True, True]},
                 id="a lead changes hands"),
]


@pytest.mark.parametrize("merges, unsourced, present", SCENARIOS)
def test_each_rating_is_the_point_estimate_of_the_games_merged_so_far(merges, unsourced, present):
    games, merged = [], {}
    for merge, duels in merges.items():
        for winner, loser in duels:
            game = duel(f"g{len(games)}", winner, loser)
            games.append(game)
            merged[game.game_id] = merge
    for winner, loser in unsourced:
        games.append(duel(f"local{len(games)}", winner, loser))
    corpus = corpus_of(games)
    history = board_over_time(corpus, merged, seed=1)
    assert [p["commit"] for p in history["points"]] == [m.commit for m in points(merged)]
    assert [p["games"] for p in history["points"]] == [sum(len(merges[m]) for m in points(merged)[:i + 1])
                                                      for i in range(len(merges))]
    assert history["unsourced"] == len(unsourced)
    table = {line["agent"]: line for line in history["ratings"]["prisoners_dilemma"]}
    assert {agent: [v is not None for v in line["values"]] for agent, line in table.items()} == present
    for i, merge in enumerate(points(merged)):  # each point: the board of the games merged up to it, alone
        so_far = [g for g in games if merged.get(g.game_id) in points(merged)[:i + 1]]
        expected = board.rating_board(corpus_of(so_far), seed=1, resamples=0)["ratings"]["by_game"]["prisoners_dilemma"]
        assert {r["agent"]: round(r["rating"], 6) for r in expected["agents"]} == \
            {a: values(line, "rating")[i] for a, line in table.items() if line["values"][i]}


def test_the_lead_changes_hands_in_the_history():
    games = [duel("g1", "x", "y"), duel("g2", "x", "y"), duel("g3", "y", "x"), duel("g4", "y", "x"),
             duel("g5", "y", "x")]
    merged = {"g1": A, "g2": A, "g3": C, "g4": C, "g5": C}
    table = {line["agent"]: values(line, "rating") for line in
             board_over_time(corpus_of(games), merged, seed=1)["ratings"]["prisoners_dilemma"]}
    assert table["x"][0] > table["y"][0] and table["y"][1] > table["x"][1]
    overall = board_over_time(corpus_of(games), merged, seed=1)["ratings"]["overall"]
    assert [line["agent"] for line in overall] == ["y", "x"]  # lines in the order of the board at the end


def test_a_ranked_row_joins_the_history_when_it_has_a_whole_stage():
    half = stage("alpha", 0.5)
    first, rest = half[:10], half[10:]  # the first merge holds part of a stage only
    better = stage("beta", 1.0)
    merged = {**{g.game_id: A for g in first}, **{g.game_id: B for g in rest}, **{g.game_id: C for g in better}}
    history = board_over_time(corpus_of(half + better), merged, seed=3)
    rows = {line["row"]: line for line in history["ranked"]}
    assert [line["row"] for line in history["ranked"]] == ["ranked-1-beta", "ranked-1-alpha"]
    assert rows["ranked-1-alpha"]["values"][0] is None  # not ranked before its stage was whole
    now = {r["row"]: r for r in ranked.board(half + better, {}, ranked.shipped_stage_deals(), seed=3)["rows"]}
    for row, line in rows.items():
        assert line["values"][-1]["score"] == pytest.approx(now[row]["score"]["value"])
        assert line["values"][-1]["ci"] == pytest.approx(now[row]["score"]["ci"])
        assert line["values"][-1]["place"] == now[row]["place"]
    assert values(rows["ranked-1-alpha"], "place") == [None, 1, 2]  # first until beta came in
    assert rows["ranked-1-beta"]["values"][:2] == [None, None]


def test_a_contributors_row_moves_no_value_of_the_maintainers():
    games = [duel("g1", "x", "y"), duel("g2", "y", "x"), duel("g3", "x", "y")]
    merged = {"g1": A, "g2": A, "g3": B}
    alone = board_over_time(corpus_of(games), merged, seed=1)
    theirs = [duel("p1", "m", "x"), duel("p2", "m", "y")]
    corpus = corpus_of(games + theirs)
    corpus.owners.update({"p1": "@alice", "p2": "@alice"})
    corpus.agents["m"] = AgentInfo("m", "M", {"name": "m", "kind": "llm", "provider": "openai", "model": "m"})
    joint = board_over_time(corpus, {**merged, "p1": B, "p2": B}, {"@alice": "@alice"}, seed=1)
    mine = {line["agent"]: line["values"] for line in joint["ratings"]["prisoners_dilemma"]}
    assert {line["agent"]: line["values"] for line in alone["ratings"]["prisoners_dilemma"]} == \
        {k: v for k, v in mine.items() if k != "m"}
    assert mine["m"][0] is None and mine["m"][1] is not None
    assert next(line for line in joint["ratings"]["prisoners_dilemma"] if line["agent"] == "m")["owner"] == \
        {"id": "@alice", "label": "@alice"}


def test_a_build_after_a_merge_scores_its_new_point_alone(tmp_path, monkeypatch):
    from site_builder.scoring import history

    games = [duel("g1", "x", "y"), duel("g2", "y", "x"), duel("g3", "x", "y")] + stage("alpha", 0.5)
    merged = {"g1": A, "g2": A, "g3": B, **{g.game_id: B for g in games[3:]}}
    store = tmp_path / "history.sqlite"
    scored: list[int] = []
    point = history._point
    monkeypatch.setattr(history, "_point", lambda running, key=None: scored.append(running.games) or
                        point(running, key))
    cold = board_over_time(corpus_of(games), merged, seed=1, kept=store)
    assert scored == [2, len(games)] and cold == board_over_time(corpus_of(games), merged, seed=1)
    scored.clear()
    assert board_over_time(corpus_of(games), merged, seed=1, kept=store) == cold and scored == []  # kept
    later = games + [duel("g9", "y", "x")]
    grown = board_over_time(corpus_of(later), {**merged, "g9": C}, seed=1, kept=store)
    assert scored == [len(later)]  # the new merge's point only
    assert grown == board_over_time(corpus_of(later), {**merged, "g9": C}, seed=1)
    assert grown["points"][:2] == cold["points"]
    # Who owns a game is part of a point: the same games under another owner are not read back.
    owned = corpus_of(later)
    owned.owners.update({"g3": "@alice"})
    assert board_over_time(owned, {**merged, "g9": C}, {"@alice": "@alice"}, seed=1, kept=store) == \
        board_over_time(owned, {**merged, "g9": C}, {"@alice": "@alice"}, seed=1)


def test_a_kept_point_that_is_not_the_one_its_key_names_is_scored_again(tmp_path, monkeypatch):
    """The store may come from an earlier workflow run's cache: a point copied under another
    point's key, or claiming another number of games, is scored again and stored right."""
    import json
    import sqlite3

    from site_builder.scoring import history

    games = [duel("g1", "x", "y"), duel("g2", "y", "x"), duel("g3", "y", "x"), duel("g4", "y", "x")]
    merged = {"g1": A, "g2": B, "g3": C, "g4": C}
    store = tmp_path / "history.sqlite"
    fresh = board_over_time(corpus_of(games), merged, seed=1)
    assert board_over_time(corpus_of(games), merged, seed=1, kept=store) == fresh
    with sqlite3.connect(store) as db:
        rows = {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM sections")}
        by_games = {point["games"]: key for key, point in rows.items()}
        assert sorted(by_games) == [1, 2, 4] and all(point["key"] == key for key, point in rows.items())
        first, last = by_games[1], by_games[4]
        # The first point's board, whole, under the last point's key; the second's, claiming 4 games.
        db.execute("UPDATE sections SET value = ? WHERE key = ?", (json.dumps(rows[first]), last))
        lying = {**rows[by_games[2]], "games": 1}
        db.execute("UPDATE sections SET value = ? WHERE key = ?", (json.dumps(lying), by_games[2]))
    scored: list[int] = []
    point = history._point
    monkeypatch.setattr(history, "_point", lambda running, key=None: scored.append(running.games) or
                        point(running, key))
    assert board_over_time(corpus_of(games), merged, seed=1, kept=store) == fresh
    assert scored == [2, 4]  # the two refused points, scored again; the first read back
    scored.clear()
    assert board_over_time(corpus_of(games), merged, seed=1, kept=store) == fresh and scored == []  # stored right


def test_each_point_made_from_the_one_before_is_the_point_scored_from_scratch():
    """The running board (history.Running) against the board scored again from the games merged
    so far, point by point: owners' games (their rows fitted against the maintainers' tables),
    an agent that first appears at a later point, points that change only a contributor's tables
    or only one game's, and ranked rows that grow, join, and belong to a contributor."""
    import json

    from site_builder.scoring import history

    alpha, beta = stage("alpha", 0.5), stage("beta", 1.0)
    merges = [
        [duel("a1", "x", "y"), duel("a2", "y", "x"), *alpha[:10]],  # alpha part of a stage: no row yet
        [duel("b1", "m", "x"), duel("b2", "x", "m")],  # @alice's model: only her tables change
        [*alpha[10:], duel("c1", "z", "x"), duel("c2", "x", "z", "public_good"), duel("c3", "n", "y")],
        [*beta, duel("d1", "m", "y")],  # a row of @alice's, self-reported
        [duel("e1", "y", "z"), duel("e2", "m", "x"), duel("e3", "n", "x")],  # the anchors move
        [duel("f1", "y", "z", "public_good")],  # one game's table (and the overall one) alone
    ]
    games = [g for merge in merges for g in merge]
    corpus = corpus_of(games)
    owners = {"b1": "@alice", "b2": "@alice", "d1": "@alice", "e2": "@alice", "c3": "@bob", "e3": "@bob",
              **{g.game_id: "@alice" for g in beta}}
    corpus.owners.update(owners)
    for key, owner in (("m", "openai"), ("n", "anthropic")):
        corpus.agents[key] = AgentInfo(key, key.upper(), {"name": key, "kind": "llm", "provider": owner,
                                                            "model": key})
    labels = {"@alice": "@alice", "@bob": "Bob"}
    running = history.Running(corpus, labels, seed=5)
    so_far: list[ScoredGame] = []
    for i, merge in enumerate(merges):
        for game in merge:
            running.add(game)
        so_far += merge
        made = json.dumps(history._point(running, key=f"k{i}"), sort_keys=True)
        scratch = json.dumps(history._scored(history._up_to(corpus, so_far), labels, 5, key=f"k{i}"), sort_keys=True)
        assert made == scratch, f"point {i}"
    point = json.loads(made)
    assert {row["row"]: row["owner"] for row in point["ranked"]} == \
        {"ranked-1-alpha": None, "ranked-1-beta": {"id": "@alice", "label": "@alice"}}
    assert {e["agent"] for e in point["ratings"]["prisoners_dilemma"]} >= {"x", "y", "z", "m", "n"}
    assert {e["agent"]: e["owner"] for e in point["ratings"]["overall"]}["n"] == {"id": "@bob", "label": "Bob"}
    # The whole history: the same whether each point is made from the one before or from scratch.
    merged = {g.game_id: Merge(f"{i:040x}", f"2026-01-0{i + 1}T00:00:00Z") for i, m in enumerate(merges) for g in m}
    running_history = board_over_time(corpus, merged, labels, seed=5)
    scratch_points = iter(json.loads(json.dumps(history._scored(history._up_to(corpus, games[:n]), labels, 5)))
                          for n in [sum(map(len, merges[:i + 1])) for i in range(len(merges))])
    original = history._point
    try:
        history._point = lambda running, key=None: {**next(scratch_points), "key": key}
        assert board_over_time(corpus, merged, labels, seed=5) == running_history
    finally:
        history._point = original


def test_an_agent_two_owners_rows_share_is_refused_as_the_board_refuses_it():
    """Games of one model agent from two owners (not split by owners.separate): the point that
    first holds both is refused with board.parts' error, as when every point was scored again."""
    games = [duel("g1", "x", "y"), duel("p1", "m", "x"), duel("q1", "m", "y")]
    corpus = corpus_of(games)
    corpus.owners.update({"p1": "@alice", "q1": "@bob"})
    corpus.agents["m"] = AgentInfo("m", "M", {"name": "m", "kind": "llm", "provider": "openai", "model": "m"})
    with pytest.raises(ValueError, match="has games of two owners"):
        board_over_time(corpus, {"g1": A, "p1": B, "q1": C}, seed=1)
    assert len(board_over_time(corpus, {"g1": A, "p1": B}, seed=1)["points"]) == 2  # before @bob's game: scored
