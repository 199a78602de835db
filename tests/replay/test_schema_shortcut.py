"""The fast path for plain events and probes never accepts what the full JSON Schema refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.replay.format import _plainly_valid, _validators

CORPUS = Path(__file__).resolve().parents[2] / "replays" / "builtin"
EVENT = {"type": "event", "n": 3, "kind": "action", "phase": "vote", "seat": 1, "data": {"vote": 2}, "vis": [1]}
PROBE = {"type": "probe", "seat": 0, "probe": "suspect", "answer": {"seat": 2}}


def schema_ok(record: dict) -> bool:
    return not list(_validators()[record["type"]].iter_errors(record))


@pytest.mark.parametrize("record", [
    EVENT, {**EVENT, "vis": "all"}, {**EVENT, "seat": None}, {**EVENT, "vis": []}, PROBE,
])
def test_plain_records_take_the_shortcut(record):
    assert _plainly_valid(record) and schema_ok(record)


@pytest.mark.parametrize("record", [
    {**EVENT, "n": 1.0}, {**EVENT, "n": -1}, {**EVENT, "n": True}, {**EVENT, "seat": True},
    {**EVENT, "seat": 64}, {**EVENT, "seat": "1"}, {**EVENT, "kind": "move"}, {**EVENT, "phase": "Vote"},
    {**EVENT, "phase": ""}, {**EVENT, "phase": "v" * 41}, {**EVENT, "phase": "vote\n"}, {**EVENT, "data": []},
    {**EVENT, "vis": [1, 1]}, {**EVENT, "vis": [1.0]}, {**EVENT, "vis": "everyone"}, {**EVENT, "vis": None},
    {**EVENT, "extra": 1}, {k: v for k, v in EVENT.items() if k != "vis"}, {**EVENT, "attempts": []},
    {**PROBE, "seat": -1}, {**PROBE, "probe": "guess"}, {**PROBE, "answer": None}, {**PROBE, "x": 1},
    {"type": "judge", "dimension": "engagement"},
])
def test_anything_doubtful_goes_through_the_full_schema(record):
    assert not _plainly_valid(record)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shipped corpus is missing")
def test_on_real_lines_the_shortcut_agrees_with_the_schema():
    checked = 0
    for path in sorted(CORPUS.glob("*.jsonl"))[::40]:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if _plainly_valid(record):
                assert schema_ok(record), line
                checked += 1
    assert checked > 100


HEADER = {"type": "header", "format": "gamenight.replay", "version": 1, "game_id": "t-g-1", "game": "chameleon",
          "variant": {}, "seed": 5, "tournament": "t", "matchup": "m",
          "players": [{"seat": 0, "name": "Player 1", "role": "chameleon",
                       "agent": {"name": "a", "kind": "builtin", "strategy": "random", "params": {}}}],
          "setup": {}, "max_attempts": 3,
          "provenance": {"runner": "gamenight", "runner_version": "0.1.0", "created": "2026-11-21"}}
OUTCOME = {"type": "outcome", "status": "complete", "winners": [0, 2], "result": {}}


def with_agent(**changes):
    player = {**HEADER["players"][0], "agent": {**HEADER["players"][0]["agent"], **changes}}
    return {**HEADER, "players": [player]}


@pytest.mark.parametrize("record", [HEADER, OUTCOME, {**OUTCOME, "winners": []}])
def test_plain_headers_and_outcomes_take_the_shortcut(record):
    assert _plainly_valid(record) and schema_ok(record)


@pytest.mark.parametrize("record", [
    {**HEADER, "version": 1.0}, {**HEADER, "version": 8}, {**HEADER, "format": "other"},
    {**HEADER, "game_id": "../x"}, {**HEADER, "game_id": "a" * 161}, {**HEADER, "seed": -1},
    {**HEADER, "seed": 2**63}, {**HEADER, "matchup": "m" * 201}, {**HEADER, "max_attempts": 0},
    {**HEADER, "players": []}, {**HEADER, "provenance": {**HEADER["provenance"], "created": "yesterday"}},
    {**HEADER, "provenance": {**HEADER["provenance"], "extra": 1}}, {**HEADER, "extra": 1},
    with_agent(kind="llm"), with_agent(strategy="Random"), with_agent(name=""), with_agent(extra=1),
    {**HEADER, "players": [{**HEADER["players"][0], "name": "n" * 81}]},
    {**HEADER, "players": [{**HEADER["players"][0], "seat": 64}]},
    {**OUTCOME, "winners": [0, 0]}, {**OUTCOME, "winners": [True]}, {**OUTCOME, "status": "won"},
    {**OUTCOME, "result": []}, {**OUTCOME, "extra": 1},
])
def test_doubtful_headers_and_outcomes_go_through_the_full_schema(record):
    assert not _plainly_valid(record)
