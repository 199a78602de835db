"""The maintainers' roster (runner/roster.toml): the models they keep on the ranked board, how
many stages of the suite each should have, what one run may spend, and how they verify the rows
others contributed.

The scheduled maintainers' run (`gamenight roster plan` / `run`, .github/workflows/maintainers-run.yml)
reads it, works out what is missing, prices it with the dry run and plays what fits the budget.
Adding a model to the board is one line under `[models]`:

    [models]
    claude-sonnet-4-5 = { model = "anthropic:claude-sonnet-4-5", key_env = "ANTHROPIC_API_KEY", stages = 2 }

The file is read strictly, as a suite file is (runner/suite.py): anything wrong is a RosterError
of one line naming the file, the line and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import suite as suites
from runner import tomlfile
from runner.deals import MAX_STAGES
from runner.games.base import is_int, is_number
from runner.llm.providers import NAMES, PROVIDERS
from runner.plan import Price
from runner.tournament import PlanError, compact_model, key_option, price_option

#: Where the maintainers keep it, from the repository's root (the commands' default).
ROSTER_FILE = Path("runner") / "roster.toml"
#: Largest roster read (one line per model: a few kilobytes).
MAX_FILE_BYTES = 256 * 1024
#: The most one run may be told to spend.
MAX_BUDGET_USD = 100_000.0
#: The most held-out deals one verification may play.
MAX_VERIFY_DEALS = 1_000
TOP_KEYS = ("suite", "budget_usd", "models", "verify")
MODEL_KEYS = ("model", "key_env", "stages", "price")
VERIFY_KEYS = ("deals", "keys", "models")
REACH_KEYS = ("model", "key_env", "price")
#: Providers with one API of their own, where a contributed row's model is re-played as it is named.
HOSTED = tuple(name for name, provider in PROVIDERS.items() if provider.official_url is not None)


class RosterError(PlanError):
    """A roster that cannot be used; the message names the file, the line and the field."""


@dataclass(frozen=True)
class RosterModel:
    """A model the maintainers keep on the board: its row's label, how it is named and reached,
    the stages its row should hold, and its price when the price table has none."""

    label: str
    ref: str
    key_env: str | None
    stages: int
    price: Price | None
    line: int

    def candidate(self, suite: suites.Suite) -> suites.Candidate:
        return suites.candidate(suite, self.ref, self.label, self.key_env)


@dataclass(frozen=True)
class Reach:
    """How the maintainers reach a contributed row's model to verify it: `provider:model[@url]`,
    the variable of its key and, when the price table has none, its price."""

    ref: str
    key_env: str | None = None
    price: Price | None = None


@dataclass(frozen=True)
class Verify:
    """What the run verifies: every contributed ranked row without `replays/verify-<row>/`, on
    `deals` held-out deals, its model reached by `reach`."""

    deals: int = 0
    keys: Mapping[str, str] = field(default_factory=dict)   # provider -> the variable of its key
    models: Mapping[str, Reach] = field(default_factory=dict)  # "provider:model" -> how to reach it

    def reach(self, provider: str, model: str) -> Reach | None:
        """How to reach a row's model: as the roster names it under [verify.models], else on its
        provider's own API with the key [verify.keys] names; None when neither says."""
        named = self.models.get(f"{provider}:{model}")
        if named is not None:
            return named
        if provider in HOSTED and provider in self.keys:
            return Reach(f"{provider}:{model}", self.keys[provider])
        return None


@dataclass(frozen=True)
class Roster:
    suite: suites.Suite
    budget: float
    models: tuple[RosterModel, ...]
    verify: Verify
    where: str


def load(path: str | Path = ROSTER_FILE, shown: str | None = None) -> Roster:
    """Read and check a roster file."""
    return tomlfile.read_checked(path, MAX_FILE_BYTES, shown or str(path), from_dict, RosterError, PlanError,
                                 "a roster")


def from_dict(raw: Mapping[str, Any], where: str = "roster", text: str = "") -> Roster:
    """Check a roster (as parsed from TOML; `text`, the file, only to name lines)."""
    at = _Locator(where, text)
    _known(raw, TOP_KEYS, at, ())
    suite_ref = raw.get("suite", "ranked")
    if not isinstance(suite_ref, str):
        raise RosterError(f"{at(('suite',))}: must be the name of a shipped suite, e.g. \"ranked\"")
    try:
        suite = suites.find(suite_ref)
    except PlanError as exc:
        raise RosterError(f"{at(('suite',))}: {_reworded(str(exc))}") from None
    budget = raw.get("budget_usd")
    if not is_number(budget) or not 0 < budget <= MAX_BUDGET_USD:
        raise RosterError(f"{at(('budget_usd',))}: must be the most one run may spend, in USD, a number above 0 and "
                          f"at most {MAX_BUDGET_USD:,.0f}, got {_shown(budget)}")
    models = _table(raw.get("models", {}), at, ("models",), "tables like gpt-5 = { model = ..., stages = 2 }")
    roster_models = tuple(_model(label, entry, suite, at) for label, entry in models.items())
    verify = _verify(raw.get("verify"), at)
    return Roster(suite, float(budget), roster_models, verify, where)


def _model(label: str, entry: Any, suite: suites.Suite, at: _Locator) -> RosterModel:
    here = ("models", label)
    entry = _table(entry, at, here, "a table of model, stages and optionally key_env and price")
    _known(entry, MODEL_KEYS, at, here)
    ref = entry.get("model")
    if not isinstance(ref, str) or not ref.strip():
        raise RosterError(f"{at((*here, 'model'))}: name the model as provider:model[@base_url] (providers: "
                          f"{', '.join(NAMES)}) or a tournament file's agent, file.toml#agent")
    if ref.startswith(suites.BUILTIN_PREFIX):
        raise RosterError(f"{at((*here, 'model'))}: the suite's built-in rows need no roster: a roster keeps "
                          "language models on the board")
    stages = entry.get("stages")
    if not is_int(stages) or not 1 <= stages <= MAX_STAGES:
        raise RosterError(f"{at((*here, 'stages'))}: must be the stages its row should hold, a whole number from 1 "
                          f"to {MAX_STAGES:,}, got {_shown(stages)}")
    key_env = _key_env(entry, at, here)
    price = _price(entry, at, here)
    model = RosterModel(label, ref, key_env, stages, price, at.line(here))
    try:
        model.candidate(suite)
    except PlanError as exc:  # the label is the table's name; anything else is about the model
        shown = at(here) if str(exc).startswith("--label") else at((*here, "model"))
        raise RosterError(f"{shown}: {_reworded(str(exc))}") from None
    return model


def _verify(raw: Any, at: _Locator) -> Verify:
    if raw is None:
        return Verify()
    here = ("verify",)
    raw = _table(raw, at, here, "a table of deals, keys and models")
    _known(raw, VERIFY_KEYS, at, here)
    deals = raw.get("deals")
    if not is_int(deals) or not 1 <= deals <= MAX_VERIFY_DEALS:
        raise RosterError(f"{at((*here, 'deals'))}: must be the held-out deals each verification plays, a whole "
                          f"number from 1 to {MAX_VERIFY_DEALS:,}, got {_shown(deals)}")
    keys = _table(raw.get("keys", {}), at, (*here, "keys"), "a table like keys = { openai = \"OPENAI_API_KEY\" }")
    for provider, variable in keys.items():
        if provider not in HOSTED:
            raise RosterError(f"{at((*here, 'keys', provider))}: a provider with an API of its own "
                              f"({', '.join(HOSTED)}); reach any other server under [verify.models]")
        key_option(variable, at((*here, "keys", provider)))
    models = _table(raw.get("models", {}), at, (*here, "models"),
                    "tables like \"openai_compatible:my-model\" = { model = \"openai_compatible:my-model@URL\" }")
    return Verify(deals, dict(keys), {name: _reach(name, entry, at) for name, entry in models.items()})


def _reach(name: str, entry: Any, at: _Locator) -> Reach:
    here = ("verify", "models", name)
    provider, colon, model = name.partition(":")
    if not colon or provider not in NAMES or not model or "@" in model:
        raise RosterError(f"{at(here)}: name a contributed row's model as its plan does, provider:model (providers: "
                          f"{', '.join(NAMES)}), without a base URL")
    entry = _table(entry, at, here, "a table of model and optionally key_env and price")
    _known(entry, REACH_KEYS, at, here)
    ref = entry.get("model")
    if not isinstance(ref, str) or ref.partition(":")[0] not in NAMES:
        raise RosterError(f"{at((*here, 'model'))}: how to reach it, provider:model[@base_url] (providers: "
                          f"{', '.join(NAMES)})")
    try:
        compact_model(ref, at((*here, "model")))
    except PlanError as exc:
        raise RosterError(str(exc)) from None
    return Reach(ref, _key_env(entry, at, here), _price(entry, at, here))


def _key_env(entry: Mapping[str, Any], at: _Locator, here: tuple[str, ...]) -> str | None:
    if "key_env" not in entry:
        return None
    return key_option(entry["key_env"], at((*here, "key_env")))


def _price(entry: Mapping[str, Any], at: _Locator, here: tuple[str, ...]) -> Price | None:
    if "price" not in entry:
        return None
    return price_option(entry["price"], at((*here, "price")))


def _table(value: Any, at: _Locator, here: tuple[str, ...], what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RosterError(f"{at(here)}: must be {what}")
    return value


def _known(table: Mapping[str, Any], allowed: tuple[str, ...], at: _Locator, here: tuple[str, ...]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RosterError(f"{at((*here, unknown[0]))}: unknown key; {'.'.join(here) or 'the file'} takes "
                          f"{', '.join(allowed)}")


def _reworded(message: str) -> str:
    """A runner message about a command-line option, said of the roster's field instead."""
    return re.sub(r"^--[a-z-]+(?: '[^']*')?: ", "", message)


def _shown(value: Any) -> str:
    return tomlfile.one_line(repr(value), 80)


# -- where a field is ---------------------------------------------------------------------------

_PART = r"(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*')"
_DOTTED = rf"{_PART}(?:[ \t]*\.[ \t]*{_PART})*"
_HEADER = re.compile(rf"^[ \t]*\[\[?[ \t]*({_DOTTED})[ \t]*\]")
_KEY = re.compile(rf"^[ \t]*({_DOTTED})[ \t]*=")


def _parts(dotted: str) -> tuple[str, ...]:
    found = []
    for part in re.findall(_PART, dotted):
        if part.startswith('"'):
            try:
                part = json.loads(part)
            except ValueError:
                part = part[1:-1]
        elif part.startswith("'"):
            part = part[1:-1]
        found.append(part)
    return tuple(found)


class _Locator:
    """Names a field of the file as `file:line: a.b.c` (the line where its key or table stands)."""

    def __init__(self, where: str, text: str):
        self.where = where
        self.keys: list[tuple[tuple[str, ...], int]] = []
        table: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                table = _parts(header.group(1))
                self.keys.append((table, number))
                continue
            key = _KEY.match(line)
            if key:
                self.keys.append(((*table, *_parts(key.group(1))), number))
                # An inline table on one line: its keys stand on that line too.
                for inner in re.finditer(rf"[{{,][ \t]*({_DOTTED})[ \t]*=", line[key.end():]):
                    self.keys.append(((*table, *_parts(key.group(1)), *_parts(inner.group(1))), number))

    def line(self, path: tuple[str, ...]) -> int:
        """The line of the field (or of the nearest table holding it that the file names); 0 if none."""
        for length in range(len(path), 0, -1):
            for keys, number in self.keys:
                if keys == path[:length]:
                    return number
        return 0

    def __call__(self, path: tuple[str, ...]) -> str:
        number = self.line(path) if path else 0
        place = f"{self.where}:{number}" if number else self.where
        return f"{place}: {'.'.join(path)}" if path else place
