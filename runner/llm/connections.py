"""The per-run registry of provider endpoints: one shared, rate-limited client per endpoint."""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from typing import Self

from runner.llm.budget import Clock, Sleep
from runner.llm.endpoint import Endpoint
from runner.llm.failures import NAME_A_KEY, classify, refused_key, with_url
from runner.llm.model import LimitedChatModel
from runner.llm.redact import is_secret
from runner.llm.providers import NAMES, PROVIDERS, Provider, find
from runner.llm.types import ChatModel, ConfigError, ModelSettings, ProviderLimits

#: Sent to an OpenAI-compatible server that needs no key (the SDK insists on some value).
NO_KEY = "no-key-needed"
#: Longest the check before a run waits for an endpoint's model list; a server slower than that
#: (busy with another client's generation, say) is left to the run's own calls and their retries.
CHECK_TIMEOUT_S = 10.0

EndpointKey = tuple[str, str | None, str | None]


class Connections:
    """Every model endpoint of one run, created on first use and shared by all its games.

    `limits` maps an endpoint's `base_url`, or else its provider name, to its ProviderLimits
    (defaults otherwise). `environ` is where key variables are read (the process environment
    by default). `jitter`, `clock` and `sleep` make backoff and budgets reproducible in tests.
    Use one Connections per event loop, and `aclose()` it (or `async with`) at the end.
    """

    def __init__(self, limits: Mapping[str, ProviderLimits] | None = None,
                 environ: Mapping[str, str] | None = None, *,
                 jitter: random.Random | None = None, clock: Clock = time.monotonic,
                 sleep: Sleep = asyncio.sleep):
        self._limits = dict(limits or {})
        for name, item in self._limits.items():
            check_limits(name, item)
        self._environ = os.environ if environ is None else environ
        self._jitter = jitter if jitter is not None else random.Random()
        self._clock = clock
        self._sleep = sleep
        self._secrets: set[str] = set()
        self._endpoints: dict[EndpointKey, Endpoint] = {}
        #: Per endpoint, the first model's settings and the key variable it was opened with (for `check`).
        self._opened_for: dict[EndpointKey, tuple[ModelSettings, str | None]] = {}
        self._models: dict[ModelSettings, LimitedChatModel] = {}

    def model(self, settings: ModelSettings) -> ChatModel:
        """The ChatModel for these settings; raises ConfigError for settings that cannot work."""
        if settings in self._models:
            return self._models[settings]
        check_settings(settings)
        variable = key_variable(settings)
        key = endpoint_key(settings)
        endpoint = self._endpoints.get(key)
        if endpoint is None:
            endpoint = self._open(settings, variable)
            self._endpoints[key] = endpoint
            self._opened_for[key] = (settings, variable)
        model = LimitedChatModel(settings, endpoint, variable)
        self._models[settings] = model
        return model

    def limits_for(self, settings: ModelSettings) -> ProviderLimits:
        """The limits of the endpoint these settings use: by base_url, else by provider."""
        url = _normal_url(settings.base_url)
        for name, limits in self._limits.items():
            if url is not None and _normal_url(name) == url:
                return limits
        return self._limits.get(settings.provider, ProviderLimits())

    def _open(self, settings: ModelSettings, variable: str | None) -> Endpoint:
        api_key = self._read_key(settings, variable)
        if api_key != NO_KEY and is_secret(api_key):  # a short placeholder is no secret (redact.py)
            self._secrets.add(api_key)
        return Endpoint(PROVIDERS[settings.provider].open(settings.base_url, api_key), self.limits_for(settings),
                        secrets=self._secrets,
                        rng=self._jitter, clock=self._clock, sleep=self._sleep, url=server_url(settings))

    async def check(self) -> None:
        """Ask every endpoint opened so far for its model list, all at once, before anything is
        played: ConfigError, one line, for a key the server refuses (naming the variable the key
        was read from, or saying that none is named and how to name one), for nothing answering at
        the address (naming it) or for a used-up quota. Anything else (a server that lists no models,
        a slow or busy one, a passing error) is left to the run's own calls and their retries."""
        found = await asyncio.gather(*(self._check(key) for key in list(self._endpoints)))
        problems = [problem for problem in found if problem]
        if problems:
            raise ConfigError("; ".join(problems))

    async def _check(self, key: EndpointKey) -> str | None:
        endpoint = self._endpoints[key]
        settings, variable = self._opened_for[key]
        timeout = min(CHECK_TIMEOUT_S, settings.timeout_s)
        try:
            await endpoint.transport.list_models(timeout)
        except Exception as exc:  # noqa: BLE001 - every SDK failure is classified; most are left to the run
            failure = classify(exc, timeout_s=timeout, errors=endpoint.transport.errors)
        else:
            return None
        if not failure.lasting or failure.message.startswith("HTTP 404"):  # 404: a server without the list
            return None
        where = f"{settings.provider} model {settings.model!r} at {endpoint.url}"
        if refused_key(failure.message) and variable:
            text = f"{where}: the server refused the key in the environment variable {variable} ({failure.message})"
        elif refused_key(failure.message):
            text = (f"{where}: the server asks for a key and none was sent, as no key variable is named "
                    f"({failure.message}): {NAME_A_KEY}")
        elif failure.message.startswith("cannot connect"):
            text = f"{settings.provider} model {settings.model!r}: {with_url(failure.message, endpoint.url)}"
        else:
            text = f"{where}: {failure.message}"
        return endpoint.scrub(" ".join(text.split()))  # one line, whatever the server's message holds

    def _read_key(self, settings: ModelSettings, variable: str | None) -> str:
        if variable is None:
            return NO_KEY
        value = self._environ.get(variable)
        if value is None:
            raise ConfigError(f"environment variable {variable} is not set: it must hold the API key "
                              f"for {settings.provider} model {settings.model!r}")
        if not value.strip():
            raise ConfigError(f"environment variable {variable} is empty: it must hold the API key "
                              f"for {settings.provider} model {settings.model!r}")
        return value.strip()

    def spent(self) -> dict[str, dict[str, int]]:
        """Per model name: the calls the providers answered in this run and their tokens."""
        totals: dict[str, dict[str, int]] = {}
        for model in self._models.values():
            entry = totals.setdefault(model.settings.model, dict.fromkeys(model.spent, 0))
            for key, value in model.spent.items():
                entry[key] += value
        return totals

    async def aclose(self) -> None:
        """Close every SDK client (their HTTP connection pools)."""
        endpoints, self._endpoints = list(self._endpoints.values()), {}
        self._models.clear()
        for endpoint in endpoints:
            await endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def server_url(settings: ModelSettings) -> str:
    """Where the model's requests go: its base_url, or its provider's own API."""
    return settings.base_url or PROVIDERS[settings.provider].official_url or ""


def key_variable(settings: ModelSettings) -> str | None:
    """The environment variable holding this endpoint's key (None: an open OpenAI-compatible server)."""
    if settings.api_key_env:
        return settings.api_key_env
    provider = find(settings.provider)
    return provider.key_variable if provider is not None else None


def endpoint_key(settings: ModelSettings) -> EndpointKey:
    """Models sharing provider, base_url and key variable share one client and its limits."""
    return (settings.provider, _normal_url(settings.base_url), key_variable(settings))


def check_settings(settings: ModelSettings) -> None:
    """Refuse settings no provider could serve, naming the field."""
    where = f"model {settings.model!r}"
    if settings.provider not in NAMES:
        raise ConfigError(f"{where}: provider must be one of {', '.join(NAMES)}, "
                          f"not {settings.provider!r}")
    facts = PROVIDERS[settings.provider]
    if not isinstance(settings.model, str) or not settings.model.strip():
        raise ConfigError("model: a model name is required")
    if facts.official_url is None and not settings.base_url:
        raise ConfigError(f"{where}: base_url is required for provider {settings.provider} "
                          "(e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 for Ollama)")
    if settings.base_url is not None and not settings.base_url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: base_url must start with http:// or https://, "
                          f"not {settings.base_url!r}")
    if settings.api_key_env is not None and not settings.api_key_env.strip():
        raise ConfigError(f"{where}: api_key_env must name an environment variable")
    if not _positive(settings.timeout_s):
        raise ConfigError(f"{where}: timeout_s must be a positive number of seconds, "
                          f"not {settings.timeout_s!r}")
    if settings.max_tokens is not None and (not isinstance(settings.max_tokens, int)
                                            or isinstance(settings.max_tokens, bool)
                                            or settings.max_tokens < 1):
        raise ConfigError(f"{where}: max_tokens must be a whole number of at least 1, "
                          f"not {settings.max_tokens!r}")
    if settings.temperature is not None and not (_number(settings.temperature)
                                                 and settings.temperature >= 0):
        raise ConfigError(f"{where}: temperature must be a number of at least 0, "
                          f"not {settings.temperature!r}")
    if settings.temperature is not None and "temperature" in facts.refuses:
        raise ConfigError(f"{where}: temperature cannot be set for provider {settings.provider}: "
                          f"{facts.refuses['temperature']}")
    if settings.seed is not None and (not isinstance(settings.seed, int) or isinstance(settings.seed, bool)):
        raise ConfigError(f"{where}: seed must be a whole number, not {settings.seed!r}")
    _check_options(settings, where)


#: Most stop sequences an API takes.
MAX_STOP = 4


def _check_options(settings: ModelSettings, where: str) -> None:
    """Refuse provider options the provider would reject or silently ignore, naming the field."""
    provider, facts = settings.provider, PROVIDERS[settings.provider]
    if settings.top_p is not None:
        if "top_p" in facts.refuses:
            raise ConfigError(f"{where}: top_p cannot be set for provider {provider}: {facts.refuses['top_p']}")
        if not (_number(settings.top_p) and 0 < settings.top_p <= 1):
            raise ConfigError(f"{where}: top_p must be a number above 0 and at most 1, not {settings.top_p!r}")
    if settings.stop is not None and (not isinstance(settings.stop, tuple) or not 1 <= len(settings.stop) <= MAX_STOP
                                      or not all(isinstance(x, str) and x for x in settings.stop)):
        raise ConfigError(f"{where}: stop must be a list of 1 to {MAX_STOP} non-empty strings")
    if settings.reasoning_effort is not None and settings.reasoning_effort not in facts.efforts:
        raise ConfigError(f"{where}: reasoning_effort for provider {provider} must be one of "
                          f"{', '.join(facts.efforts)}, not {settings.reasoning_effort!r}")
    if settings.thinking_budget is not None:
        if not facts.thinking_budget:
            raise ConfigError(f"{where}: thinking_budget is Anthropic's extended thinking; for provider {provider} "
                              "use reasoning_effort")
        cap = settings.max_tokens or 0
        if not (isinstance(settings.thinking_budget, int) and not isinstance(settings.thinking_budget, bool)
                and 1024 <= settings.thinking_budget < cap):
            raise ConfigError(f"{where}: thinking_budget must be a whole number of at least 1024 and below "
                              f"max_tokens (which must be set), not {settings.thinking_budget!r}")
    mode = settings.structured_output
    if mode is not None and mode not in facts.structured_modes:
        raise ConfigError(f"{where}: structured_output for provider {provider} must be one of "
                          f"{', '.join(facts.structured_modes)}, not {mode!r} (json_object is for "
                          "llama-cpp-python's server, tool for Anthropic's forced tool)")
    if mode == "tool" and settings.thinking_budget is not None:
        raise ConfigError(f"{where}: structured_output = \"tool\" cannot be combined with thinking_budget: "
                          "Anthropic does not force a tool while the model thinks; use \"json_schema\"")
    if not isinstance(settings.prompt_cache, bool):
        raise ConfigError(f"{where}: prompt_cache must be true or false")
    if not settings.prompt_cache and facts.caching != "marked":
        raise ConfigError(f"{where}: prompt_cache = false is for provider {_taking(lambda p: p.caching == 'marked')}: "
                          f"{provider} servers cache long prompt prefixes by themselves, with nothing in the request "
                          "to turn it off")
    if not settings.system_role and not facts.system_role_switch:
        raise ConfigError(f"{where}: system_role = false is for provider {_taking(lambda p: p.system_role_switch)} "
                          "(models served with a chat template that has no system role, such as Gemma)")
    if settings.extra_body is not None:
        if not facts.extra_body:
            raise ConfigError(f"{where}: extra_body is for provider {_taking(lambda p: p.extra_body)} only")
        if not isinstance(settings.extra_body, Mapping):
            raise ConfigError(f"{where}: extra_body must be a table")
        reserved = sorted(set(settings.extra_body) & {"model", "messages", "stream"})
        if reserved:
            raise ConfigError(f"{where}: extra_body must not set {', '.join(reserved)}: gamenight sets them")


def _taking(takes: Callable[[Provider], bool]) -> str:
    """The providers that take an option, as a message names them ("anthropic", "a or b")."""
    return " or ".join(name for name, provider in PROVIDERS.items() if takes(provider))


def check_limits(name: str, limits: ProviderLimits) -> None:
    """Refuse limits that would stall or break a run, naming the provider entry and field."""
    where = f"providers.{name}"
    if (not isinstance(limits.max_concurrency, int) or isinstance(limits.max_concurrency, bool)
            or limits.max_concurrency < 1):
        raise ConfigError(f"{where}: max_concurrency must be a whole number of at least 1, "
                          f"not {limits.max_concurrency!r}")
    for field in ("requests_per_minute", "tokens_per_minute"):
        value = getattr(limits, field)
        if value is not None and not _positive(value):
            raise ConfigError(f"{where}: {field} must be a positive number, not {value!r}")
    if (not isinstance(limits.max_retries, int) or isinstance(limits.max_retries, bool)
            or limits.max_retries < 0):
        raise ConfigError(f"{where}: max_retries must be a whole number of at least 0, "
                          f"not {limits.max_retries!r}")
    for field in ("backoff_base_s", "backoff_max_s"):
        value = getattr(limits, field)
        if not (_number(value) and value >= 0):
            raise ConfigError(f"{where}: {field} must be a number of seconds of at least 0, "
                              f"not {value!r}")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _positive(value: object) -> bool:
    return _number(value) and value > 0  # type: ignore[operator]


def _normal_url(url: str | None) -> str | None:
    return url.rstrip("/") if url else None
