"""`gamenight games` and `gamenight agents`: what can be played, and by which built-in agents."""

from __future__ import annotations

import json

import click

from runner import games
from runner.agents.builtin import strategies


@click.command("games")
def games_command():
    """List the games, their roles and default rules."""
    for name in games.available():
        game = games.get(name)
        click.echo(f"{name:<20}{game.title}")
        click.echo(f"{'':<20}roles: {', '.join(game.roles)}")
        click.echo(f"{'':<20}rules: {json.dumps(game.params({}))}")
        for option, values in game.options.items():
            click.echo(f"{'':<20}option {option}: {' | '.join(values)} (default {values[0]}, not written "
                       "into the variant)")


@click.command("agents")
def agents_command():
    """List the built-in scripted agents and their parameters."""
    for name, cls in sorted(strategies().items()):
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        params = ", ".join(f"{k}={v!r}" for k, v in cls.defaults.items())
        click.echo(f"{name:<40}{doc}" + (f"  [{params}]" if params else ""))
