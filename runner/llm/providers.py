"""Every provider protocol gamenight speaks, one record each: what every other module knows of a
provider (its name, key variable, address, structured-output modes, prompt caching, the shapes of
its keys, the options its API takes or refuses) and the adapter that speaks to it through its SDK.

Adding a provider is one record here and one adapter module (`runner/llm/<name>_api.py`, a
`Transport` naming its SDK's error classes as `errors`). This module imports no SDK, nor anything
of the runner: `gamenight` reads it at start-up (validating a tournament file, the help of
`run`), and an adapter's module, with its SDK, is imported only when an endpoint of its provider
is opened (`Provider.open`), since an SDK takes seconds to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

#: How a provider's prompt cache works: "marked", only the prefixes a request marks (Anthropic's
#: `cache_control`, which `prompt_cache = false` turns off); "automatic", every long prefix, with
#: nothing in the request (OpenAI's). runner/llm/prompt_cache.py simulates both for the dry run.
CACHING_KINDS = ("marked", "automatic")


@dataclass(frozen=True)
class Provider:
    """One protocol, as tournament files name it (`provider = "openai"`)."""

    name: str
    #: Who makes the API, for people ("an OpenAI or Anthropic API key").
    title: str
    #: The adapter, "module:class": called as class(provider, base_url, api_key) on first use.
    adapter: str
    #: The import name of the SDK the adapter speaks through (never imported by this module).
    sdk: str
    #: Where requests go without a base_url; None: the provider has no API of its own (a server
    #: anyone runs), so every agent names its base_url.
    official_url: str | None = None
    #: The environment variable read when an agent names no api_key_env; None: no key is sent.
    key_variable: str | None = None
    #: How its API keys begin: masked in every error text, refused in a tournament file, and
    #: found by the submission check's secret scan.
    key_prefixes: tuple[str, ...] = ()
    #: The `structured_output` modes it speaks (docs/tournaments.md).
    structured_modes: tuple[str, ...] = ("json_schema",)
    #: JSON Schema keywords its structured output refuses (None: the schema is sent as it is).
    schema_refuses: frozenset[str] | None = None
    #: The `reasoning_effort` words it takes.
    efforts: tuple[str, ...] = ()
    #: Its prompt cache, one of CACHING_KINDS, or None when nothing is known (other servers vary).
    caching: str | None = None
    #: Words of an error body saying the account's money is used up (not a per-minute rate limit).
    quota_words: tuple[str, ...] = ()
    #: The request field of the output cap (`max_tokens`).
    output_cap: str = "max_tokens"
    #: Options its API refuses, each with why (the end of the message refusing it).
    refuses: Mapping[str, str] = field(default_factory=dict, hash=False)
    #: Whether it takes `thinking_budget` (Anthropic's extended thinking).
    thinking_budget: bool = False
    #: Whether it takes `system_role = false` (a chat template without a system role).
    system_role_switch: bool = False
    #: Whether it takes `extra_body`, passed as is into the request.
    extra_body: bool = False

    def open(self, base_url: str | None, api_key: str) -> Any:
        """A new endpoint's adapter (a runner.llm.endpoint.Transport, not imported: the endpoint
        stands above this module); its module, and so its SDK, is imported now."""
        module, _, name = self.adapter.partition(":")
        return getattr(importlib.import_module(module), name)(self, base_url, api_key)


_OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")

OPENAI = Provider(
    "openai", "OpenAI", "runner.llm.openai_api:OpenAIChat", "openai",
    official_url="https://api.openai.com/v1", key_variable="OPENAI_API_KEY",
    key_prefixes=("sk-", "sk-proj-"),
    # Strict structured outputs take no string length bounds.
    schema_refuses=frozenset({"minLength", "maxLength"}),
    efforts=_OPENAI_EFFORTS, caching="automatic", quota_words=("insufficient_quota",),
    # Reasoning models refuse `max_tokens`.
    output_cap="max_completion_tokens")

ANTHROPIC = Provider(
    "anthropic", "Anthropic", "runner.llm.anthropic_api:AnthropicChat", "anthropic",
    official_url="https://api.anthropic.com", key_variable="ANTHROPIC_API_KEY",
    key_prefixes=("sk-ant-",),
    structured_modes=("json_schema", "tool"),
    # Its output format takes no numeric, length or pattern bounds, nor list sizes above one.
    schema_refuses=frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                              "minLength", "maxLength", "pattern", "minItems", "maxItems"}),
    efforts=("low", "medium", "high", "xhigh", "max"), caching="marked",
    quota_words=("credit balance is too low",),
    # The Messages API version the anthropic SDK 2.x speaks.
    refuses={"temperature": "the Anthropic Messages API (version 2026-10-21, used by the anthropic SDK 2.x) "
                            "rejects sampling parameters; remove temperature from this agent",
             "top_p": "its Messages API (version 2026-10-21) rejects sampling parameters; remove top_p from this agent"},
    thinking_budget=True)

OPENAI_COMPATIBLE = Provider(
    "openai_compatible", "OpenAI-compatible", "runner.llm.openai_api:OpenAIChat", "openai",
    # vLLM, Ollama, llama.cpp's llama-server: json_schema; llama-cpp-python's server: json_object.
    structured_modes=("json_schema", "json_object"),
    efforts=_OPENAI_EFFORTS, system_role_switch=True, extra_body=True)

#: Every provider by name, in the order messages list them.
PROVIDERS: Mapping[str, Provider] = MappingProxyType({p.name: p for p in (OPENAI, ANTHROPIC, OPENAI_COMPATIBLE)})
#: Their names: what a value read from a file is looked up in (a tuple takes any value, even a list).
NAMES = tuple(PROVIDERS)


def find(name: object) -> Provider | None:
    """The provider of this name, or None for anything else (whatever a file holds there)."""
    return PROVIDERS[name] if name in NAMES else None  # type: ignore[index]


def key_prefixes() -> tuple[str, ...]:
    """The beginnings of every provider's keys, each once: none that a shorter one already covers."""
    every = [prefix for provider in PROVIDERS.values() for prefix in provider.key_prefixes]
    return tuple(dict.fromkeys(p for p in every if not any(p != q and p.startswith(q) for q in every)))


def key_owners(prefix: str) -> tuple[str, ...]:
    """The titles of the providers whose keys begin with `prefix` (one of key_prefixes())."""
    return tuple(p.title for p in PROVIDERS.values() if any(k.startswith(prefix) for k in p.key_prefixes))
