"""Cost per game: what a model row's games cost at the list prices the maintainers keep
(runner/prices.toml), from the tokens each replay records (docs/metrics.md, "Cost").

A language-model row is one of three kinds:

- **priced**: the price table has an entry for its provider and model, giving a price for every
  kind of token its replays hold; its cost per game is the USD of all its recorded tokens (fresh
  input, input read from and written to the provider's prompt cache, output) divided by the
  games it sat in;
- **local**: it was served from the machine that played its games (its base URL is a loopback
  address): no token was bought, so it has no token price; its measured model time per game
  stands beside it;
- **unpriced**: anything else (no entry, or an entry without the price of tokens it used).

Every row also carries its model-seconds per game: the recorded latency of its calls, summed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from runner.prices import PriceEntry, PriceTable
from site_builder.scoring.model import AgentInfo, ScoredGame

#: The token counts a seat's usage holds (scoring/corpus.py), as the cost reads them.
TOKENS = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
PRICED, LOCAL, UNPRICED = "priced", "local", "unpriced"


def is_loopback(base_url: Any) -> bool:
    """Whether a base URL points at this machine (localhost, 127.0.0.0/8, ::1)."""
    if not isinstance(base_url, str):
        return False
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pricing(description: Mapping[str, Any], table: PriceTable) -> tuple[str, PriceEntry | None, str | None]:
    """(kind, the table's entry, why there is no price) of a language-model agent."""
    provider, model = description.get("provider"), description.get("model")
    if is_loopback(description.get("base_url")):
        return LOCAL, None, "served from the machine that played its games (a loopback address): no token price"
    entry = table.find(provider, model)
    if entry is None:
        return UNPRICED, None, f"no price for {provider}:{model} in the price table"
    return PRICED, entry, None


def usd(tokens: Mapping[str, float], entry: PriceEntry) -> tuple[float | None, str | None]:
    """USD of these tokens at the entry's prices, or None and why (tokens it gives no price for)."""
    price = entry.price
    if tokens.get("cached_input_tokens") and price.cached_input is None:
        return None, f"the price table gives no cached-input price for {entry.key}"
    if tokens.get("cache_write_input_tokens") and price.cache_write_input is None:
        return None, f"the price table gives no cache-write price for {entry.key}"
    return price.cost(tokens.get("input_tokens", 0), tokens.get("output_tokens", 0),
                      tokens.get("cached_input_tokens", 0), tokens.get("cache_write_input_tokens", 0)), None


def _tally() -> dict[str, float]:
    return {"games": 0, "calls": 0, **{k: 0 for k in TOKENS}, "latency_ms": 0.0}


def _add(total: dict[str, float], spent: Mapping[str, float]) -> None:
    for name in ("calls", *TOKENS, "latency_ms"):
        total[name] += spent.get(name, 0)  # a compact game leaves zeros out


def _figures(total: Mapping[str, float], kind: str, entry: PriceEntry | None, why: str | None) -> dict[str, Any]:
    """A row's cost figures from its summed usage."""
    games = total["games"]
    dollars = None
    if kind == PRICED and entry is not None:
        dollars, why = usd(total, entry)
        kind = PRICED if dollars is not None else UNPRICED
    return {"status": kind, "why": why, "price": entry.key if entry else None, "games": games,
            "calls": total["calls"], **{k: total[k] for k in TOKENS},
            "usd": dollars, "usd_per_game": dollars / games if dollars is not None and games else None,
            "model_seconds_per_game": total["latency_ms"] / 1000 / games if games else None}


def agent_costs(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], table: PriceTable) -> dict[str, Any]:
    """{"agents": per language-model agent, its cost figures over all its games and in each game's
    games (`by_game`)}."""
    totals: dict[str, dict[str, float]] = {}
    by_game: dict[str, dict[str, dict[str, float]]] = {}
    for game in games:
        seen = set()
        for seat, spent in zip(game.seats, game.usage):
            if agents[seat.agent].kind != "llm":
                continue
            for total in (totals.setdefault(seat.agent, _tally()),
                          by_game.setdefault(seat.agent, {}).setdefault(game.game, _tally())):
                _add(total, spent)
                if seat.agent not in seen:
                    total["games"] += 1
            seen.add(seat.agent)
    out = {}
    for key in sorted(totals):
        kind, entry, why = pricing(agents[key].description, table)
        out[key] = {"label": agents[key].label, **_figures(totals[key], kind, entry, why),
                    "by_game": {name: _figures(t, kind, entry, why) for name, t in sorted(by_game[key].items())}}
    return {"agents": out}


def suite_costs(games: Iterable[ScoredGame], agents: Mapping[str, AgentInfo], table: PriceTable
                ) -> dict[str, dict[str, Any]]:
    """Per ranked-suite row (its tournament): the cost figures of its candidate's seat over the
    row's suite games. A row whose candidate is a built-in agent costs nothing and is left out."""
    seats: dict[str, dict[str, dict[str, float]]] = {}  # row -> candidate agent -> tally
    for game in games:
        if not game.suite:
            continue
        seat = game.seats[game.suite["seat"]]
        if agents[seat.agent].kind != "llm":
            continue
        total = seats.setdefault(game.tournament, {}).setdefault(seat.agent, _tally())
        _add(total, game.usage[seat.seat])
        total["games"] += 1
    out = {}
    for row, by_agent in sorted(seats.items()):
        parts = [_figures(t, *pricing(agents[key].description, table)) for key, t in sorted(by_agent.items())]
        out[row] = parts[0] if len(parts) == 1 else _joined(parts)
    return out


def _joined(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One row's figures from those of each agent that held its candidate seat (rare: a row is
    normally one agent): priced only if every part is."""
    games = sum(p["games"] for p in parts)
    priced = all(p["usd"] is not None for p in parts)
    dollars = sum(p["usd"] for p in parts) if priced else None
    seconds = sum((p["model_seconds_per_game"] or 0) * p["games"] for p in parts)
    first = next((p for p in parts if p["usd"] is None), parts[0])
    return {"status": PRICED if priced else first["status"], "why": None if priced else first["why"],
            "price": None, "games": games, "calls": sum(p["calls"] for p in parts),
            **{k: sum(p[k] for p in parts) for k in TOKENS}, "usd": dollars,
            "usd_per_game": dollars / games if dollars is not None and games else None,
            "model_seconds_per_game": seconds / games if games else None}
