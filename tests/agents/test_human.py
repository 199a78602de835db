"""A person's seat: asked through a channel, refused with the rules' message, recorded as `human`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from runner.agents.human import HumanAgent, Question, check_name
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from runner.table import Person, deal, play_table, seat_agents
from runner.tournament import PlanError
from tests.people import belief, legal_answer


class Person_:
    """A scripted person: first sends something the rules refuse, then legal moves; answers every
    other probe and skips the rest."""

    def __init__(self, bad_first: Any):
        self.bad_first = bad_first
        self.refusals: list[tuple[str, ...]] = []
        self.probes = 0
        self.beliefs: list[Any] = []  # the beliefs the rules took, as the channel is told them

    def accepted(self, question: Question, answer: Any) -> None:
        self.beliefs.append(answer)

    async def ask(self, question: Question) -> Any:
        if question.kind == "probe":
            self.probes += 1
            if question.refused:
                return None  # gave up on this one
            if self.probes == 1:
                return {"nonsense": True}  # refused, then skipped
            return belief(question) if self.probes % 2 else None
        self.refusals.append(question.refused)
        if self.bad_first is not None:
            bad, self.bad_first = self.bad_first, None
            return bad
        return legal_answer(question)


GAMES = ["chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf"]


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_game_and_the_replay_validates(game):
    table = deal(game, {}, 7, [Person("Ann", seat=0)])
    person = Person_(bad_first={})
    records = asyncio.run(play_table(table, seat_agents(table, lambda seat: person)))
    header = records[0]
    assert header["version"] == 3
    assert header["players"][0]["agent"] == {"name": "Ann", "kind": "human"}
    assert header["tournament"].startswith("play-ann-") and header["matchup"].startswith("lineup: Ann, ")
    # The empty answer was refused with the rules' own message and asked again, not forfeited.
    assert person.refusals[1] and "field" in person.refusals[1][0]
    mine = [r for r in records if r.get("seat") == 0 and r["type"] in ("event", "probe") and r.get("kind") != "info"]
    assert mine and all(isinstance(r["took_ms"], int) and r["took_ms"] >= 0 for r in mine
                        if r["type"] == "probe" or r["kind"] == "action")
    assert not any("attempts" in r or "evidence" in r for r in mine)
    assert records[-1]["status"] == "complete"
    recorded = [r["answer"] for r in records if r["type"] == "probe" and r["seat"] == 0]
    assert person.beliefs == recorded and {"nonsense": True} not in recorded  # a refused belief is never told
    checked = check_bytes("replays/play/x.jsonl", encode(records))
    assert checked.ok, checked.problems


def test_two_people_at_one_table_each_ask_through_their_own_channel():
    table = deal("werewolf", {}, 3, [Person("Ann", role="seer"), Person("Bob", role="werewolf")])
    ann, bob = Person_(None), Person_(None)
    records = asyncio.run(play_table(table, seat_agents(table, lambda seat: ann if table.people[seat] == "Ann" else bob)))
    assert table.roles[[s for s, n in table.people.items() if n == "Ann"][0]] == "seer"
    assert ann.refusals and bob.refusals
    assert check_bytes("x.jsonl", encode(records)).ok


def test_the_validator_refuses_a_persons_time_on_a_bot_seat_and_human_fields_in_an_older_version():
    table = deal("prisoners_dilemma", {"rounds": 1}, 1, [Person("Ann", seat=0)])
    records = asyncio.run(play_table(table, seat_agents(table, lambda seat: Person_(None))))
    bot_move = next(r for r in records if r["type"] == "event" and r["seat"] == 1)
    bot_move["took_ms"] = 5
    problems = check_bytes("x.jsonl", encode(records)).problems
    assert problems and problems[0].field == "took_ms"
    del bot_move["took_ms"]
    records[0]["version"] = 2
    problems = check_bytes("x.jsonl", encode(records)).problems
    assert problems and "needs replay format version 3" in problems[0].message


@pytest.mark.parametrize("name", ["", " ", "a,b", "x: y", "<script>", "a" * 41, "Ann\n"])
def test_a_persons_name_is_checked(name):
    if name == "Ann\n":
        assert check_name(name) == "Ann"
        return
    with pytest.raises(ValueError, match="a player's name"):
        check_name(name)


def test_dealing_refuses_what_cannot_be_seated():
    with pytest.raises(PlanError, match="seats 0 to 2"):
        deal("public_good", {}, 1, [Person("Ann", seat=5)])
    with pytest.raises(PlanError, match="roles"):
        deal("chameleon", {}, 1, [Person("Ann", role="king")])
    with pytest.raises(PlanError, match="name of an agent"):
        deal("public_good", {}, 1, [Person("random", seat=0)], against=["random"])
    assert HumanAgent("Ann", Person_(None)).description == {"name": "Ann", "kind": "human"}


def test_a_persons_games_are_scored_under_their_name_and_count_as_a_submission(tmp_path):
    from runner.table import write_replay
    from site_builder.scoring.corpus import load
    from site_builder.scoring.model import agent_key
    from site_builder.scoring.results import assemble
    from site_builder.submission.check import NON_BOT_KINDS

    for game in ("chameleon", "public_good"):
        table = deal(game, {}, 11, [Person("Ann", seat=1)])
        write_replay(asyncio.run(play_table(table, seat_agents(table, lambda seat: Person_(None)))), tmp_path)
    corpus = load([tmp_path])
    assert len(corpus.games) == 2 and not corpus.invalid_replays
    results = assemble(corpus)
    ann = agent_key({"name": "Ann", "kind": "human"})
    assert ann != agent_key({"name": "Bob", "kind": "human"})
    assert any(a["key"] == ann and a["kind"] == "human" for a in results["agents"])
    assert "human" in NON_BOT_KINDS


@pytest.mark.parametrize("game, role", [("chameleon", "chameleon"), ("werewolf", "seer"), ("prisoners_dilemma", None)])
def test_a_played_game_is_a_one_game_plan_the_planner_derives_again(game, role, tmp_path):
    import tomllib

    from click.testing import CliRunner

    from runner.cli import main as gamenight
    from runner.table import write_played
    from runner.tournament import from_dict

    table = deal(game, {}, 11, [Person("Ann Lee", role=role) if role else Person("Ann Lee", seat=1)])
    if role:
        assert table.roles[next(iter(table.people))] == role
    plan_text = table.plan.plan_file()
    again = from_dict(tomllib.loads(plan_text)).plan()
    assert [(g.game_id, g.seed) for g in again] == [(table.planned.game_id, table.seed)]
    assert table.tournament.startswith("play-ann-lee-")
    records = asyncio.run(play_table(table, seat_agents(table, lambda seat: Person_(None))))
    assert records[0]["game_id"] == table.planned.game_id
    path = write_played(records, table, tmp_path)
    assert path.parent.name == table.tournament and (path.parent / "tournament.toml").exists()
    # A person's plan cannot be run: only `gamenight play` seats a person.
    ran = CliRunner().invoke(gamenight, ["run", str(path.parent / "tournament.toml"), "--out", str(tmp_path / "x")])
    assert ran.exit_code != 0 and "played with `gamenight play`" in ran.output


def test_a_plan_refuses_a_person_with_anything_but_human_true():
    from runner.tournament import from_dict

    base = {"name": "p", "matchups": [{"game": "prisoners_dilemma", "lineup": ["Ann", "random", "random"]}]}
    with pytest.raises(PlanError, match="human = true"):
        from_dict({**base, "agents": {"Ann": {"human": True, "model": "x"}}})
    with pytest.raises(PlanError, match="a player's name"):
        from_dict({**base, "agents": {"<b>": {"human": True}}})
