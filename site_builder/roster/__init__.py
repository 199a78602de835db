"""`gamenight roster`: the maintainers' runs, as .github/workflows/maintainers-run.yml takes them.

`plan` says what a run plays (the roster's missing stages, the pending verifications) and what
fits the budget; `play` plays it item by item and makes the pull request that brings its replays
to main; `cli` is the command, step by step (docs/maintainers.md, "The maintainers' runs").
"""
