"""`python -m runner` is the `gamenight` command."""

from runner.cli import main

main(prog_name="gamenight")
