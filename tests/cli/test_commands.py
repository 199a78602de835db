"""`gamenight` is a thin group: each runner command lives in runner/commands/ and is imported only
when it is asked for."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import click

import runner.commands
from runner.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_command_is_a_click_command_of_that_name():
    for name, target in COMMANDS.items():
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == name, target


def test_every_command_a_module_of_runner_commands_defines_is_listed():
    listed = set(COMMANDS.values())
    for info in pkgutil.iter_modules(runner.commands.__path__):
        module = importlib.import_module(f"runner.commands.{info.name}")
        for attribute, value in vars(module).items():
            if isinstance(value, click.Command) and value.__module__ == module.__name__:
                assert f"{module.__name__}:{attribute}" in listed, (module.__name__, attribute)


def _commands_loaded(args: list[str]) -> list[str]:
    """The modules of runner.commands a fresh Python has imported after running `gamenight ARGS`."""
    probe = ("import json, sys; from click.testing import CliRunner; import runner.cli; "
             f"result = CliRunner().invoke(runner.cli.main, {args!r}) if {args!r} else None; "
             "assert result is None or result.exit_code == 0, result.output; "
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('runner.commands.'))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_command_is_imported_only_when_it_is_asked_for():
    assert _commands_loaded([]) == []
    assert _commands_loaded(["games"]) == ["runner.commands.listings"]
    # --help describes every command, so it imports them all (each light: tests/cli/test_startup.py).
    assert set(_commands_loaded(["--help"])) >= {target.partition(":")[0] for target in COMMANDS.values()}
