"""Per-game leaderboards and usage accounting, on hand-built games with hand-computed values."""

from __future__ import annotations

import pytest
import builders
from builders import PD_PAYOFFS, builtin, infos, llm, replay, scored

from site_builder.scoring.leaderboards import leaderboards, usage
from site_builder.scoring.model import AgentInfo, ScoredGame, SeatInfo, agent_key
from site_builder.scoring.stats import wilson

A, B = builtin("a", "prisoners_dilemma/always_defect"), builtin("b", "prisoners_dilemma/tit_for_tat")
C, D = "cooperate", "defect"


def pd_game(game_id, choices, agents=(A, B, B)):
    return builders.pd_game(game_id, choices, agents)


def test_prisoners_dilemma_board_counts_seats_wins_and_mean_totals():
    games = [
        pd_game("g1", [[D, C, C]]),   # A: 4, B: 0, 0 -> A wins
        pd_game("g2", [[C, C, C]]),   # all 2 -> all three win (tie)
    ]
    board = leaderboards(games, infos(A, B), seed=1)["prisoners_dilemma"]
    assert (board["games"], board["valid"], board["invalid"]) == (2, 2, 0)
    rows = {r["label"]: r for r in board["agents"]}
    assert rows["a"]["seats"] == 2 and rows["a"]["win_rate"]["value"] == pytest.approx(2 / 2)
    assert rows["b"]["seats"] == 4 and rows["b"]["win_rate"]["value"] == pytest.approx(2 / 4)
    assert rows["a"]["mean_total"]["value"] == pytest.approx((4 + 2) / 2)
    assert rows["b"]["mean_total"]["value"] == pytest.approx((0 + 0 + 2 + 2) / 4)
    assert rows["b"]["roles"]["player"]["n"] == 4
    assert [r["label"] for r in board["agents"]] == ["a", "b"]  # best win rate first
    assert board["score"]["name"] == "mean_total"


REFUSED = {"action": None, "raw": "I cannot decide.", "error": "Your reply has no ANSWER line"}


def test_a_forfeit_is_a_loss_of_the_forfeiting_agent_only():
    # b forfeits at seat 1 after three unreadable replies; b also holds seat 2 there.
    forfeited = scored(replay("prisoners_dilemma", PD_PAYOFFS, [A, B, B],
                              [("act", 0, {"choice": D}), ("forfeit", 1, "no legal action after 3 attempts")],
                              rules={"rounds": 1}, game_id="bad", attempts={1: [REFUSED] * 3}))
    # One re-asked decision in a complete game: seat 2 (b) needed a second try.
    g1 = scored(replay("prisoners_dilemma", PD_PAYOFFS, [A, B, B],
                       [("act", 0, {"choice": D}), ("act", 1, {"choice": C}), ("act", 2, {"choice": C})],
                       rules={"rounds": 1}, game_id="g1", attempts={2: [REFUSED]}))
    board = leaderboards([forfeited, g1], infos(A, B), seed=1)["prisoners_dilemma"]
    assert (board["games"], board["valid"], board["invalid"]) == (2, 1, 1)
    assert board["valid_ratio"]["value"] == pytest.approx(0.5)
    rows = {r["label"]: r for r in board["agents"]}
    a, b = rows["a"], rows["b"]
    # a: the forfeit is not charged to it (left out), its one counted seat won.
    assert (a["games"], a["forfeits"], a["left_out"], a["seats"]) == (2, 0, 1, 1)
    assert a["win_rate"]["value"] == 1.0 and a["forfeit_rate"]["value"] == 0.0
    # b: both its seats of the forfeited game are losses, as are its two seats of g1.
    assert (b["games"], b["forfeits"], b["left_out"], b["seats"]) == (2, 1, 0, 4)
    assert b["win_rate"] == {"value": 0.0, "ci": b["win_rate"]["ci"], "n": 4, "games": 2}
    assert b["forfeit_rate"]["value"] == pytest.approx(1 / 2) and b["forfeit_rate"]["n"] == 2
    # b decided three times (the forfeit, seats 1 and 2 of g1); two needed more than one attempt.
    assert b["decisions"] == 3 and b["reask_rate"]["value"] == pytest.approx(2 / 3)
    assert a["decisions"] == 2 and a["reask_rate"]["value"] == 0.0
    # The mean total comes from complete games only.
    assert b["mean_total"]["n"] == 2 and a["mean_total"]["n"] == 1


def test_one_forfeit_attempt_is_no_reask():
    once = {"action": None, "raw": "?", "error": "no ANSWER line"}
    game = scored(replay("prisoners_dilemma", PD_PAYOFFS, [A, B, B], [("forfeit", 0, "no legal action after 1 attempt")],
                         rules={"rounds": 1}, game_id="one", attempts={0: [once]}))
    row = {r["label"]: r for r in leaderboards([game], infos(A, B), seed=1)["prisoners_dilemma"]["agents"]}["a"]
    assert row["decisions"] == 1 and row["reask_rate"]["value"] == 0.0 and row["forfeit_rate"]["value"] == 1.0


def test_the_model_id_an_api_reported_is_not_identity():
    early = llm("m", "gpt-test")
    later = {**early, "model_reported": "gpt-test-2026-01-01"}
    assert agent_key(early) == agent_key(later)


def test_games_that_were_not_played_have_no_board():
    boards = leaderboards([pd_game("g1", [[D, C, C]])], infos(A, B), seed=1)
    assert list(boards) == ["prisoners_dilemma"]


def test_usage_sums_llm_evidence_and_ignores_scripted_agents():
    model = llm("m", "gpt-test")
    call = {"messages": [{"role": "user", "content": "choose"}], "reply": "defect",
            "input_tokens": 100, "output_tokens": 5, "latency_ms": 200.0}
    raw = replay("prisoners_dilemma", PD_PAYOFFS, [model, B, B],
                 [("act", 0, {"choice": D}), ("act", 1, {"choice": C}), ("act", 2, {"choice": C})],
                 rules={"rounds": 1}, evidence={0: {"calls": [call, call]}})
    spent = usage([scored(raw)], infos(model, B))
    assert list(spent) == [agent_key(model)]
    entry = spent[agent_key(model)]
    assert (entry["calls"], entry["input_tokens"], entry["output_tokens"]) == (2, 200, 10)
    assert entry["tokens_per_game"] == 210 and entry["mean_latency_ms"] == 200.0


def test_traits_drawn_per_game_are_not_part_of_an_agents_identity():
    base = {"name": "x", "kind": "llm", "provider": "openai", "model": "m", "design": "b5p"}
    one = {**base, "design_params": {"openness": 6, "agreeableness": 2, "drawn": ["openness"]}}
    two = {**base, "design_params": {"openness": 1, "agreeableness": 2, "drawn": ["openness"]}}
    fixed = {**base, "design_params": {"openness": 6, "agreeableness": 3, "drawn": ["openness"]}}
    assert agent_key(one) == agent_key(two)
    assert agent_key(one) != agent_key(fixed)


def table(game: str, number: int, seats: list[tuple[str, str, bool]], result: dict | None = None):
    """A complete game of `game` with seats (agent key, role, won), built as the scorer's own object."""
    seated = tuple(SeatInfo(i, f"P{i}", role, key, won) for i, (key, role, won) in enumerate(seats))
    return ScoredGame(game_id=f"{game}-{number}", game=game, variant={}, setup={}, tournament="t", created="",
                      content_hash=f"h-{game}-{number}", status="complete", seats=seated,
                      winners=tuple(s.seat for s in seated if s.won), result=result or {}, events=(), probes=(),
                      usage=tuple({} for _ in seated))


def test_cost_sharing_counts_games_not_seats():
    # x holds two airlines at 6 tables and one at 4; 5 of the 10 tables agreed, 3 of them with two of x's seats.
    x, y = agent_key(builtin("x", "cost_sharing/conceding")), agent_key(builtin("y", "cost_sharing/proportional"))
    games = []
    for i in range(10):
        held, agreed = (2 if i < 6 else 1), i in (0, 1, 2, 6, 7)
        result = {"success": agreed, "agreed_split": [33.33, 33.33, 33.34] if agreed else None}
        games.append(table("cost_sharing", i, [(x, "airline", agreed)] * held + [(y, "airline", agreed)] * (3 - held),
                           result))
    names = {x: builtins_info(x, "x"), y: builtins_info(y, "y")}
    row = {r["label"]: r for r in leaderboards(games, names, seed=1)["cost_sharing"]["agents"]}["x"]
    assert row["seats"] == 16
    # One outcome per table: 5 agreements of 10 games (the seats would say 8 of 16, with 16 trials).
    assert row["win_rate"] == {"value": 0.5, "ci": row["win_rate"]["ci"], "n": 10, "games": 10}
    assert row["win_rate"]["ci"] == pytest.approx(list(wilson(5, 10)))
    assert row["roles"]["airline"]["n"] == 10


def test_team_mates_of_one_table_are_not_independent_trials():
    # z holds the three non-chameleons of every table; they win together at 10 of 20 tables.
    z, w = agent_key(builtin("z", "random")), agent_key(builtin("w", "chameleon/associative"))
    games = [table("chameleon", i, [(w, "chameleon", i % 2 == 1)] + [(z, "non_chameleon", i % 2 == 0)] * 3)
             for i in range(20)]
    names = {z: builtins_info(z, "z"), w: builtins_info(w, "w")}
    row = {r["label"]: r for r in leaderboards(games, names, seed=1)["chameleon"]["agents"]}["z"]
    assert (row["win_rate"]["value"], row["win_rate"]["n"], row["win_rate"]["games"]) == (0.5, 60, 20)
    assert row["win_rate"]["ci"] == pytest.approx(list(wilson(10, 20)))  # 20 trials, not 60
    assert row["roles"]["non_chameleon"]["ci"] == pytest.approx(list(wilson(10, 20)))


def builtins_info(key: str, label: str) -> AgentInfo:
    return AgentInfo(key, label, {"kind": "builtin", "strategy": label})
