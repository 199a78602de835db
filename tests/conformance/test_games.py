"""Conformance kit: properties every rules engine must have (in the spirit of PettingZoo's)."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from runner import games
from runner.agents.builtin import make
from runner.games import IllegalAction, SetupError
from runner.games.base import Game, State
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

GAMES = games.available()
SEEDS = range(25)
MAX_STEPS = 5000
#: The social-deduction games: those whose facts name a hidden role (runner/games/facts.py).
PROBED_GAMES = {name for name in GAMES if games.facts_of(name).hidden is not None}


def fresh(game: Game, seed: int) -> tuple[dict[str, Any], dict[str, Any], State]:
    params = game.params({})
    setup = game.deal(params, rng_for(seed, "deal"))
    return params, setup, game.start(params, setup)


def random_play(state: State, rng: random.Random, visit=None) -> list[tuple[str, Any, Any]]:
    """Play uniformly random legal moves to the end; the inputs applied, in order."""
    inputs: list[tuple[str, Any, Any]] = []
    for _ in range(MAX_STEPS):
        pending = state.pending()
        if pending is None:
            return inputs
        if visit:
            visit(state, pending)
        if pending.kind == "chance":
            outcome = rng.choice(pending.options)
            state.chance(outcome)
            inputs.append(("chance", None, outcome))
        else:
            seat = pending.seats[0]
            action = state.random_action(seat, rng)
            state.act(seat, action)
            inputs.append(("act", seat, action))
    raise AssertionError(f"no end after {MAX_STEPS} steps")


def play_replay(game: Game, seed: int) -> bytes:
    params = game.params({})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    agents = [make("random", {}, rng_for(seed, f"agent-{s}"), "random", game.name) for s in range(n)]
    roles = [game.role_of(params, setup, s) for s in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), roles)
    records = asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="conformance",
                                     created="2026-01-01"))
    return encode(records)


@pytest.fixture(params=GAMES)
def game(request) -> Game:
    return games.get(request.param)


def test_every_game_of_the_brief_is_registered():
    assert set(GAMES) == {"chameleon", "undercover", "cost_sharing", "prisoners_dilemma",
                          "public_good", "werewolf"}


def test_random_play_terminates_with_a_complete_outcome(game):
    for seed in SEEDS:
        params, setup, state = fresh(game, seed)
        random_play(state, random.Random(seed))
        outcome = state.outcome()
        assert outcome["status"] == "complete"
        assert set(outcome["winners"]) <= set(range(game.players(params)))
        json.dumps(outcome, allow_nan=False)
        for event in state.events:
            json.dumps(event, allow_nan=False)


def test_dealt_setups_pass_their_own_check_and_cover_every_role(game):
    seen_roles: set[str] = set()
    for seed in range(200):
        params = game.params({})
        setup = game.deal(params, rng_for(seed, "deal"))
        game.check_setup(params, json.loads(json.dumps(setup)))
        seen_roles.update(game.role_of(params, setup, s) for s in range(game.players(params)))
    assert seen_roles == set(game.roles)


def test_same_seed_gives_byte_identical_replays(game):
    for seed in range(5):
        assert play_replay(game, seed) == play_replay(game, seed)
    assert play_replay(game, 0) != play_replay(game, 1)


def test_resimulating_a_replay_reproduces_it(game):
    for seed in range(10):
        raw = play_replay(game, seed)
        checked = check_bytes(f"{game.name}-{seed}.jsonl", raw)
        assert checked.ok, [str(p) for p in checked.problems]
        claimed = json.loads(raw.splitlines()[-1])
        assert checked.outcome == {k: v for k, v in claimed.items() if k != "type"}


def test_what_is_pending_is_always_what_the_rules_say_now(game):
    # State.pending() remembers its answer between moves; it must never lag behind the state.
    def visit(state: State, pending):
        assert pending == state._pending()
        if pending.kind == "act":
            state.legal(pending.seats[0])  # asks pending() itself, in between
            assert state.pending() == state._pending()

    for seed in range(8):
        _, _, state = fresh(game, seed)
        random_play(state, random.Random(seed), visit)
        assert state._pending() is None


def test_every_illegal_action_is_refused_and_changes_nothing(game):
    def visit(state: State, pending):
        if pending.kind != "act":
            return
        before = json.dumps(state.events)
        seat = pending.seats[0]
        for bad in state.illegal_examples(seat):
            with pytest.raises(IllegalAction):
                state.act(seat, bad)
        outsiders = [s for s in range(game.players(state.params)) if s not in pending.seats]
        for other in outsiders:
            with pytest.raises(IllegalAction):
                state.act(other, state.random_action(seat, random.Random(0)))
        assert json.dumps(state.events) == before
        counts["checked"] += len(state.illegal_examples(seat))

    counts = {"checked": 0}
    for seed in range(8):
        _, _, state = fresh(game, seed)
        random_play(state, random.Random(seed), visit)
        with pytest.raises(IllegalAction, match="over"):
            state.act(0, {})
    assert counts["checked"] > 0


def test_a_simultaneous_action_stays_hidden_until_the_phase_closes(game):
    checked = {"n": 0}

    def visit(state: State, pending):
        if pending.kind != "act" or not pending.simultaneous or len(pending.seats) < 2:
            return
        first, *others = pending.seats
        before = {s: state.observe(s) for s in others}
        trial = _clone(game, state)
        trial.act(first, trial.random_action(first, random.Random(1)))
        for s in others:
            assert trial.observe(s) == before[s], f"seat {s} saw seat {first}'s {pending.phase}"
        checked["n"] += 1

    for seed in range(5):
        _, _, state = fresh(game, seed)
        random_play(state, random.Random(seed), visit)
    if not checked["n"]:
        pytest.skip(f"{game.name} has no simultaneous phase")


def test_observations_do_not_depend_on_hidden_information(game):
    compared = 0
    for seed in range(12):
        params, setup, state = fresh(game, seed)
        inputs = random_play(state, random.Random(seed))
        for seat in range(game.players(params)):
            for alt_setup in game.counterfactuals(params, setup, seat, random.Random(seed)):
                game.check_setup(params, alt_setup)
                assert alt_setup != setup
                compared += _compare_along(game, params, setup, alt_setup, seat, inputs)
    has_hidden = any(game.counterfactuals(*fresh(game, s)[:2], seat, random.Random(0))
                     for s in range(3) for seat in range(game.players(game.params({}))))
    if has_hidden:
        assert compared > 0


def _compare_along(game, params, setup, alt_setup, seat, inputs) -> int:
    """Apply the same inputs to both setups; `seat` must see the same until a reveal."""
    a, b = game.start(params, setup), game.start(params, alt_setup)
    steps = 0
    for kind, who, value in [(None, None, None), *inputs]:
        if kind == "chance":
            if b.pending() is None or b.pending().kind != "chance" or value not in b.pending().options:
                break
            a.chance(value)
            b.chance(value)
        elif kind == "act":
            try:
                b.check(who, value)
            except IllegalAction:
                break
            a.act(who, value)
            b.act(who, value)
        if any(ev["phase"] in game.reveal_phases for ev in a.events + b.events):
            break
        assert a.observe(seat) == b.observe(seat), (
            f"seat {seat} can tell two setups apart that differ only in what it cannot know")
        steps += 1
    return steps


def test_forfeit_ends_the_game_invalid_and_the_replay_still_validates(game):
    params, setup, state = fresh(game, 3)
    rng = random.Random(3)
    for _ in range(4):
        pending = state.pending()
        if pending.kind == "chance":
            state.chance(pending.options[0])
        else:
            state.act(pending.seats[0], state.random_action(pending.seats[0], rng))
    pending = state.pending()
    while pending.kind != "act":
        state.chance(pending.options[0])
        pending = state.pending()
    state.forfeit(pending.seats[0], "no legal action after 3 attempts")
    assert state.terminal
    outcome = state.outcome()
    assert outcome["status"] == "invalid" and outcome["winners"] == []
    with pytest.raises(IllegalAction):
        state.act(pending.seats[0], {})


def _answers(game: Game, state: State, n: int) -> dict[str, tuple[Any, list[Any]]]:
    """Per probe kind asked now: a well-formed answer for seat 0, and answers that must be refused."""
    other = {"seat": 1}
    words = list(state.public().get("words", ()))
    common = [{}, {"role": "wizard"}, {"of": 1, "seat": 1}]
    table = {
        "suspect": (other, [*common, {"seat": 0}, {"seat": n}, {**other, "extra": 1}]),
        "suspect_of": ({"of": 1, "seat": 2}, [*common, {"of": 0, "seat": 1}, {"of": 1, "seat": n},
                                             {"of": 1, "seat": 2, "extra": 1}]),
        "self_role": ({"role": game.roles[0]}, [*common, {"role": game.roles[0], "extra": 1}]),
        "suspected": ({"seat": 0}, [*common, {"seat": n}, {"seat": -1}, {"seat": True}, {"seat": 0, "extra": 1}]),
        "secret": ({"word": words[0]} if words else {}, [*common, {"word": "not-a-card-word"}, {"word": 3},
                                                         {"seat": 1}]),
    }
    return {kind: table[kind] for kind in state.probes()}


def test_probes_accept_well_formed_answers_only(game):
    asked = 0
    for seed in range(5):
        params, setup, state = fresh(game, seed)
        n = game.players(params)

        def visit(state: State, pending):
            nonlocal asked
            for kind, (good, bad) in _answers(game, state, n).items():
                state.check_probe(0, kind, good)
                for answer in bad:
                    with pytest.raises(IllegalAction):
                        state.check_probe(0, kind, answer)
                asked += 1
            with pytest.raises(IllegalAction):
                state.check_probe(0, "mind_reading", {})

        random_play(state, random.Random(seed), visit)
    # The social-deduction games ask belief probes (Reasoning, Self-awareness, Judgement
    # Variation); the game-theory ones have none.
    if game.name in PROBED_GAMES:
        assert asked > 0
    else:
        assert asked == 0


#: The role whose holder the `suspect` probe asks for, per game: the hidden role of its facts.
HIDDEN = {name: games.facts_of(name).hidden.role for name in PROBED_GAMES}


def _fact(game: Game, params: Any, setup: Any, seat: int, kind: str) -> Any:
    """What a factual probe asks about, in one setup; None for probes about others' beliefs
    (suspect_of, suspected), which no setup settles."""
    if kind == "suspect":
        return tuple(s for s in range(game.players(params)) if game.role_of(params, setup, s) == HIDDEN[game.name])
    if kind == "self_role":
        return game.role_of(params, setup, seat)
    if kind == "secret":
        return setup["secret"]
    return None


def _known(private: Any, kind: str, hidden: str) -> bool:
    """Whether what a seat is dealt (its private observation) already answers a factual probe."""
    if kind == "self_role":
        return "role" in private                       # told its role
    if kind == "suspect":
        return private.get("role") == hidden           # told it holds the hidden role: the answer is itself
    if kind == "secret":
        return "secret" in private                     # told the secret word
    return False


def test_no_probe_asks_what_the_seats_own_role_already_answers(game):
    """A factual probe (who holds the hidden role, one's own role, the secret word) is asked of a
    seat exactly when what the seat is dealt does not answer it; and a probe left out is one whose
    answer no setup the seat cannot tell apart (the counterfactuals) would change."""
    kinds: set[str] = set()
    for seed in range(3):
        _, _, state = fresh(game, seed)
        random_play(state, random.Random(seed), lambda st, pending: kinds.update(st.probes()))
    if not kinds:
        pytest.skip(f"{game.name} asks no probes")
    seen: set[tuple[str, str]] = set()
    for seed in range(12):
        params, setup, state = fresh(game, seed)
        for seat in range(game.players(params)):
            role = game.role_of(params, setup, seat)
            private = state.private(seat)
            alternatives = [setup, *game.counterfactuals(params, setup, seat, random.Random(seed))]
            for kind in sorted(kinds):
                if _fact(game, params, setup, seat, kind) is None:
                    continue  # about another player's belief: no deal settles it
                asked = game.asks(role, kind)
                assert asked == (not _known(private, kind, HIDDEN[game.name])), (game.name, role, kind, private)
                if not asked:
                    facts = {json.dumps(_fact(game, params, alt, seat, kind)) for alt in alternatives}
                    assert len(facts) == 1, (game.name, role, kind, sorted(facts))
                seen.add((role, kind))
    assert {role for role, _ in seen} == set(game.roles)  # every role met: the table is exercised


def _clone(game: Game, state: State) -> State:
    """A copy of `state` rebuilt by replaying its inputs (engines need not implement copy)."""
    copy = game.start(state.params, state.setup)
    for ev in state.events:
        if ev["kind"] == "action":
            copy.act(ev["seat"], ev["data"])
        elif ev["kind"] == "chance":
            copy.chance(ev["data"]["outcome"])
    return copy


@pytest.mark.parametrize("name", [n for n in games.available() if games.get(n).options])
def test_an_option_left_out_at_its_default_is_written_otherwise(name):
    """`Game.options` lists the rule options added after replays were shipped: their default is not
    written into the normal form (older replays keep their variant), every other value is."""
    game = games.get(name)
    for option, values in game.options.items():
        assert game.params({option: values[0]}) == game.params({}) and option not in game.params({})
        for value in values[1:]:
            assert game.params({option: value})[option] == value
        with pytest.raises(SetupError, match=f"params.{option}"):
            game.params({option: "no-such-value"})
