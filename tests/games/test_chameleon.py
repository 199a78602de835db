"""Rules of The Chameleon: scenario tables for outcomes and refusals, visibility, setups."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from typing import Any

import pytest

from runner.agents.builtin import make
from runner.games import IllegalAction, SetupError
from runner.games.chameleon import Chameleon, ChameleonState, as_word_clue
from runner.play import Seating, play, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes

FRUIT = ["apple", "banana", "cherry", "grape", "lemon", "mango", "orange", "pear"]
CARDS = [
    {"id": "fruit-8", "topic": "Fruit", "words": FRUIT},
    {"id": "tools-8", "topic": "Kitchen Tools", "words": ["whisk", "ladle", "sieve", "grater",
                                                          "tongs", "peeler", "spatula", "kettle"]},
    {"id": "letters-10", "topic": "Letters", "words": [f"w{i}" for i in range(10)]},
]
GAME = Chameleon(cards=CARDS)
ORDER = [2, 0, 3, 1]
SETUP = {"card": {"id": "fruit-8", "topic": "Fruit", "words": FRUIT}, "secret": "mango",
         "chameleon": 3, "order": ORDER}


def start(clue: str = "word", ties: str = "random", players: int = 4, setup: dict | None = None
          ) -> ChameleonState:
    params = GAME.params({"players": players, "words": 8, "clue": clue, "ties": ties})
    return GAME.start(params, setup or SETUP)


def give_clues(state: ChameleonState, clues: list[Any] | None = None) -> None:
    """Every seat gives its clue in playing order (default: a plain fruit word)."""
    for turn, seat in enumerate(state.order):
        value = clues[turn] if clues else "sweet"
        state.act(seat, {"clue": value})


def cast(state: ChameleonState, votes: list[int]) -> None:
    for seat, target in enumerate(votes):
        state.act(seat, {"vote": target})


# -- outcomes ---------------------------------------------------------------------------------
# votes[i] is seat i's vote; chance = tie-break outcome; guess = the chameleon's word.
OUTCOMES = [
    pytest.param("random", [3, 3, 3, 0], None, "apple",
                 {"accused": 3, "tie": False, "identified": True, "guess": "apple",
                  "guess_correct": False, "magic_outcome": "non_chameleons_win"}, [0, 1, 2],
                 id="identified-wrong-guess"),
    pytest.param("random", [3, 3, 3, 0], None, "  MaNgO ",
                 {"accused": 3, "identified": True, "guess": "mango", "guess_correct": True,
                  "magic_outcome": "chameleon_guessed"}, [3],
                 id="identified-right-guess-any-case"),
    pytest.param("random", [2, 0, 0, 0], None, None,
                 {"accused": 0, "tie": False, "identified": False, "guess": None,
                  "guess_correct": None, "magic_outcome": "chameleon_wins"}, [3],
                 id="not-identified"),
    pytest.param("random", [3, 3, 0, 0], 3, "pear",
                 {"accused": 3, "tie": True, "identified": True, "guess_correct": False,
                  "magic_outcome": "non_chameleons_win"}, [0, 1, 2],
                 id="tie-drawn-onto-chameleon"),
    pytest.param("random", [3, 3, 0, 0], 0, None,
                 {"accused": 0, "tie": True, "identified": False,
                  "magic_outcome": "chameleon_wins"}, [3],
                 id="tie-drawn-onto-another-player"),
    pytest.param("even", [3, 3, 0, 0], None, None,
                 {"accused": None, "tie": True, "even": True, "identified": False, "guess": None,
                  "magic_outcome": "even_vote"}, [],
                 id="tie-is-even-vote"),
    pytest.param("even", [1, 2, 3, 0], None, None,
                 {"accused": None, "tie": True, "even": True, "magic_outcome": "even_vote",
                  "tally": [1, 1, 1, 1]}, [],
                 id="four-way-tie-is-even-vote"),
    pytest.param("even", [3, 3, 3, 0], None, "MANGO",
                 {"accused": 3, "tie": False, "even": False, "magic_outcome": "chameleon_guessed"}, [3],
                 id="even-rule-without-tie-still-gives-a-guess"),
]


@pytest.mark.parametrize("ties, votes, chance, guess, expected, winners", OUTCOMES)
def test_outcomes(ties, votes, chance, guess, expected, winners):
    state = start(ties=ties)
    give_clues(state)
    cast(state, votes)
    if chance is not None:
        pending = state.pending()
        assert pending.kind == "chance" and pending.phase == "tie_break"
        most = max(votes.count(v) for v in votes)
        assert list(pending.options) == sorted({v for v in votes if votes.count(v) == most})
        state.chance(chance)
    if guess is not None:
        assert state.pending().phase == "guess" and state.pending().seats == (3,)
        state.act(3, {"guess": guess})
    assert state.pending() is None
    outcome = state.outcome()
    assert outcome["status"] == "complete"
    assert outcome["winners"] == winners
    result = outcome["result"]
    for key, value in expected.items():
        assert result[key] == value, key
    assert result["votes"] == votes
    assert result["tally"] == [votes.count(s) for s in range(4)]
    assert result["chameleon"] == 3 and result["secret"] == "mango"
    end = state.events[-1]
    assert end["phase"] == "end" and end["data"]["magic_outcome"] == result["magic_outcome"]
    assert end["data"]["winners"] == winners
    json.dumps(outcome, allow_nan=False)


def test_a_tie_waits_for_a_recorded_chance_draw_among_the_top_voted_only():
    state = start(ties="random")
    give_clues(state)
    cast(state, [3, 3, 0, 0])
    pending = state.pending()
    assert pending.options == (0, 3)
    with pytest.raises(IllegalAction):
        state.chance(1)  # seat 1 was not among the most voted
    with pytest.raises(IllegalAction):
        state.act(3, {"guess": "mango"})
    state.chance(3)
    chance = state.events[-2]
    assert chance["kind"] == "chance" and chance["data"] == {"options": [0, 3], "outcome": 3}


def test_the_magic_three_player_game():
    setup = {**SETUP, "chameleon": 1, "order": [1, 2, 0]}
    state = start(players=3, ties="even", setup=setup)
    give_clues(state)
    cast(state, [1, 0, 1])
    state.act(1, {"guess": "grape"})
    assert state.outcome()["winners"] == [0, 2]
    assert state.outcome()["result"]["magic_outcome"] == "non_chameleons_win"


# -- refusals ---------------------------------------------------------------------------------
def _in_clue_phase(state):
    return state


def _after_clues(state):
    give_clues(state)
    return state


def _one_vote_in(state):
    give_clues(state)
    state.act(0, {"vote": 3})
    return state


def _at_guess(state):
    give_clues(state)
    cast(state, [3, 3, 3, 0])
    return state


def _game_over(state):
    give_clues(state)
    cast(state, [1, 0, 0, 0])
    return state


ILLEGAL = [
    pytest.param("word", _in_clue_phase, 0, {"clue": "sweet"}, "not to act", id="clue-out-of-turn"),
    pytest.param("word", _in_clue_phase, 2, {"clue": "very sweet"}, "single word", id="word-with-space"),
    pytest.param("word", _in_clue_phase, 2, {"clue": "sweet!"}, "'!'", id="word-with-punctuation"),
    pytest.param("word", _in_clue_phase, 2, {"clue": "  "}, "empty", id="word-empty"),
    pytest.param("word", _in_clue_phase, 2, {"clue": "a" * 41}, "at most 40", id="word-too-long"),
    pytest.param("word", _in_clue_phase, 2, {"clue": "'-'"}, "letter or a digit", id="word-only-joiners"),
    pytest.param("word", _in_clue_phase, 2, {"clue": ["sweet"]}, "string", id="word-as-list"),
    pytest.param("word", _in_clue_phase, 2, {"word": "sweet"}, "exactly the field", id="word-wrong-field"),
    pytest.param("sentence", _in_clue_phase, 2, {"clue": "It is sweet.\nAnd round."}, "single line",
                 id="sentence-two-lines"),
    pytest.param("sentence", _in_clue_phase, 2, {"clue": " ".join(["so"] * 31)}, "31 words",
                 id="sentence-too-many-words"),
    pytest.param("sentence", _in_clue_phase, 2, {"clue": ""}, "0 words", id="sentence-empty"),
    pytest.param("sentence", _in_clue_phase, 2, {"clue": None}, "string", id="sentence-null"),
    pytest.param("subset", _in_clue_phase, 2, {"clue": ["mango", "kiwi"]}, "not a word of the card",
                 id="subset-non-card-word"),
    pytest.param("subset", _in_clue_phase, 2, {"clue": ["mango", "Mango"]}, "repeats", id="subset-repeat"),
    pytest.param("subset", _in_clue_phase, 2, {"clue": "mango"}, "list", id="subset-bare-string"),
    pytest.param("subset", _in_clue_phase, 2, {"clue": [3]}, "must be a word", id="subset-number"),
    pytest.param("word", _after_clues, 0, {"clue": "again"}, "exactly the field", id="clue-after-clues"),
    pytest.param("word", _after_clues, 1, {"vote": 1}, "yourself", id="self-vote"),
    pytest.param("word", _after_clues, 1, {"vote": 4}, "from 0 to 3", id="vote-no-such-seat"),
    pytest.param("word", _after_clues, 1, {"vote": True}, "seat number", id="vote-boolean"),
    pytest.param("word", _after_clues, 1, {"vote": "2"}, "seat number", id="vote-string"),
    pytest.param("word", _one_vote_in, 0, {"vote": 2}, "not to act", id="voting-twice"),
    pytest.param("word", _in_clue_phase, 2, {"vote": 1}, "exactly the field", id="vote-during-clues"),
    pytest.param("word", _at_guess, 3, {"guess": "kiwi"}, "not a word of the card", id="guess-not-on-card"),
    pytest.param("word", _at_guess, 3, {"guess": ""}, "not a word of the card", id="guess-empty"),
    pytest.param("word", _at_guess, 3, {"guess": 5}, "word of the card", id="guess-number"),
    pytest.param("word", _at_guess, 0, {"guess": "mango"}, "not to act", id="guess-by-non-chameleon"),
    pytest.param("word", _game_over, 3, {"guess": "mango"}, "over", id="guess-when-not-identified"),
]


@pytest.mark.parametrize("clue, prepare, seat, action, message", ILLEGAL)
def test_illegal_actions_are_refused_with_a_reason(clue, prepare, seat, action, message):
    state = prepare(start(clue=clue))
    before = copy.deepcopy(state.events)
    with pytest.raises(IllegalAction, match=message):
        state.act(seat, action)
    assert state.events == before


NORMALISED = [
    pytest.param("word", "  Passion-fruit ", "Passion-fruit", id="word-stripped-case-kept"),
    pytest.param("word", "it's", "it's", id="word-apostrophe"),
    pytest.param("word", "café", "café", id="word-accented-letters"),
    pytest.param("sentence", "  It is   sweet\tand\t round. ", "It is sweet and round.",
                 id="sentence-spaces-collapsed"),
    pytest.param("subset", ["Pear", "apple", "MANGO"], ["apple", "mango", "pear"],
                 id="subset-card-spelling-and-order"),
    pytest.param("subset", None, None, id="subset-null-response"),
    pytest.param("subset", [], [], id="subset-empty-set"),
]


@pytest.mark.parametrize("clue, given, stored", NORMALISED)
def test_clues_are_normalised(clue, given, stored):
    state = start(clue=clue)
    assert state.act(2, {"clue": given}) == {"clue": stored}
    assert state.events[-1] == {"kind": "action", "phase": "clue", "seat": 2, "data": {"clue": stored},
                                "vis": "all"}


@pytest.mark.parametrize("text, word", [("Kitchen Tools", "Kitchen-Tools"), ("  a.b  c ", "a-b-c"),
                                        ("!!", "pass"), ("x" * 50, "x" * 40)])
def test_any_text_can_be_made_a_legal_word_clue(text, word):
    assert as_word_clue(text) == word
    start().act(2, {"clue": as_word_clue(text)})


# -- who sees what ----------------------------------------------------------------------------
def test_only_non_chameleons_get_the_secret_word():
    state = start()
    for seat in range(4):
        private = state.observe(seat)["private"]
        if seat == 3:
            assert private == {"role": "chameleon"}
        else:
            assert private == {"role": "non_chameleon", "secret": "mango"}
    assert "mango" in state.observe(3)["public"]["words"]
    assert state.observe(3)["public"]["order"] == ORDER


def test_nobody_learns_the_chameleon_before_the_accusation():
    moved = {**SETUP, "chameleon": 1}
    a, b = start(), start(setup=moved)
    for state in (a, b):
        give_clues(state)
        cast(state, [3, 3, 0, 0])
    # Seats 0 and 2 are non-chameleons in both setups and saw the same everything before the draw.
    for seat in (0, 2):
        before = [ev for ev in a.observe(seat)["log"] if ev["phase"] in ("clue", "vote", "vote_result")]
        assert before == [ev for ev in b.observe(seat)["log"] if ev["phase"] in ("clue", "vote", "vote_result")]
    a.chance(0)
    accusation = a.events[-2]
    assert accusation["phase"] == "accusation" and accusation["data"]["chameleon"] == 3


def test_votes_stay_private_until_all_are_in_then_are_revealed_together():
    state = start()
    give_clues(state)
    for seat in range(3):
        state.act(seat, {"vote": 3})
        assert state.events[-1]["vis"] == [seat]
        for other in range(4):
            if other != seat:
                seen = [ev for ev in state.observe(other)["log"] if ev["phase"] == "vote"]
                assert all(ev["seat"] == other for ev in seen)
    state.act(3, {"vote": 0})
    result = next(ev for ev in state.events if ev["phase"] == "vote_result")
    assert result["vis"] == "all"
    assert result["data"] == {"votes": [3, 3, 3, 0], "tally": [1, 0, 0, 3], "top": [3], "tie": False}


def test_probes_are_asked_only_at_the_start_of_the_vote():
    state = start()
    asked = []
    while state.pending() is not None:
        asked.append(bool(state.probes()))
        pending = state.pending()
        if pending.kind == "chance":
            state.chance(pending.options[0])
        else:
            seat = pending.seats[0]
            action = {"clue": "sweet"} if pending.phase == "clue" else {"vote": 3 if seat != 3 else 0}
            if pending.phase == "guess":
                action = {"guess": "pear"}
            state.act(seat, action)
    assert asked == [False] * 4 + [True] + [False] * 4
    assert GAME.start(GAME.params({"words": 8}), SETUP).probes() == ()


def test_roles_and_reveal_phases():
    params = GAME.params({"words": 8})
    assert [GAME.role_of(params, SETUP, s) for s in range(4)] == ["non_chameleon"] * 3 + ["chameleon"]
    assert GAME.roles == ("chameleon", "non_chameleon")
    state = start()
    give_clues(state)
    cast(state, [3, 3, 3, 0])
    state.act(3, {"guess": "pear"})
    phases = [ev["phase"] for ev in state.events]
    first_reveal = min(i for i, p in enumerate(phases) if p in GAME.reveal_phases)
    assert set(phases[:first_reveal]) == {"clue", "vote"}
    assert set(phases[first_reveal:]) <= GAME.reveal_phases


# -- parameters, deals and setups -------------------------------------------------------------
def test_default_parameters():
    assert GAME.params({}) == {"players": 4, "words": 16, "clue": "word", "ties": "random"}


@pytest.mark.parametrize("raw, field", [
    ({"players": 2}, "params.players"), ({"players": 21}, "params.players"),
    ({"players": "4"}, "params.players"), ({"players": True}, "params.players"),
    ({"words": 1}, "params.words"), ({"words": 16.0}, "params.words"),
    ({"clue": "poem"}, "params.clue"), ({"ties": "coin"}, "params.ties"),
    ({"rounds": 2}, "params"),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else v)
def test_bad_parameters_name_their_field(raw, field):
    with pytest.raises(SetupError) as err:
        GAME.params(raw)
    assert err.value.field == field


def test_deal_draws_a_card_of_exactly_k_words_and_a_uniform_setup():
    params = GAME.params({"words": 8, "players": 5})
    seen = {"cards": set(), "chameleons": set(), "secrets": set(), "firsts": set()}
    for seed in range(300):
        setup = GAME.deal(params, random.Random(seed))
        GAME.check_setup(params, json.loads(json.dumps(setup)))
        assert sorted(setup["order"]) == list(range(5))
        seen["cards"].add(setup["card"]["id"])
        seen["chameleons"].add(setup["chameleon"])
        seen["secrets"].add(setup["secret"])
        seen["firsts"].add(setup["order"][0])
    assert seen["cards"] == {"fruit-8", "tools-8"}
    assert seen["chameleons"] == seen["firsts"] == set(range(5))
    assert len(seen["secrets"]) == 16
    assert GAME.deal(params, random.Random(7)) == GAME.deal(params, random.Random(7))


def test_deal_refuses_a_card_size_that_is_not_available():
    with pytest.raises(SetupError, match=r"no card has exactly 12 words \(card sizes: \[8, 10\]\)") as err:
        GAME.deal(GAME.params({"words": 12}), random.Random(0))
    assert err.value.field == "params.words"


def _set(path: str, value: Any):
    def change(setup: dict) -> dict:
        setup = copy.deepcopy(setup)
        target = setup
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = value
        elif value is KeyError:
            del target[last]
        else:
            target[last] = value
        return setup
    return change


BAD_SETUPS = [
    pytest.param(_set("secret", "kiwi"), "setup.secret", id="secret-not-on-card"),
    pytest.param(_set("secret", "Mango"), "setup.secret", id="secret-spelled-differently"),
    pytest.param(_set("secret", 5), "setup.secret", id="secret-index"),
    pytest.param(_set("chameleon", 4), "setup.chameleon", id="chameleon-out-of-range"),
    pytest.param(_set("chameleon", None), "setup.chameleon", id="chameleon-null"),
    pytest.param(_set("order", [0, 1, 2]), "setup.order", id="order-too-short"),
    pytest.param(_set("order.2", 0), "setup.order[2]", id="order-repeats-a-seat"),
    pytest.param(_set("order.1", "1"), "setup.order[1]", id="order-non-integer"),
    pytest.param(_set("card.words.3", "APPLE"), "setup.card.words[3]", id="word-repeated-ignoring-case"),
    pytest.param(_set("card.words.2", " cherry"), "setup.card.words[2]", id="word-outer-space"),
    pytest.param(_set("card.words.2", 7), "setup.card.words[2]", id="word-not-string"),
    pytest.param(_set("card.words.2", "two\nlines"), "setup.card.words[2]", id="word-two-lines"),
    pytest.param(_set("card.words", FRUIT[:7]), "setup.card.words", id="card-size-differs-from-variant"),
    pytest.param(_set("card.topic", ""), "setup.card.topic", id="topic-empty"),
    pytest.param(_set("card.id", None), "setup.card.id", id="id-null"),
    pytest.param(_set("card.colour", "red"), "setup.card", id="card-unknown-field"),
    pytest.param(_set("card.topic", KeyError), "setup.card", id="card-missing-topic"),
    pytest.param(_set("extra", 1), "setup", id="setup-unknown-field"),
    pytest.param(_set("order", KeyError), "setup", id="setup-missing-order"),
]


@pytest.mark.parametrize("change, field", BAD_SETUPS)
def test_bad_setups_name_their_field(change, field):
    params = GAME.params({"words": 8})
    GAME.check_setup(params, SETUP)
    with pytest.raises(SetupError) as err:
        GAME.check_setup(params, change(SETUP))
    assert err.value.field == field


def test_counterfactuals_hide_the_secret_from_the_chameleon_and_the_chameleon_from_the_others():
    params = GAME.params({"words": 8})
    for_chameleon = GAME.counterfactuals(params, SETUP, 3, random.Random(0))
    assert for_chameleon and all(cf["chameleon"] == 3 and cf["secret"] != "mango" for cf in for_chameleon)
    assert all({k: v for k, v in cf.items() if k != "secret"} == {k: v for k, v in SETUP.items() if k != "secret"}
               for cf in for_chameleon)
    for seat in (0, 1, 2):
        moved = GAME.counterfactuals(params, SETUP, seat, random.Random(0))
        assert sorted(cf["chameleon"] for cf in moved) == sorted({0, 1, 2} - {seat})
        assert all(cf["secret"] == "mango" and cf["order"] == ORDER for cf in moved)


def test_the_shipped_deck_is_read_lazily():
    game = Chameleon()
    assert game._cards is None  # constructing (and importing GAME) reads no file


def test_under_the_pick_rule_a_drawn_player_picks_the_accused_among_the_tied():
    state = start(ties="pick")
    give_clues(state)
    cast(state, [3, 3, 0, 0])
    pending = state.pending()
    assert (pending.kind, pending.phase, pending.options) == ("chance", "tie_picker", (0, 1, 2, 3))
    with pytest.raises(IllegalAction):
        state.act(1, {"accuse": 3})  # nobody picks before the draw
    state.chance(1)
    assert state.events[-1]["data"] == {"options": [0, 1, 2, 3], "outcome": 1}
    pending = state.pending()
    assert (pending.kind, pending.phase, pending.seats) == ("act", "tie_pick", (1,))
    assert state.legal(1) == {"field": "accuse", "options": [0, 3]}
    for bad in state.illegal_examples(1):
        with pytest.raises(IllegalAction):
            state.check(1, bad)
    with pytest.raises(IllegalAction, match="tied for the most votes"):
        state.act(1, {"accuse": 2})
    state.act(1, {"accuse": 3})
    pick = next(e for e in state.events if e["phase"] == "tie_pick")
    assert pick["kind"] == "action" and pick["vis"] == "all" and pick["data"] == {"accuse": 3}
    assert state.pending().phase == "guess"  # seat 3 is the chameleon: identified, so it guesses
    state.act(3, {"guess": "grape"})
    assert state.outcome()["result"]["magic_outcome"] == "non_chameleons_win"


def test_under_the_pick_rule_a_vote_without_a_tie_needs_no_pick():
    state = start(ties="pick")
    give_clues(state)
    cast(state, [3, 3, 3, 0])
    assert state.pending().phase == "guess"
    assert not any(e["phase"] in ("tie_picker", "tie_pick") for e in state.events)


@pytest.mark.parametrize("ties", ["even", "random", "pick"])
def test_played_replays_validate_and_are_reproducible(ties):
    def replay(seed: int) -> bytes:
        params = GAME.params({"words": 8, "ties": ties})
        setup = GAME.deal(params, rng_for(seed, "deal"))
        agents = [make("random", {}, rng_for(seed, f"agent-{s}"), "random", "chameleon") for s in range(4)]
        roles = [GAME.role_of(params, setup, s) for s in range(4)]
        seating = Seating(agents, GAME.seat_names(params, setup), roles)
        return encode(asyncio.run(play(GAME, params, setup, seating, seed=seed, game_id=f"c-{seed}",
                                       tournament="t", matchup="random", created="2026-11-21")))

    outcomes, tie_breaks, picks = set(), 0, 0
    for seed in range(16):
        raw = replay(seed)
        assert raw == replay(seed)
        checked = check_bytes(f"c-{seed}.jsonl", raw, derive=False)  # small hand-made cards
        assert checked.ok, [str(p) for p in checked.problems]
        outcomes.add(checked.outcome["result"]["magic_outcome"])
        tie_breaks += b'"phase":"tie_break"' in raw
        picks += b'"phase":"tie_pick"' in raw
    assert "chameleon_wins" in outcomes
    assert ("even_vote" in outcomes) == (ties == "even")
    if ties == "random":
        assert tie_breaks, "random voters should have produced a tie-break among these seeds"
    if ties == "pick":
        assert picks, "random voters should have produced a tie picked by a drawn player among these seeds"


@pytest.mark.parametrize("schedule, asked", [
    (None, [False] * 4 + [True] + [False] * 4),  # the default: once, before the vote
    ("before_vote", [False] * 4 + [True] + [False] * 4),
    ("every_clue", [False] + [True] * 4 + [False] * 4),  # after each clue, the last one included
])
def test_probe_schedule_says_when_beliefs_are_asked(schedule, asked):
    rules = {"words": 8} if schedule is None else {"words": 8, "probe_schedule": schedule}
    state = GAME.start(GAME.params(rules), SETUP)
    seen = []
    while state.pending() is not None:
        seen.append(bool(state.probes()))
        pending = state.pending()
        seat = pending.seats[0]
        action = {"clue": "sweet"} if pending.phase == "clue" else {"vote": 3 if seat != 3 else 0}
        state.act(seat, {"guess": "pear"} if pending.phase == "guess" else action)
    assert seen == asked


def test_probe_schedule_default_is_left_out_of_the_variant_and_others_are_refused():
    assert GAME.params({"probe_schedule": "before_vote"}) == GAME.params({})
    assert "probe_schedule" not in GAME.params({})
    assert GAME.params({"probe_schedule": "every_clue"})["probe_schedule"] == "every_clue"
    for bad in ("every_round", "EVERY_CLUE", 1, None):
        with pytest.raises(SetupError, match="probe_schedule"):
            GAME.params({"probe_schedule": bad})
