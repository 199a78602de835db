"""Each game's facts (runner/games/facts.py) against its engine: outcomes in words, reveal phases, partners, opponent."""

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


def test_an_outcome_off_the_table_reads_as_its_value_or_the_fallback():
    assert Outcome("team", {"a": "a wins"}).read({"team": "b"}) == "b"
    assert Outcome("winner", {None: "shared win"}, otherwise="single winner").read({"winner": 0}) == "single winner"
    assert Outcome("winner", {None: "shared win"}, otherwise="single winner").read({}) == "shared win"


def test_an_unknown_game_has_no_facts():
    with pytest.raises(KeyError, match="unknown game 'go'"):
        games.facts_of("go")
