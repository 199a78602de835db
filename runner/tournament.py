"""Reading a tournament plan: a TOML file, or command-line flags, checked and refused with a message.

A tournament is read from a TOML file (see runner/tournaments/builtin.toml and docs) or built
from command-line flags; either way every value is checked here, and anything wrong is a
`PlanError` of one line naming where. What is read becomes the plan's model (runner/plan.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from runner import games, tomlfile
from runner.agents.builtin import strategies
from runner.deals import reserved_problem
from runner.games.base import SetupError, is_int, is_number
from runner.llm.providers import NAMES, PROVIDERS, key_prefixes
from runner.plan import LLM_PLAY_KEYS, SEAT_RULES, AgentSpec, Matchup, Price, SuiteDeal, SuiteRef, Tournament, VerifyRef
from runner.play import DEFAULT_MAX_ATTEMPTS

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
TOP_KEYS = {"name", "seed", "created", "max_attempts", "probes", "agents", "matchups", "providers", "prices", "suite",
            "verify"}
MATCHUP_KEYS = {"game", "rules", "games", "roles", "lineup", "seats", "seed", "deal"}
#: Keys of a plan's `suite` table (a suite's tournament, runner/suite.py) and of a matchup's `deal` table.
SUITE_KEYS = ("name", "version", "stages", "model")
DEAL_KEYS = ("stage", "index", "seat")
#: Keys of a verification's `verify` table (`gamenight verify`, runner/verify.py).
VERIFY_KEYS = ("row", "suite", "version", "epoch", "commitment", "commit", "deals", "replays")
#: The names of the maintainers' verification tournaments (`gamenight verify`): `verify-<row>`.
VERIFY_PREFIX = "verify-"
#: Largest game seed a matchup may give itself (derived seeds are 60-bit; replays hold 63-bit ones).
MAX_GAME_SEED = 2**63 - 1
#: Largest tournament seed (a seed is hashed, so a larger one adds nothing but a longer file).
MAX_SEED = 2**64 - 1
#: Largest tournament file read (the shipped ones are a few kilobytes).
MAX_FILE_BYTES = 1024 * 1024

#: Longest free-text reasoning field a structured answer may have (a schema maxLength; llama.cpp's
#: grammars fail on much longer ones).
MAX_STRUCTURED_REASONING = 1000
#: How a model is reached and billed, not what it plays: `prompt_cache` (Anthropic's cache breakpoints)
#: changes the price of a prompt, never the prompt.
LLM_ACCESS_KEYS = ("api_key_env", "timeout_s", "prompt_cache")
#: Keys of a `[providers.<name>]` table (runner.llm.types.ProviderLimits) and what each takes.
LIMIT_KEYS = {"max_concurrency": "a whole number from 1 to 100000",
              "requests_per_minute": "a positive number", "tokens_per_minute": "a positive number",
              "max_retries": "a whole number from 0 to 20", "backoff_base_s": "a number of seconds, at least 0",
              "backoff_max_s": "a number of seconds, at least 0"}
PRICE_KEYS = ("input", "output")
CACHE_PRICE_KEYS = ("cached_input", "cache_write_input")
# A key that would hold a secret itself: tournament files are shared and committed.
_SECRET_KEY = re.compile(r"(api[_-]?key|apikey|secret|token|passw|auth|bearer|cookie|credential|header)"
                         r"|^key$", re.IGNORECASE)
#: Known keys whose names merely resemble the words above.
_NOT_SECRETS = frozenset({"api_key_env", "max_tokens", "tokens_per_minute"})
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
#: How the providers' API keys begin (runner/llm/providers.py), as a pattern.
_PROVIDER_KEYS = "|".join(map(re.escape, key_prefixes()))
# What API keys look like (the providers', and Google's, Groq's, Hugging Face's, xAI's, ...): never a variable name.
_KEY_LIKE = re.compile(rf"^(?:{_PROVIDER_KEYS})|^(sk|pk|rk|gsk|hf|xai|api|key)[-_]|^AIza", re.IGNORECASE)


class PlanError(ValueError):
    """A tournament description that cannot be played; the message says where and why."""


def load(path: str | Path, *, matchups_required: bool = True) -> Tournament:
    """Read and check a tournament TOML file (one holding only agents, e.g. a judge's, if allowed);
    anything wrong, however hostile the file, is a PlanError of one line naming the file."""
    try:
        raw, _ = tomlfile.read_file(path, MAX_FILE_BYTES)
    except tomlfile.FileProblem as exc:
        raise PlanError(str(exc)) from None
    try:
        return from_dict(raw, str(path), matchups_required=matchups_required)
    except PlanError as exc:
        raise PlanError(tomlfile.one_line(str(exc))) from None
    except Exception as exc:  # noqa: BLE001 - a file from anyone must never end a command with a traceback
        raise PlanError(tomlfile.one_line(f"{path}: cannot be planned ({type(exc).__name__}: {exc})")) from None


def from_dict(raw: Mapping[str, Any], where: str = "tournament", *, matchups_required: bool = True) -> Tournament:
    """Check a tournament description (as parsed from TOML) and build it."""
    unknown = sorted(set(raw) - TOP_KEYS)
    if unknown:
        raise PlanError(f"{where}: unknown key(s) {_shown(unknown)}; allowed: {sorted(TOP_KEYS)}")
    name = raw.get("name")
    if not isinstance(name, str) or not SLUG.match(name):
        raise PlanError(f"{where}: name: must be a short slug (letters, digits, . _ -), got {_shown(name)}")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise PlanError(f"{where}: seed: must be an integer from 0 to {MAX_SEED:,} (2^64 - 1)")
    created = raw.get("created")
    if created is not None:
        created = str(created)
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", created):
            raise PlanError(f"{where}: created: must be a date YYYY-MM-DD")
    attempts = raw.get("max_attempts", DEFAULT_MAX_ATTEMPTS)
    if not isinstance(attempts, int) or isinstance(attempts, bool) or not 1 <= attempts <= 20:
        raise PlanError(f"{where}: max_attempts: must be an integer from 1 to 20")
    probes = raw.get("probes", True)
    if not isinstance(probes, bool):
        raise PlanError(f"{where}: probes: must be true or false")
    agents = _agents(raw.get("agents", {}), where)
    providers = _providers(raw.get("providers", {}), where)
    prices = _prices(raw.get("prices", {}), where)
    matchups_raw = raw.get("matchups", None if matchups_required else [])
    if not isinstance(matchups_raw, list) or (matchups_required and not matchups_raw):
        raise PlanError(f"{where}: matchups: needs at least one [[matchups]] table")
    matchups = [_matchup(m, agents, f"{where}: matchups[{i}]") for i, m in enumerate(matchups_raw)]
    suite = _suite_ref(raw["suite"], f"{where}: suite") if "suite" in raw else None
    verify = _verify_ref(raw["verify"], name, f"{where}: verify") if "verify" in raw else None
    if verify is None and name.lower().startswith(VERIFY_PREFIX):
        raise PlanError(f"{where}: name: names starting with {VERIFY_PREFIX!r} are the maintainers' verifications "
                        "of suite rows (`gamenight verify`); choose another name")
    if verify is not None and suite is not None:
        raise PlanError(f"{where}: verify: a verification is not a suite's row (give either table, not both)")
    _check_deals(matchups, suite, where, verify)
    _check_reserved_seeds(matchups, suite or verify, where)
    return Tournament(name, seed, created, attempts, probes, matchups, agents, providers, prices, suite, verify)


def _suite_ref(raw: Any, here: str) -> SuiteRef:
    """A plan's `suite` table: which suite it plays, how many stages, for which model."""
    if not isinstance(raw, Mapping) or set(raw) != set(SUITE_KEYS):
        raise PlanError(f"{here}: must be a table of {', '.join(SUITE_KEYS)} (written by `gamenight run --suite`)")
    if not isinstance(raw["name"], str) or not SLUG.match(raw["name"]):
        raise PlanError(f"{here}.name: must be a suite's name, got {_shown(raw['name'])}")
    if not isinstance(raw["model"], str) or not SLUG.match(raw["model"]):
        raise PlanError(f"{here}.model: must be a model label (a slug), got {_shown(raw['model'])}")
    for key in ("version", "stages"):
        if not is_int(raw[key]) or not 1 <= raw[key] <= 100_000:
            raise PlanError(f"{here}.{key}: must be a whole number from 1 to 100000, got {_shown(raw[key])}")
    return SuiteRef(raw["name"], raw["version"], raw["stages"], raw["model"])


def _verify_ref(raw: Any, name: str, here: str) -> VerifyRef:
    """A verification's `verify` table: the row it verifies and where its held-out deals come from."""
    if not isinstance(raw, Mapping) or set(raw) != set(VERIFY_KEYS):
        raise PlanError(f"{here}: must be a table of {', '.join(VERIFY_KEYS)} (written by `gamenight verify`)")
    for key in ("row", "suite"):
        if not isinstance(raw[key], str) or not SLUG.match(raw[key]):
            raise PlanError(f"{here}.{key}: must be a slug, got {_shown(raw[key])}")
    if name != VERIFY_PREFIX + raw["row"]:
        raise PlanError(f"{here}.row: the verification of {raw['row']!r} is the tournament "
                        f"{VERIFY_PREFIX + raw['row']!r}, not {name!r}")
    for key, low in (("version", 1), ("epoch", 1), ("deals", 0), ("replays", 0)):
        if not is_int(raw[key]) or not low <= raw[key] <= 100_000:
            raise PlanError(f"{here}.{key}: must be a whole number from {low} to 100000, got {_shown(raw[key])}")
    if not isinstance(raw["commitment"], str) or not re.match(r"^[0-9a-f]{64}$", raw["commitment"]):
        raise PlanError(f"{here}.commitment: must be the epoch's commitment, 64 hex digits")
    if not isinstance(raw["commit"], str) or not re.match(r"^[0-9a-f]{40}$", raw["commit"]):
        raise PlanError(f"{here}.commit: must be the row's merge commit, 40 hex digits")
    return VerifyRef(raw["row"], raw["suite"], raw["version"], raw["epoch"], raw["commitment"], raw["commit"],
                     raw["deals"], raw["replays"])


def _check_deals(matchups: Sequence[Matchup], suite: SuiteRef | None, where: str,
                 verify: VerifyRef | None = None) -> None:
    """A suite's plan (or a verification's) gives every matchup its deal, and only such a plan
    does; no two matchups with their own seeds plan the same game (one deal, one game id)."""
    seen: dict[str, int] = {}
    dealt = suite is not None or verify is not None
    for i, matchup in enumerate(matchups):
        here = f"{where}: matchups[{i}]"
        if (matchup.deal is None) == dealt:
            raise PlanError(f"{here}: deal: " + ("every matchup of a suite's plan gives its deal"
                                                  if dealt else "a deal belongs to a suite's plan "
                                                  "(a top-level suite table, written by `gamenight run --suite`)"))
        if matchup.deal is not None and matchup.deal.held_out and verify is None:
            raise PlanError(f"{here}: deal.held_out: held-out deals belong to a verification (`gamenight verify`)")
        if matchup.deal is not None:
            if matchup.seed is None:
                raise PlanError(f"{here}: seed: a suite's deal gives its game's seed")
            if suite is not None and matchup.deal.stage > suite.stages:
                raise PlanError(f"{here}: deal.stage: {matchup.deal.stage} is past the plan's "
                                f"{suite.stages} stage(s) (suite.stages)")
            if not matchup.lineup or matchup.seats is not None or matchup.deal.seat >= len(matchup.lineup):
                raise PlanError(f"{here}: deal.seat: a suite's deal seats its agents by a lineup in seat order, "
                                "the candidate at deal.seat")
        if matchup.seed is not None:
            key = f"{matchup.key()}\n{matchup.seed}"
            if key in seen:
                raise PlanError(f"{here}: seed: matchups[{seen[key]}] plans the same game (same agents, same seed)")
            seen[key] = i


def _check_reserved_seeds(matchups: Sequence[Matchup], suite: SuiteRef | VerifyRef | None, where: str) -> None:
    """An ordinary tournament gives no matchup the seed of a shipped suite's deal of its game: those
    deals are played in suite rows only (runner/deals.py), and again in their verifications."""
    if suite is not None:
        return  # a suite's plan, held to exactly the suite's deals by runner/suite.py (a verification's: verify.py)
    for i, matchup in enumerate(matchups):
        problem = reserved_problem(matchup.game, matchup.seed) if matchup.seed is not None else None
        if problem:
            raise PlanError(f"{where}: matchups[{i}].seed: {problem}; leave the seed out or choose another")


def agents_table(raw: Any, where: str) -> dict[str, AgentSpec]:
    """The `[agents]` tables of a file (a tournament's or a suite's), checked."""
    return _agents(raw, where)


def _agents(raw: Any, where: str) -> dict[str, AgentSpec]:
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: agents: must be a table of named agents")
    found = {}
    for name, spec in raw.items():
        here = f"{where}: agents.{_key(name)}"
        if isinstance(spec, Mapping) and "human" in spec:
            found[name] = _human_agent(name, spec, here)
            continue
        if not SLUG.match(name):
            raise PlanError(f"{here}: agent names must be short slugs")
        if not isinstance(spec, Mapping):
            raise PlanError(f"{here}: must be a table")
        _refuse_secrets(spec, here)
        if "builtin" in spec and "provider" in spec:
            raise PlanError(f"{here}: give builtin (a scripted agent) or provider (a language model), not both")
        if "builtin" in spec and not isinstance(spec["builtin"], str):
            raise PlanError(f"{here}.builtin: must name a built-in strategy, e.g. builtin = \"chameleon/trivial\"")
        if "builtin" in spec:
            found[name] = _builtin_agent(name, spec, here)
        elif "provider" in spec or "model" in spec:
            found[name] = _llm_agent(name, spec, here)
        else:
            raise PlanError(f"{here}: needs either builtin = \"<strategy>\" (a scripted agent; "
                            f"`gamenight agents` lists them) or provider = {_choices(NAMES)} "
                            "and model = \"...\" (a language model)")
    return found


def _human_agent(name: str, spec: Mapping[str, Any], here: str) -> AgentSpec:
    """A person's seat in the plan `gamenight play` writes: `{human = true}` under the name they
    chose (a person's name may hold spaces and apostrophes, so it is checked as one, not as a slug)."""
    from runner.agents.human import check_name

    if dict(spec) != {"human": True}:
        raise PlanError(f"{here}: a person is written {{human = true}} and nothing else")
    try:
        check_name(name)
    except ValueError as exc:
        raise PlanError(f"{here}: {exc}") from None
    return AgentSpec(name, {"human": True})


def _builtin_agent(name: str, spec: Mapping[str, Any], here: str) -> AgentSpec:
    known = strategies()
    if spec["builtin"] not in known:
        raise PlanError(f"{here}.builtin: unknown strategy {_shown(spec['builtin'])}; "
                        f"known: {', '.join(sorted(known))}")
    params = {k: v for k, v in spec.items() if k != "builtin"}
    defaults = known[spec["builtin"]].defaults
    bad = sorted(set(params) - set(defaults))
    if bad:
        raise PlanError(f"{here}: {spec['builtin']} has no parameter(s) {_shown(bad)}; "
                        f"it takes {sorted(defaults) or 'none'}")
    return AgentSpec(name, {"builtin": spec["builtin"], "params": params})


def _shown(value: Any, limit: int = 80) -> str:
    """A value of the file as a message quotes it: its repr (one line), cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quoted(name: str) -> str:
    """A key of the file quoted as TOML writes it (a dotted name), cut like `_shown`."""
    text = json.dumps(name)
    return text if len(text) <= 80 else text[:79] + "…"


def _key(name: str) -> str:
    """A key of the file as a message names it: as written if short and printable, else quoted."""
    return name if len(name) <= 80 and name.isprintable() else _shown(name)


def _choices(options: Sequence[str]) -> str:
    return " | ".join(f'"{o}"' for o in options)


def _refuse_secrets(table: Mapping[str, Any], here: str) -> None:
    """Refuse keys that would hold a credential; never echo their values."""
    for key in table:
        if key not in _NOT_SECRETS and _SECRET_KEY.search(str(key)):
            raise PlanError(f"{here}.{key}: a tournament file must never hold a key or other secret "
                            "(files are shared and committed). Put the key in an environment variable "
                            "and name that variable instead, e.g. api_key_env = \"OPENAI_API_KEY\"")


def _llm_agent(name: str, spec: Mapping[str, Any], here: str) -> AgentSpec:
    """A language-model agent table, checked; every played setting normalised for the game ids."""
    unknown = sorted(set(spec) - set(LLM_PLAY_KEYS) - set(LLM_ACCESS_KEYS))
    if unknown:
        raise PlanError(f"{here}: unknown key(s) {_shown(unknown)} for a language-model agent; allowed: "
                        f"{', '.join(LLM_PLAY_KEYS + LLM_ACCESS_KEYS)}")
    provider = spec.get("provider")
    if provider not in NAMES:
        raise PlanError(f"{here}.provider: must be one of {_choices(NAMES)}, got {_shown(provider)}")
    model = spec.get("model")
    if not isinstance(model, str) or not model.strip() or len(model) > 200:
        raise PlanError(f"{here}.model: must name the model, e.g. model = \"gpt-4o\"")
    base_url = _base_url(spec.get("base_url"), provider, f"{here}.base_url")
    temperature = _optional_number(spec.get("temperature"), f"{here}.temperature", 0.0, 2.0)
    max_tokens = _optional_int(spec.get("max_tokens"), f"{here}.max_tokens", 1, 1_000_000)
    seed = _optional_int(spec.get("seed"), f"{here}.seed", -(2**63), 2**63 - 1)
    design = spec.get("design", "vanilla")
    design_params = spec.get("design_params", {})
    if not isinstance(design_params, Mapping):
        raise PlanError(f"{here}.design_params: must be a table, e.g. design_params = {{ openness = \"high\" }}")
    _refuse_secrets(design_params, f"{here}.design_params")
    from runner.agents.llm import check_design  # the designs say which exist and what they take

    try:
        check_design(design, _plain(design_params))
    except ValueError as exc:
        raise PlanError(f"{here}.{exc}") from None
    played = {"provider": provider, "model": model, "base_url": base_url,
              "temperature": None if temperature is None else float(temperature),
              "max_tokens": max_tokens, "seed": seed, "design": design,
              "design_params": _plain(design_params), **_llm_options(spec, here)}
    access = {"api_key_env": _key_variable(spec.get("api_key_env"), f"{here}.api_key_env"),
              "timeout_s": _optional_number(spec.get("timeout_s"), f"{here}.timeout_s", 0.001, 3600.0)}
    if spec.get("prompt_cache") is not None:
        access["prompt_cache"] = _optional_bool(spec["prompt_cache"], f"{here}.prompt_cache")
    agent = AgentSpec(name, played, access)
    from runner.llm.connections import check_settings  # what the provider layer would refuse at run time

    try:
        check_settings(agent.settings())
    except ValueError as exc:
        raise PlanError(f"{here}: {exc}") from None
    return agent


def _optional_bool(value: Any, here: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise PlanError(f"{here}: must be true or false, got {_shown(value)}")
    return value


def _llm_options(spec: Mapping[str, Any], here: str) -> dict[str, Any]:
    """The optional provider and answer options of an agent table, given ones only, normalised."""
    options: dict[str, Any] = {}
    if spec.get("top_p") is not None:
        options["top_p"] = float(_optional_number(spec["top_p"], f"{here}.top_p", 0.0, 1.0))
    if spec.get("stop") is not None:
        stop = spec["stop"]
        if isinstance(stop, str):
            stop = [stop]
        if not isinstance(stop, list) or not all(isinstance(x, str) for x in stop):
            raise PlanError(f"{here}.stop: must be a string or a list of strings, e.g. stop = [\"\\n\\n\"]")
        options["stop"] = list(stop)
    for key in ("reasoning_effort", "structured_output"):
        if spec.get(key) is not None:
            if not isinstance(spec[key], str):
                raise PlanError(f"{here}.{key}: must be a string")
            options[key] = spec[key]
    if spec.get("thinking_budget") is not None:
        options["thinking_budget"] = _optional_int(spec["thinking_budget"], f"{here}.thinking_budget", 1, 10_000_000)
    if spec.get("structured_reasoning") is not None:
        if spec.get("structured_output") is None:
            raise PlanError(f"{here}.structured_reasoning: goes with structured_output (the reasoning field is "
                            "part of the answer's JSON Schema)")
        chars = _optional_int(spec["structured_reasoning"], f"{here}.structured_reasoning", 0,
                              MAX_STRUCTURED_REASONING)
        if chars:
            options["structured_reasoning"] = chars
    if spec.get("system_role") is not None:
        if not isinstance(spec["system_role"], bool):
            raise PlanError(f"{here}.system_role: must be true or false")
        if not spec["system_role"]:
            options["system_role"] = False  # only the non-default is recorded (ids of other files unchanged)
    if spec.get("extra_body") is not None:
        body = spec["extra_body"]
        if not isinstance(body, Mapping):
            raise PlanError(f"{here}.extra_body: must be a table, e.g. extra_body = {{ top_k = 40 }}")
        _refuse_secrets_deep(body, f"{here}.extra_body")
        options["extra_body"] = _plain(body)
    return options


#: A credential written as a value: provider key shapes (the providers', Groq, Hugging Face, xAI,
#: Google) or a bearer token.
_KEY_VALUE = re.compile(rf"\b(?:{_PROVIDER_KEYS})[A-Za-z0-9_-]{{12,}}|\b(sk|pk|rk|gsk|hf|xai)[-_][A-Za-z0-9_-]{{12,}}"
                        r"|\bAIza[0-9A-Za-z_-]{20,}|\bbearer\s+\S{12,}", re.IGNORECASE)


def _refuse_secrets_deep(value: Any, here: str) -> None:
    """No credential anywhere in a body passed as is: not as a key name, not as a value, at any
    depth of tables and lists (the value is never repeated in the message)."""
    if isinstance(value, Mapping):
        _refuse_secrets(value, here)
        for key, item in value.items():
            _refuse_secrets_deep(item, f"{here}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_secrets_deep(item, f"{here}[{i}]")
    elif isinstance(value, str) and _KEY_VALUE.search(value):
        raise PlanError(f"{here}: this value looks like an API key or token; a tournament file must never hold "
                        "one (files are shared and committed, and played settings are written into every replay)")


def _plain(value: Any) -> Any:
    """TOML values as plain JSON data (dates become ISO strings), for canonical ids and replays."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _base_url(value: Any, provider: str, here: str) -> str | None:
    if value is None:
        if PROVIDERS[provider].official_url is None:
            raise PlanError(f"{here}: an {provider} agent needs the server's URL, "
                            "e.g. base_url = \"http://127.0.0.1:8000/v1\"")
        return None
    if not isinstance(value, str) or not re.match(r"^https?://[^\s/]+", value) or len(value) > 500:
        raise PlanError(f"{here}: must be an http(s) URL such as \"http://127.0.0.1:8000/v1\"")
    from urllib.parse import urlsplit

    from urllib.parse import parse_qsl

    parts = urlsplit(value)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if ("@" in parts.netloc or any(_SECRET_KEY.search(name) for name, _ in query)
            or _KEY_VALUE.search(f"{parts.path} {parts.query} {parts.fragment}")):
        raise PlanError(f"{here}: the URL carries credentials; it is recorded in every replay. Give the "
                        "bare URL and put the key in an environment variable named by api_key_env")
    return value


def _key_variable(value: Any, here: str) -> str | None:
    """The NAME of the variable holding the key, refusing anything that looks like a key itself."""
    if value is None:
        return None
    if not isinstance(value, str) or _KEY_LIKE.search(value) or not _ENV_NAME.match(value) or (
            len(value) >= 24 and any(c.isdigit() for c in value) and any(c.islower() for c in value)):
        # The value is not shown: if it is a key, it must not reach a terminal or a log.
        raise PlanError(f"{here}: must be the NAME of an environment variable (like \"OPENAI_API_KEY\"), "
                        "not the key itself; the value given is not shown in case it is a secret")
    return value


def _optional_number(value: Any, here: str, low: float, high: float) -> float | None:
    if value is None:
        return None
    if not is_number(value) or not low <= value <= high:
        raise PlanError(f"{here}: must be a number from {low:g} to {high:g}, got {_shown(value)}")
    return value


def _optional_int(value: Any, here: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if not is_int(value) or not low <= value <= high:
        raise PlanError(f"{here}: must be a whole number from {low} to {high}, got {_shown(value)}")
    return value


def _providers(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """`[providers.<name>]` tables: client-side limits of the endpoint with that base_url, or else
    of every endpoint of that provider."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: providers: must be tables like [providers.openai]")
    found = {}
    for name, table in raw.items():
        here = f"{where}: providers.{_quoted(name) if '.' in name else _key(name)}"
        if name not in NAMES and not re.match(r"^https?://\S+$", name):
            raise PlanError(f"{here}: name a provider ({_choices(NAMES)}) or an endpoint's base_url, "
                            "e.g. [providers.\"http://127.0.0.1:8000/v1\"]")
        if not isinstance(table, Mapping):
            raise PlanError(f"{here}: must be a table of limits ({', '.join(LIMIT_KEYS)})")
        _refuse_secrets(table, here)
        unknown = sorted(set(table) - set(LIMIT_KEYS))
        if unknown:
            raise PlanError(f"{here}: unknown key(s) {_shown(unknown)}; allowed: {', '.join(LIMIT_KEYS)}")
        found[name] = {key: _limit(key, value, f"{here}.{key}") for key, value in table.items()}
    return found


def _limit(key: str, value: Any, here: str) -> int | float:
    if key == "max_concurrency":
        ok = is_int(value) and 1 <= value <= 100_000
    elif key == "max_retries":
        ok = is_int(value) and 0 <= value <= 20
    elif key.startswith("backoff"):
        ok = is_number(value) and value >= 0
    else:
        ok = is_number(value) and value > 0
    if not ok:
        raise PlanError(f"{here}: must be {LIMIT_KEYS[key]}, got {_shown(value)}")
    return value if key in ("max_concurrency", "max_retries") else float(value)


def _prices(raw: Any, where: str) -> dict[str, Price]:
    """`[prices."<model>"]` tables: USD per million input and output tokens."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: prices: must be tables like [prices.\"gpt-4o\"]")
    found = {}
    for model, table in raw.items():
        here = f"{where}: prices.{_quoted(model)}"
        if (not isinstance(table, Mapping) or not set(PRICE_KEYS) <= set(table)
                or not set(table) <= {*PRICE_KEYS, *CACHE_PRICE_KEYS}):
            raise PlanError(f"{here}: needs input = <USD per million input tokens> and "
                            "output = <USD per million output tokens>, and optionally cached_input = "
                            "<USD per million input tokens read from the provider's prompt cache> and "
                            "cache_write_input = <USD per million input tokens written to it>")
        for key in table:
            if not is_number(table[key]) or table[key] < 0:
                raise PlanError(f"{here}.{key}: must be a number of USD per million tokens, at least 0")
        found[model] = Price(float(table["input"]), float(table["output"]),
                             **{key: float(table[key]) for key in CACHE_PRICE_KEYS if key in table})
    return found


def resolve_agent(ref: Any, agents: Mapping[str, AgentSpec], where: str) -> AgentSpec:
    """A named agent from the tournament's table, or a built-in strategy named directly."""
    if not isinstance(ref, str):
        raise PlanError(f"{where}: must name an agent, got {_shown(ref)}")
    if ref in agents:
        return agents[ref]
    if ref in strategies():
        return AgentSpec(ref, {"builtin": ref, "params": {}})
    if ref.partition(":")[0] in NAMES:
        return compact_model(ref, where)
    raise PlanError(f"{where}: {_shown(ref)} is neither an agent of this tournament "
                    f"({', '.join(sorted(agents)) or 'none defined'}), a built-in strategy nor a model "
                    "written provider:model[@base_url]")


def compact_model(ref: str, where: str) -> AgentSpec:
    """A language model named on the command line as `provider:model[@base_url]` (e.g.
    `openai_compatible:gemma-3-270m@http://127.0.0.1:8000/v1`), with every other setting at its
    default; the agent is named after the model."""
    provider, _, rest = ref.partition(":")
    model, at, base_url = rest.partition("@")
    if not model.strip():
        raise PlanError(f"{where}: {_shown(ref)}: name the model after the provider, e.g. {provider}:gpt-4o-mini")
    if at and not base_url.strip():
        raise PlanError(f"{where}: {_shown(ref)}: give the server's base URL after '@', or leave the '@' out")
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", model.strip()).strip("-.") or "model"
    spec: dict[str, Any] = {"provider": provider, "model": model.strip()}
    if at:
        spec["base_url"] = base_url.strip()
    return _llm_agent(name[:60], spec, f"{where}: {ref}")


def key_option(value: str, where: str = "--key-env") -> str:
    """`--key-env VAR` (or a roster's `key_env`, at `where`): the NAME of the variable holding the
    key, checked like `api_key_env`."""
    variable = _key_variable(value, where)
    assert variable is not None
    return variable


def price_option(text: str, where: str = "--price") -> Price:
    """`IN/OUT[/CACHED]` (`--price`, a roster's `price`): USD per million input, output and
    (optionally) cached input tokens."""
    parts = text.split("/") if isinstance(text, str) else []
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (2, 3) or any(not v >= 0 or v == float("inf") for v in values):
        raise PlanError(f"{where} {_shown(text)}: give USD per million tokens as IN/OUT or IN/OUT/CACHED, e.g. "
                        "0.15/0.60")
    return Price(values[0], values[1], values[2] if len(values) == 3 else None)


def price_text(price: Price) -> str:
    """A price as `--price` takes it (`IN/OUT[/CACHED]`; a cache write is priced by the runner's
    default, 1.25 times input, Anthropic's own)."""
    shown = [f"{value:.12g}" for value in (price.input, price.output)]
    return "/".join(shown + ([f"{price.cached_input:.12g}"] if price.cached_input is not None else []))


def reading_key(agent: AgentSpec, variable: str) -> AgentSpec:
    """A language-model agent that reads its key from `variable`: how it is reached changes, never
    what it plays (the agent's spec, its game ids, its replays and its row are the same)."""
    return AgentSpec(agent.name, agent.spec, {**agent.access, "api_key_env": variable})


def with_key_env(tournament: Tournament, variable: str) -> Tournament:
    """The tournament with every language-model agent reading its key from `variable` (`--key-env`,
    which wins over the file's api_key_env); PlanError when no agent is a language model, or when the
    models reach more than one server (one key for two servers is a mistake: name each agent's
    variable with api_key_env instead)."""
    from dataclasses import replace

    models = tournament.llm_agents()
    if not models:
        raise PlanError("--key-env: no language model plays in this run (built-in agents read no key)")
    servers = sorted({(a.spec["provider"], a.spec.get("base_url") or "its own API") for a in models})
    if len(servers) > 1:
        shown = ", ".join(f"{provider} at {url}" for provider, url in servers)
        raise PlanError(f"--key-env {variable}: the run's models reach {len(servers)} servers ({shown}), and one key "
                        "cannot serve them all: name each agent's variable with api_key_env in the tournament file")

    def keyed(agent: AgentSpec) -> AgentSpec:
        return reading_key(agent, variable) if agent.is_llm else agent

    matchups = [replace(m, roles={role: keyed(a) for role, a in m.roles.items()},
                        lineup=type(m.lineup)(map(keyed, m.lineup))) for m in tournament.matchups]
    return replace(tournament, matchups=matchups, agents={n: keyed(a) for n, a in tournament.agents.items()})


def _matchup(raw: Any, agents: Mapping[str, AgentSpec], where: str) -> Matchup:
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: must be a table")
    unknown = sorted(set(raw) - MATCHUP_KEYS)
    if unknown:
        raise PlanError(f"{where}: unknown key(s) {_shown(unknown)}; allowed: {sorted(MATCHUP_KEYS)}")
    name = raw.get("game")
    try:
        game = games.get(name) if isinstance(name, str) else None
    except KeyError as exc:
        raise PlanError(f"{where}: game: {exc.args[0]}") from None
    if game is None:
        raise PlanError(f"{where}: game: must name a game ({', '.join(games.available())})")
    try:
        rules = game.params(raw.get("rules", {}))
    except SetupError as exc:
        raise PlanError(f"{where}: rules: {exc}") from None
    count = raw.get("games", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 100_000:
        raise PlanError(f"{where}: games: must be an integer from 1 to 100000")
    own_seed = raw.get("seed")
    if own_seed is not None and (not is_int(own_seed) or not 0 <= own_seed <= MAX_GAME_SEED or count != 1):
        raise PlanError(f"{where}: seed: a matchup's own seed is a whole number from 0 to {MAX_GAME_SEED:,} "
                        "and plays one game (games = 1)")
    deal = _deal(raw["deal"], f"{where}: deal") if "deal" in raw else None
    if ("roles" in raw) == ("lineup" in raw):
        raise PlanError(f"{where}: give either roles = {{role = agent}} or lineup = [agents by seat]")
    seats = raw.get("seats")
    if seats is not None and (seats not in SEAT_RULES or "lineup" not in raw):
        raise PlanError(f"{where}: seats: only a lineup's seats are dealt: seats = \"dealt\" beside lineup = [...]")
    if "lineup" in raw:
        lineup_raw = raw["lineup"]
        n = game.players(rules)
        if not isinstance(lineup_raw, list) or len(lineup_raw) != n:
            raise PlanError(f"{where}: lineup: {game.title} with these rules seats {n} agents")
        lineup = [resolve_agent(a, agents, f"{where}: lineup[{i}]") for i, a in enumerate(lineup_raw)]
        for i, agent in enumerate(lineup):
            _check_plays(agent, game.name, rules, f"{where}: lineup[{i}]")
        return Matchup(game.name, rules, count, lineup=lineup, seats=seats, seed=own_seed, deal=deal)
    roles_raw = raw["roles"]
    if not isinstance(roles_raw, Mapping):
        raise PlanError(f"{where}: roles: must map roles to agents")
    bad = sorted(set(roles_raw) - set(game.roles) - {"*"})
    if bad:
        raise PlanError(f"{where}: roles: {game.title} has no role(s) {_shown(bad)}; roles: {', '.join(game.roles)} "
                        "(\"*\" for every other role)")
    missing = [r for r in game.roles if r not in roles_raw]
    if missing and "*" not in roles_raw:
        raise PlanError(f"{where}: roles: no agent for {missing} (name them or use \"*\")")
    roles = {r: resolve_agent(a, agents, f"{where}: roles.{r}") for r, a in roles_raw.items()}
    for role, agent in roles.items():
        _check_plays(agent, game.name, rules, f"{where}: roles.{role}")
    return Matchup(game.name, rules, count, roles=roles, seed=own_seed, deal=deal)


def _deal(raw: Any, here: str) -> SuiteDeal:
    if not isinstance(raw, Mapping) or not set(DEAL_KEYS) <= set(raw) <= {*DEAL_KEYS, "held_out"}:
        raise PlanError(f"{here}: must be a table {{stage, index, seat}} (written by `gamenight run --suite`)")
    for key, low in (("stage", 1), ("index", 0), ("seat", 0)):
        if not is_int(raw[key]) or not low <= raw[key] <= 1_000_000:
            raise PlanError(f"{here}.{key}: must be a whole number from {low} to 1000000, got {_shown(raw[key])}")
    if raw.get("held_out", True) is not True:
        raise PlanError(f"{here}.held_out: true for a held-out deal, else left out")
    return SuiteDeal(raw["stage"], raw["index"], raw["seat"], "held_out" in raw)


def _check_plays(agent: AgentSpec, game: str, rules: Mapping[str, Any], where: str) -> None:
    strategy = agent.spec.get("builtin", "")  # language models play every game and variant
    if "/" in strategy and not strategy.startswith(game + "/"):
        raise PlanError(f"{where}: {agent.name} ({strategy}) does not play {game}")
    known = strategies().get(strategy)
    misfit = known.cannot_play(rules) if known is not None else None
    if misfit:
        raise PlanError(f"{where}: {agent.name}: {misfit}; change the matchup's rules or the agent")


def from_flags(name: str, game: str, roles: Sequence[str], lineup: str | None, rules: Mapping[str, Any],
               count: int, seed: int, created: str | None = None) -> Tournament:
    """A one-matchup tournament from command-line flags (role=agent pairs or a lineup)."""
    matchup: dict[str, Any] = {"game": game, "games": count, "rules": dict(rules)}
    if lineup:
        matchup["lineup"] = [a.strip() for a in lineup.split(",") if a.strip()]
    if roles:
        pairs = {}
        for item in roles:
            role, sep, agent = item.partition("=")
            if not sep:
                raise PlanError(f"--role {item!r}: expected ROLE=AGENT")
            pairs[role.strip()] = agent.strip()
        matchup["roles"] = pairs
    raw = {"name": name, "seed": seed, "matchups": [matchup]}
    if created:
        raw["created"] = created
    return from_dict(raw, "command line")
