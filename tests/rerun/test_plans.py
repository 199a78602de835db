"""`people_seats_dealt`: whether a plan's people were dealt their seats (what a submission may hold)."""

from __future__ import annotations

import pytest
import tomli_w

from runner.rerun.plans import people_seats_dealt, read_plan
from runner.table import Person, deal

AGENTS = {"Ann": {"human": True}, "Bob": {"human": True}}
PD = {"game": "prisoners_dilemma", "lineup": ["Ann", "random", "random"]}
BOTS = {"game": "public_good", "lineup": ["random", "random", "random"]}


def plan_of(*matchups: dict, agents: dict = AGENTS):
    raw = tomli_w.dumps({"name": "p", "seed": 1, "agents": agents, "matchups": list(matchups)}).encode()
    plan = read_plan("p/tournament.toml", "p", raw)
    assert not plan.problems, plan.problems
    return plan


@pytest.mark.parametrize("matchups, dealt", [
    ([{**PD, "seats": "dealt"}], True),
    ([{**PD, "seats": "dealt"}, BOTS], True),
    ([BOTS], True),  # nobody to deal: no person chose anything
    ([PD], False),  # a lineup in seat order: the person chose the seat (--seat)
    ([{**PD, "seats": "dealt"}, {**PD, "games": 2}], False),
    ([{"game": "chameleon", "roles": {"chameleon": "Ann", "*": "random"}}], False),  # a person named for a role
    ([{"game": "chameleon", "roles": {"*": "random"}}], True),
], ids=["dealt", "dealt-and-bots", "bots", "chosen-seat", "one-of-two-chosen", "role", "roles-of-bots"])
def test_a_plan_deals_its_peoples_seats_only_when_every_matchup_with_a_person_does(matchups, dealt):
    assert people_seats_dealt(plan_of(*matchups)) is dealt


@pytest.mark.parametrize("person", [Person("Ann"), Person("Ann", seat=0), Person("Ann", role="chameleon")],
                         ids=["--name", "--seat", "--role"])
def test_gamenight_plays_plans_deal_seats_only_without_seat_or_role(person):
    table = deal("chameleon", {}, 9, [person])
    plan = read_plan("p/tournament.toml", table.tournament, table.plan.plan_file().encode())
    assert people_seats_dealt(plan) is (person.seat is None and person.role is None)


def test_the_seat_rule_is_only_a_lineups():
    for bad in ({**PD, "seats": "chosen"}, {"game": "chameleon", "roles": {"*": "random"}, "seats": "dealt"}):
        raw = tomli_w.dumps({"name": "p", "agents": AGENTS, "matchups": [bad]}).encode()
        [problem] = read_plan("p/tournament.toml", "p", raw).problems
        assert 'seats = "dealt" beside lineup' in problem.message
