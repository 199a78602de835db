"""A ChatModel over a shared endpoint: one call, with retries, limits and accounting."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runner.llm.answer import Answer
from runner.llm.endpoint import Endpoint, estimate_tokens
from runner.llm.failures import Failure, classify, key_hint, with_url
from runner.llm.types import Completion, Message, ModelSettings

ROLES = ("system", "user", "assistant")


class LimitedChatModel:
    """The ChatModel for one model name on one endpoint; `complete` never raises for provider trouble."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint, key_variable: str | None):
        self.settings = settings
        self.endpoint = endpoint
        self._key_variable = key_variable
        #: What the provider answered (and so charged) through this model in this run, whether
        #: or not the game it was for was written: calls and tokens.
        self.spent = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0,
                      "cache_write_input_tokens": 0}

    def __repr__(self) -> str:
        return f"LimitedChatModel({self.settings.provider}:{self.settings.model})"

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None = None) -> Completion:
        """Ask once, retrying what is worth retrying; the reply, or the last error, with accounting.

        `schema` constrains the reply when the settings name a structured-output mode.
        """
        messages = tuple(messages)
        structured = self.settings.structured_output if schema is not None else None
        schema = schema if structured else None
        for message in messages:
            if message.role not in ROLES:
                raise ValueError(f"message role must be one of {ROLES}, not {message.role!r}")
        endpoint, limits = self.endpoint, self.endpoint.limits
        estimate = estimate_tokens(self.settings, messages)
        first_sent: float | None = None  # latency counts from the first attempt, not the queue
        retries = 0
        while True:
            async with endpoint.turn(estimate) as turn:
                if first_sent is None:
                    first_sent = endpoint.clock()
                try:
                    answer = await endpoint.transport.send(self.settings, messages, schema)
                except Exception as exc:  # noqa: BLE001 - every SDK failure becomes a Failure
                    failure = classify(exc, timeout_s=self.settings.timeout_s, errors=endpoint.transport.errors)
                    if failure.retry_after_s is not None:
                        # Set before the slot is released, so no other call slips through.
                        endpoint.pause(min(failure.retry_after_s, limits.backoff_max_s))
                else:
                    turn.settle(answer)
                    endpoint.answered()
                    self._count(answer)
                    # A key the model repeats is never stored; the move is read from the reply as sent.
                    answer, recorded = endpoint.scrub_answer(answer)
                    return Completion(answer.text, answer.finish_reason, answer.model_reported,
                                      answer.input_tokens, answer.output_tokens,
                                      self._elapsed_ms(first_sent), retries=retries, reasoning=answer.reasoning,
                                      structured=structured, reasoning_tokens=answer.reasoning_tokens,
                                      cached_input_tokens=answer.cached_input_tokens,
                                      cache_write_input_tokens=answer.cache_write_input_tokens, recorded_text=recorded)
            if not failure.retryable or retries >= limits.max_retries:
                down = endpoint.gave_up() if failure.retryable else False
                error = self._error_text(failure, retries)
                if down:
                    error += (f" ({endpoint.failed_in_a_row} calls in a row failed after every retry: "
                              "the endpoint looks down)")
                return Completion(None, None, None, None, None, self._elapsed_ms(first_sent),
                                  error=error, retries=retries, lasting=failure.lasting or down)
            await endpoint.sleep(endpoint.backoff.delay(retries, failure.retry_after_s))
            retries += 1

    def _count(self, answer: Answer) -> None:
        self.spent["calls"] += 1
        self.spent["input_tokens"] += answer.input_tokens or 0
        self.spent["output_tokens"] += answer.output_tokens or 0
        self.spent["cached_input_tokens"] += answer.cached_input_tokens or 0
        self.spent["cache_write_input_tokens"] += answer.cache_write_input_tokens or 0

    def _elapsed_ms(self, since: float | None) -> float:
        return 0.0 if since is None else max(0.0, (self.endpoint.clock() - since) * 1000.0)

    def _error_text(self, failure: Failure, retries: int) -> str:
        """The final error as recorded: which model, what happened, after how many retries; no secrets."""
        text = (f"{self.settings.provider} model {self.settings.model!r}: {with_url(failure.message, self.endpoint.url)}"
                f"{key_hint(failure.message, self._key_variable)}")
        if retries:
            text += f" (gave up after {retries} retr{'y' if retries == 1 else 'ies'})"
        return self.endpoint.scrub(text)
