"""Reading replay lines strictly: JSON, limits, schema messages, problem formatting."""

from __future__ import annotations

import json
import time

import pytest

from runner.replay import format as fmt
from runner.replay.format import (MAX_DEPTH, MAX_LINE_PROBLEMS, MAX_LINES, MAX_PROBLEMS, Problem, Record,
                                  iter_replay_files, loads_strict, parse_lines, read_file, schema_problems)

HEADER = {
    "type": "header", "format": "gamenight.replay", "version": 1, "game_id": "g-1",
    "game": "prisoners_dilemma", "variant": {"rounds": 5}, "seed": 7, "tournament": "t", "matchup": "m",
    "players": [{"seat": s, "name": f"Player {s + 1}", "role": "player",
                 "agent": {"name": "random", "kind": "builtin", "strategy": "random", "params": {}}}
                for s in range(3)],
    "setup": {"payoffs": {"cooperate": 3, "defect": 1, "one_defect": 5, "two_defect": 2}},
    "max_attempts": 3, "provenance": {"runner": "gamenight", "runner_version": "0.1.0", "created": "2026-01-01"},
}
EVENT = {"type": "event", "n": 0, "kind": "action", "phase": "choose", "seat": 0,
         "data": {"choice": "defect"}, "vis": [0]}
PROBE = {"type": "probe", "seat": 0, "probe": "suspect", "answer": {"seat": 1}}
OUTCOME = {"type": "outcome", "status": "complete", "winners": [0], "result": {}}
LLM = {"name": "gpt", "kind": "llm", "provider": "openai", "model": "gpt-x"}


# -- Problem ------------------------------------------------------------------------------

@pytest.mark.parametrize("problem, text", [
    (Problem("r/a.jsonl", 3, "must be an integer", "players[0].seat"),
     "r/a.jsonl:3: players[0].seat: must be an integer"),
    (Problem("a.jsonl", 1, "blank line"), "a.jsonl:1: blank line"),
    (Problem("a.jsonl", 0, "cannot read the file"), "a.jsonl: cannot read the file"),
    (Problem("a.jsonl", 2, "bad\nb.jsonl:1: fake", "data"), "a.jsonl:2: data: bad\\x0ab.jsonl:1: fake"),
    (Problem("a\udcff.jsonl", 1, "x\x1b[31m"), "a\\udcff.jsonl:1: x\\x1b[31m"),
], ids=["with-field", "without-field", "whole-file", "newline-escaped", "control-and-surrogate-escaped"])
def test_problem_prints_as_path_line_field_message_on_one_line(problem, text):
    assert str(problem) == text
    str(problem).encode("utf-8")  # printable whatever the path holds


# -- strict JSON --------------------------------------------------------------------------

REFUSED = [
    ('{"a": NaN}', "NaN is not valid JSON"),
    ('{"a": Infinity}', "Infinity is not valid JSON"),
    ('{"a": -Infinity}', "-Infinity is not valid JSON"),
    ('{"a": 1, "a": 2}', 'duplicate key "a"'),
    ('{"a": {"b": 1, "b": 1}}', 'duplicate key "b"'),
    ('{"a": 1e400}', "the number 1e400 is too large"),
    ('{"a": -1e400}', "the number -1e400 is too large"),
    ('{"a": ' + "9" * 41 + "}", "an integer with 41 digits is too long"),
    ('{"a": ' + "1" * 5000 + "}", "an integer with 5000 digits is too long"),
    ("[" * 100_000 + "]" * 100_000, f"nested more than {MAX_DEPTH} levels deep"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested more than {MAX_DEPTH} levels deep"),
    ('{"a": "\\ud800"}', "unpaired surrogate"),
    ('{"\\udc00": 1}', "unpaired surrogate"),
]
REFUSED_IDS = ["nan", "infinity", "minus-infinity", "duplicate-key", "duplicate-nested-key", "overflow",
               "negative-overflow", "long-integer", "huge-integer", "100000-nested-lists", "one-level-too-deep",
               "lone-surrogate-value", "lone-surrogate-key"]


@pytest.mark.parametrize("text, reason", REFUSED, ids=REFUSED_IDS)
def test_loads_strict_refuses_what_json_allows_but_replays_must_not(text, reason):
    with pytest.raises(ValueError, match=None) as info:
        loads_strict(text)
    assert reason in str(info.value)


@pytest.mark.parametrize("text, reason", REFUSED, ids=REFUSED_IDS)
def test_compact_lines_are_refused_alike(text, reason):
    # Lines in the runner's compact form take a faster parser first; it must refuse the same lines.
    compact = text.replace(", ", ",").replace(": ", ":").encode()
    _, problems = parse_lines("f.jsonl", compact + b"\n")
    assert [p.line for p in problems] == [1] and reason in problems[0].message


@pytest.mark.parametrize("line", [
    b'{"a":1.0,"b":1e-07,"c":-0.0,"d":[],"e":{},"f":null,"g":"\\u001f\\"\xc3\xa9\\ud83d\\ude00"}',
    b'{"a":12345678901234567890123,"b":-9223372036854775809,"c":18446744073709551616}',
    b'{"a":1,"b":[true,false,"x"]}',
], ids=["floats-escapes-unicode", "integers-beyond-64-bits", "plain"])
def test_compact_lines_read_as_the_strict_parser_reads_them(line):
    records, problems = parse_lines("f.jsonl", line + b"\n")
    assert not problems
    parsed = records[0].data
    expected = loads_strict(line.decode())
    assert parsed == expected and json.dumps(parsed) == json.dumps(expected)  # types too (int vs float)


@pytest.mark.parametrize("text, value", [
    ("[" * MAX_DEPTH + "]" * MAX_DEPTH, None),
    ('{"a": "' + "[" * 100 + '\\"{{{{"}', {"a": "[" * 100 + '"{{{{'}),
    ('{"a": "\\ud83d\\ude00", "b": 1.5, "c": ' + "9" * 40 + "}", {"a": "\U0001F600", "b": 1.5, "c": int("9" * 40)}),
], ids=["deepest-allowed", "brackets-inside-strings", "surrogate-pair-and-numbers"])
def test_loads_strict_accepts_valid_edge_cases(text, value):
    parsed = loads_strict(text)
    if value is not None:
        assert parsed == value


# -- splitting a file into lines ----------------------------------------------------------

def lines(*records) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.mark.parametrize("raw, line, reason", [
    (b"", 1, "the file is empty"),
    (lines(HEADER) + b"\n" + lines(OUTCOME), 2, "blank line"),
    (lines(HEADER) + b"   \r\n" + lines(OUTCOME), 2, "blank line"),
    (lines(HEADER, OUTCOME) + b"\n", 3, "blank line"),
    (lines(HEADER) + b'{"type": "outcome"', 2, "no final newline"),
    (lines(HEADER) + b'{"type": "outc\n', 2, "not valid JSON: Unterminated string starting (column 10)"),
    (lines(HEADER) + b'{"type": "\xff"}\n', 2, "not valid UTF-8: byte 11 of the line (0xff)"),
    (b'\xef\xbb\xbf' + lines(HEADER), 1, "not valid JSON: Unexpected UTF-8 BOM"),
    (b"{}\n" * (MAX_LINES + 1), MAX_LINES + 1, f"more than {MAX_LINES:,} lines"),
], ids=["empty", "blank-middle", "whitespace-line", "blank-last", "cut-mid-line", "unterminated-string",
        "invalid-utf8", "byte-order-mark", "too-many-lines"])
def test_parse_lines_names_the_line_and_the_reason(raw, line, reason):
    _, problems = parse_lines("f.jsonl", raw)
    assert any(p.line == line and reason in p.message for p in problems), [str(p) for p in problems]


def test_a_line_over_the_limit_is_refused_without_parsing(monkeypatch):
    monkeypatch.setattr(fmt, "MAX_LINE_BYTES", 100)
    raw = lines(OUTCOME) + b'{"x": "' + b"a" * 200 + b'"}\n'
    records, problems = parse_lines("f.jsonl", raw)
    assert [r.line for r in records] == [1]
    assert [(p.line, p.message) for p in problems] == [(2, "the line is 209 bytes long; the limit is 100")]


def test_problems_are_capped_per_file():
    _, problems = parse_lines("f.jsonl", lines(HEADER) + b"\n" * 500)
    assert len(problems) == MAX_PROBLEMS + 1
    assert "only the first" in problems[-1].message


def test_read_file_refuses_folders_missing_files_and_oversized_files(tmp_path, monkeypatch):
    assert read_file(tmp_path)[1][0].message == "not a regular file"
    assert read_file(tmp_path / "nope.jsonl")[1][0].message.startswith("cannot read the file")
    big = tmp_path / "big.jsonl"
    big.write_bytes(lines(HEADER))
    monkeypatch.setattr(fmt, "MAX_FILE_BYTES", 100)
    _, problems = read_file(big)
    assert problems[0].line == 0 and "the limit is 100" in problems[0].message


def test_iter_replay_files_lists_each_file_once_sorted_and_skips_folders(tmp_path):
    (tmp_path / "b.jsonl").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.jsonl").write_text("x")
    (tmp_path / "dir.jsonl").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    found = list(iter_replay_files([tmp_path, tmp_path / "b.jsonl"]))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["b.jsonl", "sub/a.jsonl"]


# -- schema messages ----------------------------------------------------------------------

def changed(record: dict, path: str, value) -> dict:
    """A deep copy of `record` with the dotted `path` set to `value` (a missing value deletes)."""
    record = json.loads(json.dumps(record))
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target = record
    for part in parents:
        target = target[part]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return record


DELETE = object()

SCHEMA_CASES = [
    ("header-version-string", HEADER, "version", "1", "version", 'must be an integer, not a string ("1")'),
    ("header-version-float", HEADER, "version", 1.0, "version", "must be an integer, not a decimal number (1.0)"),
    ("header-version-8", HEADER, "version", 8, "version", "must be one of 1, 2, 3, 4, 5, 6, 7; got 8"),
    ("header-seed-negative", HEADER, "seed", -1, "seed", "must be at least 0; got -1"),
    ("header-seed-true", HEADER, "seed", True, "seed", "must be an integer, not a boolean (true)"),
    ("header-unknown-field", HEADER, "extra", 1, "extra", "unknown field (the known fields here are: type, format"),
    ("header-missing-field", HEADER, "setup", DELETE, "setup", "this required field is missing"),
    ("header-game-id-slug", HEADER, "game_id", "../x", "game_id", "must be 1 to 160 letters, digits"),
    ("header-game-name", HEADER, "game", "Chess!", "game", "must be 1 to 40 lowercase letters or underscores"),
    ("header-created", HEADER, "provenance.created", "yesterday", "provenance.created", "must be a date YYYY-MM-DD"),
    ("provenance-unknown-field", HEADER, "provenance.host", "x", "provenance.host", "unknown field"),
    ("player-seat-string", HEADER, "players.1.seat", "1", "players[1].seat", 'must be an integer, not a string ("1")'),
    ("player-seat-too-big", HEADER, "players.1.seat", 64, "players[1].seat", "must be at most 63; got 64"),
    ("player-name-empty", HEADER, "players.1.name", "", "players[1].name",
     "must have at least 1 character(s); it has 0"),
    ("agent-unknown-field", HEADER, "players.0.agent.temperature", 0.5, "players[0].agent.temperature",
     "unknown field (the known fields here are: name, kind, strategy, params)"),
    ("agent-unknown-kind", HEADER, "players.0.agent.kind", "robot", "players[0].agent.kind",
     'must be one of "builtin", "llm", "human"; got "robot"'),
    ("llm-agent-unknown-field", changed(HEADER, "players.0.agent", LLM), "players.0.agent.api_key", "sk",
     "players[0].agent.api_key", "unknown field"),
    ("llm-agent-missing-model", changed(HEADER, "players.0.agent", LLM), "players.0.agent.model", DELETE,
     "players[0].agent.model", "this required field is missing"),
    ("odd-key-is-quoted", HEADER, "a b", 1, '["a b"]', "unknown field"),
    ("event-seat-string", EVENT, "seat", "1", "seat", 'must be an integer or null, not a string ("1")'),
    ("event-seat-negative", EVENT, "seat", -1, "seat", "must be at least 0; got -1"),
    ("event-n-float", EVENT, "n", 0.0, "n", "must be an integer, not a decimal number (0.0)"),
    ("event-unknown-field", EVENT, "note", "x", "note", "unknown field"),
    ("event-kind", EVENT, "kind", "move", "kind", 'must be one of "action", "chance", "info", "forfeit"; got "move"'),
    ("event-vis-word", EVENT, "vis", "everyone", "vis",
     'must be "all" or a list of distinct seat numbers; got "everyone"'),
    ("event-vis-repeated", EVENT, "vis", [0, 0], "vis", 'must be "all" or a list of distinct seat numbers'),
    ("event-data-list", EVENT, "data", [], "data", "must be an object, not a list ([])"),
    ("event-too-many-attempts", EVENT, "attempts", [{"action": None, "raw": None, "error": "x"}] * 21,
     "attempts", "must have at most 20 item(s); it has 21"),
    ("attempt-unknown-field", EVENT, "attempts", [{"action": None, "raw": None, "error": "x", "cost": 1}],
     "attempts[0].cost", "unknown field"),
    ("evidence-bad-role", EVENT, "evidence", {"calls": [{"messages": [{"role": "bot", "content": ""}], "reply": None}]},
     "evidence.calls[0].messages[0].role", 'must be one of "system", "user", "assistant"; got "bot"'),
    ("probe-kind", PROBE, "probe", "guess", "probe", 'must be one of "suspect", "suspect_of", "self_role"'),
    ("outcome-unknown-field", OUTCOME, "score", 3, "score", "unknown field"),
    ("outcome-status", OUTCOME, "status", "won", "status", 'must be one of "complete", "invalid"; got "won"'),
    ("outcome-winners-repeated", OUTCOME, "winners", [1, 1], "winners",
     "must not list the same item twice (1 is repeated)"),
    ("outcome-winners-strings", OUTCOME, "winners", ["0"], "winners[0]", 'must be an integer, not a string ("0")'),
]


@pytest.mark.parametrize("record, path, value, field, message",
                         [case[1:] for case in SCHEMA_CASES], ids=[case[0] for case in SCHEMA_CASES])
def test_schema_problems_name_the_field_in_plain_words(record, path, value, field, message):
    problems = schema_problems("f.jsonl", Record(4, changed(record, path, value)))
    assert any(p.field == field and p.message.startswith(message) and p.line == 4 for p in problems), \
        [str(p) for p in problems]


@pytest.mark.parametrize("record", [HEADER, EVENT, PROBE, OUTCOME, changed(HEADER, "players.0.agent", LLM)],
                         ids=["header", "event", "probe", "outcome", "llm-agent"])
def test_well_formed_records_have_no_schema_problems(record):
    assert schema_problems("f.jsonl", Record(1, record)) == []


@pytest.mark.parametrize("data, message", [
    ([], "each line must be a JSON object {...}, not a list"),
    ("header", "each line must be a JSON object {...}, not a string"),
    ({"n": 1}, "missing: every line needs a type (header, event, probe, outcome, judge)"),
    ({"type": "footer"}, 'must be one of "header", "event", "probe", "outcome", "judge"; got "footer"'),
], ids=["list", "string", "no-type", "unknown-type"])
def test_lines_that_are_not_records(data, message):
    assert [p.message for p in schema_problems("f.jsonl", Record(1, data))] == [message]


def test_schema_problems_are_capped_per_line():
    record = dict(HEADER, **{f"extra{i}": i for i in range(100)})
    problems = schema_problems("f.jsonl", Record(1, record))
    assert len(problems) == MAX_LINE_PROBLEMS + 1
    assert "only the first" in problems[-1].message


LINEAR_BOUND_S = 30


def test_long_lists_are_checked_in_linear_time():
    # jsonschema's own uniqueItems compares distinct objects pairwise: minutes for this list. The
    # bound is loose on purpose (linear takes well under a second here): it catches the quadratic
    # check, not a loaded machine, so it is a guard and not a speed measurement.
    event = changed(EVENT, "vis", [{"seat": i} for i in range(20_000)])
    start = time.perf_counter()
    problems = schema_problems("f.jsonl", Record(1, event))
    assert time.perf_counter() - start < LINEAR_BOUND_S
    assert [p.field for p in problems] == ["vis"]
    attempts = changed(EVENT, "attempts", [{"action": None, "raw": None, "error": "x"}] * 200_000)
    start = time.perf_counter()
    assert [p.field for p in schema_problems("f.jsonl", Record(1, attempts))] == ["attempts"]
    assert time.perf_counter() - start < LINEAR_BOUND_S


@pytest.mark.parametrize("view, definition", [
    (fmt.Header, "header"), (fmt.Player, "player"), (fmt.Event, "event"), (fmt.Probe, "probe"),
])
def test_each_typed_view_names_the_fields_of_its_schema_definition(view, definition):
    assert set(view.__annotations__) == set(fmt.schema()["$defs"][definition]["properties"])
    required = set(fmt.schema()["$defs"][definition]["required"])
    assert view.__required_keys__ == required


def test_the_judge_dimensions_are_the_schemas_in_its_order():
    assert list(fmt.JUDGE_DIMENSIONS) == fmt.schema()["$defs"]["judge"]["properties"]["dimension"]["enum"]


def test_the_agent_view_names_every_field_of_every_kind_of_agent():
    kinds = {"builtinAgent": "builtin", "llmAgent": "llm", "humanAgent": "human"}
    fields = {name for d in kinds for name in fmt.schema()["$defs"][d]["properties"]}
    assert set(fmt.AgentDescription.__annotations__) == fields
    assert {fmt.schema()["$defs"][d]["properties"]["kind"]["const"] for d in kinds} == set(fmt.AGENT_KINDS)


@pytest.mark.parametrize("agent, kind", [
    ({"name": "a", "kind": "builtin", "strategy": "x", "params": {}}, "builtin"),
    ({"name": "b", "kind": "llm", "provider": "openai", "model": "m"}, "llm"),
    ({"name": "c", "kind": "human"}, "human"),
    ({"name": "d", "kind": "robot"}, None), ({"name": "e"}, None), ({"kind": ["llm"]}, None), (None, None), ("llm", None),
])
def test_agent_kind(agent, kind):
    assert fmt.agent_kind(agent) == kind
