"""Chat completions through the official `openai` SDK (OpenAI itself and OpenAI-compatible servers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import openai

from runner.llm.answer import Answer, normalise_finish, token_count
from runner.llm.dialects import for_api
from runner.llm.failures import MalformedReply, SdkErrors
from runner.llm.providers import OPENAI, Provider
from runner.llm.types import Message, ModelSettings

#: Where requests go without a base_url (only OpenAI's own agents have none).
OPENAI_URL = OPENAI.official_url
#: The SDK's errors, for the retry loop (runner/llm/failures.py).
ERRORS = SdkErrors(timeout=openai.APITimeoutError, connection=openai.APIConnectionError,
                   status=openai.APIStatusError, invalid_body=openai.APIResponseValidationError,
                   other=openai.APIError)


class OpenAIChat:
    """One SDK client for one endpoint; `send` makes exactly one HTTP attempt."""

    errors = ERRORS

    def __init__(self, provider: Provider, base_url: str | None, api_key: str):
        self.provider = provider
        # The URL is always passed, so an OPENAI_BASE_URL in the environment cannot silently
        # send games somewhere the replay does not say.
        self.client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url or OPENAI_URL,
                                         max_retries=0)

    def request(self, settings: ModelSettings, messages: Sequence[Message],
                schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for these settings (and schema)."""
        args: dict[str, Any] = {
            "model": settings.model,
            "messages": [{"role": m.role, "content": m.content}
                         for m in (messages if settings.system_role else without_system_role(messages))],
            "timeout": settings.timeout_s,
        }
        if settings.temperature is not None:
            args["temperature"] = settings.temperature
        if settings.top_p is not None:
            args["top_p"] = settings.top_p
        if settings.seed is not None:
            args["seed"] = settings.seed
        if settings.stop:
            args["stop"] = list(settings.stop)
        if settings.reasoning_effort is not None:
            args["reasoning_effort"] = settings.reasoning_effort
        if settings.max_tokens is not None:
            # OpenAI's current name for the output cap (reasoning models refuse `max_tokens`);
            # vLLM, Ollama and llama.cpp servers all understand the older `max_tokens`.
            args[self.provider.output_cap] = settings.max_tokens
        if schema is not None and settings.structured_output == "json_schema":
            # OpenAI's strict structured outputs; vLLM, Ollama and llama-server take the same shape
            # (and every bound, which OpenAI itself partly refuses).
            sent = for_api(schema, self.provider.schema_refuses)
            args["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": sent, "strict": True}}
        elif schema is not None and settings.structured_output == "json_object":
            # llama-cpp-python's server: JSON mode constrained by a schema (it refuses json_schema).
            args["response_format"] = {"type": "json_object", "schema": dict(schema)}
        if settings.extra_body:
            args["extra_body"] = dict(settings.extra_body)
        return args

    async def send(self, settings: ModelSettings, messages: Sequence[Message],
                   schema: Mapping[str, Any] | None = None) -> Answer:
        args = self.request(settings, messages, schema)
        if streams(settings):
            return await self._streamed(args)
        response = await self.client.chat.completions.create(**args)
        choices = getattr(response, "choices", None)
        if not choices:
            raise MalformedReply("the reply has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise MalformedReply("the reply's choice has no message")
        text = _text_of(message)
        usage = getattr(response, "usage", None)
        return Answer(
            text=text,
            finish_reason=normalise_finish(getattr(choice, "finish_reason", None)),
            model_reported=getattr(response, "model", None) or None,
            input_tokens=token_count(getattr(usage, "prompt_tokens", None)),
            output_tokens=token_count(getattr(usage, "completion_tokens", None)),
            reasoning=_reasoning_of(message),
            reasoning_tokens=token_count(getattr(getattr(usage, "completion_tokens_details", None),
                                                 "reasoning_tokens", None)),
            cached_input_tokens=token_count(getattr(getattr(usage, "prompt_tokens_details", None),
                                                    "cached_tokens", None)),
        )

    async def _streamed(self, args: dict[str, Any]) -> Answer:
        """The same call as a stream: the timeout then bounds each wait for the next piece, not the
        whole reply, so a long reasoning call is not cut off (and paid for again)."""
        stream = await self.client.chat.completions.create(**args, stream=True,
                                                           stream_options={"include_usage": True})
        text: list[str] = []
        thinking: list[str] = []
        finish = model = usage = None
        async with stream:  # a cancelled call gives its connection back at once
            async for chunk in stream:
                model = model or getattr(chunk, "model", None)
                usage = getattr(chunk, "usage", None) or usage
                for delta, ended in _first_choice(chunk):
                    piece = getattr(delta, "content", None) or getattr(delta, "refusal", None)
                    if isinstance(piece, str):
                        text.append(piece)
                    thought = _reasoning_of(delta) if delta is not None else None
                    if thought:
                        thinking.append(thought)
                    finish = ended or finish
        if finish is None:  # the stream ended without saying how the reply ended: broken, not empty
            raise MalformedReply("the stream ended before the reply was finished")
        return Answer(
            text="".join(text), finish_reason=normalise_finish(finish), model_reported=model or None,
            input_tokens=token_count(getattr(usage, "prompt_tokens", None)),
            output_tokens=token_count(getattr(usage, "completion_tokens", None)),
            reasoning="".join(thinking) or None,
            reasoning_tokens=token_count(getattr(getattr(usage, "completion_tokens_details", None),
                                                 "reasoning_tokens", None)),
            cached_input_tokens=token_count(getattr(getattr(usage, "prompt_tokens_details", None),
                                                    "cached_tokens", None)),
        )

    async def list_models(self, timeout_s: float) -> None:
        """One cheap request that needs both the key and the server: the model list (GET /models,
        which OpenAI, vLLM, Ollama, llama.cpp's servers and most others answer)."""
        await self.client.models.list(timeout=timeout_s)

    async def aclose(self) -> None:
        await self.client.close()


def _first_choice(chunk: Any) -> list[tuple[Any, str | None]]:
    """(delta, finish reason) of the first choice in a stream chunk, if it has one."""
    return [(getattr(c, "delta", None), getattr(c, "finish_reason", None))
            for c in getattr(chunk, "choices", None) or [] if getattr(c, "index", 0) == 0]


#: Output caps above which a call is streamed even without reasoning: such a reply takes minutes.
STREAM_ABOVE_TOKENS = 16_384


def streams(settings: ModelSettings) -> bool:
    """Whether calls are streamed: reasoning models (reasoning_effort) and very long outputs."""
    return settings.reasoning_effort is not None or (settings.max_tokens or 0) > STREAM_ABOVE_TOKENS


def _text_of(message: Any) -> str:
    """The reply text: the content, a refusal if that is all there is, or joined text parts."""
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if content is None:
        return getattr(message, "refusal", None) or ""
    if isinstance(content, list):  # some compatible servers answer with content parts
        parts = [p.get("text") if isinstance(p, dict) else getattr(p, "text", None) for p in content]
        return "".join(p for p in parts if isinstance(p, str))
    raise MalformedReply(f"the reply's content is {type(content).__name__}, not text")


#: Where OpenAI-compatible servers put a reasoning model's thinking, apart from the content:
#: `reasoning_content` (vLLM, llama.cpp, DeepSeek), `reasoning` (Ollama, OpenRouter).
_REASONING_FIELDS = ("reasoning_content", "reasoning")


def _reasoning_of(message: Any) -> str | None:
    """The thinking a server returned beside the reply, as text (recorded, never read as the move)."""
    for name in _REASONING_FIELDS:
        value = getattr(message, name, None)
        if value is None and isinstance(getattr(message, "model_extra", None), dict):
            value = message.model_extra.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def without_system_role(messages: Sequence[Message]) -> list[Message]:
    """The conversation for a chat template without a system role: system text leads the first user turn."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return rest
    if rest and rest[0].role == "user":
        return [Message("user", f"{system}\n\n{rest[0].content}"), *rest[1:]]
    return [Message("user", system), *rest]
