"""Checking a pull request that submits replays: what it adds and how the leaderboard would change.

Only git objects are read (`site_builder/git.py`: `git diff-tree`, `git ls-tree`, `git cat-file`):
nothing from the pull request is checked out, imported or executed. The installed (base branch)
code decides. `check` checks the pull request file by file and as a whole, against what the base
branch holds (`base_index`); `layout` and `secret_scan` say what a file may be and hold,
`provenance` who played, `ownership` whose rows it may add to and `reserved` what the shipped
plans keep for the maintainers; `effect` scores the board before and after. `cli` is the command
(`gamenight submission-check`) and `report` its Markdown report.
"""

#: The boards of the site a row can stand on, besides one per game (named by the game): here, where
#: the report (`report`) reads them without importing the scorer that `effect` needs.
RANKED = "ranked"
EXHIBITION = "exhibition"
