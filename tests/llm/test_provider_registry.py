"""runner/llm/providers.py is the one place of a provider's facts: SDK-free itself, its adapters
the only modules that import an SDK, and every copy of its facts outside code (the docs, which
cannot import it) held equal to it."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from runner import tournament
from runner.llm import providers
from runner.llm.failures import SdkErrors
from runner.llm.providers import CACHING_KINDS, NAMES, PROVIDERS
from runner.llm.redact import MASK, redact

ROOT = Path(__file__).resolve().parents[2]
SDKS = tuple(dict.fromkeys(p.sdk for p in PROVIDERS.values()))
#: A key's random part, long enough for every check (the secret scan wants 20 characters and more).
TAIL = "Zq8xV2mK9pL4wR7tY3nB6cD1"


def test_importing_the_registry_loads_no_sdk_and_nothing_else_of_the_runner():
    probe = ("import json, sys; import runner.llm.providers; "
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {sdks!r} "
             "or m.startswith('runner.') and m not in ('runner.llm', 'runner.llm.providers'))))").format(sdks=SDKS)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("name", NAMES)
def test_each_provider_opens_an_adapter_speaking_through_its_own_sdk(name):
    provider = PROVIDERS[name]
    transport = provider.open("http://127.0.0.1:9/v1", "sk-not-a-real-key-0000000000")
    try:
        assert all(inspect.iscoroutinefunction(getattr(transport, m)) for m in ("send", "list_models", "aclose"))
        assert isinstance(transport.errors, SdkErrors)
        classes = [getattr(transport.errors, field) for field in ("timeout", "connection", "status", "invalid_body",
                                                                  "other")]
        assert {c.__module__.split(".")[0] for c in classes} == {provider.sdk}, classes
        assert inspect.getmodule(type(transport)).__name__ == provider.adapter.partition(":")[0]
    finally:
        asyncio.run(transport.aclose())


def test_every_adapter_module_is_a_providers_and_only_adapters_import_an_sdk():
    adapters = {p.adapter.partition(":")[0] for p in PROVIDERS.values()}
    assert {f"runner.llm.{path.stem}" for path in (ROOT / "runner" / "llm").glob("*_api.py")} == adapters
    importing = re.compile(rf"^\s*(?:import|from)\s+({'|'.join(SDKS)})\b", re.MULTILINE)
    found = {".".join(path.relative_to(ROOT).with_suffix("").parts)
             for folder in ("runner", "site_builder") for path in (ROOT / folder).rglob("*.py")
             if importing.search(path.read_text(encoding="utf-8"))}
    assert found == adapters


def test_every_sdk_is_a_dependency_of_the_package():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    declared = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in dependencies}
    assert set(SDKS) <= declared


def test_the_records_name_known_kinds_and_modes():
    for provider in PROVIDERS.values():
        assert provider.caching in (*CACHING_KINDS, None), provider.name
        assert set(provider.structured_modes) <= {"json_schema", "json_object", "tool"}, provider.name
        assert (provider.official_url is None) == (provider.key_variable is None), provider.name
        assert set(provider.refuses) <= {"temperature", "top_p"}, provider.name


# -- key shapes: masked, refused and found wherever a key could leak --------------------------

@pytest.mark.parametrize("prefix", [k for p in PROVIDERS.values() for k in p.key_prefixes])
def test_a_key_of_each_provider_is_masked_and_refused_in_a_tournament_file(prefix):
    key = prefix + TAIL
    assert redact(f"HTTP 401: invalid key {key} given") == f"HTTP 401: invalid key {MASK} given"
    assert tournament._KEY_VALUE.search(f"header: {key}")
    assert tournament._KEY_LIKE.search(key)


def test_the_shortest_prefixes_cover_every_provider_key():
    every = [k for p in PROVIDERS.values() for k in p.key_prefixes]
    assert all(any(k.startswith(short) for short in providers.key_prefixes()) for k in every)
    assert set(providers.key_prefixes()) <= set(every)


# -- the docs: copies of the registry that cannot import it ------------------------------------

DOC = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")


def _cell(key: str) -> str:
    """The providers cell of an option's row in the options table of docs/tournaments.md."""
    row = next(line for line in DOC.splitlines() if line.startswith(f"| `{key}` |"))
    return row.split(" | ")[1]


def _by_provider(cell: str, value: str) -> dict[str, set[str]]:
    """`a`, `b`: x, y; `c`: z (explanations in parentheses left out) as {a: {x, y}, b: {x, y}, c: {z}}."""
    found: dict[str, set[str]] = {}
    for part in re.sub(r"\([^)]*\)", "", cell).split(";"):
        names, _, values = part.partition(":")
        for name in re.findall(r"`(\w+)`", names):
            found[name] = set(re.findall(value, values))
    return found


def _taking(takes) -> set[str]:
    return {name for name, provider in PROVIDERS.items() if takes(provider)}


def test_the_docs_list_the_providers_in_the_registrys_order():
    assert re.search(r'provider = "openai" +# (.*)', DOC).group(1) == (
        ", ".join(f'"{n}"' for n in NAMES[:-1]) + f' or "{NAMES[-1]}"')
    assert re.search(r"The name is a provider \(([^)]*)\)", DOC).group(1) == ", ".join(f"`{n}`" for n in NAMES)


def test_the_docs_say_each_providers_modes_efforts_and_options_as_the_registry_does():
    assert _by_provider(_cell("structured_output"), r'`"(\w+)"`') == {
        name: set(p.structured_modes) for name, p in PROVIDERS.items()}
    assert _by_provider(_cell("reasoning_effort"), r"`(\w+)`") == {name: set(p.efforts) for name, p in PROVIDERS.items()}
    assert set(re.findall(r"`(\w+)`", _cell("top_p"))) == _taking(lambda p: "top_p" not in p.refuses)
    assert set(re.findall(r"`(\w+)`", _cell("thinking_budget"))) == _taking(lambda p: p.thinking_budget)
    assert set(re.findall(r"`(\w+)`", _cell("extra_body"))) == _taking(lambda p: p.extra_body)
    assert set(re.findall(r"`(\w+)`", _cell("system_role"))) == _taking(lambda p: p.system_role_switch)
    assert set(re.findall(r"`prompt_cache` \(`(\w+)`;", DOC)) == _taking(lambda p: p.caching == "marked")


def test_the_docs_name_each_providers_default_key_variable():
    sentence = re.search(r"`api_key_env` defaults to (.*?); an `(\w+)` agent without it sends no key", DOC)
    assert dict((name, variable) for variable, name in re.findall(r"`(\w+)` for `(\w+)`", sentence.group(1))) == {
        name: p.key_variable for name, p in PROVIDERS.items() if p.key_variable}
    assert {sentence.group(2)} == _taking(lambda p: p.key_variable is None)
