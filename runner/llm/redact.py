"""Scrubbing secrets out of any text that may be shown or recorded (errors above all)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from runner.llm.providers import key_prefixes

MASK = "[redacted]"

#: Shortest value treated as a secret. Every provider key gamenight speaks to is far longer (OpenAI
#: and Anthropic keys run past 50 characters, Google's are 39, Hugging Face's 37), while local
#: servers take short placeholders that anyone may read in their docs ("x", "EMPTY", "ollama",
#: "lm-studio", "sk-no-key-required"). Masking a placeholder everywhere it occurs would rewrite
#: what the model said (a key "k" turns "<think>" into "<thin[redacted]>") and so the move read
#: from it, for nothing: such a value protects no account.
MIN_SECRET_CHARS = 20


def is_secret(value: str) -> bool:
    """Whether a key value is long enough to be a credential worth masking (MIN_SECRET_CHARS)."""
    return len(value) >= MIN_SECRET_CHARS

# Credentials that may hide in an SDK's or a server's error text, whatever the key is.
_PATTERNS = (
    # "Authorization: Bearer abc", "x-api-key=abc", "'api_key': 'abc'"...: keep the name, hide the value
    re.compile(r"(?i)\b(authorization|proxy-authorization|x-api-key|api[-_]?key)"
               r"(['\"]?\s*[:=]\s*['\"]?)(?:bearer\s+|basic\s+)?[^\s'\",;&}]+"),
    re.compile(r"(?i)\b(cookie|set-cookie)(['\"]?\s*[:=]\s*['\"]?)[^\r\n'\"}]+"),
    re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=*-]{4,}"),
    # how the providers' keys begin (sk-..., sk-ant-..., sk-proj-...: runner/llm/providers.py), masked or not
    re.compile(r"\b()()(?:" + "|".join(map(re.escape, key_prefixes())) + r")[A-Za-z0-9_*-]{4,}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every given secret and anything shaped like a credential replaced by a mask."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return text


def scrub_known(text: str, secrets: Iterable[str]) -> str:
    """`text` with every given secret value masked, and nothing else touched (for model replies,
    where a word merely shaped like a key, "sk-learn" say, is the model's own text)."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
