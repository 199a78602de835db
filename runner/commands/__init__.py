"""The runner's commands of `gamenight`, one module per command or family (runner/cli.py lists
them and imports each only when it is asked for); their shared output in report.py."""
