"""`gamenight run` tells the finished games it keeps that this machine wrote from those it did not,
and names who added the others (runner/written.py), through click's CliRunner.

The attack it answers: a stranger's made-up games of a shipped plan, merged, were kept by the
maintainers' own run of that plan as finished ("kept 286"), and it played nothing. Two machines are
two cache folders here; the replays folder is in a temporary git repository.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from runner.cli import main

PLAN = ('name = "house-003"\nseed = 3\ncreated = "2026-11-21"\n[[matchups]]\ngame = "prisoners_dilemma"\n'
        'games = {games}\nlineup = ["prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect", "random"]\n')
MALLORY = "mallory <mallory@example.org>"
_GIT_ENV = {"GIT_AUTHOR_NAME": "maint", "GIT_AUTHOR_EMAIL": "maint@example.org", "GIT_COMMITTER_NAME": "maint",
            "GIT_COMMITTER_EMAIL": "maint@example.org", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "commit.gpgsign=false", *args], capture_output=True,
                          text=True, env={**os.environ, **_GIT_ENV}, check=True)
    return done.stdout.strip()


def commit(repo: Path, message: str, author: str | None = None) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, *(["--author", author] if author else []))
    return git(repo, "rev-parse", "--short", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# gamenight\n", encoding="utf-8")
    commit(root, "base")
    return root


def plan_file(tmp_path: Path, games: int) -> Path:
    path = tmp_path / f"plan-{games}.toml"
    path.write_text(PLAN.format(games=games), encoding="utf-8")
    return path


def run(plan: Path, out: Path, machine: Path, *extra: str) -> Result:
    """`gamenight run` on the machine whose cache folder is `machine`."""
    return CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--cache-dir", str(machine), *extra])


def replays(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.jsonl"))}


def test_a_resumed_run_keeps_its_own_games_without_a_word(tmp_path, repo):
    out, machine = repo / "replays" / "house-003", tmp_path / "maintainers"
    first = run(plan_file(tmp_path, 2), out, machine)
    assert first.exit_code == 0, first.output
    commit(repo, "Play house-003")  # committed by the maintainers, written by this machine
    again = run(plan_file(tmp_path, 4), out, machine, "--only-mine")
    assert again.exit_code == 0, again.output
    assert "      2       2" in again.output  # two played now, two kept
    assert "not written" not in again.output.lower() and "warning" not in again.output.lower()


def test_games_a_stranger_added_are_kept_loudly_with_the_commit_that_added_them(tmp_path, repo):
    out = repo / "replays" / "house-003"
    plan = plan_file(tmp_path, 3)
    made_up = run(plan, out, tmp_path / "mallory")  # played on the stranger's machine
    assert made_up.exit_code == 0, made_up.output
    short = commit(repo, "Add house-003 (#12)", author=MALLORY)

    kept = run(plan, out, tmp_path / "maintainers")
    assert kept.exit_code == 0, kept.output
    assert "      0       3" in kept.output  # nothing played: the stranger's games are kept
    said = f"3 added by commit {short} 'Add house-003 (#12)' by {MALLORY}"
    warning = kept.stderr
    assert "warning: 3 of the finished games kept in" in warning and "were not written by a run on this machine" in warning
    assert said in warning and "--only-mine" in warning
    assert f"WARNING: 3 of the 3 games kept were not written by a run on this machine: {said}" in kept.stdout


def test_only_mine_refuses_them_naming_each_and_plays_nothing(tmp_path, repo):
    out = repo / "replays" / "house-003"
    plan = plan_file(tmp_path, 3)
    assert run(plan, out, tmp_path / "mallory").exit_code == 0
    short = commit(repo, "Add house-003 (#12)", author=MALLORY)
    before = replays(out)

    refused = run(plan_file(tmp_path, 5), out, tmp_path / "maintainers", "--only-mine")
    assert refused.exit_code == 1
    assert "cannot start:" in refused.output and "Traceback" not in refused.output
    assert "holds 3 finished games that no run on this machine wrote" in refused.output
    assert all(name in refused.output for name in before)
    assert f"3 added by commit {short} 'Add house-003 (#12)' by {MALLORY}" in refused.output
    assert replays(out) == before  # nothing played, nothing removed


def test_games_copied_in_and_games_of_ones_own_are_told_apart(tmp_path, repo):
    out, machine = repo / "replays" / "house-003", tmp_path / "maintainers"
    assert run(plan_file(tmp_path, 2), out, machine).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    assert run(plan_file(tmp_path, 4), elsewhere, tmp_path / "other-machine").exit_code == 0
    for name, data in replays(elsewhere).items():
        if not (out / name).exists():
            (out / name).write_bytes(data)  # two more games, copied in and never committed

    kept = run(plan_file(tmp_path, 4), out, machine)
    assert kept.exit_code == 0, kept.output
    assert "WARNING: 2 of the 4 games kept were not written by a run on this machine: 2 not committed to git" \
        in kept.stdout


def test_outside_a_git_checkout_the_warning_says_who_added_them_is_not_known(tmp_path):
    out = tmp_path / "plain" / "house-003"
    assert run(plan_file(tmp_path, 2), out, tmp_path / "mallory").exit_code == 0
    kept = run(plan_file(tmp_path, 2), out, tmp_path / "maintainers")
    assert kept.exit_code == 0
    assert "2 the folder is not in a git checkout: who added them is not known" in kept.stderr


def test_an_author_name_cannot_write_to_the_terminal(tmp_path, repo):
    out = repo / "replays" / "house-003"
    assert run(plan_file(tmp_path, 1), out, tmp_path / "mallory").exit_code == 0
    commit(repo, "Add house-003 \x1b[2J(#12)", author="mal\u202elory <m@example.org>")
    kept = run(plan_file(tmp_path, 1), out, tmp_path / "maintainers")
    assert kept.exit_code == 0
    assert "\x1b" not in kept.output and "\u202e" not in kept.output
    assert "mal\\u202elory" in kept.stderr


def test_no_cache_still_notes_the_games_it_writes(tmp_path):
    out, machine = tmp_path / "out", tmp_path / "machine"
    assert run(plan_file(tmp_path, 2), out, machine, "--no-cache").exit_code == 0
    assert len(list((machine / "written").rglob("*"))) > 2  # the record's notes (no replies are cached)
    again = run(plan_file(tmp_path, 2), out, machine, "--no-cache", "--only-mine")
    assert again.exit_code == 0 and "not written" not in again.output


def test_a_record_that_cannot_be_written_is_said(tmp_path):
    machine = tmp_path / "machine"
    machine.mkdir()
    (machine / "written").write_text("not a folder", encoding="utf-8")
    result = run(plan_file(tmp_path, 2), tmp_path / "out", machine, "--no-cache")
    assert result.exit_code == 0, result.output
    assert "2 game(s) written now could not be noted in the record" in result.stderr
    assert len(replays(tmp_path / "out")) == 2  # the games themselves are written all the same


# -- a suite's row: `run --suite` refuses a folder holding another owner's replays ------------------

MAINTAINERS = "maint <maint@example.org>"
ROW = "ranked-1-builtin-scripted"


def suite_row(out: Path, machine: Path, *extra: str) -> Result:
    """`gamenight run --suite ranked` of the built-in reference row (no model: nothing to check but the folder)."""
    return CliRunner().invoke(main, ["run", "--suite", "ranked", "--model", "builtin:scripted", "--out", str(out),
                                     "--cache-dir", str(machine), *extra])


@pytest.fixture
def maintainers_row(tmp_path: Path, repo: Path) -> tuple[Path, str]:
    """Stage 1 of a row played on the maintainers' machine and committed by them."""
    out = repo / "replays" / ROW
    assert suite_row(out, tmp_path / "maintainers").exit_code == 0
    return out, commit(repo, "Play the reference row", author=MAINTAINERS)


def test_a_suite_row_of_another_owner_is_refused_and_left_as_it_is(tmp_path, repo, maintainers_row):
    out, short = maintainers_row
    git(repo, "config", "user.email", "alice@example.org")  # a contributor's clone
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    refused = suite_row(out, tmp_path / "alice", "--stages", "2")
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    [line] = [line for line in refused.output.splitlines() if line.startswith("Error:")]
    assert line.startswith(f"Error: cannot start: {out} holds 23 replays of another owner (23 added by commit {short} "
                           f"'Play the reference row' by {MAINTAINERS}): no run on this machine wrote them")
    assert "--label NAME (it writes replays/ranked-1-NAME/)" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # not a byte changed, the plan neither


def test_its_owner_grows_the_row_from_another_machine(tmp_path, repo, maintainers_row):
    out, _ = maintainers_row
    git(repo, "config", "user.email", "Maint@Example.org")  # the committer's address, in any case
    grown = suite_row(out, tmp_path / "maintainers-laptop", "--stages", "2")
    assert grown.exit_code == 0, grown.output
    assert len(list(out.glob("*.jsonl"))) == 46


def test_a_suite_row_holding_games_copied_in_is_refused(tmp_path, repo):
    out = repo / "replays" / ROW
    assert suite_row(out, tmp_path / "elsewhere").exit_code == 0  # played on another machine, never committed
    git(repo, "config", "user.email", "alice@example.org")
    refused = suite_row(out, tmp_path / "alice", "--stages", "2")
    assert refused.exit_code == 1 and "holds 23 replays of another owner (23 not committed to git" in refused.output
    assert len(list(out.glob("*.jsonl"))) == 23
    mine = suite_row(out, tmp_path / "elsewhere", "--stages", "2")  # the machine that wrote them grows its row
    assert mine.exit_code == 0, mine.output
