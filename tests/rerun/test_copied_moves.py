"""The validator derives a model seat's refusals of copied clues and statements again from its
recorded replies: from prompt set 4 on, a copy recorded as a move, or a refusal recorded with
another reason, is refused; replays of sets 2 and 3 that hold copies stay valid as played."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from runner import games
from runner.agents.builtin import make
from runner.agents.llm import make_llm_agent
from runner.agents.llm.copies import copy_of, free_texts
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes, check_file
from tests.agents.llm.llm_fakes import FakeModel, legal_reply
from tests.helpers import play_alone

SHIPPED = Path(__file__).resolve().parents[2] / "replays"
SPEC = {"provider": "openai_compatible", "model": "small", "base_url": "http://127.0.0.1:8000/v1",
        "temperature": 0.7, "seed": 270, "max_tokens": 160}
COPY = '{"clue": "your clue, in your own words"}'


def undercover_game(first_replies: list[str]) -> list[dict]:
    """A 4-player Undercover game (sentence clues), the model in seat 0: its first clue replies are
    `first_replies`, every other answer legal."""
    game = games.get("undercover")
    params = game.params({"players": 4, "clue": "sentence"})
    setup = game.deal(params, rng_for(3, "deal"))
    queue = list(first_replies)

    def script(messages, i):
        if queue and '"clue":' in messages[-1].content:
            return queue.pop(0)
        return legal_reply(messages, random.Random(i))

    agents = [make_llm_agent(SPEC, FakeModel(script), game="undercover", seat=0, rng=rng_for(3, "agent-0"),
                             name="small")]
    agents += [make("undercover/associative", {}, rng_for(3, f"agent-{s}"), "assoc", "undercover") for s in (1, 2, 3)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(4)])
    return asyncio.run(play_alone(game, params, setup, seating, seed=3, tournament="t", created="2026-11-28"))


def first_clue(records: list[dict]) -> dict:
    return next(r for r in records if r["type"] == "event" and r["phase"] == "clue" and r["seat"] == 0)


def test_a_refused_copy_derives_again():
    records = undercover_game([COPY])
    clue = first_clue(records)
    assert clue["attempts"][0]["error"].startswith('"clue" copies the wording of the question')
    assert check_bytes("game.jsonl", encode(records)).ok


def test_a_copy_recorded_as_the_move_is_refused():
    records = undercover_game([COPY])
    clue = first_clue(records)
    clue["data"] = {"clue": "your clue, in your own words"}
    clue["evidence"]["calls"] = clue["evidence"]["calls"][:1]
    del clue["attempts"]
    checked = check_bytes("game.jsonl", encode(records))
    assert not checked.ok
    problem = checked.problems[0]
    assert problem.line == records.index(clue) + 1 and problem.field.endswith("data")
    assert "no legal move here" in problem.message and "copies the wording of the question" in problem.message


def test_a_refusal_recorded_with_another_reason_is_refused():
    records = undercover_game([COPY])
    first_clue(records)["attempts"][0]["error"] = "the clue must not contain your own word"
    checked = check_bytes("game.jsonl", encode(records))
    assert not checked.ok and "attempts[0]" in checked.problems[0].field


@pytest.mark.parametrize("folder, copies", [("local-cpu", "undercover"), ("local-cpu-strategy", "werewolf")])
def test_shipped_replays_of_older_sets_keep_their_copies_and_stay_valid(folder, copies):
    path = sorted((SHIPPED / folder).glob(f"{folder}-{copies}-*.jsonl"))[0]
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    versions = {p["seat"]: p["agent"].get("prompt_version") for p in records[0]["players"]}
    copied = [text for r in records[1:] if r.get("type") == "event" and r.get("kind") == "action"
              and versions.get(r["seat"]) for _, text in free_texts(r["data"])
              if copy_of(text, versions[r["seat"]], copies)]
    assert copied and set(versions.values()) - {None} <= {"2", "3"}
    checked = check_file(path)
    assert checked.ok, [str(p) for p in checked.problems[:3]]
