"""Cost per game (scoring/cost.py): golden replays with known token counts, priced by a known
table, give exact USD; a local model has no token price; a missing cache price is said, not guessed."""

from __future__ import annotations

import dataclasses

import pytest
from builders import PD_PAYOFFS, builtin, infos, llm, replay, scored

from runner.prices import PriceTable, from_dict
from site_builder.scoring import cost
from site_builder.scoring.model import SeatInfo, agent_key

B = builtin("b", "prisoners_dilemma/tit_for_tat")
C, D = "cooperate", "defect"
#: A table of two entries, as runner/prices.toml writes them.
TABLE = PriceTable(from_dict({"models": {
    "anthropic:claude-sonnet-4-5": {"input": 3.0, "cached_input": 0.3, "cache_write_input": 3.75, "output": 15.0,
                                    "read": "2026-11-28", "source": "https://example.org/claude"},
    "openai:gpt-4": {"input": 30.0, "output": 60.0, "read": "2026-11-28", "source": "https://example.org/gpt-4"},
}}, "test table"), "test table")


def call(input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0, latency: float = 500.0) -> dict:
    """One recorded model call of these token counts."""
    out = {"messages": [{"role": "user", "content": "choose"}], "reply": "cooperate", "input_tokens": input_tokens,
           "output_tokens": output_tokens, "latency_ms": latency}
    if cached:
        out["cached_input_tokens"] = cached
    if written:
        out["cache_write_input_tokens"] = written
    return out


def game(model: dict, calls: list[dict], game_id: str, *, seats: int = 1):
    """A one-round Prisoner's Dilemma: `model` in the first `seats` seats, each of its moves
    backed by `calls`; the built-in agent in the others."""
    agents = [model] * seats + [B] * (3 - seats)
    inputs = [("act", s, {"choice": C}) for s in range(3)]
    return scored(replay("prisoners_dilemma", PD_PAYOFFS, agents, inputs, rules={"rounds": 1}, game_id=game_id,
                         evidence={s: {"calls": calls} for s in range(seats)}))


def test_cost_per_game_is_exact_from_every_kind_of_token():
    sonnet = llm("sonnet", "claude-sonnet-4-5", provider="anthropic")
    # Game 1: 1,000 input tokens (200 read from the cache, 100 written to it) and 50 output tokens;
    # game 2: two calls of 400 fresh input and 100 output tokens each.
    games = [game(sonnet, [call(1000, 50, cached=200, written=100)], "g1"),
             game(sonnet, [call(400, 100), call(400, 100)], "g2")]
    row = cost.agent_costs(games, infos(sonnet, B), TABLE)["agents"][agent_key(sonnet)]
    # 700 fresh x 3 + 200 read x 0.30 + 100 written x 3.75 + 50 out x 15 = 3,285 micro-USD;
    # 800 x 3 + 200 x 15 = 5,400 micro-USD.
    assert row["status"] == "priced" and row["price"] == "anthropic:claude-sonnet-4-5" and row["why"] is None
    assert row["usd"] == pytest.approx(0.008685, abs=1e-15)
    assert row["usd_per_game"] == pytest.approx(0.0043425, abs=1e-15)
    assert (row["games"], row["calls"], row["input_tokens"], row["cached_input_tokens"],
            row["cache_write_input_tokens"], row["output_tokens"]) == (2, 3, 1800, 200, 100, 250)
    assert row["model_seconds_per_game"] == pytest.approx(0.75)  # 3 calls x 0.5 s over 2 games
    assert row["by_game"]["prisoners_dilemma"]["usd_per_game"] == pytest.approx(0.0043425, abs=1e-15)
    assert agent_key(B) not in cost.agent_costs(games, infos(sonnet, B), TABLE)["agents"]  # scripted: no row


def test_an_agent_in_two_seats_of_a_game_pays_both_seats_once_per_game():
    gpt = llm("gpt", "gpt-4")
    row = cost.agent_costs([game(gpt, [call(1000, 100)], "g1", seats=2)], infos(gpt, B), TABLE)["agents"][
        agent_key(gpt)]
    assert row["games"] == 1 and row["usd_per_game"] == pytest.approx(2 * (1000 * 30 + 100 * 60) / 1e6)


def test_a_local_model_has_no_token_price_but_its_model_seconds():
    local = {**llm("gemma", "claude-sonnet-4-5", provider="anthropic"), "base_url": "http://127.0.0.1:8000/v1"}
    row = cost.agent_costs([game(local, [call(100, 10, latency=2500.0)], "g1")], infos(local, B), TABLE)[
        "agents"][agent_key(local)]
    assert row["status"] == "local" and row["usd"] is None and row["usd_per_game"] is None
    assert "no token price" in row["why"] and row["model_seconds_per_game"] == pytest.approx(2.5)


@pytest.mark.parametrize("url, loopback", [
    ("http://127.0.0.1:8000/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:80/v1", True),
    ("http://127.8.9.10/v1", True), ("https://api.openai.com/v1", False), ("http://10.0.0.2/v1", False),
    ("http://localhost.example.org/v1", False), (None, False), ("not a url", False), ("http://[::1/v1", False),
])
def test_loopback_addresses(url, loopback):
    assert cost.is_loopback(url) is loopback


def test_no_entry_or_no_cache_price_leaves_the_row_without_a_cost_and_says_why():
    unknown = llm("mystery", "gpt-unknown")
    gpt = llm("gpt", "gpt-4")
    games = [game(unknown, [call(100, 10)], "g1"), game(gpt, [call(100, 10, cached=50)], "g2")]
    rows = cost.agent_costs(games, infos(unknown, gpt, B), TABLE)["agents"]
    assert rows[agent_key(unknown)]["status"] == "unpriced"
    assert rows[agent_key(unknown)]["why"] == "no price for openai:gpt-unknown in the price table"
    cached = rows[agent_key(gpt)]
    assert cached["status"] == "unpriced" and cached["usd"] is None
    assert cached["why"] == "the price table gives no cached-input price for openai:gpt-4"


def test_a_ranked_rows_cost_is_its_candidate_seats_over_its_suite_games():
    gpt = llm("gpt", "gpt-4")
    one, two = game(gpt, [call(1000, 100)], "s1"), game(gpt, [call(3000, 100)], "s2")
    suite = {"name": "ranked", "version": 1, "stage": 1, "deal": 0, "seat": 0}
    games = [dataclasses.replace(one, tournament="ranked-1-gpt", suite=suite),
             dataclasses.replace(two, tournament="ranked-1-gpt", suite={**suite, "deal": 1}),
             dataclasses.replace(one, tournament="exhibition")]  # not a suite game: not counted
    rows = cost.suite_costs(games, infos(gpt, B), TABLE)
    assert list(rows) == ["ranked-1-gpt"]
    assert rows["ranked-1-gpt"]["games"] == 2
    assert rows["ranked-1-gpt"]["usd_per_game"] == pytest.approx((4000 * 30 + 200 * 60) / 1e6 / 2)
    builtin_row = dataclasses.replace(one, tournament="ranked-1-b", suite=suite,
                                      seats=(SeatInfo(0, "P1", "player", agent_key(B), False), *one.seats[1:]))
    assert cost.suite_costs([builtin_row], infos(gpt, B), TABLE) == {}  # a built-in candidate costs nothing
