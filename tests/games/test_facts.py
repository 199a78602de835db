"""Each game's facts (runner/games/facts.py) against its engine: outcomes in words, goals, reveal phases,
partners, teams, the hidden role, points, opponent."""

from __future__ import annotations

import random

import pytest

from runner import games
from runner.agents.builtin import strategies
from runner.games.facts import Outcome
from tests.conformance.test_games import fresh, random_play

SEEDS = range(40)


@pytest.fixture(params=games.available())
def name(request) -> str:
    return request.param


def played(name: str) -> list:
    """Complete random games of `name`, one per seed: (state, phases of its events)."""
    out = []
    for seed in SEEDS:
        _, _, state = fresh(games.get(name), seed)
        random_play(state, random.Random(seed))
        out.append((state, {event["phase"] for event in state.events}))
    return out


def test_every_outcome_reads_in_words_of_the_table(name):
    facts = games.facts_of(name)
    said = {facts.outcome.read(state.outcome()["result"]) for state, _ in played(name)}
    known = set(facts.outcome.words.values()) | ({facts.outcome.otherwise} - {None})
    assert said <= known, f"{name}: outcomes read as raw values: {sorted(said - known)}"


def test_reveal_phases_are_the_engines_and_are_reached(name):
    engine, facts = games.get(name), games.facts_of(name)
    phases = {facts.roles_public_at, facts.setup_public_at} - {None}
    if not engine.reveal_phases:
        assert not phases, f"{name} has no hidden information, so nothing to reveal"
        return
    assert phases and phases <= engine.reveal_phases
    assert all(phases <= seen for _, seen in played(name)), f"{name}: a complete game ends before its reveal"


def test_partner_fields_name_another_seat_of_the_same_role(name):
    engine, facts = games.get(name), games.facts_of(name)
    found = 0
    for seed in SEEDS:
        params, setup, state = fresh(engine, seed)
        for seat in range(engine.players(params)):
            for field in facts.partner_fields:
                partner = state.private(seat).get(field)
                if partner is not None:
                    found += 1
                    assert partner != seat
                    assert engine.role_of(params, setup, partner) == engine.role_of(params, setup, seat)
    assert bool(found) == bool(facts.partner_fields)


def test_the_default_opponent_is_a_builtin_player_of_the_game(name):
    opponent = games.facts_of(name).default_opponent
    assert opponent in strategies() and opponent.startswith(f"{name}/")


def test_every_role_a_seat_is_told_has_a_goal(name):
    engine, goals = games.get(name), games.facts_of(name).goals
    told = set()
    for seed in SEEDS:
        params, setup, state = fresh(engine, seed)
        told |= {state.private(seat).get("role") for seat in range(engine.players(params))}
    assert told - {None} <= set(engine.roles)
    assert None in goals or told <= set(goals), f"{name}: no goal for the roles {sorted(told - set(goals))}"
    assert set(goals) - {None} <= set(engine.roles) and all(isinstance(g, str) and g for g in goals.values())


def test_teams_are_the_ones_each_seat_is_told(name):
    engine, teams = games.get(name), games.facts_of(name).teams
    assert not teams or set(teams) == set(engine.roles)
    for seed in SEEDS:
        params, setup, state = fresh(engine, seed)
        for seat in range(engine.players(params)):
            private = state.private(seat)
            assert private.get("team") == (teams[engine.role_of(params, setup, seat)] if teams else None)


def test_the_hidden_role_is_dealt_told_as_the_facts_say_and_talked_about(name):
    engine, hidden = games.get(name), games.facts_of(name).hidden
    if hidden is None:
        assert not engine.reveal_phases, f"{name} reveals something, so it hides something: say what (hidden)"
        return
    assert hidden.role in engine.roles and hidden.called and hidden.talk
    for seed in SEEDS:
        params, setup, state = fresh(engine, seed)
        seats = range(engine.players(params))
        assert any(engine.role_of(params, setup, s) == hidden.role for s in seats), f"{name}: nobody hidden"
        for seat in seats:
            private = state.private(seat)
            assert ("role" in private) == hidden.told
            assert not hidden.told or private["role"] == engine.role_of(params, setup, seat)
    talked = [ev for state, _ in played(name) for ev in state.events if ev["phase"] in hidden.talk]
    assert talked and all(ev["kind"] == "action" and ev["vis"] == "all" for ev in talked)
    assert {ev["phase"] for ev in talked} == set(hidden.talk)


def test_the_points_are_each_seats_and_the_most_win(name):
    field = games.facts_of(name).points
    if field is None:
        return
    for state, _ in played(name):
        outcome = state.outcome()
        points = outcome["result"][field]
        assert len(points) == state.game.players(state.params)
        assert outcome["winners"] == [s for s, p in enumerate(points) if p == max(points)]


def test_an_outcome_off_the_table_reads_as_its_value_or_the_fallback():
    assert Outcome("team", {"a": "a wins"}).read({"team": "b"}) == "b"
    assert Outcome("winner", {None: "shared win"}, otherwise="single winner").read({"winner": 0}) == "single winner"
    assert Outcome("winner", {None: "shared win"}, otherwise="single winner").read({}) == "shared win"


def test_an_unknown_game_has_no_facts():
    with pytest.raises(KeyError, match="unknown game 'go'"):
        games.facts_of("go")
