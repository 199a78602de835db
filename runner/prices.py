"""The price table the maintainers keep (runner/prices.toml): list prices per model, in USD per
million tokens, each entry with the date it was read and the page it was read on.

The scorer prices every model row of the leaderboard from it (site_builder/scoring/cost.py), and
`gamenight run --dry-run` falls back to it for a model given no price. Anything wrong with the
file is a PriceTableError of one line naming the file and the field.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import tomlfile
from runner.games.base import is_number
from runner.llm.providers import NAMES
from runner.plan import Price

#: The shipped table.
PRICES_FILE = Path(__file__).with_name("prices.toml")
#: Largest price table read (the shipped one is a few kilobytes).
MAX_FILE_BYTES = 256 * 1024
#: Keys of an entry: every one of REQUIRED, any of OPTIONAL.
REQUIRED = ("input", "output", "read", "source")
OPTIONAL = ("cached_input", "cache_write_input")
#: Highest price taken (USD per million tokens): a larger one is a typo (per token, per thousand...).
MAX_PRICE = 10_000.0
_SOURCE = re.compile(r"^https://[^\s\"<>]{3,300}$")
_MODEL = re.compile(r"^[^\s\x00-\x1f\x7f]{1,200}$")


class PriceTableError(ValueError):
    """A price table that cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class PriceEntry:
    """One model's list prices, when and where they were read."""

    provider: str
    model: str
    price: Price
    read: str    # the date the prices were read, YYYY-MM-DD
    source: str  # the page they were read on (https)

    @property
    def key(self) -> str:
        return f"{self.provider}:{self.model}"

    def to_json(self) -> dict[str, Any]:
        """The entry as the results file carries it (a price the table does not give is null)."""
        return {"provider": self.provider, "model": self.model, "input": self.price.input,
                "cached_input": self.price.cached_input, "cache_write_input": self.price.cache_write_input,
                "output": self.price.output, "read": self.read, "source": self.source}


@dataclass(frozen=True)
class PriceTable:
    """Every entry of a price table, by `provider:model`."""

    entries: Mapping[str, PriceEntry]
    path: str = str(PRICES_FILE)

    def find(self, provider: Any, model: Any) -> PriceEntry | None:
        """The entry of this provider's model, or None."""
        return self.entries.get(f"{provider}:{model}") if isinstance(provider, str) and isinstance(model, str) else None


def load(path: str | os.PathLike[str] = PRICES_FILE) -> PriceTable:
    """Read and check a price table."""
    try:
        raw, _ = tomlfile.read_file(path, MAX_FILE_BYTES)
    except tomlfile.FileProblem as exc:
        raise PriceTableError(str(exc)) from None
    return PriceTable(from_dict(raw, str(path)), str(path))


def from_dict(raw: Mapping[str, Any], where: str) -> dict[str, PriceEntry]:
    """The entries of a parsed table: `[models."<provider>:<model>"]` tables and nothing else."""
    unknown = sorted(set(raw) - {"models"})
    if unknown:
        raise PriceTableError(f"{where}: unknown key(s) {_shown(unknown)}; the file holds [models.\"provider:model\"] "
                              "tables only")
    models = raw.get("models", {})
    if not isinstance(models, Mapping):
        raise PriceTableError(f"{where}: models: must be tables like [models.\"openai:gpt-4\"]")
    return {key: _entry(key, table, f"{where}: models.{_shown(key)}") for key, table in models.items()}


def _entry(key: str, table: Any, here: str) -> PriceEntry:
    provider, colon, model = key.partition(":")
    if not colon or provider not in NAMES or not _MODEL.match(model):
        raise PriceTableError(f"{here}: name the entry provider:model, the provider one of {', '.join(NAMES)} "
                              "and the model as agents name it (no spaces), e.g. \"anthropic:claude-sonnet-4-5\"")
    if not isinstance(table, Mapping):
        raise PriceTableError(f"{here}: must be a table of {', '.join(REQUIRED)} "
                              f"(and optionally {', '.join(OPTIONAL)})")
    missing = [k for k in REQUIRED if k not in table]
    extra = sorted(set(table) - {*REQUIRED, *OPTIONAL})
    if missing or extra:
        said = [f"missing {', '.join(missing)}"] if missing else []
        said += [f"unknown {_shown(extra)}"] if extra else []
        raise PriceTableError(f"{here}: {'; '.join(said)} (an entry holds {', '.join(REQUIRED)} and optionally "
                              f"{', '.join(OPTIONAL)})")
    for name in ("input", "output", *OPTIONAL):
        if name in table and not (is_number(table[name]) and 0 <= table[name] <= MAX_PRICE):
            raise PriceTableError(f"{here}.{name}: must be USD per million tokens, a number from 0 to "
                                  f"{MAX_PRICE:,.0f}, got {_shown(table[name])}")
    return PriceEntry(provider, model, Price(float(table["input"]), float(table["output"]),
                                             **{k: float(table[k]) for k in OPTIONAL if k in table}),
                      _date(table["read"], f"{here}.read"), _source(table["source"], f"{here}.source"))


def _date(value: Any, here: str) -> str:
    """The day the prices were read: a TOML date (read = 2026-11-28) or the same as a string."""
    if isinstance(value, str):
        try:
            value = datetime.date.fromisoformat(value) if len(value) == 10 else None
        except ValueError:
            value = None
    if not isinstance(value, datetime.date) or isinstance(value, datetime.datetime):
        raise PriceTableError(f"{here}: must be the day the prices were read, YYYY-MM-DD")
    return value.isoformat()


def _source(value: Any, here: str) -> str:
    if not isinstance(value, str) or not _SOURCE.match(value):
        raise PriceTableError(f"{here}: must be the https address of the page the prices were read on")
    return value


def _shown(value: Any) -> str:
    return tomlfile.one_line(repr(value), 80)
