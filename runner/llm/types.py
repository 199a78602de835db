"""The provider layer's interface: model settings, limits, messages, completions, the ChatModel protocol."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from runner.errors import ProviderError

#: Field limits of a replay `call` record (runner/replay/schema.json).
_CALL_ERROR_MAX = 2000
_CALL_MODEL_MAX = 200
_CALL_FINISH_MAX = 40


class ConfigError(ValueError):
    """A model or provider setting that cannot work, e.g. a missing API-key variable."""


@dataclass(frozen=True)
class ModelSettings:
    """One model endpoint as a tournament file describes it (recorded in replays, minus secrets)."""

    provider: str                 # a name of runner/llm/providers.py: "openai" | "anthropic" | "openai_compatible"
    model: str
    base_url: str | None = None   # required for openai_compatible; optional override otherwise
    api_key_env: str | None = None  # NAME of the environment variable holding the key, never the key
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    timeout_s: float = 60.0
    top_p: float | None = None
    stop: tuple[str, ...] | None = None
    reasoning_effort: str | None = None     # OpenAI reasoning models; Anthropic's output effort
    thinking_budget: int | None = None      # Anthropic extended thinking: budget_tokens
    #: How a decision's JSON Schema is sent (None: no structured output): "json_schema" (OpenAI,
    #: vLLM, Ollama, llama-server; Anthropic's output format), "json_object" (llama-cpp-python's
    #: server: json_object with a schema), "tool" (Anthropic: one forced tool).
    structured_output: str | None = None
    #: Passed through as is into an OpenAI-compatible server's request body.
    extra_body: Mapping[str, Any] | None = field(default=None, hash=False)
    #: False for models whose chat template has no system role (Gemma): the system prompt is then
    #: sent at the top of the first user message instead of being dropped by the template.
    system_role: bool = True
    #: Anthropic: mark the request's unchanging prefix with cache breakpoints (runner/llm/prompt_cache.py).
    #: OpenAI and compatible servers cache prefixes by themselves; only the default is accepted there.
    #: It changes what is billed, never what the model reads, so it is not recorded with the agent.
    prompt_cache: bool = True


@dataclass(frozen=True)
class ProviderLimits:
    """Client-side limits shared by every model of one provider endpoint in a run."""

    max_concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: str      # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class Completion:
    """One finished call: the reply or the final error after retries, with its accounting."""

    text: str | None
    finish_reason: str | None     # normalised: "stop", "length", or the provider's own word
    model_reported: str | None    # the model id the API answered with
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float             # wall time of the whole call including retries
    error: str | None = None      # set when no reply could be had (never contains secrets)
    retries: int = 0
    lasting: bool = False         # the error cannot heal (wrong key, unknown model, nothing listening)
    reasoning: str | None = None  # thinking the API returned apart from the reply
    structured: str | None = None  # the structured-output mode the call used (None: free text)
    reasoning_tokens: int | None = None  # of output_tokens, those spent thinking (when reported)
    cached_input_tokens: int | None = None  # of input_tokens, those read from the provider's cache
    cache_write_input_tokens: int | None = None  # of input_tokens, those written to the provider's cache
    cached: bool = False          # answered from the runner's response cache (runner/llm/cache.py)
    #: The reply as recorded, when it differs from `text` (a key of the run masked in it): agents read
    #: the move from `text`, as the model sent it; only this reaches a replay or the response cache.
    recorded_text: str | None = None

    def raise_for_error(self) -> None:
        """ProviderError if the call got no reply."""
        if self.error is not None:
            raise ProviderError(self.error, lasting=self.lasting)

    def for_record(self) -> Completion:
        """This completion as it may be stored: the recorded reply in place of the one received."""
        if self.recorded_text is None:
            return self
        return dataclasses.replace(self, text=self.recorded_text, recorded_text=None)

    def evidence(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The replay's `call` record (docs/replay-format.md, runner/replay/schema.json)."""
        return {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "reply": self.text if self.recorded_text is None else self.recorded_text,
            "model_reported": _clip(self.model_reported, _CALL_MODEL_MAX),
            "finish_reason": _clip(self.finish_reason, _CALL_FINISH_MAX),
            "input_tokens": _count(self.input_tokens),
            "output_tokens": _count(self.output_tokens),
            "latency_ms": round(max(0.0, float(self.latency_ms)), 1),
            "error": _clip(self.error, _CALL_ERROR_MAX),
            "retries": max(0, int(self.retries)),
            # Only when there is something to say: older readers know none of these (format version 2).
            **({"reasoning": self.reasoning} if self.reasoning is not None else {}),
            **({"structured": self.structured} if self.structured is not None else {}),
            **({"reasoning_tokens": n} if (n := _count(self.reasoning_tokens)) else {}),
            **({"cached_input_tokens": n} if (n := _count(self.cached_input_tokens)) else {}),
            # Format version 6: Anthropic bills a cache write above the input price.
            **({"cache_write_input_tokens": n} if (n := _count(self.cache_write_input_tokens)) else {}),
            **({"cached": True} if self.cached else {}),
        }


class ChatModel(Protocol):
    """A chat model endpoint: `complete` returns a Completion and never raises for provider trouble.

    `schema`, when given and the settings name a `structured_output` mode, is the JSON Schema
    the reply must match (constrained decoding); without a mode it is ignored.
    """

    settings: ModelSettings

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None = None) -> Completion: ...


def _clip(text: str | None, limit: int) -> str | None:
    """Shorten a text to the schema's maximum length, marking the cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def _count(value: int | None) -> int | None:
    """A token count as the schema wants it: a non-negative integer or null."""
    if value is None or isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value
