"""Structured outputs and provider options, on the wire: the exact request bodies the real SDKs send
to the fake servers for each mode and option, and tournaments played with constrained decoding."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
from typing import Any

import jsonschema
import pytest

from runner import games
from runner.agents.llm.schemas import (action_schema, favor_schema, judgement_schema, pgm_schema, plan_schema,
                                       probe_schema)
from runner.llm.connections import Connections
from runner.llm.types import Message, ModelSettings, ProviderLimits
from tests.llm.fakes import FakeAnthropic, FakeOpenAI, Reply, always, constrained, schema_value, sequence
from tests.llm.test_honest_numbers import run_plan
from tests.llm.test_tournament_llm import (KEY, assert_all_valid, legal_reply, model_table,
                                           replays, six_games)

SCHEMA = {"type": "object", "properties": {"vote": {"type": "string", "enum": ["Ann", "Bob"]}},
          "required": ["vote"], "additionalProperties": False}
HELLO = [Message("system", "You play a game."), Message("user", "Whom do you vote for?")]


def ask(server: Any, settings: ModelSettings, schema: Any = SCHEMA) -> tuple[Any, dict[str, Any]]:
    """One call through the real SDK; the completion and the request body the server received."""
    async def go():
        async with Connections({}, {"TEST_KEY": KEY}) as connections:
            return await connections.model(settings).complete(HELLO, schema)

    completion = asyncio.run(go())
    assert server.script_errors == []
    return completion, server.requests[-1].body


def settings(server: Any, provider: str, **options: Any) -> ModelSettings:
    return ModelSettings(provider, "test-model", base_url=server.base_url, api_key_env="TEST_KEY", max_tokens=4096,
                         **options)


@pytest.mark.parametrize("provider, mode, expected", [
    ("openai", "json_schema",
     {"response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}}}),
    ("openai_compatible", "json_schema",
     {"response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}}}),
    ("openai_compatible", "json_object", {"response_format": {"type": "json_object", "schema": SCHEMA}}),
])
def test_openai_wire_shapes_of_structured_outputs(provider, mode, expected):
    with FakeOpenAI(constrained(legal_reply)) as server:
        completion, body = ask(server, settings(server, provider, structured_output=mode))
    for key, value in expected.items():
        assert body[key] == value
    assert json.loads(completion.text)["vote"] in ("Ann", "Bob")
    assert completion.structured == mode and completion.evidence(HELLO)["structured"] == mode


def test_anthropic_forced_tool_and_the_answer_read_from_its_input():
    with FakeAnthropic(constrained(legal_reply)) as server:
        completion, body = ask(server, settings(server, "anthropic", structured_output="tool"))
    assert body["tools"] == [{"name": "answer", "description": "Give your answer.", "input_schema": SCHEMA}]
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert "output_config" not in body and "response_format" not in body
    assert json.loads(completion.text)["vote"] in ("Ann", "Bob") and completion.finish_reason == "stop"
    assert completion.structured == "tool"


def test_anthropic_native_structured_output():
    with FakeAnthropic(constrained(legal_reply)) as server:
        completion, body = ask(server, settings(server, "anthropic", structured_output="json_schema"))
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert "tools" not in body and json.loads(completion.text)["vote"] in ("Ann", "Bob")


def test_without_a_mode_no_schema_is_sent():
    with FakeOpenAI(always("ANSWER: {\"vote\": \"Ann\"}")) as server:
        completion, body = ask(server, settings(server, "openai"))
    assert "response_format" not in body and completion.structured is None
    assert "structured" not in completion.evidence(HELLO)


def test_openai_options_on_the_wire():
    reply = Reply("ANSWER: {\"vote\": \"Ann\"}", reasoning_tokens=120, cached_input_tokens=64, input_tokens=200,
                  output_tokens=150)
    with FakeOpenAI(always(reply)) as server:
        completion, body = ask(server, settings(server, "openai", top_p=0.9, stop=("\n\n",), seed=7,
                                                reasoning_effort="high"), schema=None)
    assert (body["top_p"], body["stop"], body["seed"], body["reasoning_effort"]) == (0.9, ["\n\n"], 7, "high")
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body
    assert (completion.reasoning_tokens, completion.cached_input_tokens) == (120, 64)
    record = completion.evidence(HELLO)
    assert (record["reasoning_tokens"], record["cached_input_tokens"], record["input_tokens"]) == (120, 64, 200)


def test_extra_body_is_passed_through_as_is():
    extra = {"top_k": 40, "min_p": 0.05, "chat_template_kwargs": {"enable_thinking": False}}
    with FakeOpenAI(always("ANSWER: {\"vote\": \"Ann\"}")) as server:
        _, body = ask(server, settings(server, "openai_compatible", extra_body=extra), schema=None)
    assert {k: body[k] for k in extra} == extra
    assert body["max_tokens"] == 4096


def test_anthropic_thinking_effort_and_stop_on_the_wire():
    reply = Reply("ANSWER: {\"vote\": \"Bob\"}", reasoning="Bob hesitated twice.", reasoning_tokens=300)
    with FakeAnthropic(always(reply)) as server:
        completion, body = ask(server, settings(server, "anthropic", thinking_budget=2048, reasoning_effort="high",
                                                stop=("END",)), schema=None)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["output_config"] == {"effort": "high"} and body["stop_sequences"] == ["END"]
    assert "temperature" not in body and "top_p" not in body
    assert completion.reasoning == "Bob hesitated twice." and completion.reasoning_tokens == 300
    assert completion.text == "ANSWER: {\"vote\": \"Bob\"}"


# -- the schemas ---------------------------------------------------------------------------

def _decisions():
    """(game, legal, names, a legal action) for every kind of decision of every game."""
    rng = random.Random(3)
    for name in games.available():
        game = games.get(name)
        for rules in ({}, {"clue": "subset"} if name == "chameleon" else None, {"clue": "sentence"}
                      if name in ("chameleon", "undercover") else None):
            if rules is None:
                continue
            params = game.params(rules)
            setup = game.deal(params, random.Random(1))
            state = game.start(params, setup)
            names = game.seat_names(params, setup)
            seen = set()
            while (pending := state.pending()) is not None:
                if pending.kind == "chance":
                    state.chance(pending.options[0])
                    continue
                seat = pending.seats[0]
                legal = state.legal(seat)
                action = state.random_action(seat, rng)
                if (legal["field"], legal.get("mode")) not in seen:
                    seen.add((legal["field"], legal.get("mode")))
                    yield name, legal, names, action
                state.act(seat, action)


@pytest.mark.parametrize("game, legal, names, action", list(_decisions()),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_every_decision_schema_is_strict_and_admits_the_legal_move(game, legal, names, action):
    schema = action_schema(legal, names, reasoning_chars=300)
    assert schema["additionalProperties"] is False and schema["required"] == list(schema["properties"])
    assert list(schema["properties"])[0] == "reasoning"
    field = legal["field"]
    value = action[field]
    if field in ("vote", "proposal"):
        value = names[value]
    elif field == "look":
        value = [names[s] for s in value]
    if field == "split":  # a grid of whole 5 % steps: not every legal split, but only legal ones
        assert all(sum(option) == 100 and len(option) == 3 for option in schema["properties"]["split"]["enum"])
        value = [40, 30, 30]
    jsonschema.validate({"reasoning": "because", field: value}, schema)
    sampled = schema_value(schema, random.Random(5))
    jsonschema.validate(sampled, schema)


def test_vote_schema_lists_only_the_other_players():
    schema = action_schema({"field": "vote", "options": [1, 2]}, ["Ann", "Bob", "Cy"])
    assert schema["properties"]["vote"] == {"type": "string", "enum": ["Bob", "Cy"]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"vote": "Ann"}, schema)


def test_probe_and_design_schemas():
    names = ["Ann", "Bob", "Cy"]
    assert probe_schema("suspect", None, 0, (), names)["properties"]["seat"]["enum"] == ["Bob", "Cy"]
    assert probe_schema("suspect_of", 2, 0, (), names)["properties"]["seat"]["enum"] == ["Ann", "Bob"]
    assert probe_schema("self_role", None, 0, ("chameleon", "non_chameleon"), names)["properties"]["role"]["enum"] \
        == ["chameleon", "non_chameleon"]
    judged = judgement_schema(["Bob", "Cy"], ("chameleon", "non_chameleon"))
    assert judged["required"] == ["Bob", "Cy"] and judged["properties"]["Cy"]["properties"]["role"]["enum"] == \
        ["chameleon", "non_chameleon"]
    assert plan_schema()["properties"]["plan"] == {"type": "string", "maxLength": 600}
    views = pgm_schema([("Ann", ["Bob", "Cy"]), ("Bob", ["Ann", "Cy"])])
    assert views["required"] == ["Ann", "Bob"] and views["properties"]["Bob"]["required"] == ["Ann", "Cy"]
    assert views["properties"]["Bob"]["properties"]["Cy"]["enum"] == ["more", "less", "same"]
    favor = favor_schema(["Bob", "Cy"])
    assert favor["required"] == ["Bob", "Cy"] and favor["properties"]["Bob"] == {"type": "integer", "minimum": 1,
                                                                                  "maximum": 10}


# -- tournaments with constrained decoding -------------------------------------------------

@pytest.mark.parametrize("provider, mode", [("openai", "json_schema"), ("openai_compatible", "json_object"),
                                            ("anthropic", "tool"), ("anthropic", "json_schema")])
def test_six_games_with_structured_outputs(tmp_path, provider, mode):
    fake = FakeAnthropic if provider == "anthropic" else FakeOpenAI
    with fake(constrained(legal_reply, seed=2)) as server:
        extra = f'structured_output = "{mode}"\nstructured_reasoning = 200\n'
        agents = {"m": model_table(provider, server.base_url, extra=extra),
                  "f": model_table(provider, server.base_url, design="favor", extra=extra),
                  "s": model_table(provider, server.base_url, design="strategy", extra=extra)}
        result, out = run_plan(tmp_path, six_games(agents))
    assert result.exit_code == 0, result.output
    assert_all_valid(out)
    games_ = replays(out)
    assert len(games_) == 8
    records = [r for g in games_ for r in g["records"]]
    calls = [c for r in records for c in (r.get("evidence") or {}).get("calls", [])]
    constrained_calls = [c for c in calls if c.get("structured")]
    assert constrained_calls and {c["structured"] for c in constrained_calls} == {mode}
    # Every move and belief went through the schema; only free-text analyses would not (none here).
    assert len(constrained_calls) == len(calls)
    system = calls[0]["messages"][0]["content"]
    assert "reply with only the JSON object" in system and "ANSWER:" not in system
    assert calls[0]["messages"][1]["content"].endswith(
        'Put one more field first: "reasoning", your brief thinking before you answer, at most 200 characters.')
    # No placeholder to copy (the "<<<" and ">>>" around a plan are on lines of their own).
    assert not any(re.search(r"<[^<>\n]*\w[^<>\n]*>", m["content"]) for c in calls for m in c["messages"])
    descriptions = [p["agent"] for g in games_ for p in g["records"][0]["players"] if p["agent"]["kind"] == "llm"]
    assert all(d["structured_output"] == mode and d["structured_reasoning"] == 200 for d in descriptions)
    assert {g["records"][0]["version"] for g in games_} == {2}


# -- streaming: long calls are not cut by the timeout ----------------------------------------

def test_a_long_openai_reasoning_call_is_streamed_and_not_cut_by_the_timeout():
    # The reply takes ~3 s in all, one piece every 0.25 s; the timeout is 1 s per wait.
    slow = Reply("ANSWER: {\"vote\": \"Ann\"}" + " " * 60, reasoning="Let me weigh every clue with care. " * 3,
                 reasoning_tokens=50, chunk_gap_s=0.25)
    with FakeOpenAI(always(slow)) as server:
        completion, body = ask(server, dataclasses.replace(settings(server, "openai", reasoning_effort="high"),
                                                           timeout_s=1.0), schema=None)
        sent, streamed = server.calls, server.streamed
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert completion.error is None and sent == 1 and streamed == 1  # one request, never retried
    assert completion.text.strip() == "ANSWER: {\"vote\": \"Ann\"}"
    assert completion.reasoning.startswith("Let me weigh") and completion.reasoning_tokens == 50
    assert completion.latency_ms > 1000  # longer than the timeout, yet whole


def test_the_same_slow_reply_unstreamed_times_out():
    slow = Reply("ANSWER: {\"vote\": \"Ann\"}", delay_s=1.5)
    with FakeOpenAI(always(slow)) as server:
        async def go():
            async with Connections({"openai": ProviderLimits(max_retries=0)}, {"TEST_KEY": KEY}) as connections:
                return await connections.model(dataclasses.replace(settings(server, "openai"), timeout_s=0.5)) \
                    .complete(HELLO)
        completion = asyncio.run(go())
    assert completion.error and "timed out" in completion.error


@pytest.mark.parametrize("mode", [None, "json_schema"])
def test_anthropic_thinking_calls_are_streamed(mode):
    script = constrained(legal_reply) if mode else always(Reply("ANSWER: {\"vote\": \"Bob\"}", reasoning="Hmm."))
    with FakeAnthropic(script) as server:
        completion, body = ask(server, settings(server, "anthropic", thinking_budget=2048,
                                                structured_output=mode))
        streamed = server.streamed
    assert body["stream"] is True and streamed == 1 and completion.error is None
    if mode:
        assert json.loads(completion.text)["vote"] in ("Ann", "Bob")
    else:
        assert completion.reasoning == "Hmm." and completion.text == "ANSWER: {\"vote\": \"Bob\"}"


def test_an_anthropic_forced_tool_reply_survives_streaming():
    with FakeAnthropic(constrained(legal_reply)) as server:
        completion, body = ask(server, dataclasses.replace(settings(server, "anthropic", structured_output="tool"),
                                                           max_tokens=20000))
    assert body["stream"] is True
    assert json.loads(completion.text)["vote"] in ("Ann", "Bob") and completion.finish_reason == "stop"


# -- each API's dialect of JSON Schema -----------------------------------------------------

BOUNDED = action_schema({"field": "clue", "mode": "word", "words": ["a"]}, ["Ann", "Bob"], reasoning_chars=200)
NUMBERS = action_schema({"field": "split", "order": ["A", "B", "C"]}, ["A", "B", "C"])


@pytest.mark.parametrize("provider, mode, fake, kept, dropped", [
    ("openai", "json_schema", FakeOpenAI, {"pattern"}, {"maxLength"}),
    ("openai_compatible", "json_schema", lambda s: FakeOpenAI(s, strict_schemas=False), {"pattern", "maxLength"},
     set()),
    ("anthropic", "json_schema", FakeAnthropic, set(), {"pattern", "maxLength"}),
    ("anthropic", "tool", FakeAnthropic, {"pattern", "maxLength"}, set()),
])
def test_each_api_gets_the_schema_keywords_it_accepts(provider, mode, fake, kept, dropped):
    with fake(constrained(legal_reply)) as server:
        completion, body = ask(server, settings(server, provider, structured_output=mode), schema=BOUNDED)
    assert completion.error is None
    sent = json.dumps(body)
    assert all(f'"{k}"' in sent for k in kept) and not any(f'"{k}"' in sent for k in dropped)


def test_contributions_are_listed_and_splits_chosen_from_a_grid_where_the_server_takes_them():
    give = action_schema({"field": "contribution", "min": 0, "max": 60}, ["A", "B", "C"])["properties"]["contribution"]
    assert give == {"type": "integer", "enum": list(range(61))}
    split = NUMBERS["properties"]["split"]
    assert len(split["enum"]) == 231 and [40, 30, 30] in split["enum"]
    with FakeOpenAI(constrained(legal_reply), strict_schemas=False) as server:
        completion, body = ask(server, settings(server, "openai_compatible", structured_output="json_object"),
                               schema=NUMBERS)
    assert body["response_format"]["schema"]["properties"]["split"] == split  # llama.cpp takes the grid
    assert sum(json.loads(completion.text)["split"]) == 100


def test_anthropic_output_format_drops_numeric_and_size_bounds_that_the_api_refuses():
    with FakeAnthropic(constrained(legal_reply)) as server:
        completion, body = ask(server, settings(server, "anthropic", structured_output="json_schema"), schema=NUMBERS)
    split = body["output_config"]["format"]["schema"]["properties"]["split"]
    assert split == {"type": "array", "items": {"type": "number"}}  # the rules check the three shares
    assert completion.error is None and isinstance(json.loads(completion.text)["split"], list)


def test_the_fakes_refuse_what_the_real_apis_refuse():
    with FakeAnthropic(constrained(legal_reply)) as server:
        async def go():
            async with Connections({}, {"TEST_KEY": KEY}) as connections:
                transport = connections.model(settings(server, "anthropic")).endpoint.transport
                return await transport.client.messages.create(
                    model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}],
                    output_config={"format": {"type": "json_schema", "schema": {
                        "type": "object", "properties": {"x": {"type": "integer", "minimum": 0}},
                        "required": ["x"], "additionalProperties": False}}})
        with pytest.raises(Exception, match="not supported"):
            asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_error_in_the_middle_of_a_stream_is_retried(provider):
    broken = Reply("ANSWER: {\"vote\": \"Ann\"}", reasoning="thinking it over", break_after=3)
    fine = Reply("ANSWER: {\"vote\": \"Ann\"}", reasoning="thinking it over")
    fake = FakeAnthropic if provider == "anthropic" else FakeOpenAI
    options = {"thinking_budget": 2048} if provider == "anthropic" else {"reasoning_effort": "low"}
    with fake(sequence(broken, fine)) as server:
        completion, _ = ask(server, settings(server, provider, **options), schema=None)
        sent = server.calls
    assert completion.error is None and completion.retries == 1 and sent == 2
    assert completion.text == "ANSWER: {\"vote\": \"Ann\"}"
