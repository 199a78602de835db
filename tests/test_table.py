"""A person's seat dealt by the plan: the game's seed draws it, the plan file records the rule, the
planner and the validator derive it again; `--seat` and `--role` stay for practice games."""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner import games
from runner.agents.human import Question
from runner.cli import main as gamenight
from runner.rerun.plans import PLAN_FILE, people_seats_dealt, read_plan
from runner.rerun.validate import check_bytes
from runner.table import Person, deal, play_table, seat_agents, write_played
from runner.tournament import PlanError, from_dict
from tests.people import belief, legal_answer

GAMES = ["chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good", "werewolf"]
SHIPPED_PLAYED = Path(__file__).parent.parent / "replays" / "play-ann-7e8"


class Careful:
    """A scripted person: a legal move, a well-formed belief."""

    async def ask(self, question: Question) -> Any:
        return legal_answer(question) if question.kind == "move" else belief(question)


def seats_of(table) -> dict[str, int]:
    return {name: seat for seat, name in table.people.items()}


def played(tmp_path: Path, game: str, seed: int, names: list[str], **rules: Any) -> Path:
    """A game played by scripted people with dealt seats, written as `gamenight play` writes it."""
    table = deal(game, rules, seed, [Person(name) for name in names])
    records = asyncio.run(play_table(table, seat_agents(table, lambda seat: Careful())))
    return write_played(records, table, tmp_path)


def test_a_person_given_by_name_only_is_dealt_a_seat_by_the_plan():
    table = deal("werewolf", {}, 42, [Person("Ann"), Person("Bob")])
    matchup = table.planned.matchup
    assert matchup.seats == "dealt" and [a.name for a in matchup.lineup[:2]] == ["Ann", "Bob"]
    assert matchup.label.startswith("lineup, seats dealt: Ann, Bob, ")
    assert sorted(table.people.values()) == ["Ann", "Bob"] and len(table.others) == 6
    assert {s: table.planned.agent_for(s, "").name for s in range(8)} == {
        **{s: a.name for s, a in table.others.items()}, **table.people}


@pytest.mark.parametrize("game", GAMES)
def test_planning_a_dealt_seat_game_twice_gives_the_same_seats(game):
    first, again = (deal(game, {}, 2026, [Person("Ann"), Person("Bob")]) for _ in range(2))
    assert seats_of(first) == seats_of(again) and first.planned.game_id == again.planned.game_id
    assert first.roles == again.roles and first.setup == again.setup


@pytest.mark.parametrize("game", GAMES)
def test_the_seed_deals_every_seat(game):
    n = games.get(game).players(games.get(game).params({}))
    seats = Counter(seats_of(deal(game, {}, seed, [Person("Ann")]))["Ann"] for seed in range(60 * n))
    assert sorted(seats) == list(range(n))  # each seat reachable
    assert max(seats.values()) < 2 * min(seats.values()) + 20, seats  # and none far likelier than another
    werewolf_roles = Counter(t.roles[seats_of(t)["Ann"]] for t in (deal("werewolf", {}, s, [Person("Ann")])
                                                                   for s in range(200)))
    assert set(werewolf_roles) == set(games.get("werewolf").roles)


@pytest.mark.parametrize("game", GAMES)
def test_the_plan_file_plans_the_same_game_and_seats_again(game, tmp_path):
    table = deal(game, {}, 77, [Person("Ann Lee"), Person("Bob")])
    text = table.plan.plan_file()
    assert 'seats = "dealt"' in text
    plan = read_plan(f"{table.tournament}/{PLAN_FILE}", table.tournament, text.encode())
    assert not plan.problems and list(plan.games) == [table.planned.game_id]
    [planned] = plan.games.values()
    assert planned.seed == table.seed and planned.matchup == table.planned.matchup
    assert [planned.agent_for(s, "").name for s in range(table.players)] == \
        [table.people.get(s) or table.others[s].name for s in range(table.players)]
    assert people_seats_dealt(plan)
    # The rule is part of the game's identity: the same lineup without it is another game.
    undealt = from_dict(tomllib.loads(text.replace('seats = "dealt"\n', ""))).plan()[0]
    assert undealt.game_id != table.planned.game_id


def test_gamenight_validate_accepts_a_played_dealt_seat_game_and_refuses_it_moved(tmp_path):
    path = played(tmp_path, "chameleon", 5, ["Ann", "Bob"])
    result = CliRunner().invoke(gamenight, ["validate", str(path.parent)])
    assert result.exit_code == 0, result.output
    assert check_bytes(path.name, path.read_bytes()).ok  # without its plan too: the label says the seats are dealt
    # Ann and Bob at each other's seats: not where the plan deals them.
    header, rest = path.read_bytes().split(b"\n", 1)
    seats = seats_of(deal("chameleon", {}, 5, [Person("Ann"), Person("Bob")]))
    data = json.loads(header)
    players = data["players"]
    players[seats["Ann"]]["agent"], players[seats["Bob"]]["agent"] = ({"name": "Bob", "kind": "human"},
                                                                      {"name": "Ann", "kind": "human"})
    path.write_bytes(json.dumps(data, separators=(",", ":")).encode() + b"\n" + rest)
    moved = CliRunner().invoke(gamenight, ["validate", str(path.parent)])
    assert moved.exit_code == 1
    assert f"players[{min(seats.values())}].agent: the plan seats " in moved.output, moved.output


def test_practice_games_and_old_plans_keep_their_meaning(tmp_path):
    seat = deal("public_good", {}, 3, [Person("Ann", seat=2)])
    role = deal("chameleon", {}, 3, [Person("Ann", role="chameleon")])
    for table in (seat, role):
        assert table.planned.matchup.seats is None and table.planned.matchup.label.startswith("lineup: ")
        assert 'seats = "dealt"' not in table.plan.plan_file()
    assert seats_of(seat) == {"Ann": 2} and role.roles[seats_of(role)["Ann"]] == "chameleon"
    shipped = read_plan(str(SHIPPED_PLAYED / PLAN_FILE), SHIPPED_PLAYED.name, (SHIPPED_PLAYED / PLAN_FILE).read_bytes())
    assert not shipped.problems and list(shipped.games) == ["play-ann-7e8-prisoners_dilemma-c8c446e15f98"]
    assert not people_seats_dealt(shipped)
    result = CliRunner().invoke(gamenight, ["validate", str(SHIPPED_PLAYED)])
    assert result.exit_code == 0, result.output


def test_dealt_and_chosen_seats_do_not_mix():
    with pytest.raises(PlanError, match="give every person a --seat or --role"):
        deal("werewolf", {}, 1, [Person("Ann"), Person("Bob", seat=3)])
    with pytest.raises(PlanError, match="4 people for 3 seats"):
        deal("public_good", {}, 1, [Person(n) for n in ("A", "B", "C", "D")])
    assert len(deal("public_good", {}, 1, [Person(n) for n in ("A", "B", "C")]).people) == 3
