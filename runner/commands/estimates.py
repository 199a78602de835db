"""The dry run's tables: per matchup (or per stage of a suite) the games, expected model calls,
tokens and cost, with the price table's prices for models priced nowhere else."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Mapping
from dataclasses import replace

import click

from runner.commands.report import cell, money, print_caching
from runner.llm.prompt_cache import ANTHROPIC_MIN_TOKENS
from runner.plan import Price, Tournament
from runner.run import CHARS_PER_TOKEN, ESTIMATE_SAMPLE, REPLY_TOKENS, Estimate, EstimateError, estimate


def table_prices(tournament: Tournament) -> Tournament:
    """The tournament with the price table's list price (runner/prices.toml) for each model it
    gives no price (neither --price nor [prices]), each such price said on stderr."""
    from runner import prices as table

    try:
        known = table.load()
    except table.PriceTableError as exc:
        raise click.ClickException(str(exc)) from None
    added = {}
    for agent in tournament.llm_agents():
        model = agent.spec.get("model")
        entry = known.find(agent.spec.get("provider"), model)
        if entry is not None and model not in tournament.prices and model not in added:
            added[model] = entry.price
            click.echo(f"{cell(str(model), 60)}: priced from the price table ({entry.key}, read {entry.read}, "
                       f"{entry.source})", err=True)
    return replace(tournament, prices={**tournament.prices, **added}) if added else tournament


def print_estimate(tournament: Tournament) -> None:
    """The dry run: per matchup and in total, games, expected calls, tokens and cost."""
    try:
        estimates = asyncio.run(estimate(tournament))
    except EstimateError as exc:
        raise click.ClickException(str(exc)) from None
    games_total = sum(m.games for m in estimates)
    click.echo(f"dry run of tournament {tournament.name}: {games_total:,} games in {len(estimates)} "
               "matchup(s); nothing is played and no API key is needed")
    click.echo(f"{'#':>3}  {'game':<18}{'games':>7}{'calls':>10}{'input tok':>13}{'output tok':>13}{'cost USD':>11}")
    by_model: dict[str, Estimate] = {}
    for i, matchup in enumerate(estimates, start=1):
        row = matchup.total()
        click.echo(f"{i:>3}  {matchup.game:<18}{matchup.games:>7,}{row.calls:>10,.0f}{row.input_tokens:>13,.0f}"
                   f"{row.output_tokens:>13,.0f}{_estimate_cost(matchup.models, tournament.prices):>11}")
        click.echo(f"     {cell(matchup.label, 90)}")
        for model, part in matchup.models.items():
            by_model.setdefault(model, Estimate()).add(part)
    total = Estimate()
    for part in by_model.values():
        total.add(part)
    click.echo(f"{'':>3}  {'total':<18}{games_total:>7,}{total.calls:>10,.0f}{total.input_tokens:>13,.0f}"
               f"{total.output_tokens:>13,.0f}{_estimate_cost(by_model, tournament.prices):>11}")
    if by_model:
        click.echo("\nby model:")
        for model in sorted(by_model):
            part = by_model[model]
            price = tournament.prices.get(model)
            click.echo(f"  {cell(model, 40):<41}{part.calls:>10,.0f}{part.input_tokens:>13,.0f}"
                       f"{part.output_tokens:>13,.0f}{money(part.cost(price)):>11}"
                       + ("" if price else "  (no [prices] table)"))
        print_caching({model: (part.cached_input_tokens, part.cache_write_input_tokens,
                                part.cost(tournament.prices.get(model)),
                                part.cost(tournament.prices.get(model), caching=False))
                        for model, part in by_model.items()})
    click.echo("\n" + textwrap.fill(
        f"Assumptions: {ESTIMATE_SAMPLE} games of each matchup are dealt as they will be and played offline "
        "with random legal moves, the language-model agents making the very calls of their design (PGM "
        "belief analyses, strategy choices, favor updates) on their real prompts; every decision is "
        "answered at the first attempt (each re-ask would add a call). Input tokens = prompt characters / "
        f"{CHARS_PER_TOKEN}; output tokens = {REPLY_TOKENS} per reply, or max_tokens if lower. Prompt caching: "
        "each seat's calls through Anthropic's cache as the agent marks it (prefixes of at least "
        f"{ANTHROPIC_MIN_TOKENS:,} tokens) or OpenAI's automatic one; none for other servers. Cost = tokens "
        "x [prices] (USD per million tokens). See docs/llm.md.", width=100))


def print_suite_estimate(tournament: Tournament) -> None:
    """The dry run of a suite: per stage, games, expected calls, tokens and cost of the candidate."""
    assert tournament.suite is not None
    try:
        estimates = asyncio.run(estimate(tournament, sample=1))
    except EstimateError as exc:
        raise click.ClickException(str(exc)) from None
    ref = tournament.suite
    click.echo(f"dry run of {tournament.name}: stages 1..{ref.stages} of the suite {ref.name}-{ref.version} with "
               f"{ref.model} in the candidate's seat; nothing is played and no API key is needed")
    click.echo(f"{'stage':>5}  {'games':>6}{'calls':>10}{'input tok':>13}{'of which cached':>17}{'output tok':>13}"
               f"{'cost USD':>11}{'uncached USD':>14}")
    by_stage: dict[int, tuple[int, dict[str, Estimate]]] = {}
    for matchup, figures in zip(tournament.matchups, estimates):
        assert matchup.deal is not None
        games_, models = by_stage.setdefault(matchup.deal.stage, (0, {}))
        for model, part in figures.models.items():
            models.setdefault(model, Estimate()).add(part)
        by_stage[matchup.deal.stage] = (games_ + figures.games, models)
    everything: dict[str, Estimate] = {}
    for stage, (games_, models) in sorted(by_stage.items()):
        row = Estimate()
        for model, part in models.items():
            row.add(part)
            everything.setdefault(model, Estimate()).add(part)
        click.echo(f"{stage:>5}  {games_:>6,}{row.calls:>10,.0f}{row.input_tokens:>13,.0f}"
                   f"{row.cached_input_tokens:>17,.0f}{row.output_tokens:>13,.0f}"
                   f"{_estimate_cost(models, tournament.prices):>11}"
                   f"{_estimate_cost(models, tournament.prices, caching=False):>14}")
    total = Estimate()
    for part in everything.values():
        total.add(part)
    click.echo(f"{'total':>5}  {len(tournament.matchups):>6,}{total.calls:>10,.0f}{total.input_tokens:>13,.0f}"
               f"{total.cached_input_tokens:>17,.0f}{total.output_tokens:>13,.0f}"
               f"{_estimate_cost(everything, tournament.prices):>11}"
               f"{_estimate_cost(everything, tournament.prices, caching=False):>14}")
    if everything and not all(tournament.prices.get(m) for m in everything):
        click.echo("(no price for the model in the price table: give --price IN/OUT, USD per million tokens)")
    click.echo("\n" + textwrap.fill(
        "Assumptions: every deal is dealt as it will be and played offline with random legal moves, the model "
        "making the very calls of its design on its real prompts, every decision answered at the first attempt. "
        f"Input tokens = prompt characters / {CHARS_PER_TOKEN}; output tokens = {REPLY_TOKENS} per reply, or "
        "max_tokens if lower. See docs/llm.md.", width=100))


def _estimate_cost(models: Mapping[str, Estimate], prices: Mapping[str, Price], caching: bool = True) -> str:
    """The cost of these models' estimates (with the provider's prompt cache as estimated, or
    without it); "≥ x" when some model has no price, "n/a" when none has."""
    costs = [part.cost(prices.get(model), caching) for model, part in models.items()]
    known = sum(c for c in costs if c is not None)
    return money(None if None in costs else known, known)
