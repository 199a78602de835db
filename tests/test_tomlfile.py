"""Hostile TOML at every door that reads one: a one-line message naming the file (and line), never a traceback.

The doors: `gamenight run FILE` (and `--dry-run`), `gamenight judge --tournament FILE` (a judge's
file of agents), `gamenight validate` (a folder's plan), `gamenight run` into a folder holding a
plan already, and `read_plan` (what the submission check calls).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import tomlfile
from runner.cli import main
from runner.rerun.plans import MAX_PLAN_BYTES, read_plan
from runner.tournament import MAX_FILE_BYTES, PlanError, load

DEPTH = 100_000
GOOD_START = b'name = "hostile"\nseed = 1\n'
#: name -> (file bytes, words of the message, the line it must name or None when none is known)
HOSTILE = {
    "deep arrays": (GOOD_START + b"a = " + b"[" * DEPTH + b"]" * DEPTH + b"\n", "nested more than 32 deep", 3),
    "deep inline tables": (GOOD_START + b"a = " + b"{b=" * 50_000 + b"1" + b"}" * 50_000 + b"\n",
                           "nested more than 32 deep", 3),
    "deep arrays the parser reads": (GOOD_START + b"\n\na = " + b"[" * 40 + b"]" * 40 + b"\n",
                                     "nested more than 32 deep", 5),
    "deep table headers": (GOOD_START + b"[agents." + b".".join([b"t"] * 5000) + b"]\nx = 1\n",
                           "nested more than 32 deep", None),
    "a huge number": (b'name = "hostile"\n\nseed = ' + b"9" * 5000 + b"\n", "more than 4,300 digits", 3),
    "a large number": (b'name = "hostile"\nseed = ' + b"9" * 4000 + b"\n", "seed: must be an integer from 0", None),
    "invalid UTF-8": (GOOD_START + b"# caf\xe9\n", "not UTF-8 text", 3),
    "a NUL byte": (GOOD_START + b'x = "a\x00b"\n', "not valid TOML", 3),
    "a very long line": (b'name = "' + b"x" * 200_000 + b'"\n', "name: must be a short slug", None),
    "a long key with control characters": (GOOD_START + b'[agents]\n"' + b"k\\n\\u001b" * 10_000 + b'" = {}\n',
                                           "agent names must be short slugs", None),
}
CASES = sorted(HOSTILE)
#: What is wrong in the cases that are TOML, only not a tournament (read as a plan's name only).
CONTENT_ONLY = {"seed: must be an integer from 0", "name: must be a short slug", "agent names must be short slugs"}


def assert_one_clear_line(message: str, path: Path, words: str, line: int | None) -> None:
    assert "\n" not in message and "\x1b" not in message and "Traceback" not in message, message[:300]
    assert len(message) < len(str(path)) + tomlfile.MAX_MESSAGE + 20, len(message)
    assert words in message, message[:300]
    where = f"{path}:{line}: " if line else f"{path}: "
    assert where in message, message[:300]


@pytest.fixture(params=CASES)
def hostile(request, tmp_path) -> tuple[Path, str, int | None]:
    raw, words, line = HOSTILE[request.param]
    path = tmp_path / "tournament.toml"
    path.write_bytes(raw)
    return path, words, line


def cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def test_load_says_what_is_wrong_in_one_line(hostile):
    path, words, line = hostile
    with pytest.raises(PlanError) as info:
        load(path)
    assert_one_clear_line(str(info.value), path, words, line)


def test_read_plan_says_what_is_wrong_in_one_line(hostile):
    path, words, line = hostile
    plan = read_plan(str(path), path.parent.name, path.read_bytes())
    assert plan.tournament is None and len(plan.problems) == 1
    assert_one_clear_line(str(plan.problems[0]), path, words, line)


@pytest.mark.parametrize("command", [["run"], ["run", "--dry-run"]], ids=["run", "dry-run"])
def test_gamenight_run_refuses_the_file(hostile, command):
    path, words, line = hostile
    result = cli(*command, str(path), "--out", str(path.parent / "out"))
    assert result.exit_code == 1
    message = result.output.strip().removeprefix("Error: ")
    assert_one_clear_line(message, path, words, line)
    assert not (path.parent / "out").exists()


def test_gamenight_judge_refuses_the_judge_file(hostile, tmp_path):
    path, words, line = hostile
    result = cli("judge", str(tmp_path), "--judge", "somebody", "--tournament", str(path))
    assert result.exit_code == 1
    assert_one_clear_line(result.output.strip().removeprefix("Error: "), path, words, line)


def test_gamenight_validate_reports_the_plan_and_goes_on(hostile, pd_replay):
    path, words, line = hostile
    (path.parent / pd_replay.name).write_bytes(pd_replay.read_bytes())
    result = cli("validate", str(path.parent))
    assert result.exit_code == 1
    [problem] = [text for text in result.output.splitlines() if text.startswith(str(path))]
    assert_one_clear_line(problem, path, words, line)
    assert "checked 1 replay(s): 1 accepted, 0 with problems; 1 tournament plan(s) with problems" in result.output


def test_gamenight_run_into_a_folder_with_a_hostile_plan_refuses_to_start(hostile):
    path, words, line = hostile
    result = cli("run", "--game", "prisoners_dilemma", "--lineup", "random,random,random", "--out", str(path.parent))
    assert result.exit_code == 1 and "Traceback" not in result.output
    [message] = [text for text in result.output.splitlines() if text.startswith("Error: ")]
    assert "\x1b" not in message and len(message) < len(str(path)) + tomlfile.MAX_MESSAGE + 200, len(message)
    if words in CONTENT_ONLY:  # TOML it reads, of another tournament's name
        assert "holds the replays of another tournament" in message
    else:
        assert f"{path}: cannot read the tournament plan there" in message and words in message
        assert f"(line {line}: " in message if line else "(line " not in message


@pytest.fixture(scope="module")
def pd_replay(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pd")
    result = CliRunner().invoke(main, ["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random",
                                       "--games", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return next(out.glob("*.jsonl"))


def test_files_past_the_size_limits_are_not_read(tmp_path):
    path = tmp_path / "big.toml"
    path.write_bytes(GOOD_START + b"#" * MAX_FILE_BYTES)
    with pytest.raises(PlanError, match=r"big.toml: the file is 1,048,60\d bytes; at most 1,048,576 are read"):
        load(path)
    plan = read_plan(str(path), "big", (GOOD_START + b"#" * MAX_PLAN_BYTES))
    assert "at most 262,144 are read" in str(plan.problems[0])


def test_a_table_of_the_deepest_depth_allowed_is_read():
    raw = b"a = " + b"[" * (tomlfile.MAX_DEPTH - 1) + b"]" * (tomlfile.MAX_DEPTH - 1)
    assert tomlfile.parse(raw, 1000)["a"]
    with pytest.raises(tomlfile.TomlError, match=f"nested more than {tomlfile.MAX_DEPTH} deep"):
        tomlfile.parse(b"a = [" + raw[4:] + b"]", 1000)


def test_the_shipped_tournament_and_judge_files_still_load():
    for path in [*Path("runner/tournaments").glob("*.toml"), *Path("runner/judges").glob("*.toml")]:
        load(path, matchups_required="judges" not in path.parts)
