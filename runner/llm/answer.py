"""What one successful API call gives back, in the same shape for every provider."""

from __future__ import annotations

from dataclasses import dataclass

_STOP = frozenset({"stop", "end_turn", "stop_sequence", "eos", "eos_token", "tool_use"})  # tool_use: a forced answer tool
_LENGTH = frozenset({"length", "max_tokens", "max_length", "model_length"})


@dataclass(frozen=True)
class Answer:
    """One reply: its text, why it ended, who answered, and the tokens it used."""

    text: str
    finish_reason: str | None
    model_reported: str | None
    input_tokens: int | None
    output_tokens: int | None
    reasoning: str | None = None  # reasoning the API returned apart from the reply (never the answer)
    reasoning_tokens: int | None = None  # of output_tokens, those spent thinking
    cached_input_tokens: int | None = None  # of input_tokens, those read from a prompt cache
    cache_write_input_tokens: int | None = None  # of input_tokens, those written to a prompt cache


def normalise_finish(reason: str | None) -> str | None:
    """"stop" for a natural end, "length" for a token-limit cut, else the provider's own word."""
    if reason is None:
        return None
    word = str(reason)
    if word in _STOP:
        return "stop"
    if word in _LENGTH:
        return "length"
    return word


def token_count(value: object) -> int | None:
    """A usage number as an int, or None when the server left it out or sent nonsense."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value
