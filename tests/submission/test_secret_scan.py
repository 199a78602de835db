"""The secret scan of submitted text takes time linear in its length: no line within the limits
can stall the pull-request check (a 1 MB line of "a-a-a-..." once took about an hour)."""

from __future__ import annotations

import time

import pytest

from runner.llm.providers import PROVIDERS
from site_builder.submission.secret_scan import SECRET_PATTERNS, is_secret, redact_secrets, secret_problems

MEGABYTE = 1_000_000
#: Lines built to make a backtracking pattern retry at every position: runs of the characters
#: each pattern's parts accept, joined by what nearly completes a match.
WORST_CASES = {
    "words joined by hyphens": b"a-" * (MEGABYTE // 2),
    "words joined by dots": b"a." * (MEGABYTE // 2),
    "repeated key prefixes": b"sk-" * (MEGABYTE // 3),
    "a scheme and no credentials": b"x://" + b"a" * MEGABYTE,
    "schemes and colons": b"a://b:" * (MEGABYTE // 6),
    "bearer and spaces": b"bearer" + b" " * MEGABYTE,
    "repeated bearers": b"bearer " * (MEGABYTE // 7),
    "token prefixes": b"ghp_hf_AIzaAKIA" * (MEGABYTE // 15),
    "one long word": b"a" * MEGABYTE,
}


@pytest.mark.parametrize("line", WORST_CASES.values(), ids=list(WORST_CASES))
def test_every_pattern_scans_a_megabyte_line_quickly(line):
    for what, pattern in SECRET_PATTERNS.items():
        started = time.perf_counter()
        is_secret(pattern, line)
        # Linear scans take tens of milliseconds; a quadratic one takes minutes. The bound only
        # has to tell the two apart on a busy machine.
        assert time.perf_counter() - started < 3.0, what


@pytest.mark.parametrize("text, found", [
    (b'"base_url":"https://me:hunter2@llm.example.org/v1"', True),
    (b"see ftp://user:pw@host/x", True),
    (b"HTTPS://A:B@c", True),
    (b"https://example.org/docs and ask @octocat", False),
    (b"a://b:c d@e", False),
    (b"mailto:x@y", False),
])
def test_the_url_pattern_still_finds_passwords(text, found):
    assert is_secret(SECRET_PATTERNS["a password in a URL"], text) is found


@pytest.mark.parametrize("prefix", [k for p in PROVIDERS.values() for k in p.key_prefixes])
def test_a_key_of_each_provider_is_found_named_by_its_maker_and_masked(prefix):
    key = f"{prefix}Zq8xV2mK9pL4wR7tY3nB6cD1".encode()
    problems = secret_problems("replays/x.jsonl", b'{"ok": 1}\n{"error": "bad key ' + key + b'"}\n')
    owner = next(p.title for p in PROVIDERS.values() if prefix in p.key_prefixes)
    assert [(p.line, owner in p.message) for p in problems] == [(2, True)]
    assert key.decode() not in redact_secrets(f"the key {key.decode()} leaked")
