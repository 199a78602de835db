"""The response cache: keyed by the complete request and its place in the run, holding no secret,
shrugging off corrupt entries; and the run's accounting of what it did not pay for again."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from runner.llm.cache import CachedChatModel, ResponseCache, request_key
from runner.llm.types import Completion, Message, ModelSettings
from runner.plan import Price
from runner.run import Usage

SETTINGS = ModelSettings("openai_compatible", "m", base_url="http://127.0.0.1:8000/v1", api_key_env="SECRET_VAR",
                         temperature=0.7, max_tokens=100, seed=3)
MESSAGES = [Message("system", "rules"), Message("user", "your move?")]
SCHEMA = {"type": "object", "properties": {"choice": {"enum": ["a", "b"]}}, "required": ["choice"],
          "additionalProperties": False}
REPLY = Completion('{"choice": "a"}', "stop", "m-2026", 120, 7, 812.5, retries=1, structured="json_schema")


class Counting:
    """A ChatModel that answers every call with REPLY, counting calls (or failing, if told to)."""

    def __init__(self, settings: ModelSettings = SETTINGS, error: str | None = None):
        self.settings = settings
        self.calls = 0
        self.error = error

    async def complete(self, messages, schema=None):
        self.calls += 1
        if self.error:
            return Completion(None, None, None, None, None, 5.0, error=self.error)
        return REPLY


def ask(model, n=1):
    async def go():
        return [await model.complete(MESSAGES, SCHEMA) for _ in range(n)]
    return asyncio.run(go())


@pytest.mark.parametrize("change", [
    {"model": "other"}, {"base_url": "http://127.0.0.1:9000/v1"}, {"temperature": 0.2}, {"max_tokens": 99},
    {"seed": 4}, {"top_p": 0.5}, {"stop": ("x",)}, {"structured_output": "json_object"}, {"system_role": False},
    {"extra_body": {"top_k": 5}}, {"provider": "openai"}, {"reasoning_effort": "high"}, {"thinking_budget": 2048},
])
def test_every_setting_that_shapes_a_reply_is_in_the_key(change):
    base = request_key(SETTINGS, MESSAGES, SCHEMA, "g/seat-0#0")
    assert request_key(dataclasses.replace(SETTINGS, **change), MESSAGES, SCHEMA, "g/seat-0#0") != base


def test_messages_schema_and_place_are_in_the_key_and_access_is_not():
    base = request_key(SETTINGS, MESSAGES, SCHEMA, "g/seat-0#0")
    assert request_key(SETTINGS, MESSAGES[:1], SCHEMA, "g/seat-0#0") != base
    assert request_key(SETTINGS, MESSAGES, None, "g/seat-0#0") != base
    assert request_key(SETTINGS, MESSAGES, SCHEMA, "g/seat-0#1") != base  # the next call of the seat
    assert request_key(SETTINGS, MESSAGES, SCHEMA, "h/seat-0#0") != base  # the same prompt in another game
    reached = dataclasses.replace(SETTINGS, api_key_env="OTHER", timeout_s=5.0)
    assert request_key(reached, MESSAGES, SCHEMA, "g/seat-0#0") == base  # how it is reached changes no reply
    assert request_key(SETTINGS, MESSAGES, SCHEMA, "g/seat-0#0") == base  # and it is stable


def test_a_second_run_answers_from_the_cache_with_the_same_reply(tmp_path):
    first, second = Counting(), Counting()
    replies = ask(CachedChatModel(first, ResponseCache(tmp_path), "g/seat-1"), 2)
    again = ask(CachedChatModel(second, ResponseCache(tmp_path), "g/seat-1"), 2)
    assert first.calls == 2 and second.calls == 0
    assert all(not r.cached for r in replies) and all(r.cached for r in again)
    assert [dataclasses.replace(r, cached=False) for r in again] == replies  # latency and tokens as recorded
    assert again[0].evidence(MESSAGES)["cached"] is True and "cached" not in replies[0].evidence(MESSAGES)


def test_errors_are_never_cached(tmp_path):
    failing = Counting(error="HTTP 503")
    ask(CachedChatModel(failing, ResponseCache(tmp_path), "g/seat-1"))
    assert not list(tmp_path.rglob("*.json"))


def test_entries_hold_no_secret_and_no_prompt(tmp_path):
    ask(CachedChatModel(Counting(), ResponseCache(tmp_path), "g/seat-1"))
    [entry] = list(tmp_path.rglob("*.json"))
    text = entry.read_text(encoding="utf-8")
    assert "SECRET_VAR" not in text and "your move" not in text and "rules" not in text
    assert json.loads(text)["text"] == REPLY.text


@pytest.mark.parametrize("damage", [
    lambda p: p.write_text('{"v": 1, "key": "', encoding="utf-8"),          # cut mid-write
    lambda p: p.write_bytes(b"\xff\xfe\x00garbage"),                          # not UTF-8
    lambda p: p.write_text("[]", encoding="utf-8"),                            # not an object
    lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "input_tokens": "many"})),  # wrong type
    lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "key": "0" * 64})),  # another call's
    lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "v": 99})),  # another cache version
])
def test_a_corrupt_entry_is_a_miss_not_an_error(tmp_path, damage):
    ask(CachedChatModel(Counting(), ResponseCache(tmp_path), "g/seat-1"))
    [entry] = list(tmp_path.rglob("*.json"))
    damage(entry)
    model = Counting()
    [reply] = ask(CachedChatModel(model, ResponseCache(tmp_path), "g/seat-1"))
    assert model.calls == 1 and not reply.cached  # asked again, and the entry rewritten
    assert json.loads(entry.read_text(encoding="utf-8"))["text"] == REPLY.text


def test_leftover_temporary_files_are_ignored(tmp_path):
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / ".abcdef01.x.tmp").write_text("{", encoding="utf-8")
    model = Counting()
    ask(CachedChatModel(model, ResponseCache(tmp_path), "g/seat-1"))
    assert model.calls == 1


def test_an_unwritable_cache_only_costs_the_saving(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    model = Counting()
    [reply] = ask(CachedChatModel(model, ResponseCache(blocker), "g/seat-1"))
    assert reply.text == REPLY.text and model.calls == 1


def test_cost_leaves_out_replies_from_the_cache_and_prices_prompt_cache_reads():
    price = Price(input=2.0, output=10.0, cached_input=0.5)
    usage = Usage()
    usage.add_call({"input_tokens": 1000, "output_tokens": 100, "cached_input_tokens": 400})
    usage.add_call({"input_tokens": 1000, "output_tokens": 100, "cached": True})
    assert (usage.calls, usage.replayed_calls, usage.input_tokens) == (2, 1, 2000)
    # Paid now: 600 fresh input at 2.0, 400 cache reads at 0.5, 100 output at 10.0.
    assert usage.cost(price) == pytest.approx((600 * 2.0 + 400 * 0.5 + 100 * 10.0) / 1e6)
    assert Price(2.0, 10.0).cost(1000, 0, 400) == pytest.approx(1000 * 2.0 / 1e6)  # no cached price: full price
