"""The `gamenight` command line: a group of commands, each in a module of runner/commands/ (or of
another package, through an entry point) imported only when the command is asked for."""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

import click

from runner import __version__

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: The runner's own commands: name -> "module:attribute" of the click command.
COMMANDS = {
    "agents": "runner.commands.listings:agents_command",
    "games": "runner.commands.listings:games_command",
    "judge": "runner.commands.judge:judge_command",
    "run": "runner.commands.run:run_command",
    "validate": "runner.commands.validate:validate_command",
    "verify": "runner.commands.verify:verify_command",
}

#: Entry-point group through which other packages (the site builder) add commands, so that
#: the runner never imports them.
COMMAND_GROUP = "gamenight.commands"


class Commands(click.Group):
    """The command group: the runner's COMMANDS, then those registered under COMMAND_GROUP."""

    @functools.cached_property
    def _plugins(self) -> dict[str, EntryPoint]:
        """The registered commands by name, read once (the installed packages' metadata takes tens
        of milliseconds to read, and `--help` asks for each command); each is imported when asked
        for. A command of the runner's own never reads them."""
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=COMMAND_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS) | set(self._plugins))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in COMMANDS:
            module, _, attribute = COMMANDS[name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
        if command is None and name in (plugins := self._plugins):
            command = plugins[name].load()
        return command


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gamenight")
def main() -> None:
    """Play multi-agent language games, check replays, and build the leaderboard."""
