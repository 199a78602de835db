"""The Messages API through the official `anthropic` SDK."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import anthropic

from runner.llm.answer import Answer, normalise_finish, token_count
from runner.llm.dialects import for_api
from runner.llm.failures import MalformedReply, SdkErrors
from runner.llm.prompt_cache import Marks, PrefixPlanner, head_digest
from runner.llm.providers import ANTHROPIC, Provider
from runner.llm.types import Message, ModelSettings

ANTHROPIC_URL = ANTHROPIC.official_url
#: The SDK's errors, for the retry loop (runner/llm/failures.py).
ERRORS = SdkErrors(timeout=anthropic.APITimeoutError, connection=anthropic.APIConnectionError,
                   status=anthropic.APIStatusError, invalid_body=anthropic.APIResponseValidationError,
                   other=anthropic.APIError)
#: The name of the one tool a structured "tool" call forces the model to use.
ANSWER_TOOL = "answer"
#: The Messages API requires an output cap; this one applies when the tournament sets none.
DEFAULT_MAX_TOKENS = 1024


class AnthropicChat:
    """One SDK client for one endpoint; `send` makes exactly one HTTP attempt."""

    errors = ERRORS

    def __init__(self, provider: Provider, base_url: str | None, api_key: str):
        self.provider = provider
        # Explicit key and URL: the SDK then reads no credential or URL from the environment.
        self.client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url or ANTHROPIC_URL,
                                               max_retries=0)
        self.planner = PrefixPlanner()  # where each conversation of this endpoint marks its cached prefix

    def request(self, settings: ModelSettings, messages: Sequence[Message],
                schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The keyword arguments of `messages.create`: system prompts go in `system`; with
        `prompt_cache`, the text is cut into blocks at the planner's cache breakpoints."""
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns = [(m.role, m.content) for m in messages if m.role != "system"]
        args: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": settings.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": role, "content": content} for role, content in turns],
            "timeout": settings.timeout_s,
        }
        if system:
            args["system"] = system
        # No temperature, top_p or seed: the Messages API version these SDKs speak (2026-10-21)
        # rejects sampling parameters, and has never taken a seed (check_settings refuses them
        # rather than record settings that were not applied).
        if settings.stop:
            args["stop_sequences"] = list(settings.stop)
        if settings.thinking_budget is not None:
            args["thinking"] = {"type": "enabled", "budget_tokens": settings.thinking_budget}
        output: dict[str, Any] = {}
        if settings.reasoning_effort is not None:
            output["effort"] = settings.reasoning_effort
        if schema is not None and settings.structured_output == "json_schema":
            # The API's own structured output, which refuses numeric, length and size bounds.
            output["format"] = {"type": "json_schema", "schema": for_api(schema, self.provider.schema_refuses)}
        elif schema is not None and settings.structured_output == "tool":
            # One tool the model must call: its input is the answer.
            args["tools"] = [{"name": ANSWER_TOOL, "description": "Give your answer.", "input_schema": dict(schema)}]
            args["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        if output:
            args["output_config"] = output
        if settings.prompt_cache:
            # Everything before the messages decides whether a cached prefix still applies.
            head = head_digest(settings.model, args.get("tools"), output.get("format"), args.get("thinking"), system)
            _mark(args, self.planner.marks(head, bool(system), turns))
        return args

    async def send(self, settings: ModelSettings, messages: Sequence[Message],
                   schema: Mapping[str, Any] | None = None) -> Answer:
        args = self.request(settings, messages, schema)
        if streams(settings):
            # Streamed, as Anthropic recommends for long calls: the timeout then bounds each wait
            # for the next event, so a long thinking call is not cut off and paid for again.
            async with self.client.messages.stream(**args) as stream:
                response = await stream.get_final_message()
        else:
            response = await self.client.messages.create(**args)
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):
            raise MalformedReply("the reply has no list of content blocks")
        text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", None) == "text")
        tool = next((b for b in blocks if getattr(b, "type", None) == "tool_use"
                     and getattr(b, "name", None) == ANSWER_TOOL), None)
        if tool is not None:  # the forced tool's input is the answer, as JSON text like any reply
            text = json.dumps(getattr(tool, "input", None), ensure_ascii=False)
        usage = getattr(response, "usage", None)
        return Answer(
            text=text,
            finish_reason=normalise_finish(getattr(response, "stop_reason", None)),
            model_reported=getattr(response, "model", None) or None,
            input_tokens=_input_tokens(usage),
            output_tokens=token_count(getattr(usage, "output_tokens", None)),
            reasoning=_thinking(blocks),
            reasoning_tokens=token_count(getattr(getattr(usage, "output_tokens_details", None),
                                                 "thinking_tokens", None)),
            cached_input_tokens=token_count(getattr(usage, "cache_read_input_tokens", None)),
            cache_write_input_tokens=token_count(getattr(usage, "cache_creation_input_tokens", None)),
        )

    async def list_models(self, timeout_s: float) -> None:
        """One cheap request that needs both the key and the server: a page of the model list."""
        await self.client.models.list(limit=1, timeout=timeout_s)

    async def aclose(self) -> None:
        await self.client.close()


#: Output caps above which a call is streamed even without thinking: such a reply takes minutes.
STREAM_ABOVE_TOKENS = 8_192


def streams(settings: ModelSettings) -> bool:
    """Whether calls are streamed: extended thinking, an effort setting, or a long output cap."""
    return (settings.thinking_budget is not None or settings.reasoning_effort is not None
            or (settings.max_tokens or DEFAULT_MAX_TOKENS) > STREAM_ABOVE_TOKENS)


_EPHEMERAL = {"type": "ephemeral"}  # the 5-minute cache: writes cost 1.25 times input (1 hour: twice)


def _mark(args: dict[str, Any], marks: Marks) -> None:
    """Send the system prompt and the marked messages as text blocks, each mark ending a block
    with `cache_control`; the blocks of a message join to its content exactly."""
    if marks.system:
        args["system"] = [{"type": "text", "text": args["system"], "cache_control": dict(_EPHEMERAL)}]
    cuts: dict[int, dict[int, bool]] = {}  # message index -> block end -> marked
    for (index, chars), marked in [*((p, False) for p in marks.splits), *((p, True) for p in marks.points)]:
        cuts.setdefault(index, {})[chars] = marked
    for index, ends in cuts.items():
        message = args["messages"][index]
        text: str = message["content"]
        blocks, start = [], 0
        for end in sorted(ends):
            blocks.append({"type": "text", "text": text[start:end],
                           **({"cache_control": dict(_EPHEMERAL)} if ends[end] else {})})
            start = end
        if start < len(text):
            blocks.append({"type": "text", "text": text[start:]})
        message["content"] = blocks


def _thinking(blocks: list[Any]) -> str | None:
    """The text of the reply's thinking blocks (redacted ones are marked, their content is not readable)."""
    parts = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "thinking" and isinstance(getattr(block, "thinking", None), str):
            parts.append(block.thinking)
        elif kind == "redacted_thinking":
            parts.append("[redacted thinking]")
    text = "\n\n".join(p for p in parts if p.strip())
    return text or None


def _input_tokens(usage: Any) -> int | None:
    """All prompt tokens the call consumed: fresh ones plus any written to or read from the cache."""
    fresh = token_count(getattr(usage, "input_tokens", None))
    if fresh is None:
        return None
    cached = (token_count(getattr(usage, "cache_creation_input_tokens", None)) or 0) + \
             (token_count(getattr(usage, "cache_read_input_tokens", None)) or 0)
    return fresh + cached
