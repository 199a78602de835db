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


# -- the suite's deals are the suite's ------------------------------------------------------------

def _suite_deal(game: str = "prisoners_dilemma"):
    from runner import suite

    return next(d for d in suite.deals(suite.find("ranked"), 1) if d.game.game == game)


def test_a_plan_naming_a_suite_deals_seed_is_refused_with_the_matchup():
    first = _suite_deal()
    matchups = [{**BOTS, "games": 1}, {"game": "prisoners_dilemma", "seed": first.seed, "lineup": ["Ann", "random", "random"]}]
    raw = tomli_w.dumps({"name": "p", "agents": AGENTS, "matchups": matchups}).encode()
    [problem] = read_plan("replays/p/tournament.toml", "p", raw).problems
    assert str(problem).startswith(f"replays/p/tournament.toml: matchups[1].seed: {first.seed} is the seed of "
                                   "prisoners_dilemma deal 0 (stage 1) of the suite ranked-1"), problem
    assert str(problem).endswith("leave the seed out or choose another")


def test_the_same_seed_for_another_game_is_free():
    """A seed is the suite's for the game it deals: the same number for Public Good plans as any."""
    plan_of({"game": "public_good", "seed": _suite_deal().seed, "lineup": ["Ann", "random", "random"]})


def test_a_seed_drawn_from_the_tournaments_seed_is_refused_too(monkeypatch):
    """No tournament seed is known to draw a suite's seed (that takes some 2^46 hashes a deal):
    the deals are made to hold one, to see that a drawn seed is looked up like a named one."""
    from runner import deals

    planned = plan_of(PD, {**PD, "games": 3}).tournament.plan()
    drawn = {planned[2].seed: deals.ReservedDeal("ranked", 1, 7, 3)}
    monkeypatch.setattr(deals, "reserved", lambda game: drawn if game == "prisoners_dilemma" else {})
    raw = tomli_w.dumps({"name": "p", "seed": 1, "agents": AGENTS, "matchups": [PD, {**PD, "games": 3}]}).encode()
    plan = read_plan("p/tournament.toml", "p", raw)
    assert plan.tournament is None and not plan.games
    assert [str(p) for p in plan.problems] == [(
        f"p/tournament.toml: matchups[1]: game 2 draws its seed from the tournament's seed, and {planned[2].seed} is "
        "the seed of prisoners_dilemma deal 7 (stage 3) of the suite ranked-1: a suite's deals are played only in "
        "its rows (`gamenight run --suite ranked`), so no other tournament may play one; choose another tournament "
        "seed")]
