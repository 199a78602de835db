"""One provider endpoint of a run: its SDK client and the limits every call through it shares."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from runner.llm.answer import Answer
from runner.llm.budget import Budget, Clock, Sleep, TokenBucket
from runner.llm.failures import Backoff, SdkErrors
from runner.llm.redact import redact, scrub_known
from runner.llm.types import Message, ModelSettings, ProviderLimits

#: Rough characters per token, for the budget estimate made before a call.
CHARS_PER_TOKEN = 4
#: Tokens a chat format adds around each message.
TOKENS_PER_MESSAGE = 4
#: The output assumed when a model has no max_tokens (Anthropic's default cap here too).
ASSUMED_OUTPUT_TOKENS = 1024
#: Calls in a row that may fail after all their retries before the endpoint counts as down.
DOWN_AFTER = 3


class Transport(Protocol):
    """An SDK adapter: one HTTP attempt per `send`, raising its SDK's `errors`."""

    errors: SdkErrors

    async def send(self, settings: ModelSettings, messages: Sequence[Message],
                   schema: Mapping[str, Any] | None = None) -> Answer: ...

    async def list_models(self, timeout_s: float) -> None:
        """One cheap request proving the key and the server (the check before a run)."""
        ...

    async def aclose(self) -> None: ...


def estimate_tokens(settings: ModelSettings, messages: Sequence[Message]) -> int:
    """Tokens a call may use, counted before it is made: the prompt's length plus its output cap."""
    prompt = sum(len(m.content) // CHARS_PER_TOKEN + TOKENS_PER_MESSAGE for m in messages)
    return prompt + (settings.max_tokens or ASSUMED_OUTPUT_TOKENS)


class Turn:
    """A granted slot for one attempt; `settle` corrects the token budget with the real usage."""

    def __init__(self, endpoint: Endpoint, estimate: int):
        self._endpoint = endpoint
        self._estimate = estimate

    def settle(self, answer: Answer) -> None:
        budget = self._endpoint.tokens
        if budget is None or answer.input_tokens is None or answer.output_tokens is None:
            return
        budget.correct(answer.input_tokens + answer.output_tokens - self._estimate)


class Endpoint:
    """The SDK client of one (provider, base_url, key variable) and its shared limits.

    Every attempt waits, in this order, for a pause a server asked for (retry-after), a
    concurrency slot, a request from the RPM budget and its estimated tokens from the TPM
    budget; the slot is held for the HTTP exchange only, never during a backoff.
    """

    def __init__(self, transport: Transport, limits: ProviderLimits, *, secrets: set[str],
                 rng: random.Random, clock: Clock, sleep: Sleep, url: str = ""):
        self.transport = transport
        self.url = url  # where the requests go, for messages
        self.limits = limits
        self.clock = clock
        self.sleep = sleep
        self.backoff = Backoff(limits.backoff_base_s, limits.backoff_max_s, rng)
        self.slots = asyncio.Semaphore(limits.max_concurrency)
        self.requests = self._budget(limits.requests_per_minute)
        self.tokens = self._budget(limits.tokens_per_minute)
        self._secrets = secrets  # shared with the whole run, so no key shows in any endpoint's errors
        self._paused_until = 0.0
        self.failed_in_a_row = 0  # calls that failed after every retry since the last answer

    def answered(self) -> None:
        """A call got its reply: the endpoint is up."""
        self.failed_in_a_row = 0

    def gave_up(self) -> bool:
        """A call failed after every retry; True once DOWN_AFTER have in a row (the endpoint is down)."""
        self.failed_in_a_row += 1
        return self.failed_in_a_row >= DOWN_AFTER

    def _budget(self, per_minute: float | None) -> Budget | None:
        if per_minute is None:
            return None
        return Budget(TokenBucket(per_minute, clock=self.clock), self.sleep)

    def pause(self, seconds: float) -> None:
        """Hold every attempt through this endpoint for `seconds` (a server's retry-after)."""
        self._paused_until = max(self._paused_until, self.clock() + seconds)

    async def _wait_pause(self) -> None:
        while (left := self._paused_until - self.clock()) > 0:
            await self.sleep(left)

    @asynccontextmanager
    async def turn(self, estimate: int) -> AsyncIterator[Turn]:
        """Wait until the limits allow one more attempt, and hold a slot while it runs."""
        await self._wait_pause()
        async with self.slots:
            await self._wait_pause()
            if self.requests is not None:
                await self.requests.spend(1)
            if self.tokens is not None:
                await self.tokens.spend(estimate)
            yield Turn(self, estimate)

    def scrub(self, text: str) -> str:
        """`text` without any key of the run or anything shaped like a credential."""
        return redact(text, self._secrets)

    def scrub_answer(self, answer: Answer) -> tuple[Answer, str | None]:
        """The answer with every key of the run masked in what is only recorded (the thinking, the
        model id), and the reply as it is to be recorded if masking changed it (else None): the
        move is read from the reply as received, the record never holds a key."""
        if not self._secrets:
            return answer, None
        recorded = scrub_known(answer.text, self._secrets)
        return dataclasses.replace(
            answer,
            reasoning=None if answer.reasoning is None else scrub_known(answer.reasoning, self._secrets),
            model_reported=None if answer.model_reported is None else scrub_known(answer.model_reported,
                                                                                  self._secrets),
        ), (recorded if recorded != answer.text else None)

    async def aclose(self) -> None:
        await self.transport.aclose()
