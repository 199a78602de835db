"""The play loop: re-asking, forfeits, attempts and evidence recorded as the contract says."""

from __future__ import annotations

import asyncio

from runner import games
from runner.agents.base import Agent, Decision, Request
from runner.play import Seating
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone


class Scripted(Agent):
    """Answers from a list, one decision per call; records a fake model call as evidence."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.seen_errors: list[tuple[str, ...]] = []
        self.description = {"name": "s", "kind": "builtin", "strategy": "scripted", "params": {}}

    async def act(self, request: Request) -> Decision:
        self.seen_errors.append(request.errors)
        answer = self.answers.pop(0)
        call = {"messages": [{"role": "user", "content": "move?"}], "reply": str(answer)}
        if isinstance(answer, str):
            return Decision(None, raw=answer, evidence={"calls": [call]}, error=f"could not read {answer!r}")
        return Decision(answer, raw=str(answer), evidence={"calls": [call]})


def run(agents, rounds=1, attempts=3):
    game = games.get("prisoners_dilemma")
    params = game.params({"rounds": rounds})
    setup = {"payoffs": {"cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}}
    seating = Seating(agents, game.seat_names(params, setup), ["player"] * 3)
    records = asyncio.run(play_alone(game, params, setup, seating, seed=1, tournament="t", created="2026-11-21",
                                     max_attempts=attempts))
    assert check_bytes("p-1.jsonl", encode(records), derive=False).ok  # a hand-chosen payoff table
    return records


def test_refused_and_unreadable_attempts_are_recorded_and_the_agent_is_told_why():
    first = Scripted(["maybe?", {"choice": "betray"}, {"choice": "defect"}])
    records = run([first, Scripted([{"choice": "cooperate"}]), Scripted([{"choice": "cooperate"}])])
    action = next(r for r in records if r["type"] == "event" and r["seat"] == 0)
    assert action["data"] == {"choice": "defect"}
    assert [a["error"] for a in action["attempts"]][0] == "could not read 'maybe?'"
    assert "must be one of" in action["attempts"][1]["error"]
    assert action["attempts"][1]["action"] == {"choice": "betray"}
    assert len(action["evidence"]["calls"]) == 3  # every call, including the refused ones
    assert first.seen_errors[0] == () and len(first.seen_errors[2]) == 2


def test_an_agent_that_never_answers_legally_forfeits_and_the_game_is_kept_invalid():
    records = run([Scripted(["?", "??"]), Scripted([{"choice": "cooperate"}]), Scripted([{"choice": "cooperate"}])],
                  attempts=2)
    outcome = records[-1]
    assert outcome["status"] == "invalid" and outcome["winners"] == []
    forfeit = next(r for r in records if r["type"] == "event" and r["kind"] == "forfeit")
    assert forfeit["seat"] == 0 and len(forfeit["attempts"]) == 2
