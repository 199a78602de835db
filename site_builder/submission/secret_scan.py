"""Credentials in a submitted file: found line by line, never echoed, masked in what a report quotes."""

from __future__ import annotations

import re

from runner.llm.providers import key_owners, key_prefixes
from runner.replay.format import Problem

#: Shapes of credentials that must never be published (the matched text is never echoed). A
#: pattern with a group counts only when the group looks random, so that prose such as
#: "sk-learn-compatible-estimators" or "bearer of bad news" is not mistaken for a key. The
#: providers' keys first, by how they begin (runner/llm/providers.py).
SECRET_PATTERNS = {
    **{f"an {' or '.join(key_owners(prefix))} API key ({prefix}...)":
       re.compile(rb"\b" + re.escape(prefix.encode()) + rb"([A-Za-z0-9_-]{20,})") for prefix in key_prefixes()},
    "a bearer token": re.compile(rb"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{20,})"),
    "an AWS access key": re.compile(rb"\bAKIA[0-9A-Z]{16}\b"),
    "a GitHub token": re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "a Hugging Face token": re.compile(rb"\bhf_[A-Za-z0-9]{30,}"),
    "a Google API key": re.compile(rb"\bAIza[0-9A-Za-z_-]{35}"),
    # A scheme starts only where a run of scheme characters starts, and no part gives back what
    # it took: each character is looked at a bounded number of times (a line of "a-a-a-..."
    # took minutes with a plain \b and backtracking quantifiers).
    "a password in a URL": re.compile(rb"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*+://[^/\s:@\"']++:[^/\s@\"']++@"),
}


def redact_secrets(text: str) -> str:
    """`text` with everything the credential patterns find masked: a report quotes file content
    (a differing field, say), and must never repeat a key it found."""
    raw = text.encode("utf-8", "surrogatepass")
    for pattern in SECRET_PATTERNS.values():
        raw = pattern.sub(lambda m: b"[redacted]" if not pattern.groups or _looks_random(m.group(1)) else m.group(0),
                          raw)
    return raw.decode("utf-8", "surrogatepass")


def _looks_random(token: bytes) -> bool:
    """Digits, capitals and small letters together: a generated token, not a hyphenated phrase."""
    return any(c in b"0123456789" for c in token) and token.lower() != token != token.upper()


def is_secret(pattern: re.Pattern[bytes], line: bytes) -> bool:
    """Whether `pattern` finds a credential in `line` (a group of it, if any, looking random)."""
    return any(not pattern.groups or _looks_random(m.group(1)) for m in pattern.finditer(line))


#: Credential findings reported per file (one is enough to refuse it).
MAX_SECRET_PROBLEMS = 10


def secret_problems(path: str, raw: bytes) -> list[Problem]:
    """A problem for each line of a file that seems to hold a credential (at most MAX_SECRET_PROBLEMS)."""
    problems: list[Problem] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        what = next((what for what, pattern in SECRET_PATTERNS.items() if is_secret(pattern, line)), None)
        if what:
            problems.append(Problem(path, number, f"this line seems to hold {what}: remove it, and revoke "
                                    "the credential, which is already public in your fork"))
            if len(problems) == MAX_SECRET_PROBLEMS:
                break
    return problems
