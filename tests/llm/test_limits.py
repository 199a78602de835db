"""Client-side limits: concurrency per endpoint, RPM / TPM budgets, shared pauses, no slot held in backoff."""

from __future__ import annotations

import asyncio
import time

import pytest
from fakes import FakeAnthropic, FakeOpenAI, Reply, always, rate_limited, sequence, server_error

from runner.llm.budget import Budget, TokenBucket
from runner.llm.connections import Connections
from runner.llm.endpoint import estimate_tokens
from runner.llm.types import ConfigError, Message, ModelSettings, ProviderLimits

ENV = {"KEY_A": "sk-test-aaaaaaaaaaaa", "KEY_B": "sk-test-bbbbbbbbbbbb"}
ASK = [Message("user", "Your move?")]


class FakeClock:
    """Time that moves only when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def settings(server, provider: str = "openai", model: str = "m", key: str = "KEY_A", **kw) -> ModelSettings:
    return ModelSettings(provider, model, base_url=server.base_url, api_key_env=key, **kw)


async def many(connections: Connections, settings_list, count: int) -> list:
    """`count` concurrent calls spread round-robin over the given settings."""
    models = [connections.model(s) for s in settings_list]
    return await asyncio.gather(*(models[i % len(models)].complete(
        [Message("user", f"call {i}")]) for i in range(count)))


# -- concurrency ------------------------------------------------------------------------------

@pytest.mark.parametrize("fake, provider", [(FakeOpenAI, "openai"), (FakeAnthropic, "anthropic")])
@pytest.mark.parametrize("limit", [1, 3])
def test_requests_in_flight_never_exceed_the_limit(fake, provider, limit):
    with fake(always("ok"), latency_s=0.05) as server:
        async def go():
            async with Connections({provider: ProviderLimits(max_concurrency=limit)}, ENV) as c:
                return await many(c, [settings(server, provider)], 12)

        completions = asyncio.run(go())
        assert all(c.text == "ok" for c in completions)
        assert server.max_in_flight == limit  # reached, never passed


def test_models_of_one_endpoint_share_its_slots():
    with FakeOpenAI(always("ok"), latency_s=0.05) as server:
        async def go():
            async with Connections({"openai": ProviderLimits(max_concurrency=2)}, ENV) as c:
                return await many(c, [settings(server, model="m1"), settings(server, model="m2"),
                                      settings(server, model="m3", temperature=0.5)], 12)

        asyncio.run(go())
        assert server.max_in_flight == 2
        assert {r.body["model"] for r in server.requests} == {"m1", "m2", "m3"}


def test_endpoints_with_different_keys_have_their_own_slots():
    with FakeOpenAI(always("ok"), latency_s=0.1) as server:
        async def go():
            async with Connections({"openai": ProviderLimits(max_concurrency=1)}, ENV) as c:
                return await many(c, [settings(server, key="KEY_A"), settings(server, key="KEY_B")], 8)

        asyncio.run(go())
        assert server.max_in_flight == 2


def test_a_backoff_does_not_hold_a_slot():
    # One slot; call A fails once and backs off for 0.4-0.8 s; B is served meanwhile.
    with FakeOpenAI(sequence(server_error(), "ok")) as server:
        async def go():
            limits = ProviderLimits(max_concurrency=1, backoff_base_s=0.8, backoff_max_s=0.8)
            async with Connections({"openai": limits}, ENV) as c:
                model = c.model(settings(server))
                return await asyncio.gather(model.complete([Message("user", "A")]),
                                            model.complete([Message("user", "B")]))

        a, b = asyncio.run(go())
        assert (a.retries, b.retries) == (1, 0)
        order = [r.body["messages"][0]["content"] for r in server.requests]
        assert order == ["A", "B", "A"]


def test_a_retry_after_pauses_every_call_to_the_endpoint():
    # One slot: A takes it first and gets a 429; the pause is set before the slot is released,
    # so B, next in line for the slot, must wait it out too.
    with FakeOpenAI(sequence(rate_limited(0.4), "ok")) as server:
        async def go():
            async with Connections({"openai": ProviderLimits(max_concurrency=1)}, ENV) as c:
                model = c.model(settings(server))
                return await asyncio.gather(model.complete([Message("user", "A")]),
                                            model.complete([Message("user", "B")]))

        asyncio.run(go())
        first, later = server.requests[0], server.requests[1:]
        assert first.body["messages"][0]["content"] == "A"
        assert sorted(r.body["messages"][0]["content"] for r in later) == ["A", "B"]
        assert all(r.arrived - first.arrived >= 0.4 for r in later)  # B waited too


# -- requests per minute ----------------------------------------------------------------------

def test_rpm_budget_paces_requests_over_a_short_window():
    rpm = 1200.0  # 20 a second; a full bucket holds one second's worth
    rate, burst, count = rpm / 60, 20, 30
    with FakeOpenAI(always("ok")) as server:
        async def go():
            limits = ProviderLimits(max_concurrency=50, requests_per_minute=rpm)
            async with Connections({"openai": limits}, ENV) as c:
                await c.model(settings(server)).complete(ASK)  # warm up: the bucket stays full
                await asyncio.sleep(1 / rate)
                return time.monotonic(), await many(c, [settings(server)], count)

        started, _ = asyncio.run(go())
        times = sorted(server.arrivals()[1:])
    assert len(times) == count
    # By any moment, at most the burst plus what the rate refilled since the start has gone
    # out. (Network delays only make arrivals later, so this holds however loaded the machine.)
    # Without a budget all 30 arrive within about 0.1 s.
    for k, arrived in enumerate(times, start=1):
        assert k <= burst + rate * (arrived - started) + 0.5


def test_rpm_on_a_fake_clock():
    clock = FakeClock()
    budget = Budget(TokenBucket(120, clock=clock), clock.sleep)  # 2 a second, burst of 2

    async def go():
        for _ in range(6):
            await budget.spend(1)

    asyncio.run(go())
    assert clock.now - 100.0 == pytest.approx(2.0)  # 2 at once, then 4 more at 0.5 s each


# -- tokens per minute ------------------------------------------------------------------------

def test_token_bucket_arithmetic():
    clock = FakeClock()
    bucket = TokenBucket(6000, clock=clock)     # 100 tokens a second, holds 100
    assert bucket.capacity == 100 and bucket.delay(60) == 0
    bucket.take(60)
    assert bucket.delay(60) == pytest.approx(0.2)   # 40 left, 20 missing at 100/s
    clock.now += 0.2
    assert bucket.delay(60) == 0
    bucket.take(60)
    bucket.correct(-30)                              # the call used 30 fewer than estimated
    assert bucket.level == pytest.approx(30)
    bucket.correct(-500)                             # refunds never overfill the bucket
    assert bucket.level == pytest.approx(100)


def test_a_cost_larger_than_the_bucket_waits_for_a_full_bucket_then_leaves_a_debt():
    clock = FakeClock()
    bucket = TokenBucket(600, clock=clock)      # 10 a second, holds 10
    bucket.take(5)
    assert bucket.delay(50) == pytest.approx(0.5)  # waits for a full bucket, not for 50
    clock.now += 0.5
    bucket.take(50)
    assert bucket.level == pytest.approx(-40) and bucket.delay(1) == pytest.approx(4.1)


def test_budget_serves_callers_in_arrival_order():
    clock = FakeClock()
    budget = Budget(TokenBucket(600, clock=clock), clock.sleep)
    done: list[str] = []

    async def spend(name: str, cost: float):
        await budget.spend(cost)
        done.append(name)

    async def go():
        await asyncio.gather(spend("big", 10), spend("huge", 30), spend("small", 1))

    asyncio.run(go())
    assert done == ["big", "huge", "small"]


def test_the_token_estimate_counts_prompt_and_output_cap():
    messages = [Message("system", "x" * 400), Message("user", "y" * 40)]
    assert estimate_tokens(ModelSettings("openai", "m", max_tokens=50), messages) == 100 + 4 + 10 + 4 + 50
    assert estimate_tokens(ModelSettings("openai", "m"), messages) == 118 + 1024


def test_tpm_budget_charges_the_estimate_and_settles_on_reported_usage():
    # 100 tokens a second, bucket of 100. Each call is estimated at 54 tokens (4 for the
    # message, 50 for max_tokens) but reports 20: the refund lets calls 1-3 go at once.
    clock = FakeClock()
    reply = Reply("ok", input_tokens=10, output_tokens=10)
    with FakeOpenAI(always(reply)) as server:
        async def go():
            limits = ProviderLimits(tokens_per_minute=6000)
            async with Connections({"openai": limits}, ENV, clock=clock, sleep=clock.sleep) as c:
                model = c.model(settings(server, max_tokens=50))
                for _ in range(5):
                    assert (await model.complete([Message("user", "hi")])).text == "ok"

        asyncio.run(go())
    # levels: 100 -> 80 -> 60 -> 40; call 4 waits 0.14 s for 54; call 5 waits 0.20 s.
    assert clock.slept == pytest.approx([0.14, 0.20])


def test_tpm_without_reported_usage_keeps_the_estimate():
    clock = FakeClock()
    with FakeOpenAI(always(Reply("ok", input_tokens=-1, output_tokens=-1))) as server:
        async def go():
            limits = ProviderLimits(tokens_per_minute=6000)
            async with Connections({"openai": limits}, ENV, clock=clock, sleep=clock.sleep) as c:
                model = c.model(settings(server, max_tokens=50))
                for _ in range(3):
                    completion = await model.complete([Message("user", "hi")])
                    assert completion.input_tokens is None
        asyncio.run(go())
    # 100 -> 46 -> waits 0.08 s for 54 -> 0 -> waits 0.54 s.
    assert clock.slept == pytest.approx([0.08, 0.54])


# -- which limits apply -----------------------------------------------------------------------

def test_limits_are_found_by_base_url_then_provider():
    by_url, by_provider = ProviderLimits(max_concurrency=2), ProviderLimits(max_concurrency=3)
    c = Connections({"http://gpu-box:8000/v1": by_url, "openai_compatible": by_provider}, {})
    assert c.limits_for(ModelSettings("openai_compatible", "m", base_url="http://gpu-box:8000/v1/")) == by_url
    assert c.limits_for(ModelSettings("openai_compatible", "m", base_url="http://other:1/v1")) == by_provider
    assert c.limits_for(ModelSettings("anthropic", "m")) == ProviderLimits()


@pytest.mark.parametrize("limits, message", [
    (ProviderLimits(max_concurrency=0), "providers.openai: max_concurrency must be a whole number"),
    (ProviderLimits(requests_per_minute=0), "providers.openai: requests_per_minute must be a positive"),
    (ProviderLimits(tokens_per_minute=-5), "providers.openai: tokens_per_minute must be a positive"),
    (ProviderLimits(max_retries=-1), "providers.openai: max_retries must be"),
    (ProviderLimits(backoff_base_s=float("nan")), "providers.openai: backoff_base_s must be"),
])
def test_limits_that_cannot_work_are_config_errors(limits, message):
    with pytest.raises(ConfigError, match=message):
        Connections({"openai": limits}, {})
