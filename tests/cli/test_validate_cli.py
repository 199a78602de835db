"""`gamenight validate` on every kind of bad input: FILE:LINE: FIELD: reason, exit 1, no traceback."""

from __future__ import annotations

import asyncio
import json
import re
from functools import cache
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

import runner.commands.validate
from runner import games
from runner.agents.builtin import make
from runner.cli import main
from runner.play import Seating, rng_for
from runner.replay.format import MAX_LINE_BYTES, encode
from tests.helpers import play_alone

PD_LINEUP = "prisoners_dilemma/tit_for_tat,random,prisoners_dilemma/always_defect"


@pytest.fixture(scope="module")
def pd_file(tmp_path_factory) -> Path:
    """One Prisoner's Dilemma replay written by `gamenight run`: header, 20 events, outcome (22 lines)."""
    out = tmp_path_factory.mktemp("pd")
    result = CliRunner().invoke(main, ["run", "--game", "prisoners_dilemma", "--lineup", PD_LINEUP,
                                       "--games", "1", "--name", "cli", "--out", str(out)])
    assert result.exit_code == 0, result.output
    (path,) = out.glob("*.jsonl")
    assert len(path.read_bytes().splitlines()) == 22
    return path


@pytest.fixture
def records(pd_file) -> list[dict]:
    return [json.loads(line) for line in pd_file.read_bytes().splitlines()]


def validate(*paths) -> Result:
    return CliRunner().invoke(main, ["validate", *map(str, paths)])


def write(folder: Path, name: str, data: bytes | list[dict]) -> Path:
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else encode(data))
    return path


def assert_fails(result: Result, prefix: str, *fragments: str, code: int = 1) -> str:
    """The run failed with `code`, printed a line starting with `prefix` holding every fragment."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines()
             if line.startswith(prefix) and all(f in line for f in fragments)]
    assert lines, result.output
    return lines[0]


def bad_copy(tmp_path: Path, pd_file: Path, change) -> tuple[Path, str]:
    """A copy of the replay, same name, with `change` applied to its bytes; (path, "path:")."""
    path = write(tmp_path, pd_file.name, change(pd_file.read_bytes()))
    return path, str(path)


# -- bytes that are not a replay ------------------------------------------------------------

BYTE_CASES = [
    ("cut-mid-line", lambda b: b[:-40], 22, "", ["not valid JSON", "column"]),
    ("cut-mid-line-newline", lambda b: b[:-40], 22, "", ["no final newline", "truncated"]),
    ("cut-after-a-full-line", lambda b: b[:b.rindex(b"\n", 0, -1) + 1], 21, "type: ",
     ["the file ends without an outcome line (it may be truncated)"]),
    ("nan", lambda b: re.sub(rb'"seed":\d+', b'"seed":NaN', b, count=1), 1, "",
     ["NaN is not valid JSON (JSON has no NaN or Infinity)"]),
    ("infinity", lambda b: re.sub(rb'"seed":\d+', b'"seed":Infinity', b, count=1), 1, "",
     ["Infinity is not valid JSON (JSON has no NaN or Infinity)"]),
    ("minus-infinity", lambda b: re.sub(rb'"seed":\d+', b'"seed":-Infinity', b, count=1), 1, "",
     ["-Infinity is not valid JSON (JSON has no NaN or Infinity)"]),
    ("overflowing-number", lambda b: re.sub(rb'"seed":\d+', b'"seed":1e999', b, count=1), 1, "",
     ["the number 1e999 is too large"]),
    ("duplicate-key", lambda b: b.replace(b'{"type":"event","n":0,', b'{"type":"event","n":0,"n":0,', 1), 2, "",
     ['duplicate key "n"']),
    ("invalid-utf8", lambda b: b.replace(b'"choice":"', b'"choice":"\xc3\x28', 1), 2, "",
     ["not valid UTF-8: byte", "(0xc3)"]),
    ("empty-file", lambda b: b"", 1, "", ["the file is empty"]),
    ("blank-line-in-the-middle", lambda b: b.replace(b"\n", b"\n\n", 3), 4, "", ["blank line"]),
    ("json-list-line", lambda b: b"[]\n" + b, 1, "", ["each line must be a JSON object {...}, not a list"]),
    ("json-number-line", lambda b: b + b"42\n", 23, "", ["each line must be a JSON object {...}, not an integer"]),
    ("deeply-nested", lambda b: b.replace(b'"data":{', b'"data":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b",", 1),
     2, "", ["nested more than 64 levels deep"]),
    ("game-name-with-control-characters",
     lambda b: b.replace(b'"game":"prisoners_dilemma"', b'"game":"pd\\n\\u001b[2J"', 1),
     1, "game: ", ['got "pd\\n\\u001b[2J"']),
]


@pytest.mark.parametrize("change, line, field, fragments", [c[1:] for c in BYTE_CASES],
                         ids=[c[0] for c in BYTE_CASES])
def test_bytes_that_are_not_a_replay(tmp_path, pd_file, change, line, field, fragments):
    path, name = bad_copy(tmp_path, pd_file, change)
    result = validate(path)
    assert_fails(result, f"{name}:{line}: {field}", *fragments)
    assert "checked 1 replay(s): 0 accepted, 1 with problems" in result.output


def test_a_line_over_the_size_limit(tmp_path, pd_file):
    filler = b'"x":"' + b"a" * MAX_LINE_BYTES + b'",'
    first_event = b'{"type":"event","n":0,'
    path, name = bad_copy(tmp_path, pd_file, lambda b: b.replace(first_event, b"{" + filler + first_event[1:], 1))
    result = validate(path)
    assert_fails(result, f"{name}:2: ", f"the limit is {MAX_LINE_BYTES:,}")
    assert len(result.output) < 2000  # the line itself is never echoed


# -- records with a wrong shape -------------------------------------------------------------

def put(path: str, value):
    def change(records: list[dict]) -> None:
        *parents, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]
        target = records
        for part in parents:
            target = target[part]
        target[last] = value
    return change


SHAPE_CASES = [
    ("player-seat-string", put("0.players.1.seat", "1"), 1, "players[1].seat: ",
     ['must be an integer, not a string ("1")']),
    ("event-seat-string", put("1.seat", "1"), 2, "seat: ", ['must be an integer or null, not a string ("1")']),
    ("seed-negative", put("0.seed", -1), 1, "seed: ", ["must be at least 0; got -1"]),
    ("version-string", put("0.version", "1"), 1, "version: ", ['must be an integer, not a string ("1")']),
    ("unknown-header-field", put("0.comment", "hi"), 1, "comment: ", ["unknown field"]),
    ("unknown-event-field", put("1.comment", "hi"), 2, "comment: ", ["unknown field"]),
    ("unknown-agent-field", put("0.players.0.agent.api_key", "sk"), 1, "players[0].agent.api_key: ",
     ["unknown field (the known fields here are: name, kind, strategy, params)"]),
    ("unknown-outcome-field", put("-1.score", 3), 22, "score: ", ["unknown field"]),
    ("missing-field", lambda r: r[-1].pop("winners"), 22, "winners: ", ["this required field is missing"]),
]


@pytest.mark.parametrize("change, line, field, fragments", [c[1:] for c in SHAPE_CASES],
                         ids=[c[0] for c in SHAPE_CASES])
def test_records_of_the_wrong_shape(tmp_path, pd_file, records, change, line, field, fragments):
    change(records)
    path = write(tmp_path, pd_file.name, records)
    assert_fails(validate(path), f"{path}:{line}: {field}", *fragments)


# -- replays the rules disagree with --------------------------------------------------------

def renumber(records: list[dict]) -> list[dict]:
    events = [r for r in records if r["type"] == "event"]
    for n, record in enumerate(events):
        record["n"] = n
    return records


def other_winners(records: list[dict]) -> None:
    records[-1]["winners"] = [s for s in range(3) if s not in records[-1]["winners"]]


def bump(path: str):
    def change(records: list[dict]) -> None:
        *parents, last = [int(p) if p.lstrip("-").isdigit() else p for p in path.split(".")]
        target = records
        for part in parents:
            target = target[part]
        target[last] += 1
    return change


def swap_info_and_action(records: list[dict]) -> list[dict]:
    records[3], records[4] = records[4], records[3]
    return renumber(records)


RULE_CASES = [
    ("winners-changed", other_winners, 22, "winners", ["the claimed outcome differs from the rules"]),
    ("total-changed", bump("-1.result.totals.1"), 22, "result.totals[1]: ",
     ["the claimed outcome differs from the rules: expected"]),
    ("info-data-changed", bump("4.data.totals.2"), 5, "data.totals[2]: ", ["does not match the rules: expected"]),
    ("event-removed", lambda r: r.pop(2), 3, "n: ", ["expected 1, found 2"]),
    ("event-removed-renumbered", lambda r: renumber(r[:2] + r[3:]), 4, "kind: ",
     ["the rules produce no info event here"]),
    ("events-reordered", swap_info_and_action, 4, "kind: ", ["the rules produce no info event here"]),
    ("numbering-wrong", put("5.n", 7), 6, "n: ", ["must be numbered 0, 1, 2, ... in order; expected 4, found 7"]),
    ("illegal-move", put("1.data.choice", "betray"), 2, "data: ",
     ["illegal action: choice must be one of ['cooperate', 'defect'], got 'betray'"]),
    ("unknown-game", put("0.game", "chess"), 1, "game: ", ["unknown game 'chess'"]),
    ("variant-not-normal", put("0.variant", {}), 1, "variant.rounds: ",
     ["must list every rule parameter in normal form (expected 5)"]),
    ("wrong-player-count", lambda r: r[0]["players"].pop(), 1, "players: ",
     ["Prisoner's Dilemma with these rules has 3 players, the header lists 2"]),
    ("wrong-role", put("0.players.0.role", "chameleon"), 1, "players[0].role: ",
     ["the setup makes seat 0 the player, not the chameleon"]),
    ("setup-fails-its-check", put("0.setup.payoffs.defect", "one"), 1, "setup.payoffs.defect: ",
     ["must be a non-negative number"]),
    ("two-headers", lambda r: r.insert(1, r[0]), 2, "type: ", ["a second header"]),
    ("outcome-not-last", lambda r: r.insert(5, r.pop()), 6, "type: ", ["the outcome must be the last line"]),
    ("probe-where-none-is-allowed", lambda r: r.insert(5, {"type": "probe", "seat": 1, "probe": "suspect",
                                                          "answer": {"seat": 2}}), 6, "probe: ",
     ["probe 'suspect' is not asked here: no probe is asked at this point"]),
]


@pytest.mark.parametrize("change, line, field, fragments", [c[1:] for c in RULE_CASES],
                         ids=[c[0] for c in RULE_CASES])
def test_replays_the_rules_disagree_with(tmp_path, pd_file, records, change, line, field, fragments):
    changed = change(records)
    path = write(tmp_path, pd_file.name, changed if isinstance(changed, list) else records)
    assert_fails(validate(path), f"{path}:{line}: {field}", *fragments)


@cache
def replay_with_chance() -> tuple[str, bytes] | None:
    """(game id, bytes) of a random game of any registered game that draws by chance."""
    for name in games.available():
        game = games.get(name)
        params = game.params({})
        n = game.players(params)
        for seed in range(30):
            setup = game.deal(params, rng_for(seed, "deal"))
            agents = [make("random", {}, rng_for(seed, f"agent-{s}"), "random", name) for s in range(n)]
            roles = [game.role_of(params, setup, s) for s in range(n)]
            seating = Seating(agents, game.seat_names(params, setup), roles)
            records = asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="cli",
                                             created="2026-01-01"))
            if any(r.get("kind") == "chance" for r in records):
                return records[0]["game_id"], encode(records)
    return None


def test_a_chance_outcome_not_among_the_options(tmp_path):
    found = replay_with_chance()
    if found is None:
        pytest.skip("no registered game drew by chance in the sample games")
    game_id, raw = found
    records = [json.loads(line) for line in raw.splitlines()]
    assert validate(write(tmp_path, f"{game_id}.jsonl", records)).exit_code == 0
    index = next(i for i, r in enumerate(records) if r.get("kind") == "chance")
    records[index]["data"]["outcome"] = 99
    path = write(tmp_path, f"{game_id}.jsonl", records)
    assert_fails(validate(path), f"{path}:{index + 1}: data.outcome: ",
                 "the chance outcome 99 is not one of the options")


# -- files and folders ----------------------------------------------------------------------

def test_a_file_named_differently_from_its_game_id(tmp_path, pd_file):
    path = write(tmp_path, "renamed.jsonl", pd_file.read_bytes())
    assert_fails(validate(path), f"{path}:1: game_id: ", f"the file must be named {pd_file.name}")


def test_a_file_name_with_control_characters_stays_on_one_line(tmp_path, pd_file):
    path = write(tmp_path, "evil\n\x1b[2Jname.jsonl", pd_file.read_bytes())
    result = validate(path)
    assert_fails(result, f"{tmp_path}/evil\\x0a\\x1b[2Jname.jsonl:1: game_id: ", "the file must be named")
    assert "\x1b" not in result.output


def test_two_files_with_the_same_game_id(tmp_path, pd_file):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write(tmp_path / "a", pd_file.name, pd_file.read_bytes())
    second = write(tmp_path / "b", pd_file.name, pd_file.read_bytes())
    result = validate(tmp_path)
    assert_fails(result, f"{second}:1: game_id: ", f"game id already used by {first}")
    assert "checked 2 replay(s): 1 accepted, 1 with problems" in result.output


def test_a_folder_with_a_valid_and_an_invalid_replay(tmp_path, pd_file, records):
    write(tmp_path, pd_file.name, pd_file.read_bytes())
    records[-1]["winners"] = [0, 1, 2]
    (tmp_path / "sub").mkdir()
    bad = write(tmp_path / "sub", "other.jsonl", records)
    result = validate(tmp_path)
    assert_fails(result, f"{bad}:22: winners: ", "the claimed outcome differs from the rules")
    assert "checked 2 replay(s): 1 accepted, 1 with problems" in result.output
    assert str(tmp_path / pd_file.name) + ":" not in result.output


def test_valid_replays_pass(tmp_path, pd_file):
    write(tmp_path, pd_file.name, pd_file.read_bytes())
    result = validate(tmp_path)
    assert result.exit_code == 0, result.output
    assert "checked 1 replay(s): 1 accepted, 0 with problems" in result.output


def test_a_path_that_does_not_exist(tmp_path):
    result = validate(tmp_path / "missing.jsonl")
    assert result.exit_code == 2
    assert "does not exist" in result.output and "Traceback" not in result.output


def test_a_folder_without_replays(tmp_path):
    result = validate(tmp_path)
    assert result.exit_code == 1
    assert "no *.jsonl replay files found" in result.output


def test_a_symbolic_link_is_refused_not_followed(tmp_path, pd_file):
    (tmp_path / "elsewhere").mkdir()
    target = write(tmp_path / "elsewhere", "outside.jsonl", pd_file.read_bytes())
    (tmp_path / "corpus").mkdir()
    link = tmp_path / "corpus" / pd_file.name
    link.symlink_to(target)
    for path in (tmp_path / "corpus", link):
        result = validate(path)
        assert_fails(result, f"{link}: ", "a symbolic link; a replay must be a regular file")


def test_bidirectional_controls_in_a_message_are_escaped(tmp_path, pd_file):
    path = write(tmp_path, "evil\u202elsonj.jsonl", pd_file.read_bytes())  # would read as "eviljsonl.jsonl"
    result = validate(path)
    assert_fails(result, f"{tmp_path}/evil\\u202elsonj.jsonl:1: game_id: ", "the file must be named")
    assert "\u202e" not in result.output


def test_a_folder_with_a_plan_holds_exactly_its_games(tmp_path):
    """`gamenight run` writes the tournament's plan beside the replays; validate holds the folder to it."""
    result = CliRunner().invoke(main, ["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random",
                                            "--games", "3", "--name", "planned", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert validate(tmp_path).exit_code == 0
    games = sorted(tmp_path.glob("*.jsonl"))
    games[0].rename(tmp_path / "elsewhere.jsonl.bak")
    missing = validate(tmp_path)
    assert_fails(missing, f"{tmp_path / 'tournament.toml'}: plans 3 games; 1 of them are missing ({games[0].stem})")
    assert "1 tournament plan(s) with problems" in missing.output
    assert validate(games[1]).exit_code == 0  # a file on its own: its folder is not held to the plan
    (tmp_path / "tournament.toml").write_text('name = "planned"\nseed = 0\nprobes = false\n[[matchups]]\n'
                                              'game = "prisoners_dilemma"\ngames = 3\nlineup = ["random", "random", '
                                              '"random"]\n', encoding="utf-8")
    (tmp_path / "elsewhere.jsonl.bak").rename(games[0])
    assert validate(tmp_path).exit_code == 0  # the same plan, written by hand
    (tmp_path / "tournament.toml").write_text('name = "planned"\nseed = 1\n[[matchups]]\ngame = "chess"\n',
                                              encoding="utf-8")
    assert_fails(validate(tmp_path), f"{tmp_path / 'tournament.toml'}: matchups[0]: game: ")


# -- progress -------------------------------------------------------------------------------

def test_a_folder_is_checked_with_its_progress_said_before_the_work_and_counted(tmp_path, monkeypatch):
    played = CliRunner().invoke(main, ["run", "--game", "prisoners_dilemma", "--lineup", PD_LINEUP, "--games", "3",
                                       "--name", "counted", "--out", str(tmp_path)])
    assert played.exit_code == 0, played.output
    checking = runner.commands.validate.check_file

    def check_file(path, **options):  # says in the output where each file's work starts
        click.echo("checking a file")
        return checking(path, **options)

    monkeypatch.setattr(runner.commands.validate, "check_file", check_file)
    result = validate(tmp_path)
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()
    assert said[:2] == ["checking replays: 0/3 replays (0%)", "checking a file"]
    assert said.count("checking a file") == 3
    assert said[-2:] == [next(line for line in said if line.startswith("checking replays: 3/3 replays, done in ")),
                         "checked 3 replay(s): 3 accepted, 0 with problems"]
    assert [line for line in result.stderr.splitlines() if line.startswith("checking replays")] == said[:1] + said[-2:-1]


def test_a_file_and_a_quiet_folder_are_checked_without_progress(tmp_path, pd_file):
    assert "checking replays" not in validate(pd_file).output
    folder = tmp_path / "quiet"
    folder.mkdir()
    (folder / pd_file.name).write_bytes(pd_file.read_bytes())
    quiet = CliRunner().invoke(main, ["validate", "--quiet", str(folder)])
    assert quiet.exit_code == 0 and quiet.output == ""
