"""What went wrong in one attempt, whether to try again, and how long the server asked us to wait."""

from __future__ import annotations

import email.utils
import json
import math
import random
import re
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runner.llm.providers import PROVIDERS

#: HTTP statuses worth another try: rate limits, request timeouts, conflicts, server trouble.
RETRYABLE_STATUSES = frozenset({408, 409, 429})

_STATUS_WORDS = {
    400: "bad request", 401: "authentication failed", 403: "permission denied",
    404: "not found", 408: "request timeout",
    409: "conflict", 413: "request too large", 422: "unprocessable request",
    429: "rate limited", 500: "server error", 502: "bad gateway", 503: "service unavailable",
    504: "gateway timeout", 529: "overloaded",
}



@dataclass(frozen=True)
class SdkErrors:
    """An SDK's exception classes, by what each means to the retry loop. Every adapter names its
    own SDK's (its `errors`), so this module, and whatever imports it, loads no SDK."""

    timeout: type[BaseException]
    connection: type[BaseException]
    status: type[BaseException]
    invalid_body: type[BaseException]
    other: type[BaseException]  # the SDK's base class of API errors


class MalformedReply(Exception):
    """A response that parsed as JSON but is not the shape the API promises."""


@dataclass(frozen=True)
class Failure:
    """One failed attempt: a message for people, and what the retry loop and the run should do.

    `lasting` marks a failure no retry and no other game can heal (a wrong key, a missing
    permission, an unknown model or URL, nothing listening at the address, an exhausted
    quota): the run stops rather than fail every remaining game the same way.
    """

    message: str
    retryable: bool
    retry_after_s: float | None = None
    lasting: bool = False


#: Statuses that say the endpoint, the key or the model name is wrong: no retry can help.
LASTING_STATUSES = frozenset({401, 403, 404})
# Error codes and words that mean the account has run out of money (each provider's quota_words:
# OpenAI's code, Anthropic's message). Per-minute quotas are rate limits, which heal: those are
# 429s without these words.
_QUOTA = re.compile("|".join(re.escape(word) for provider in PROVIDERS.values() for word in provider.quota_words),
                    re.IGNORECASE)


def classify(exc: BaseException, *, timeout_s: float, errors: SdkErrors) -> Failure:
    """Turn an exception of the SDK whose classes are `errors` into a Failure (the message is not
    yet scrubbed of secrets)."""
    if isinstance(exc, errors.timeout):
        return Failure(f"timed out after {timeout_s:g} s", retryable=True)
    if isinstance(exc, errors.connection):
        unreachable = _unreachable(exc)
        if unreachable:
            return Failure(f"cannot connect: {unreachable}", retryable=False, lasting=True)
        cause = exc.__cause__ or exc.__context__
        detail = f" ({type(cause).__name__})" if cause is not None else ""
        return Failure(f"connection error{detail}", retryable=True)
    if isinstance(exc, errors.status) and exc.status_code < 400:
        # An error event in the middle of a stream that began with HTTP 200 (e.g. "overloaded_error").
        detail = error_detail(exc.body)
        return Failure(f"the reply broke off mid-stream{': ' + detail if detail else ''}", retryable=True)
    if isinstance(exc, errors.status):
        status = exc.status_code
        words = _STATUS_WORDS.get(status, "server error" if status >= 500 else "client error")
        detail = error_detail(exc.body)
        message = f"HTTP {status} {words}" + (f": {detail}" if detail else "")
        if status == 404:
            message += " (check the model name and base_url)"
        if status in (400, 403, 429) and _QUOTA.search(f"{_error_code(exc.body)} {detail}"):
            return Failure(f"{message} (the account's quota or credit is used up)", retryable=False, lasting=True)
        retryable = status in RETRYABLE_STATUSES or status >= 500
        return Failure(message, retryable, retry_after(exc.response.headers) if retryable else None,
                       lasting=status in LASTING_STATUSES)
    if isinstance(exc, (json.JSONDecodeError, errors.invalid_body)):
        return Failure("the response body is not valid JSON", retryable=True)
    if isinstance(exc, MalformedReply):
        return Failure(f"malformed response: {exc}", retryable=True)
    if isinstance(exc, errors.other):  # an error the API reported with no status, e.g. mid-stream
        return Failure(f"the API reported an error: {exc}", retryable=True)
    return Failure(f"unexpected error: {type(exc).__name__}: {exc}", retryable=False)


#: How a key variable is named, for a server that asks for a key none was sent for.
NAME_A_KEY = "name the variable holding the key with --key-env VAR, or api_key_env = \"VAR\" in the agent's table"


def refused_key(message: str) -> bool:
    """Whether a failure's message is a server refusing the key (HTTP 401 or 403)."""
    return message.startswith(("HTTP 401", "HTTP 403"))


def key_hint(message: str, variable: str | None) -> str:
    """What to do about a refused key, to follow the failure's message ("" for any other failure):
    the variable the key was read from, or, when none was named (no key was sent), how to name one."""
    if not refused_key(message):
        return ""
    if variable:
        return f" (check the key in the environment variable {variable})"
    return f" (no key was sent, as no key variable is named: {NAME_A_KEY})"



def with_url(message: str, url: str) -> str:
    """A failure's message naming the address where nothing answers, when that is the failure."""
    return message.replace("cannot connect:", f"cannot connect to {url}:", 1) if url else message


#: Name-resolution errors that say the host does not exist.
_NO_SUCH_HOST = frozenset(code for name in ("EAI_NONAME", "EAI_NODATA") if (code := getattr(socket, name, None)))


def _unreachable(exc: BaseException) -> str | None:
    """Why nothing answers at the address (refused, unknown host), read from the cause chain."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, ConnectionRefusedError):
            return "connection refused (is the server running at that address?)"
        if isinstance(link, socket.gaierror) and link.errno in _NO_SUCH_HOST:
            return "the host name does not resolve (check base_url)"  # a temporary failure (EAI_AGAIN) may heal
        link = link.__cause__ or link.__context__
    return None


def _error_code(body: Any) -> str:
    """The machine-readable code or type of an API error body ("insufficient_quota"...), or "".

    The OpenAI SDK hands over the inner error object, the Anthropic SDK the whole body.
    """
    if not isinstance(body, Mapping):
        return ""
    inner = body.get("error")
    found = inner if isinstance(inner, Mapping) else body
    return " ".join(str(found.get(k) or "") for k in ("code", "type"))


def error_detail(body: Any, limit: int = 300) -> str:
    """The human part of an API error body, in either provider's shape, or a short raw excerpt."""
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return inner["message"][:limit]
        if isinstance(body.get("message"), str):
            return body["message"][:limit]
        return ""
    if isinstance(body, str):
        return " ".join(body.split())[:limit]
    return ""


def retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `retry-after` (seconds or a date)."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _number(value: str | None) -> float | None:
    """A finite, non-negative number from a header value, or None."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


@dataclass
class Backoff:
    """Exponential backoff with jitter: retry k waits between half and all of base * 2**k (capped)."""

    base_s: float
    max_s: float
    rng: random.Random

    def delay(self, retry: int, server_asked_s: float | None = None) -> float:
        """The wait before retry number `retry` (0-based); a server's retry-after wins, capped."""
        if server_asked_s is not None:
            return min(server_asked_s, self.max_s)
        ceiling = min(self.max_s, self.base_s * 2.0 ** retry)
        return ceiling * (0.5 + 0.5 * self.rng.random())
