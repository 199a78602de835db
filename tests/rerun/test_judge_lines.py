"""Judge annotations after the outcome: accepted when well-formed, refused with line and field."""

from __future__ import annotations

import asyncio
import json

import pytest

from runner import games
from runner.agents.builtin import make
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

JUDGE = {"name": "j", "kind": "llm", "provider": "openai", "model": "judge-model"}


@pytest.fixture(scope="module")
def werewolf_records() -> list[dict]:
    game = games.get("werewolf")
    params = game.params({})
    setup = game.deal(params, rng_for(7, "deal"))
    agents = [make("werewolf/strategic", {}, rng_for(7, f"agent-{s}"), "w", "werewolf") for s in range(8)]
    roles = [game.role_of(params, setup, s) for s in range(8)]
    return asyncio.run(play_alone(game, params, setup, Seating(agents, game.seat_names(params, setup), roles),
                                  seed=7, tournament="t", created="2026-11-21"))


def judge(dimension, **fields):
    record = {"type": "judge", "dimension": dimension, "judge": JUDGE, "round": None, "score": None,
              "mentions": None, "highlights": None}
    record.update(fields)
    return record


def statement_numbers(records):
    return [r["n"] for r in records if r["type"] == "event" and r["kind"] == "action" and r["phase"] == "day"]


def test_well_formed_judgements_are_accepted(werewolf_records):
    spoken = statement_numbers(werewolf_records)
    extra = [judge("engagement", score=7), judge("wonder", score=1), judge("attraction", score=10, round=3),
             judge("variation", round=1, mentions=[{"by": 0, "about": 3, "role": "werewolf"}]),
             judge("variation", round=2, mentions=[]),
             judge("memorability", highlights=spoken[:3])]
    checked = check_bytes("g.jsonl", encode([*werewolf_records, *extra]))
    assert checked.ok, [str(p) for p in checked.problems]


@pytest.mark.parametrize("record, field, message", [
    (judge("engagement"), "score", "must be given"),
    (judge("engagement", score=5, highlights=[1]), "highlights", "must be null"),
    (judge("engagement", score=11), "score", ""),
    (judge("variation", mentions=[]), "round", "names the round"),
    (judge("variation", round=1, mentions=[{"by": 0, "about": 0, "role": "seer"}]), "mentions[0]", "another player"),
    (judge("variation", round=1, mentions=[{"by": 0, "about": 9, "role": "seer"}]), "mentions[0]", "seats 0 to 7"),
    (judge("variation", round=1, mentions=[{"by": 0, "about": 1, "role": "wizard"}]), "mentions[0].role", "one of"),
    (judge("memorability", highlights=[10_000]), "highlights[0]", "not a player's action"),
    (judge("popularity", score=3), "dimension", ""),
    ({**judge("engagement", score=3), "mood": "happy"}, "mood", "unknown field"),
], ids=["no-score", "extra-field-filled", "score-out-of-range", "variation-without-round", "self-mention",
        "no-such-seat", "unknown-role", "highlight-not-a-statement", "unknown-dimension", "unknown-key"])
def test_malformed_judgements_are_refused_with_line_and_field(werewolf_records, record, field, message):
    raw = encode([*werewolf_records, record])
    checked = check_bytes("g.jsonl", raw)
    line = len(werewolf_records) + 1
    assert not checked.ok
    problem = checked.problems[0]
    assert (problem.line, problem.field) == (line, field), str(problem)
    assert message in problem.message


def test_judgements_must_follow_the_outcome(werewolf_records):
    records = [*werewolf_records[:-1], judge("engagement", score=5), werewolf_records[-1]]
    checked = check_bytes("g.jsonl", encode(records))
    assert any("must come after the outcome" in p.message for p in checked.problems)
    records = [*werewolf_records, judge("engagement", score=5), json.loads(json.dumps(werewolf_records[1]))]
    checked = check_bytes("g.jsonl", encode(records))
    assert any("outcome must be the last line" in p.message for p in checked.problems)


def test_the_scorer_reads_judgements(werewolf_records, tmp_path):
    from site_builder.scoring.corpus import load
    from site_builder.scoring.model import agent_key

    path = tmp_path / "judged-1.jsonl"
    path.write_bytes(encode([*werewolf_records, judge("engagement", score=7)]))
    from runner.rerun.validate import check_bytes
    from site_builder.scoring.corpus import scored_game

    raw = encode([*werewolf_records, judge("engagement", score=7)])
    game = scored_game(check_bytes("judged-1.jsonl", raw), "hash")
    assert game.judgements == ({"dimension": "engagement", "judge": agent_key(JUDGE), "round": None,
                                "score": 7, "mentions": None, "highlights": None, "suspects": None,
                                "failure": None},)
    # The cache keeps the game's digest instead: the judge's score, raw and scaled to [0, 1].
    corpus = load([tmp_path])
    assert corpus.games[0].judgements == ()
    assert corpus.games[0].digest["werewolf"]["ewavm"]["all"]["judges"][agent_key(JUDGE)]["engagement"] == [
        7, (7 - 1) / 9]


def version_4(records):
    """The game's records with the header at version 4 (needed by suspicion and failure records)."""
    return [{**records[0], "version": 4}, *records[1:]]


def failed(dimension, reason="cut_off", **fields):
    return {**judge(dimension, **fields), "failure": {"reason": reason, "problem": "the reply was cut off", "asks": 3}}


def test_suspicions_and_failed_evaluations_are_accepted_in_version_4(werewolf_records):
    extra = [judge("suspicion", round=1, suspects=[3, None, 0, 1, 1, 1, None, 2]),
             failed("suspicion", round=2, suspects=None), failed("memorability", "unparseable"),
             failed("engagement", "refused")]
    checked = check_bytes("g.jsonl", encode([*version_4(werewolf_records), *extra]))
    assert checked.ok, [str(p) for p in checked.problems]


@pytest.mark.parametrize("record, field, message", [
    (judge("suspicion", round=1, suspects=[3, None, 0, 1, 1, 1, None, 2]), "dimension", "needs replay format version 4"),
    (failed("engagement"), "failure", "needs replay format version 4"),
], ids=["suspicion", "failure"])
def test_version_4_records_are_refused_in_older_files(werewolf_records, record, field, message):
    checked = check_bytes("g.jsonl", encode([*werewolf_records, record]))
    assert not checked.ok
    problem = checked.problems[0]
    assert (problem.line, problem.field) == (len(werewolf_records) + 1, field) and message in problem.message


@pytest.mark.parametrize("record, field, message", [
    (judge("suspicion", round=1), "suspects", "has the field suspects"),
    (judge("suspicion", round=1, suspects=None), "suspects", "must be given"),
    (judge("suspicion", suspects=[None] * 8), "round", "names the round"),
    (judge("suspicion", round=1, suspects=[None] * 7), "suspects", "one entry per seat (8)"),
    (judge("suspicion", round=1, suspects=[0] + [None] * 7), "suspects[0]", "another player or at nobody"),
    (judge("suspicion", round=1, suspects=[9] + [None] * 7), "suspects[0]", "seats 0 to 7"),
    (judge("suspicion", round=1, suspects=[None] * 8, score=3), "score", "must be null"),
    (judge("engagement", score=3, suspects=None), "suspects", "only a suspicion judgement"),
    (failed("engagement", score=3), "score", "must be null in a failed evaluation"),
    (failed("suspicion", round=1, suspects=[None] * 8), "suspects", "must be null in a failed evaluation"),
    (failed("engagement", "call_failed"), "failure.reason", ""),
    ({**judge("engagement"), "failure": {"reason": "cut_off", "problem": "x", "asks": 0}}, "failure.asks", ""),
], ids=["no-suspects", "suspects-null", "no-round", "short", "self", "no-such-seat", "two-fields",
        "suspects-elsewhere", "failed-with-value", "failed-suspects", "unknown-reason", "no-asks"])
def test_malformed_version_4_records_are_refused_with_line_and_field(werewolf_records, record, field, message):
    checked = check_bytes("g.jsonl", encode([*version_4(werewolf_records), record]))
    assert not checked.ok
    problem = checked.problems[0]
    assert (problem.line, problem.field) == (len(werewolf_records) + 1, field), str(problem)
    assert message in problem.message
