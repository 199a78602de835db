"""Fuzzing the validator with shipped replays changed at random: whatever a stranger's file holds,
checking it ends quickly with either a valid game (whose recomputed outcome is the original's:
every move of these games follows from the seed) or problems of the form FILE:LINE: FIELD:
MESSAGE, never a traceback."""

from __future__ import annotations

import json
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from runner.rerun.validate import check_bytes

BUILTIN = Path(__file__).resolve().parents[2] / "replays" / "builtin"
#: One shipped replay of each game (the first by name), the seeds of the fuzzing.
GAMES = ("chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf")
#: Mutated inputs per run (CI): enough to meet every kind of mutation on every game several times.
EXAMPLES = 2000
#: The slowest any one check may take (the largest shipped game checks in well under a second).
SECONDS = 10.0


@cache
def seeds() -> dict[str, bytes]:
    return {game: sorted(BUILTIN.glob(f"builtin-{game}-*.jsonl"))[0].read_bytes() for game in GAMES}


@cache
def outcome_of(game: str) -> dict[str, Any]:
    checked = check_bytes("seed.jsonl", seeds()[game])
    assert checked.ok
    return checked.outcome


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a JSON value."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*prefix, i))
    return found


def _set(value: Any, path: tuple, new: Any, delete: bool = False) -> Any:
    if not path:
        return new
    parent = value
    for part in path[:-1]:
        parent = parent[part]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return value


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    game = draw(st.sampled_from(GAMES))
    raw = seeds()[game]
    lines = raw.decode("utf-8").splitlines()
    kind = draw(st.sampled_from(["value", "delete", "type", "duplicate", "drop", "swap", "truncate", "bytes",
                                 "encoding", "blank", "reorder-keys"]))
    index = draw(st.integers(0, len(lines) - 1))
    if kind in ("value", "delete", "type", "reorder-keys"):
        record = json.loads(lines[index])
        paths = _paths(record)[1:]
        if not paths:
            return game, raw
        path = draw(st.sampled_from(paths))
        if kind == "value":
            record = _set(record, path, draw(JSON_VALUES))
        elif kind == "delete":
            record = _set(record, path, None, delete=True)
        elif kind == "type":
            old = record
            for part in path:
                old = old[part]
            record = _set(record, path, [old] if not isinstance(old, list) else {"x": old})
        else:
            record = dict(reversed(list(record.items())))
        lines[index] = json.dumps(record, ensure_ascii=False, allow_nan=True, separators=(",", ":"))
    elif kind == "duplicate":
        lines.insert(index, lines[index])
    elif kind == "drop":
        del lines[index]
    elif kind == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[index], lines[other] = lines[other], lines[index]
    elif kind == "blank":
        lines.insert(index, "")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if kind == "truncate":
        data = data[:draw(st.integers(0, len(data)))]
    elif kind == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at:]
    elif kind == "encoding":
        data = data.decode("utf-8").encode("utf-16")
    return game, data


def _assert_well_behaved(game: str, data: bytes) -> None:
    started = time.perf_counter()
    checked = check_bytes("fuzzed.jsonl", data)
    assert time.perf_counter() - started < SECONDS
    if checked.ok:
        # Valid after the change: then it is the same game (all its moves follow from the seed).
        assert checked.outcome == outcome_of(game)
        return
    for problem in checked.problems:
        text = str(problem)
        assert text.startswith("fuzzed.jsonl") and "Traceback" not in text
        assert "\n" not in text and problem.message
        assert "the rules engine failed" not in text, text  # every input is understood, not crashed on


#: Inputs the fuzzing found or that stand for a class of problem: each must stay well behaved.
REGRESSIONS = [
    ("chameleon", lambda raw: raw.replace(b'"version":1', b'"version":1e400')),
    ("werewolf", lambda raw: raw.replace(b'"seed":', b'"seed":-', 1)),
    ("prisoners_dilemma", lambda raw: raw.replace(b'"choice":"defect"', b'"choice":["defect"]', 1)),
    ("public_good", lambda raw: raw.replace(b'"contribution":', b'"contribution":1e308*', 1)),
    ("undercover", lambda raw: raw[: len(raw) // 2]),
    ("cost_sharing", lambda raw: raw.replace(b'"split":[', b'"split":[[[[[[[[', 1)),
    ("chameleon", lambda raw: raw.replace(b'"players":', b'"players":{"a":', 1)),
    # Found by this suite: a list where the fast schema path tested membership in a set (a
    # TypeError traceback), and a player that is not an object.
    ("prisoners_dilemma", lambda raw: raw.replace(b'"kind":"action"', b'"kind":["action"]', 1)),
    ("chameleon", lambda raw: raw.replace(b'"probe":"suspect"', b'"probe":["suspect"]', 1)),
    ("public_good", lambda raw: raw.replace(b'"players":[{', b'"players":[[],{', 1)),
]


@pytest.mark.parametrize("game, change", REGRESSIONS)
def test_regression_inputs_are_well_behaved(game, change):
    _assert_well_behaved(game, change(seeds()[game]))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
@example(("chameleon", b"\xef\xbb\xbf" + b"{}\n"))
def test_mutated_replays_are_valid_or_refused_with_a_located_problem(case):
    game, data = case
    _assert_well_behaved(game, data)
