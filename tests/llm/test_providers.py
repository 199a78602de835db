"""The provider layer against local servers speaking the real wire protocols, through the real SDKs."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from importlib import resources

import jsonschema
import pytest
from fakes import (
    FakeAnthropic,
    FakeOpenAI,
    Fault,
    Reply,
    always,
    answer_text,
    answering,
    chat_messages,
    find_secret,
    length_cut,
    malformed_json,
    rate_limited,
    sequence,
    server_error,
    too_slow,
    unauthorized,
)

from runner.llm.answer import normalise_finish
from runner.llm.connections import Connections
from runner.llm.failures import Backoff, retry_after
from runner.llm.providers import NAMES
from runner.llm.redact import redact
from runner.llm.types import Completion, ConfigError, Message, ModelSettings, ProviderLimits

KEY = "sk-test-9f8e7d6c5b4a39281706"
ENV = {"TEST_KEY": KEY}
QUICK = ProviderLimits(backoff_base_s=0.01, backoff_max_s=0.5)
HELLO = [Message("system", "You play a game."), Message("user", "Your move?")]
PROVIDERS = list(NAMES)  # every provider of the registry: a new one needs its fake server here


def fake_for(provider: str, script, **kw):
    return (FakeAnthropic if provider == "anthropic" else FakeOpenAI)(script, **kw)


def settings_for(provider: str, server, **kw) -> ModelSettings:
    return ModelSettings(provider, kw.pop("model", "test-model"), base_url=server.base_url,
                         api_key_env=kw.pop("api_key_env", "TEST_KEY"), **kw)


def ask(provider: str, script, *, limits: ProviderLimits = QUICK, env=ENV,
        messages=HELLO, **settings_kw) -> tuple[Completion, list]:
    """One `complete` call through a fresh fake server; the completion and the recorded requests."""
    async def go(server):
        async with Connections({provider: limits}, env) as connections:
            model = connections.model(settings_for(provider, server, **settings_kw))
            return await model.complete(messages)

    with fake_for(provider, script) as server:
        completion = asyncio.run(go(server))
        assert server.script_errors == []
        return completion, server.requests


# -- replies ----------------------------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
def test_reply_usage_and_model_id_are_recorded(provider):
    reply = Reply("I choose.\nANSWER: {\"vote\": \"Ann\"}", model="test-model-2025-01-01",
                  input_tokens=31, output_tokens=9)
    completion, requests = ask(provider, always(reply))
    assert completion == Completion(reply.text, "stop", "test-model-2025-01-01", 31, 9,
                                    completion.latency_ms, error=None, retries=0,
                                    reasoning_tokens=completion.reasoning_tokens,
                                    cached_input_tokens=completion.cached_input_tokens,
                                    cache_write_input_tokens=completion.cache_write_input_tokens)
    # The fakes report 0 or nothing.
    assert not completion.reasoning_tokens and not completion.cached_input_tokens
    assert not completion.cache_write_input_tokens
    assert completion.latency_ms > 0 and len(requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_length_cut_reply_is_reported_as_length(provider):
    completion, _ = ask(provider, always(length_cut("I think that the cham")))
    assert (completion.text, completion.finish_reason, completion.error) == ("I think that the cham", "length", None)


@pytest.mark.parametrize("provider, word, normalised", [
    ("openai", "content_filter", "content_filter"),
    ("anthropic", "stop_sequence", "stop"),
    ("anthropic", "refusal", "refusal"),
])
def test_other_finish_reasons_pass_through_or_normalise(provider, word, normalised):
    completion, _ = ask(provider, always(Reply("x", finish=word)))
    assert completion.finish_reason == normalised


@pytest.mark.parametrize("word, expected", [
    ("stop", "stop"), ("end_turn", "stop"), ("stop_sequence", "stop"), ("eos", "stop"),
    ("length", "length"), ("max_tokens", "length"), ("tool_calls", "tool_calls"), (None, None),
])
def test_finish_reason_normalisation(word, expected):
    assert normalise_finish(word) == expected


# -- what is sent -----------------------------------------------------------------------------

def test_openai_request_carries_the_settings():
    _, requests = ask("openai", always("ok"), model="gpt-4o", temperature=0.7, max_tokens=77,
                      seed=5, timeout_s=9)
    (request,) = requests
    assert request.path == "/v1/chat/completions"
    assert request.body == {"model": "gpt-4o", "temperature": 0.7, "seed": 5,
                            "max_completion_tokens": 77,
                            "messages": [{"role": "system", "content": "You play a game."},
                                         {"role": "user", "content": "Your move?"}]}
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_openai_compatible_servers_get_max_tokens_and_defaults_are_left_out():
    _, requests = ask("openai_compatible", always("ok"), model="llama3", max_tokens=50)
    body = requests[0].body
    assert body["max_tokens"] == 50 and "max_completion_tokens" not in body
    assert "temperature" not in body and "seed" not in body


@pytest.mark.parametrize("prompt_cache", [True, False])
def test_anthropic_request_puts_system_apart_and_always_caps_output(prompt_cache):
    _, requests = ask("anthropic", always("ok"), model="claude-x", seed=3, prompt_cache=prompt_cache)
    (request,) = requests
    assert request.path == "/v1/messages"
    # A first call marks the end of the system prompt for caching (prompt_cache, the default).
    system = ([{"type": "text", "text": "You play a game.", "cache_control": {"type": "ephemeral"}}]
              if prompt_cache else "You play a game.")
    assert request.body == {"model": "claude-x", "max_tokens": 1024,  # the API takes no seed
                            "system": system,
                            "messages": [{"role": "user", "content": "Your move?"}]}
    assert request.headers.get("x-api-key") == KEY or request.headers.get("authorization") == f"Bearer {KEY}"
    assert "anthropic-version" in request.headers


def test_anthropic_max_tokens_setting_is_used():
    _, requests = ask("anthropic", always("ok"), max_tokens=200)
    assert requests[0].body["max_tokens"] == 200


# -- faults -----------------------------------------------------------------------------------

@pytest.mark.parametrize("provider, header", [("openai", "retry-after"), ("anthropic", "retry-after-ms"),
                                              ("openai_compatible", "retry-after-ms")])
def test_retry_after_is_honoured(provider, header):
    completion, requests = ask(provider, sequence(rate_limited(0.3, header=header), "fine"))
    assert (completion.text, completion.retries, completion.error) == ("fine", 1, None)
    assert requests[1].arrived - requests[0].arrived >= 0.3
    assert completion.latency_ms >= 300


@pytest.mark.parametrize("provider, fault", [
    ("openai", server_error(500)), ("anthropic", server_error(500)),
    ("openai", server_error(502)), ("openai_compatible", server_error(503)),
    ("anthropic", Fault(529, "Overloaded")), ("openai", Fault(408, "timeout")),
    ("anthropic", Fault(409, "conflict")), ("openai", Fault(429, "slow down")),
    ("openai", malformed_json()), ("anthropic", malformed_json()),
    ("anthropic", Fault(502, raw_body=b"<html>Bad gateway</html>")),
], ids=["500-openai", "500-anthropic", "502", "503", "529", "408", "409", "429-no-header",
        "malformed-json-openai", "malformed-json-anthropic", "html-502"])
def test_passing_trouble_is_retried_then_succeeds(provider, fault):
    completion, requests = ask(provider, sequence(fault, "fine"))
    assert (completion.text, completion.retries, completion.error, len(requests)) == ("fine", 1, None, 2)


@pytest.mark.parametrize("provider, body, problem", [
    ("openai", b"{}", "the reply has no choices"),
    ("openai", b'{"choices": [{"index": 0}]}', "the reply's choice has no message"),
    ("anthropic", b'{"content": "not blocks"}', "the reply has no list of content blocks"),
    ("anthropic", b"[]", "the reply has no list of content blocks"),
])
def test_a_reply_of_the_wrong_shape_is_retried_then_reported(provider, body, problem):
    limits = ProviderLimits(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02)
    completion, requests = ask(provider, always(Fault(200, raw_body=body)), limits=limits)
    assert len(requests) == 2 and completion.text is None
    assert f"malformed response: {problem} (gave up after 1 retry)" in completion.error


def test_content_parts_from_a_compatible_server_are_joined():
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant",
                                     "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}
    completion, _ = ask("openai_compatible", always(Fault(200, raw_body=json.dumps(body).encode())))
    assert (completion.text, completion.finish_reason, completion.input_tokens) == ("ab", "stop", None)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_timeout_is_retried(provider):
    completion, requests = ask(provider, sequence(too_slow(3.0), "fine"), timeout_s=0.5)
    assert (completion.text, completion.error) == ("fine", None)
    assert completion.retries >= 1  # exactly 1 unless a loaded machine makes "fine" late too
    assert requests[1].arrived - requests[0].arrived >= 0.5


@pytest.mark.parametrize("provider, status, words", [
    ("openai", 400, "bad request"), ("anthropic", 400, "bad request"),
    ("openai", 401, "authentication failed"), ("anthropic", 401, "authentication failed"),
    ("anthropic", 403, "permission denied"), ("openai_compatible", 404, "not found"),
])
def test_client_errors_end_the_call_at_once(provider, status, words):
    completion, requests = ask(provider, always(Fault(status, "the model says no")))
    assert len(requests) == 1 and completion.retries == 0
    assert completion.text is None and completion.finish_reason is None
    assert f"HTTP {status} {words}: the model says no" in completion.error
    assert "test-model" in completion.error


def test_a_bad_key_error_names_the_variable_to_check():
    completion, _ = ask("openai", always(unauthorized()))
    assert "environment variable TEST_KEY" in completion.error


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_retries_are_bounded_and_counted(provider):
    limits = ProviderLimits(max_retries=2, backoff_base_s=0.01, backoff_max_s=0.02)
    completion, requests = ask(provider, always(server_error()), limits=limits)
    assert len(requests) == 3 and completion.retries == 2
    assert completion.text is None
    assert completion.error.endswith("(gave up after 2 retries)") and "HTTP 500" in completion.error


def test_no_retries_at_all_when_max_retries_is_zero():
    completion, requests = ask("openai", always(server_error()), limits=ProviderLimits(max_retries=0))
    assert len(requests) == 1 and completion.retries == 0 and "gave up" not in completion.error


def test_a_server_that_is_gone_is_a_connection_error():
    with FakeOpenAI(always("never")) as server:
        url = server.base_url
    limits = ProviderLimits(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02)

    async def go():
        async with Connections({"openai_compatible": limits}, ENV) as connections:
            settings = ModelSettings("openai_compatible", "m", base_url=url, api_key_env="TEST_KEY",
                                     timeout_s=2)
            return await connections.model(settings).complete(HELLO)

    completion = asyncio.run(go())
    # Nothing listens there: no retry can help, so none is made, and the failure is lasting.
    assert completion.text is None and completion.retries == 0 and completion.lasting
    assert "connection refused" in completion.error


def test_backoff_grows_with_jitter_and_is_reproducible():
    delays = [Backoff(1.0, 5.0, random.Random(7)).delay(k) for k in range(5)]
    assert delays == [Backoff(1.0, 5.0, random.Random(7)).delay(k) for k in range(5)]
    for k, delay in enumerate(delays):
        ceiling = min(5.0, 2.0 ** k)
        assert ceiling / 2 <= delay <= ceiling
    assert Backoff(1.0, 5.0, random.Random(7)).delay(0, server_asked_s=0.25) == 0.25
    assert Backoff(1.0, 5.0, random.Random(7)).delay(0, server_asked_s=99) == 5.0


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after": "2"}, 2.0),
    ({"retry-after": "0.25"}, 0.25),
    ({"retry-after-ms": "150"}, 0.15),
    ({"retry-after-ms": "150", "retry-after": "9"}, 0.15),
    ({"retry-after": "soon"}, None),
    ({"retry-after": "-3"}, None),
    ({"retry-after": "nan"}, None),
    ({}, None),
])
def test_retry_after_header_values(headers, seconds):
    assert retry_after(headers) == seconds


def test_retry_after_as_an_http_date():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert retry_after({"retry-after": later}, now=now.timestamp()) == pytest.approx(30)


# -- keys and secrets -------------------------------------------------------------------------

SECRET_ECHOES = [
    unauthorized(f"Incorrect API key provided: {KEY}."),
    Fault(400, f"bad header Authorization: Bearer {KEY}"),
    Fault(403, f'request was {{"x-api-key": "{KEY}"}}'),
    Fault(404, f"model not found for key {KEY[:-4]}****"),
]


@pytest.mark.parametrize("provider, fault", [
    ("openai", SECRET_ECHOES[0]), ("anthropic", SECRET_ECHOES[0]), ("openai", SECRET_ECHOES[1]),
    ("anthropic", SECRET_ECHOES[2]), ("openai_compatible", SECRET_ECHOES[3]),
], ids=["401-openai", "401-anthropic", "400", "403", "404"])
def test_keys_never_appear_in_errors_or_evidence(provider, fault):
    completion, _ = ask(provider, always(fault))
    assert completion.error and "[redacted]" in completion.error
    evidence = json.dumps(completion.evidence(HELLO))
    for piece in (KEY, KEY[:-4], KEY[3:15]):
        assert piece not in completion.error and piece not in evidence


def test_keys_are_scrubbed_from_errors_after_retries_too():
    limits = ProviderLimits(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02)
    completion, _ = ask("openai", always(Fault(500, f"upstream refused {KEY}")), limits=limits)
    assert KEY not in completion.error and "gave up after 1 retry" in completion.error


@pytest.mark.parametrize("text, secrets, expected", [
    ("Incorrect API key provided: sk-proj-abcd****wxyz.", [], "Incorrect API key provided: [redacted]."),
    ('{"Authorization": "Bearer abc.def-ghi"}', [], '{"Authorization": "[redacted]"}'),
    ("x-api-key: zzz-top", [], "x-api-key: [redacted]"),
    ("api_key=hunter22&x=1", [], "api_key=[redacted]&x=1"),
    ("cookie: a=b; c=d", [], "cookie: [redacted]"),
    ("the server said my-local-token twice: my-local-token", ["my-local-token"],
     "the server said [redacted] twice: [redacted]"),
    ("HTTP 500 server error: try again", ["unrelated"], "HTTP 500 server error: try again"),
    ("the skeptic asked for the sk", [], "the skeptic asked for the sk"),
])
def test_redaction(text, secrets, expected):
    assert redact(text, secrets) == expected


def test_only_the_named_key_is_sent_and_nothing_else_leaks(monkeypatch):
    ambient = "sk-ambient-should-never-be-sent-1234"
    monkeypatch.setenv("OPENAI_API_KEY", ambient)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ambient)
    env = {"TEST_KEY": KEY, "OTHER_SECRET": "other-secret-value-5678", "OPENAI_API_KEY": ambient}

    async def go(openai_server, anthropic_server):
        async with Connections(None, env) as connections:
            for provider, server in (("openai", openai_server), ("anthropic", anthropic_server)):
                await connections.model(settings_for(provider, server)).complete(HELLO)

    with FakeOpenAI(always("ok")) as o, FakeAnthropic(always("ok")) as a:
        asyncio.run(go(o, a))
        for server in (o, a):
            assert find_secret(server, [ambient, "other-secret-value-5678"]) == []
            assert find_secret(server, [KEY]) != []  # the named key is what authenticates
            places = find_secret(server, [KEY])
            assert all("body" not in p for p in places)


def test_an_open_compatible_server_gets_a_placeholder_never_an_ambient_key(monkeypatch):
    ambient = "sk-ambient-should-never-be-sent-1234"
    monkeypatch.setenv("OPENAI_API_KEY", ambient)
    with FakeOpenAI(always("ok")) as server:
        async def go():
            async with Connections(None, {"OPENAI_API_KEY": ambient}) as connections:
                settings = ModelSettings("openai_compatible", "llama3", base_url=server.base_url)
                return await connections.model(settings).complete(HELLO)

        assert asyncio.run(go()).text == "ok"
        assert find_secret(server, [ambient]) == []
        assert server.requests[0].headers["authorization"] == "Bearer no-key-needed"


@pytest.mark.parametrize("settings, environ, message", [
    (ModelSettings("openai", "gpt-4o"), {}, "environment variable OPENAI_API_KEY is not set"),
    (ModelSettings("anthropic", "claude-x"), {}, "environment variable ANTHROPIC_API_KEY is not set"),
    (ModelSettings("openai", "gpt-4o", api_key_env="MY_KEY"), {"OPENAI_API_KEY": "x"},
     "environment variable MY_KEY is not set"),
    (ModelSettings("openai", "gpt-4o", api_key_env="MY_KEY"), {"MY_KEY": "  "},
     "environment variable MY_KEY is empty"),
    (ModelSettings("openai_compatible", "llama3"), {}, "base_url is required for provider openai_compatible"),
    (ModelSettings("mistral", "m"), {}, "provider must be one of openai, anthropic, openai_compatible"),
    (ModelSettings("openai", ""), {"OPENAI_API_KEY": "x"}, "model: a model name is required"),
    (ModelSettings("openai_compatible", "m", base_url="localhost:8000"), {}, "base_url must start with http"),
    (ModelSettings("openai", "gpt-4o", timeout_s=0), {"OPENAI_API_KEY": "x"}, "timeout_s must be a positive"),
    (ModelSettings("openai", "gpt-4o", max_tokens=0), {"OPENAI_API_KEY": "x"},
     "max_tokens must be a whole number"),
    (ModelSettings("openai", "gpt-4o", temperature=-1), {"OPENAI_API_KEY": "x"}, "temperature must be"),
    (ModelSettings("anthropic", "claude-x", temperature=0.0), {"ANTHROPIC_API_KEY": "x"},
     "temperature cannot be set for provider anthropic"),
    (ModelSettings("openai", "gpt-4o", seed=1.5), {"OPENAI_API_KEY": "x"}, "seed must be a whole number"),
])
def test_settings_that_cannot_work_are_config_errors(settings, environ, message):
    with pytest.raises(ConfigError, match=message):
        Connections(None, environ).model(settings)


def test_a_config_error_never_shows_the_key():
    env = {"MY_KEY": "sk-visible-if-buggy-0000"}
    with pytest.raises(ConfigError) as caught:
        Connections(None, env).model(ModelSettings("openai", "gpt-4o", api_key_env="MY_KEY", max_tokens=-5))
    assert "sk-visible" not in str(caught.value)


def test_the_same_settings_give_the_same_model():
    connections = Connections(None, {"K": "k"})
    settings = ModelSettings("openai", "gpt-4o", api_key_env="K")
    assert connections.model(settings) is connections.model(settings)
    assert connections.model(settings).settings == settings
    asyncio.run(connections.aclose())


def test_unknown_message_roles_are_refused():
    with FakeOpenAI(always("ok")) as server:
        async def go():
            async with Connections(None, ENV) as connections:
                return await connections.model(settings_for("openai", server)).complete(
                    [Message("tool", "x")])

        with pytest.raises(ValueError, match="message role"):
            asyncio.run(go())
        assert server.calls == 0


# -- the replay record ------------------------------------------------------------------------

CALL_SCHEMA = json.loads(resources.files("runner.replay").joinpath("schema.json").read_text())


def call_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": "#/$defs/call", "$defs": CALL_SCHEMA["$defs"]})


@pytest.mark.parametrize("script", [always("fine"), always(unauthorized())], ids=["reply", "error"])
def test_evidence_is_a_valid_call_record(script):
    completion, _ = ask("openai", script)
    record = completion.evidence(HELLO)
    call_validator().validate(record)
    assert record["messages"] == [{"role": "system", "content": "You play a game."},
                                  {"role": "user", "content": "Your move?"}]
    assert record["reply"] == completion.text and record["error"] == completion.error


def test_evidence_clips_what_the_schema_bounds():
    long = Completion(None, "x" * 100, "m" * 500, -1, None, -3.0, error="e" * 5000, retries=2)
    record = long.evidence([Message("user", "hi")])
    call_validator().validate(record)
    assert len(record["error"]) == 2000 and len(record["model_reported"]) == 200
    assert record["input_tokens"] is None and record["latency_ms"] == 0


# -- the fakes' own helpers -------------------------------------------------------------------

def test_answering_replies_in_the_answer_format_for_both_wire_formats():
    seen = []

    def decide(messages):
        seen.append(messages)
        return {"vote": "Player 2"}

    for provider in ("openai", "anthropic"):
        completion, _ = ask(provider, answering(decide))
        assert completion.text.splitlines()[-1] == 'ANSWER: {"vote": "Player 2"}'
    assert seen == [[{"role": "system", "content": "You play a game."},
                     {"role": "user", "content": "Your move?"}]] * 2


def test_a_failing_script_is_reported_not_hung():
    def broken(body, n):
        raise RuntimeError("no idea")

    with FakeOpenAI(broken) as server:
        async def go():
            async with Connections({"openai": ProviderLimits(max_retries=0)}, ENV) as connections:
                return await connections.model(settings_for("openai", server)).complete(HELLO)

        completion = asyncio.run(go())
        assert "HTTP 500" in completion.error
        assert server.script_errors == ["call 0: RuntimeError: no idea"]


def test_chat_messages_and_answer_text():
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    body = {"system": [{"type": "text", "text": "rules"}],
            "messages": [{"role": "user", "content": blocks}]}
    assert chat_messages(body) == [{"role": "system", "content": "rules"}, {"role": "user", "content": "ab"}]
    assert answer_text({"choice": "cooperate"}, "why") == 'why\nANSWER: {"choice": "cooperate"}'


# -- failures that no retry can heal ------------------------------------------------------------

_QUOTA_OPENAI = json.dumps({"error": {"message": "You exceeded your current quota, please check your plan and "
                                      "billing details.", "type": "insufficient_quota", "param": None,
                                      "code": "insufficient_quota"}}).encode()
_CREDIT_ANTHROPIC = json.dumps({"type": "error", "error": {
    "type": "invalid_request_error",
    "message": "Your credit balance is too low to access the Anthropic API."}}).encode()


@pytest.mark.parametrize("provider, fault, words", [
    ("openai", unauthorized(), "HTTP 401"),
    ("anthropic", Fault(403, "Your API key does not have permission to use the specified resource."), "HTTP 403"),
    ("openai_compatible", Fault(404, "The model `gpt-9` does not exist."), "check the model name"),
    ("openai", Fault(429, raw_body=_QUOTA_OPENAI), "quota or credit is used up"),
    ("anthropic", Fault(400, raw_body=_CREDIT_ANTHROPIC), "quota or credit is used up"),
])
def test_failures_that_cannot_heal_are_lasting_and_not_retried(provider, fault, words):
    completion, requests = ask(provider, always(fault))
    assert completion.error and words in completion.error
    assert completion.lasting and completion.retries == 0 and len(requests) == 1


@pytest.mark.parametrize("fault", [server_error(503), rate_limited(0.01), Fault(400, "context too long")])
def test_failures_that_may_heal_are_not_lasting(fault):
    completion, _ = ask("openai", always(fault), limits=ProviderLimits(max_retries=1, backoff_base_s=0.01,
                                                                       backoff_max_s=0.02))
    assert completion.error and not completion.lasting


def test_an_endpoint_that_fails_every_retry_three_calls_in_a_row_is_down():
    limits = ProviderLimits(max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02)

    async def go(server):
        async with Connections({"openai": limits}, ENV) as connections:
            model = connections.model(settings_for("openai", server))
            return [await model.complete(HELLO) for _ in range(3)]

    with fake_for("openai", always(server_error(503))) as server:
        first, second, third = asyncio.run(go(server))
    assert not first.lasting and not second.lasting
    assert third.lasting and "the endpoint looks down" in third.error
