"""Prompt caching: Anthropic's cache breakpoints on each seat's unchanging prefix, cache reads and
writes recorded in replays and priced as such, OpenAI's automatic caching recorded, and the dry run's
estimate. Through the real SDKs against the fakes of tests/llm/fakes.py, which cache as the APIs do."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from runner.llm.connections import Connections
from runner.llm.prompt_cache import MAX_BREAKPOINTS, Marks, PrefixPlanner, SimulatedCache
from runner.llm.types import Message, ModelSettings, ProviderLimits
from runner.plan import Price
from runner.rerun.validate import check_file
from runner.run import Usage, estimate
from runner.tournament import PlanError, from_dict
from tests.llm.fakes import FakeAnthropic, FakeOpenAI, always
from tests.llm.test_tournament_llm import assert_all_valid, legal_reply, model_table, play, replays, six_games

KEY = "sk-test-cache-5e1f0a9c3b7d2468"
ENV = {"TEST_LLM_KEY": KEY}
QUICK = ProviderLimits(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02)

# -- where the marks go ---------------------------------------------------------------------

OBSERVATION = "What you know:\n- You are Ann.\n\nWhat has happened so far:\n"


def turn(events: list[str], ask: str) -> list[tuple[str, str]]:
    """A decision's user message: the observation (which only grows), then the question."""
    return [("user", OBSERVATION + "".join(f"- {e}\n" for e in events) + f"\n{ask}\nANSWER: ...")]


def test_the_first_call_marks_the_system_prompt_then_each_call_reads_what_the_one_before_wrote():
    planner = PrefixPlanner()
    first = planner.marks("seat", True, turn(["Bo gave a clue."], "Give your clue."))
    assert first == Marks(system=True)  # nothing known yet beyond the system prompt
    second = planner.marks("seat", True, turn(["Bo gave a clue.", "Cy gave a clue."], "Vote."))
    # What the two calls share, cut back to a line end: the observation so far.
    shared = len(OBSERVATION + "- Bo gave a clue.\n")
    assert second == Marks(system=True, points=((0, shared),))
    third = planner.marks("seat", True, turn(["Bo gave a clue.", "Cy gave a clue.", "Votes are in."], "Guess."))
    grown = len(OBSERVATION + "- Bo gave a clue.\n- Cy gave a clue.\n")
    assert third == Marks(system=True, points=((0, shared), (0, grown)))  # reads the second's, writes its own
    fourth = planner.marks("seat", True, turn(["Bo gave a clue.", "Cy gave a clue.", "Votes are in.", "Over."],
                                              "Last."))
    # The older point is still cut (the blocks split as when it was written) but no longer marked.
    assert fourth.points == ((0, grown), (0, len(OBSERVATION + "- Bo gave a clue.\n- Cy gave a clue.\n"
                                                  "- Votes are in.\n")))
    assert fourth.splits == ((0, shared),)


def test_a_retry_gets_its_marks_again_and_a_reask_reads_the_question_it_repeats():
    planner = PrefixPlanner()
    planner.marks("seat", True, turn(["Bo gave a clue."], "Give your clue."))
    ask = turn(["Bo gave a clue.", "Cy gave a clue."], "Vote.")
    marks = planner.marks("seat", True, ask)
    assert planner.marks("seat", True, ask) == marks  # the same request sent again: the same marks
    reask = [*ask, ("assistant", "I vote for nobody."), ("user", "That is not a player. Vote again.")]
    again = planner.marks("seat", True, reask)
    assert again.points[-1] == (0, len(ask[0][1]))  # the whole first question, repeated by the re-ask
    assert planner.marks("other seat", True, ask) == Marks(system=True)  # conversations are apart


def test_a_game_never_asks_for_more_than_four_marks():
    planner, events = PrefixPlanner(), []
    for n in range(40):
        events.append(f"Event {n} happened.")
        marks = planner.marks("seat", True, turn(events, f"Question {n % 3}."))
        assert len(marks) <= MAX_BREAKPOINTS
        assert list(marks.points) == sorted(set(marks.points))


# -- through the SDK, against a fake that caches as Anthropic does ------------------------------

SYSTEM = "You play The Chameleon. " + "The rules say many things. " * 30  # about 200 tokens


def conversation(calls: int) -> list[list[Message]]:
    """One seat's calls: the same system prompt, an observation growing by an event a call."""
    events, out = [], []
    for n in range(calls):
        events.append(f"Player {n % 4} said something rather long about the secret word, number {n}. " * 3)
        out.append([Message("system", SYSTEM), *(Message(r, c) for r, c in turn(events, f"Question {n}."))])
    return out


def complete_all(server, calls: list[list[Message]], **settings: Any):
    async def go():
        async with Connections({"anthropic": QUICK}, {"TEST_LLM_KEY": KEY}) as connections:
            model = connections.model(ModelSettings("anthropic", "claude-test", base_url=server.base_url,
                                                    api_key_env="TEST_LLM_KEY", **settings))
            return [await model.complete(messages) for messages in calls]
    return asyncio.run(go())


def test_the_cached_prefix_is_written_once_then_read_and_the_prompt_recorded_is_unchanged():
    calls = conversation(5)
    with FakeAnthropic(always("ANSWER: {}"), cache_min_tokens=150) as server:
        done = complete_all(server, calls)
    bodies = [r.body for r in server.requests]
    assert all(b["system"][0]["cache_control"] == {"type": "ephemeral"} for b in bodies)
    # First call: the system prompt is written. Later calls read at least it, and what the call before wrote.
    assert done[0].cache_write_input_tokens and not done[0].cached_input_tokens
    reads = [c.cached_input_tokens for c in done[1:]]
    assert all(reads) and reads == sorted(reads) and reads[-1] > reads[0]  # the read prefix grows with the game
    for completion in done:  # the prompt tokens are still all of them, split three ways
        assert completion.input_tokens >= completion.cached_input_tokens + completion.cache_write_input_tokens
    # The wire blocks join to exactly the messages the agent wrote, and the record keeps those.
    for body, messages, completion in zip(bodies, calls, done):
        sent = [m["content"] if isinstance(m["content"], str) else "".join(b["text"] for b in m["content"])
                for m in body["messages"]]
        assert sent == [m.content for m in messages if m.role != "system"]
        record = completion.evidence(messages)
        assert record["messages"] == [{"role": m.role, "content": m.content} for m in messages]
        assert record.get("cache_write_input_tokens") == (completion.cache_write_input_tokens or None)
        assert record.get("cached_input_tokens") == (completion.cached_input_tokens or None)
    assert sum(isinstance(m["content"], list) for b in bodies for m in b["messages"]) >= 4


def test_a_prefix_shorter_than_the_models_minimum_is_neither_cached_nor_billed_as_a_write():
    with FakeAnthropic(always("ANSWER: {}"), cache_min_tokens=100_000) as server:
        done = complete_all(server, conversation(4))
    assert all(not c.cached_input_tokens and not c.cache_write_input_tokens for c in done)
    assert "cache_write_input_tokens" not in done[0].evidence([]) and "cached_input_tokens" not in done[0].evidence([])


def test_prompt_cache_false_sends_no_marks():
    with FakeAnthropic(always("ANSWER: {}"), cache_min_tokens=150) as server:
        done = complete_all(server, conversation(3), prompt_cache=False)
    assert not any("cache_control" in json.dumps(r.body) for r in server.requests)
    assert all(not c.cached_input_tokens and not c.cache_write_input_tokens for c in done)


def test_the_fake_refuses_more_than_four_marks_as_the_api_does():
    with FakeAnthropic(always("ok"), cache_min_tokens=1) as server:
        marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
        refusal = server.schema_refusal({"system": [marked] * 2, "messages": [{"role": "user", "content": [marked] * 3}]})
    assert refusal == "A maximum of 4 blocks with cache_control may be provided. Found 5."


# -- a played tournament: recorded, validated, priced --------------------------------------------

PRICES = '[prices."test-model"]\ninput = 3.0\noutput = 15.0\ncached_input = 0.3\ncache_write_input = 3.75\n'


def calls_of(game: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for r in game["records"] for c in (r.get("evidence") or {}).get("calls", [])]


def test_a_tournament_through_anthropic_records_cache_reads_and_writes_and_prices_them(tmp_path):
    with FakeAnthropic(legal_reply, cache_min_tokens=300) as server:
        agents = {"claude": model_table("anthropic", server.base_url),
                  "claude-pgm": model_table("anthropic", server.base_url, design="pgm")}
        result, out = play(tmp_path, six_games(agents, extra=PRICES))
    assert result.exit_code == 0, result.output
    assert_all_valid(out)  # the validator derives every prompt again: the marks changed none
    games = replays(out)
    calls = [c for g in games for c in calls_of(g)]
    usage = Usage()
    for call in calls:
        usage.add_call(call)
    assert usage.cached_input_tokens > 0 and usage.cache_write_input_tokens > 0
    assert usage.cached_input_tokens + usage.cache_write_input_tokens < usage.input_tokens
    with_cache = {g["records"][0]["version"] for g in games if any("cache_write_input_tokens" in c for c in calls_of(g))}
    assert with_cache == {6}  # the field of format version 6, and the header says so
    # Every recorded message is the plain text the agent wrote, never the wire's blocks.
    assert all(isinstance(m["content"], str) for c in calls for m in c["messages"])
    price = Price(3.0, 15.0, 0.3, 3.75)
    fresh = usage.input_tokens - usage.cached_input_tokens - usage.cache_write_input_tokens
    expected = (fresh * 3.0 + usage.cached_input_tokens * 0.3 + usage.cache_write_input_tokens * 3.75
                + usage.output_tokens * 15.0) / 1e6
    assert usage.cost(price) == pytest.approx(expected)
    assert usage.cost(price, caching=False) == pytest.approx((usage.input_tokens * 3.0 + usage.output_tokens * 15.0) / 1e6)
    assert f"{usage.cached_input_tokens:,} read, {usage.cache_write_input_tokens:,} written" in result.output
    assert f"{usage.cost(price, caching=False):,.2f} without caching" in result.output


def test_a_cache_write_field_needs_format_version_6(tmp_path):
    with FakeAnthropic(legal_reply, cache_min_tokens=300) as server:
        result, out = play(tmp_path, six_games({"claude": model_table("anthropic", server.base_url)}))
    assert result.exit_code == 0, result.output
    path = next(g["path"] for g in replays(out) if any("cache_write_input_tokens" in c for c in calls_of(g)))
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    path.write_text("\n".join([json.dumps({**header, "version": 5}), *lines[1:]]) + "\n", encoding="utf-8")
    problems = [str(p) for p in check_file(path).problems]
    assert problems and all("needs replay format version 6; this file says version 5" in p for p in problems)


def test_openai_automatic_caching_is_recorded_and_priced(tmp_path):
    with FakeOpenAI(legal_reply, auto_cache=True) as server:
        result, out = play(tmp_path, six_games({"gpt": model_table("openai", server.base_url)}, extra=PRICES))
    assert result.exit_code == 0, result.output
    assert_all_valid(out)
    calls = [c for g in replays(out) for c in calls_of(g)]
    cached = [c["cached_input_tokens"] for c in calls if c.get("cached_input_tokens")]
    assert cached and all(n >= 1024 and n % 128 == 0 for n in cached)  # OpenAI's rule, as the fake plays it
    assert not any("cache_write_input_tokens" in c for c in calls)  # OpenAI bills no writes
    assert "without caching" in result.output


# -- settings and prices ----------------------------------------------------------------------------

def plan(agent: dict[str, Any], prices: dict[str, Any] | None = None):
    return from_dict({"name": "t", "seed": 1, "agents": {"m": agent}, "prices": prices or {},
                      "matchups": [{"game": "prisoners_dilemma", "games": 1,
                                    "lineup": ["m", "prisoners_dilemma/tit_for_tat", "prisoners_dilemma/tit_for_tat"]}]})


def test_prompt_cache_is_an_access_setting_refused_where_it_cannot_apply():
    claude = {"provider": "anthropic", "model": "claude-x", "api_key_env": "K"}
    on, off = plan(claude), plan({**claude, "prompt_cache": False})
    assert on.agents["m"].settings().prompt_cache is True and off.agents["m"].settings().prompt_cache is False
    assert on.agents["m"].spec == off.agents["m"].spec  # what is played (and the game ids) is the same
    with pytest.raises(PlanError, match="prompt_cache = false is for provider anthropic"):
        plan({"provider": "openai", "model": "gpt-x", "api_key_env": "K", "prompt_cache": False})
    with pytest.raises(PlanError, match="prompt_cache: must be true or false"):
        plan({**claude, "prompt_cache": "yes"})


def test_cache_writes_cost_a_quarter_more_than_input_unless_priced():
    assert plan({"provider": "anthropic", "model": "claude-x", "api_key_env": "K"},
                {"claude-x": {"input": 3, "output": 15, "cache_write_input": 3.75}}).prices["claude-x"] == \
        Price(3.0, 15.0, None, 3.75)
    assert Price(2.0, 10.0).cost(1000, 0, 0, 400) == pytest.approx((600 * 2.0 + 400 * 2.5) / 1e6)
    assert Price(2.0, 10.0, 0.2, 3.0).cost(1000, 0, 300, 400) == pytest.approx((300 * 2.0 + 300 * 0.2 + 400 * 3.0) / 1e6)
    with pytest.raises(PlanError, match="cache_write_input"):
        plan({"provider": "anthropic", "model": "claude-x", "api_key_env": "K"},
             {"claude-x": {"input": 3, "output": 15, "cache_write": 3.75}})


# -- the dry run's estimate -------------------------------------------------------------------------

def test_the_simulated_cache_reads_what_the_planner_marked_before():
    cache = SimulatedCache("marked", lambda text: len(text) / 4, min_tokens=100)
    uses = [cache.call(m[0].content, [(x.role, x.content) for x in m[1:]]) for m in conversation(5)]
    assert uses[0].read == 0 and uses[0].written > 0
    assert all(u.read > 0 for u in uses[1:]) and uses[-1].read > uses[1].read
    never = SimulatedCache("marked", lambda text: len(text) / 4, min_tokens=100_000)
    assert all(never.call(m[0].content, [(x.role, x.content) for x in m[1:]]).read == 0 for m in conversation(3))


def test_the_dry_run_estimates_cache_use_and_both_costs(monkeypatch):
    monkeypatch.setattr("runner.llm.prompt_cache.ANTHROPIC_MIN_TOKENS", 200)
    agent = {"provider": "anthropic", "model": "claude-x", "api_key_env": "K"}
    prices = {"claude-x": {"input": 3, "output": 15, "cached_input": 0.3}}
    (cached,) = asyncio.run(estimate(plan(agent, prices)))
    (plain,) = asyncio.run(estimate(plan({**agent, "prompt_cache": False}, prices)))
    part, uncached = cached.models["claude-x"], plain.models["claude-x"]
    assert part.cached_input_tokens > 0 and part.cache_write_input_tokens > 0
    assert not uncached.cached_input_tokens and not uncached.cache_write_input_tokens
    assert part.input_tokens == uncached.input_tokens  # the same prompts, billed differently
    price = Price(3.0, 15.0, 0.3)
    assert part.cost(price) < part.cost(price, caching=False) == pytest.approx(uncached.cost(price))


# -- the judge: ten questions of a game share its rules and whole dialog ------------------------------

def test_the_judges_questions_read_the_game_they_share_from_the_cache(tmp_path):
    from tests.llm.fakes import chat_messages
    from tests.llm.test_judge_ewavm import good_answer, judge, judge_lines, tournament_file, werewolf_replays

    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeAnthropic(lambda body, n: good_answer(chat_messages(body)[-1]["content"]),
                       cache_min_tokens=512) as server:  # a built-in game's dialog is short
        toml = tournament_file(tmp_path, server.base_url)
        toml.write_text(toml.read_text(encoding="utf-8").replace('provider = "openai_compatible"',
                                                                  'provider = "anthropic"')
                        .replace("temperature = 0.0\n", ""), encoding="utf-8")
        result = judge(files[:1], toml, "--dimension", "engagement", "--dimension", "variation")
    assert result.exit_code == 0, result.output
    calls = [c for line in judge_lines(files[0]) for c in line["evidence"]["calls"]]
    # The first question marks only the system prompt (too short to cache); the second writes what it
    # shares with the first (the rules and the whole dialog), every later question reads it.
    assert len(calls) == 4 and "cached_input_tokens" not in calls[0] and calls[1]["cache_write_input_tokens"] >= 512
    assert all(c["cached_input_tokens"] >= calls[1]["cache_write_input_tokens"] for c in calls[2:])
    assert check_file(files[0]).ok and json.loads(files[0].read_text().splitlines()[0])["version"] == 6


def test_a_streamed_call_records_its_cache_use_too():
    calls = conversation(3)
    with FakeAnthropic(always("ANSWER: {}"), cache_min_tokens=150) as server:
        done = complete_all(server, calls, max_tokens=9000)  # above 8,192: streamed
    assert server.streamed == 3
    assert done[0].cache_write_input_tokens and all(c.cached_input_tokens for c in done[1:])
