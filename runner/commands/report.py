"""What a run or a judging says when it ends: the games played, kept and forfeited, the calls,
tokens and cost per model, the provider failures (shared by `run`, `judge` and the suite's stages)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping

import click

from runner import games
from runner.plan import Price
from runner.run import Summary, Usage


def exit_if_failed(summary: Summary) -> None:
    """Name every failed game and provider failure, then exit with status 1 (a run that failed)."""
    if not summary.ok:
        for failure in summary.failures:
            click.echo(f"failed: {failure}", err=True)
        _print_provider_failures(summary)
        sys.exit(1)


def _print_provider_failures(summary: Summary) -> None:
    """Games the providers could not serve: the cause once (not once per game), and what to do."""
    if summary.stopped is not None:
        click.echo(f"stopped: the provider failed, not the model: {summary.stopped}", err=True)
    reasons = Counter(message for _, message in summary.not_played if message != summary.stopped)
    for message, count in sorted(reasons.items()):
        click.echo(f"not played ({count} game{'s' if count != 1 else ''}): the provider failed: {message}", err=True)
    missing = len(summary.not_played) + summary.never_started
    if missing:
        click.echo(f"{missing} game{'s were' if missing != 1 else ' was'} not played and nothing was written for "
                   f"{'them' if missing != 1 else 'it'}; run the same command again to play "
                   f"{'them' if missing != 1 else 'it'}.", err=True)


def print_summary(summary: Summary) -> None:
    """The games played, kept and forfeited per game, the warnings about kept games, the wins by agent."""
    names = sorted(set(summary.played) | set(summary.skipped), key=_game_order)
    click.echo(f"{'game':<20}{'played':>8}{'kept':>8}{'forfeited':>11}")
    for name in names:
        click.echo(f"{name:<20}{summary.played[name]:>8}{summary.skipped[name]:>8}{summary.invalid[name]:>11}")
    click.echo(f"{'total':<20}{sum(summary.played.values()):>8}{sum(summary.skipped.values()):>8}"
               f"{sum(summary.invalid.values()):>11}")
    if summary.replaced:
        click.echo(f"({summary.replaced} replay{'s' if summary.replaced != 1 else ''} that an older runner wrote as "
                   "forfeits for provider failures were played again)")
    if summary.foreign:
        sources = "; ".join(f"{len(names):,} {cell(label, 300)}" for label, names in summary.foreign_sources)
        click.echo(f"WARNING: {len(summary.foreign):,} of the {sum(summary.skipped.values()):,} games kept were not "
                   f"written by a run on this machine: {sources}")
    if summary.unrecorded:
        click.echo(f"warning: {summary.unrecorded:,} game(s) written now could not be noted in the record of this "
                   "machine's games (the cache folder is not writable?): a later run will take them for games it "
                   "did not write", err=True)
    if summary.appearances:
        click.echo("\nwins by agent in the games played now (seats that won / seats played):")
        for (game, agent), seats in sorted(summary.appearances.items(), key=lambda kv: (_game_order(kv[0][0]), kv[0][1])):
            won = summary.wins[(game, agent)]
            click.echo(f"  {game:<20}{agent:<34}{won:>5} / {seats:<5} ({won / seats:.0%})")


def print_usage(usage: Mapping[str, Usage], prices: Mapping[str, Price],
                 spent: Mapping[str, Mapping[str, int]] | None = None) -> None:
    """Calls, tokens and (where a price is known) cost per model, summed from the evidence.

    "cached" counts calls answered from the response cache: they are in the replays (and in the
    token columns, as recorded) but were not paid for again, so the cost leaves them out. Calls
    the providers answered for games that were then abandoned are in no replay: `spent` (what
    the providers answered in this run) shows them on a line of their own.
    """
    _print_unrecorded(usage, prices, spent or {})
    if not usage:
        return
    click.echo("\nmodel calls in the games played now:")
    click.echo(f"  {'model':<36}{'calls':>8}{'cached':>8}{'input tok':>13}{'output tok':>13}{'cost USD':>11}")
    total, costs, unpriced = Usage(), [], []
    for model in sorted(usage):
        used = usage[model]
        cost = used.cost(prices.get(model))
        costs.append(cost)
        if cost is None:
            unpriced.append(model)
        click.echo(f"  {cell(model, 35):<36}{used.calls:>8,}{used.replayed_calls:>8,}{used.input_tokens:>13,}"
                   f"{used.output_tokens:>13,}{money(cost):>11}")
        for name in ("calls", "replayed_calls", "input_tokens", "output_tokens", "cached_input_tokens",
                     "cache_write_input_tokens", "reasoning_tokens"):
            setattr(total, name, getattr(total, name) + getattr(used, name))
    known = sum(c for c in costs if c is not None)
    click.echo(f"  {'total':<36}{total.calls:>8,}{total.replayed_calls:>8,}{total.input_tokens:>13,}"
               f"{total.output_tokens:>13,}{money(known if costs and not unpriced else None, known):>11}")
    if total.cached_input_tokens or total.cache_write_input_tokens or total.reasoning_tokens:
        click.echo(f"  of which: {total.cached_input_tokens:,} input tokens read from the providers' prompt caches, "
                   f"{total.cache_write_input_tokens:,} written to them, "
                   f"{total.reasoning_tokens:,} output tokens spent thinking")
    if unpriced:
        click.echo(f"  no [prices] table for: {', '.join(cell(m, 60) for m in unpriced)} (the total cost leaves them out)")
    print_caching({model: (used.cached_input_tokens, used.cache_write_input_tokens, used.cost(prices.get(model)),
                            used.cost(prices.get(model), caching=False)) for model, used in usage.items()})


def print_caching(models: Mapping[str, tuple[float, float, float | None, float | None]]) -> None:
    """Per model whose prompts were cached: tokens read and written, the cost with and without caching."""
    cached = {m: row for m, row in models.items() if row[0] or row[1]}
    if not cached:
        return
    click.echo("\nprompt caching (input tokens read from / written to the provider's cache):")
    for model in sorted(cached):
        read, written, cost, uncached = cached[model]
        saving = (f", {money(uncached)} without caching ({(uncached - cost) / uncached:.0%} saved)"
                  if cost is not None and uncached else "")
        click.echo(f"  {cell(model, 40)}: {read:,.0f} read, {written:,.0f} written; {money(cost)} USD{saving}")


def _print_unrecorded(usage: Mapping[str, Usage], prices: Mapping[str, Price],
                      spent: Mapping[str, Mapping[str, int]]) -> None:
    """The calls made for games that were not written (a provider failure abandoned them)."""
    for model, made in sorted(spent.items()):
        recorded = usage.get(model)
        extra = Usage(calls=made["calls"], input_tokens=made["input_tokens"], output_tokens=made["output_tokens"],
                      cached_input_tokens=made["cached_input_tokens"],
                      cache_write_input_tokens=made.get("cache_write_input_tokens", 0))
        if recorded is not None:
            paid = recorded.replayed or Usage()
            extra.calls -= recorded.calls - paid.calls
            extra.input_tokens -= recorded.input_tokens - paid.input_tokens
            extra.output_tokens -= recorded.output_tokens - paid.output_tokens
            extra.cached_input_tokens -= recorded.cached_input_tokens - paid.cached_input_tokens
            extra.cache_write_input_tokens -= recorded.cache_write_input_tokens - paid.cache_write_input_tokens
        if extra.calls > 0:
            click.echo(f"\n{cell(model, 60)}: {extra.calls:,} more call(s) ({extra.input_tokens:,} input and "
                       f"{extra.output_tokens:,} output tokens, {money(extra.cost(prices.get(model)))} USD) were made "
                       "for games that were abandoned and not written; the response cache keeps them for the next run")


def money(cost: float | None, partial: float | None = None) -> str:
    if cost is None:
        return f"≥{partial:,.2f}" if partial else "n/a"
    return f"{cost:,.2f}"


def cell(text: str, width: int | None = None) -> str:
    """`text` on one line, control characters escaped, cut to `width` characters if given."""
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def _game_order(name: str) -> int:
    order = list(games.GAME_MODULES)
    return order.index(name) if name in order else len(order)
