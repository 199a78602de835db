"""The provider layer's interface: model settings, limits, messages, completions, the ChatModel protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: Providers this layer speaks to.
PROVIDERS = ("openai", "anthropic", "openai_compatible")

#: Field limits of a replay `call` record (runner/replay/schema.json).
_CALL_ERROR_MAX = 2000
_CALL_MODEL_MAX = 200
_CALL_FINISH_MAX = 40


class ConfigError(ValueError):
    """A model or provider setting that cannot work, e.g. a missing API-key variable."""


@dataclass(frozen=True)
class ModelSettings:
    """One model endpoint as a tournament file describes it (recorded in replays, minus secrets)."""

    provider: str                 # "openai" | "anthropic" | "openai_compatible"
    model: str
    base_url: str | None = None   # required for openai_compatible; optional override otherwise
    api_key_env: str | None = None  # NAME of the environment variable holding the key, never the key
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    timeout_s: float = 60.0


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

    def evidence(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The replay's `call` record (docs/replay-format.md, runner/replay/schema.json)."""
        return {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "reply": self.text,
            "model_reported": _clip(self.model_reported, _CALL_MODEL_MAX),
            "finish_reason": _clip(self.finish_reason, _CALL_FINISH_MAX),
            "input_tokens": _count(self.input_tokens),
            "output_tokens": _count(self.output_tokens),
            "latency_ms": round(max(0.0, float(self.latency_ms)), 1),
            "error": _clip(self.error, _CALL_ERROR_MAX),
            "retries": max(0, int(self.retries)),
        }


class ChatModel(Protocol):
    """A chat model endpoint: `complete` returns a Completion and never raises for provider trouble."""

    settings: ModelSettings

    async def complete(self, messages: Sequence[Message]) -> Completion: ...


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
