"""A ChatModel over a shared endpoint: one call, with retries, limits and accounting."""

from __future__ import annotations

from collections.abc import Sequence

from runner.llm.endpoint import Endpoint, estimate_tokens
from runner.llm.failures import Failure, classify
from runner.llm.types import Completion, Message, ModelSettings

ROLES = ("system", "user", "assistant")


class LimitedChatModel:
    """The ChatModel for one model name on one endpoint; `complete` never raises for provider trouble."""

    def __init__(self, settings: ModelSettings, endpoint: Endpoint, key_variable: str | None):
        self.settings = settings
        self.endpoint = endpoint
        self._key_variable = key_variable

    def __repr__(self) -> str:
        return f"LimitedChatModel({self.settings.provider}:{self.settings.model})"

    async def complete(self, messages: Sequence[Message]) -> Completion:
        """Ask once, retrying what is worth retrying; the reply, or the last error, with accounting."""
        messages = tuple(messages)
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
                    answer = await endpoint.transport.send(self.settings, messages)
                except Exception as exc:  # noqa: BLE001 - every SDK failure becomes a Failure
                    failure = classify(exc, timeout_s=self.settings.timeout_s)
                    if failure.retry_after_s is not None:
                        # Set before the slot is released, so no other call slips through.
                        endpoint.pause(min(failure.retry_after_s, limits.backoff_max_s))
                else:
                    turn.settle(answer)
                    return Completion(answer.text, answer.finish_reason, answer.model_reported,
                                      answer.input_tokens, answer.output_tokens,
                                      self._elapsed_ms(first_sent), retries=retries)
            if not failure.retryable or retries >= limits.max_retries:
                return Completion(None, None, None, None, None, self._elapsed_ms(first_sent),
                                  error=self._error_text(failure, retries), retries=retries)
            await endpoint.sleep(endpoint.backoff.delay(retries, failure.retry_after_s))
            retries += 1

    def _elapsed_ms(self, since: float | None) -> float:
        return 0.0 if since is None else max(0.0, (self.endpoint.clock() - since) * 1000.0)

    def _error_text(self, failure: Failure, retries: int) -> str:
        """The final error as recorded: which model, what happened, after how many retries; no secrets."""
        text = f"{self.settings.provider} model {self.settings.model!r}: {failure.message}"
        if failure.message.startswith(("HTTP 401", "HTTP 403")) and self._key_variable:
            text += f" (check the key in the environment variable {self._key_variable})"
        if retries:
            text += f" (gave up after {retries} retr{'y' if retries == 1 else 'ies'})"
        return self.endpoint.scrub(text)
