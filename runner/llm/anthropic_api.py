"""The Messages API through the official `anthropic` SDK."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from runner.llm.answer import Answer, normalise_finish, token_count
from runner.llm.failures import MalformedReply
from runner.llm.types import Message, ModelSettings

ANTHROPIC_URL = "https://api.anthropic.com"
#: The Messages API requires an output cap; this one applies when the tournament sets none.
DEFAULT_MAX_TOKENS = 1024


class AnthropicChat:
    """One SDK client for one endpoint; `send` makes exactly one HTTP attempt."""

    def __init__(self, base_url: str | None, api_key: str):
        # Explicit key and URL: the SDK then reads no credential or URL from the environment.
        self.client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url or ANTHROPIC_URL,
                                               max_retries=0)

    @staticmethod
    def request(settings: ModelSettings, messages: Sequence[Message]) -> dict[str, Any]:
        """The keyword arguments of `messages.create`: system prompts go in `system`."""
        system = [m.content for m in messages if m.role == "system"]
        args: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": settings.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": m.role, "content": m.content}
                         for m in messages if m.role != "system"],
            "timeout": settings.timeout_s,
        }
        if system:
            args["system"] = "\n\n".join(system)
        # No temperature or seed: the Messages API version these SDKs speak (2026-10-21)
        # rejects sampling parameters, and has never taken a seed (check_settings refuses
        # a temperature rather than record one that was not applied).
        return args

    async def send(self, settings: ModelSettings, messages: Sequence[Message]) -> Answer:
        response = await self.client.messages.create(**self.request(settings, messages))
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):
            raise MalformedReply("the reply has no list of content blocks")
        text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", None) == "text")
        usage = getattr(response, "usage", None)
        return Answer(
            text=text,
            finish_reason=normalise_finish(getattr(response, "stop_reason", None)),
            model_reported=getattr(response, "model", None) or None,
            input_tokens=_input_tokens(usage),
            output_tokens=token_count(getattr(usage, "output_tokens", None)),
        )

    async def aclose(self) -> None:
        await self.client.close()


def _input_tokens(usage: Any) -> int | None:
    """All prompt tokens the call consumed: fresh ones plus any written to or read from the cache."""
    fresh = token_count(getattr(usage, "input_tokens", None))
    if fresh is None:
        return None
    cached = (token_count(getattr(usage, "cache_creation_input_tokens", None)) or 0) + \
             (token_count(getattr(usage, "cache_read_input_tokens", None)) or 0)
    return fresh + cached
