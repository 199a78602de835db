"""Built-in Chameleon strategies and the shared word-association helpers."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from runner.agents.associative import Associations, tokens
from runner.agents.base import ProbeRequest, Request
from runner.agents.builtin import make, strategies
from runner.agents.builtin.chameleon import Ambiguity, Associative, Revealing, Trivial
from runner.games.chameleon import GAME as SHIPPED
from runner.games.chameleon import Chameleon, ChameleonState
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

FRUIT = ["apple", "banana", "cherry", "grape", "lemon", "mango", "orange", "pear"]
LETTERS = [f"w{i}" for i in range(10)]
CARDS = [{"id": "fruit-8", "topic": "Fruit", "words": FRUIT},
         {"id": "letters-10", "topic": "Letters", "words": LETTERS}]
GAME = Chameleon(cards=CARDS)
#: A small association table for the fruit card ("mango -> orange" names another card word on
#: purpose: such a clue must never be given).
TABLE = Associations({
    "apple": {"pie": 5, "core": 4, "red": 3, "tree": 2, "sweet": 2},
    "banana": {"peel": 5, "monkey": 4, "yellow": 3, "sweet": 2, "tropical": 2},
    "cherry": {"pit": 4, "red": 4, "blossom": 3, "sweet": 2, "tree": 2},
    "grape": {"wine": 5, "vine": 4, "purple": 3, "bunch": 3, "sweet": 2},
    "lemon": {"sour": 5, "zest": 4, "yellow": 4, "juice": 3, "tree": 1},
    "mango": {"tropical": 5, "chutney": 4, "sweet": 3, "juicy": 3, "orange": 1},
    "orange": {"juice": 5, "citrus": 4, "peel": 3, "sweet": 2, "tree": 2},
    "pear": {"shape": 4, "green": 3, "tree": 3, "juicy": 2, "sweet": 2},
})
ORDER = [2, 0, 3, 1]


def setup(secret: str = "mango", chameleon: int = 3, order: list[int] | None = None,
          words: list[str] | None = None) -> dict[str, Any]:
    card = CARDS[1] if words is LETTERS else CARDS[0]
    return {"card": dict(card), "secret": secret, "chameleon": chameleon, "order": order or ORDER}


def state_after(clues: list[Any], clue: str = "word", **kw: Any) -> ChameleonState:
    """A game in which the first clues (in playing order) have been given."""
    words = kw.get("words")
    params = GAME.params({"words": len(words or FRUIT), "clue": clue, "players": len(kw.get("order") or ORDER)})
    state = GAME.start(params, setup(**kw))
    for seat, value in zip(state.order, clues):
        state.act(seat, {"clue": value})
    return state


def agent(cls, seed: int = 0, **params: Any):
    made = cls(params, random.Random(seed), cls.strategy)
    if isinstance(made, Associative):
        made.associations = TABLE
    return made


def ask(made, state: ChameleonState, seat: int) -> dict[str, Any]:
    phase = state.pending().phase
    return made.decide(Request("chameleon", seat, phase, state.observe(seat), state.legal(seat)))


def probe(made, state: ChameleonState, seat: int, kind: str, about: int | None = None):
    request = ProbeRequest("chameleon", seat, kind, state.observe(seat), GAME.roles, about)
    return made.answer_probe(request)


def test_the_strategies_are_registered_under_stable_names():
    known = strategies()
    for name, cls in [("chameleon/trivial", Trivial), ("chameleon/revealing", Revealing),
                      ("chameleon/ambiguity", Ambiguity), ("chameleon/associative", Associative)]:
        assert known[name] is cls
        assert make(name, {}, random.Random(0), "x", "chameleon").description["strategy"] == name
    with pytest.raises(ValueError, match="plays chameleon"):
        make("chameleon/trivial", {}, random.Random(0), "x", "undercover")
    with pytest.raises(ValueError, match="specificity"):
        make("chameleon/associative", {"specificity": 1.5}, random.Random(0), "x", "chameleon")
    with pytest.raises(ValueError, match="no parameter"):
        make("chameleon/trivial", {"specificity": 1}, random.Random(0), "x", "chameleon")


# -- trivial ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode, expected", [("word", "fruit"), ("sentence", "It belongs to the topic Fruit."),
                                            ("subset", None)])
def test_trivial_clue_is_the_same_whatever_the_secret_and_role(mode, expected):
    said = set()
    for secret in ("mango", "apple"):
        for speaker, chameleon in ((2, 3), (2, 2)):  # a non-chameleon, then the chameleon
            state = state_after([], clue=mode, secret=secret, chameleon=chameleon)
            said.add(repr(ask(agent(Trivial), state, speaker)["clue"]))
    assert said == {repr(expected)}


@pytest.mark.parametrize("seat, vote", [(2, 0), (0, 2), (3, 2), (1, 2)])
def test_trivial_votes_for_the_first_player_or_the_second_if_that_is_itself(seat, vote):
    state = state_after(["fruit"] * 4)
    assert ask(agent(Trivial), state, seat) == {"vote": vote}


def test_trivial_chameleon_guesses_uniformly_over_what_is_consistent():
    state = state_after([None, ["apple", "mango", "pear"], ["apple", "mango"], ["mango", "pear"]],
                        clue="subset", chameleon=2)
    state_guess = _to_guess(state, chameleon=2)
    assert ask(agent(Trivial), state_guess, 2) == {"guess": "mango"}
    silent = _to_guess(state_after([None] * 4, clue="subset", chameleon=2), chameleon=2)
    guesses = {ask(agent(Trivial, seed), silent, 2)["guess"] for seed in range(80)}
    assert guesses == set(FRUIT)


def _to_guess(state: ChameleonState, chameleon: int) -> ChameleonState:
    for seat in range(4):
        state.act(seat, {"vote": chameleon if seat != chameleon else (chameleon + 1) % 4})
    assert state.pending().phase == "guess"
    return state


def test_trivial_answers_probes_from_its_voting_rule():
    state = state_after(["fruit"] * 4)
    made = agent(Trivial)
    assert probe(made, state, 0, "suspect") == {"seat": 2}
    assert probe(made, state, 0, "self_role") == {"role": "non_chameleon"}
    assert probe(made, state, 3, "self_role") == {"role": "chameleon"}
    assert probe(made, state, 0, "suspect_of", 2) == {"of": 2, "seat": 0}  # "seat 2 suspects me"
    assert probe(made, state, 0, "suspect_of", 1) == {"of": 1, "seat": 2}


# -- revealing --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode, expected", [("word", "mango"), ("sentence", "The secret word is mango."),
                                            ("subset", ["mango"])])
def test_revealing_non_chameleons_say_the_secret_and_the_chameleon_repeats_it(mode, expected):
    state = state_after([], clue=mode)
    assert ask(agent(Revealing), state, 2)["clue"] == expected
    state = state_after([expected, expected], clue=mode)
    assert ask(agent(Revealing), state, 3)["clue"] == expected  # the chameleon speaks third


def test_revealing_chameleon_speaking_first_says_a_random_card_word():
    said = {ask(agent(Revealing, seed), state_after([], chameleon=2), 2)["clue"] for seed in range(60)}
    assert said == set(FRUIT)


@pytest.mark.parametrize("clues, seat, vote", [
    (["mango", "mango", "pear", "mango"], 0, 3, ),       # seat 3 (third in order) is the odd one
    (["mango", "mango", "pear", "mango"], 3, 2),          # the odd one itself votes player 1
    (["mango", "mango", "mango", "mango"], 0, 2),         # nobody differs: player 1
    (["mango", "mango", "mango", "mango"], 2, 0),         # ... or player 2 for player 1 itself
    (["pear", "mango", "apple", "mango"], 0, 2),          # two differ: player 1
    (["MANGO", "mango ", "Pear", "mango"], 1, 3),         # case and spaces do not matter
], ids=["odd-one", "odd-one-itself", "all-same", "all-same-first", "two-differ", "case-blind"])
def test_revealing_votes_for_the_single_odd_clue(clues, seat, vote):
    state = state_after(clues)
    assert ask(agent(Revealing), state, seat) == {"vote": vote}


def test_revealing_chameleon_guesses_the_revealed_word():
    state = _to_guess(state_after(["apple", "mango", "grape", "mango"], chameleon=2), chameleon=2)
    assert ask(agent(Revealing), state, 2) == {"guess": "mango"}


# -- ambiguity (pi^amb) -----------------------------------------------------------------------
def test_ambiguity_refuses_rules_it_cannot_play():
    with pytest.raises(ValueError, match="subset"):
        ask(agent(Ambiguity), state_after([]), 2)
    with pytest.raises(ValueError, match=r"K = l\(N\+1\).*8 words"):
        ask(agent(Ambiguity), state_after([], clue="subset"), 2)


def test_ambiguity_non_chameleons_shrink_a_set_that_keeps_the_secret():
    # N = 4, K = 10: l = 2, so the sets have 8, 6, 4, 2 words.
    for seed in range(20):
        state = state_after([], clue="subset", words=LETTERS, secret="w7", chameleon=1)
        previous = LETTERS
        for turn, seat in enumerate(ORDER[:3]):
            response = ask(agent(Ambiguity, seed), state, seat)["clue"]
            assert "w7" in response and set(response) <= set(previous)
            assert len(response) == 2 * (4 - turn)
            state.act(seat, {"clue": response})
            previous = response


@pytest.mark.parametrize("previous, expected", [
    (["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w8"], None),        # the secret was dropped
    (["w0", "w1", "w2", "w3", "w4", "w5", "w7"], None),              # wrong size
    (None, None),                                                    # silence stays silence
])
def test_ambiguity_answers_null_once_the_pattern_is_broken(previous, expected):
    state = state_after([previous], clue="subset", words=LETTERS, secret="w7", chameleon=1)
    assert ask(agent(Ambiguity), state, 0) == {"clue": expected}


def test_ambiguity_chameleon_keeps_a_random_subset_of_the_conforming_size():
    first = ["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"]
    kept = set()
    for seed in range(30):
        state = state_after([first], clue="subset", words=LETTERS, secret="w7", chameleon=0)
        response = ask(agent(Ambiguity, seed), state, 0)["clue"]
        assert len(response) == 6 and set(response) <= set(first)
        kept.update(set(first) - set(response))
    assert kept == set(first)  # any word may be dropped, the secret included


R1 = ["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"]
R2_GOOD, R2_BAD = ["w0", "w1", "w2", "w3", "w6", "w7"], ["w0", "w1", "w2", "w3", "w4", "w5"]


@pytest.mark.parametrize("responses, seat, vote", [
    ([R1, R2_GOOD, ["w2", "w3", "w6", "w7"], ["w3", "w7"]], 0, 2),   # all conform: player 1
    ([R1, R2_GOOD, ["w2", "w3", "w6", "w7"], ["w3", "w7"]], 2, 0),   # player 1 votes player 2
    ([R1, R2_BAD, None, None], 2, 0),                               # player 2 broke the pattern
    ([R1, R2_GOOD, ["w2", "w3", "w6"], None], 0, 3),                 # player 3 kept a wrong size
], ids=["conforming", "conforming-first", "dropped-secret", "wrong-size"])
def test_ambiguity_votes_for_the_first_response_that_breaks_the_pattern(responses, seat, vote):
    state = state_after(responses, clue="subset", words=LETTERS, secret="w7", chameleon=1)
    assert ask(agent(Ambiguity), state, seat) == {"vote": vote}


@pytest.mark.parametrize("responses, chameleon, pool", [
    ([R1, R2_BAD, None, None], 0, {"w6", "w7"}),                       # others went silent
    ([R1, R2_GOOD, ["w2", "w3", "w6", "w7"], ["w3", "w7"]], 2, {"w3", "w7"}),  # it was player 1
    ([R1, R2_GOOD, ["w2", "w3", "w6", "w7"], ["w3", "w6"]], 1, {"w2", "w7"}),  # it spoke last
], ids=["dropped-then-silence", "first-and-conforming", "last-dropped"])
def test_ambiguity_chameleon_guesses_in_the_right_pool(responses, chameleon, pool):
    guesses = set()
    for seed in range(40):
        state = state_after(responses, clue="subset", words=LETTERS, secret="w7", chameleon=chameleon)
        state = _to_guess(state, chameleon)
        guesses.add(ask(agent(Ambiguity, seed), state, chameleon)["guess"])
    assert guesses == pool


# -- associative helpers ----------------------------------------------------------------------
def test_clue_likelihoods_are_a_smoothed_distribution():
    total = sum(TABLE.p_clue(c, "mango") for c in TABLE.vocabulary) + TABLE.p_clue("never-seen", "mango")
    assert total == pytest.approx(1.0)
    assert TABLE.p_clue("tropical", "mango") > TABLE.p_clue("sweet", "mango") > TABLE.p_clue("pie", "mango") > 0
    assert TABLE.p_clue("mango", "mango") == TABLE.p_clue("tropical", "mango")  # a word evokes itself
    assert TABLE.p_clue("anything", "kiwi") == TABLE.p_clue("else", "kiwi")  # unknown word: uniform


def test_sentence_clues_are_read_through_their_known_words():
    assert tokens("It's a Tropical, sweet ice-cream!") == ["it's", "a", "tropical", "sweet", "ice-cream"]
    assert TABLE.known("It makes me think of tropical fruit") == ["tropical"]
    assert TABLE.p_text("It makes me think of tropical.", "mango") == TABLE.p_clue("tropical", "mango")
    assert TABLE.p_text("Nothing here rings a bell", "mango") == TABLE.p_clue("bell", "mango")


def test_posterior_follows_bayes():
    post = TABLE.posterior(["peel", "monkey"], FRUIT)
    assert sum(post) == pytest.approx(1.0)
    assert max(range(8), key=post.__getitem__) == FRUIT.index("banana")
    assert post[FRUIT.index("orange")] > post[FRUIT.index("apple")]  # orange also has "peel"
    assert TABLE.posterior([], FRUIT) == pytest.approx([1 / 8] * 8)
    prior = [0.0] * 7 + [1.0]
    assert TABLE.posterior(["peel"], FRUIT, prior) == pytest.approx(prior)
    assert [w for w, _ in TABLE.evoked(["juicy"], k=2)] == ["mango", "pear"]


@pytest.mark.parametrize("specificity, clue", [(0, "sweet"), (0.34, "juicy"), (0.5, "tropical"), (1, "chutney")])
def test_clue_choice_runs_from_shared_to_telling(specificity, clue):
    assert TABLE.choose_clue("mango", FRUIT, specificity, exclude=FRUIT) == clue


def test_clue_choice_never_names_a_card_word_and_checks_its_range():
    assert all(TABLE.choose_clue("mango", FRUIT, s / 10, exclude=FRUIT) != "orange" for s in range(11))
    with pytest.raises(ValueError):
        TABLE.choose_clue("mango", FRUIT, 1.2)
    assert TABLE.common_clue(FRUIT, exclude=FRUIT) == "sweet"
    belief = [0.0] * 8
    belief[FRUIT.index("grape")] = 1.0
    assert TABLE.common_clue(FRUIT, belief, exclude=FRUIT) == "wine"


# -- associative player -----------------------------------------------------------------------
@pytest.mark.parametrize("specificity, mode, clue", [
    (1, "word", "chutney"), (0, "word", "sweet"), (1, "sentence", "It makes me think of chutney."),
])
def test_associative_non_chameleon_clue(specificity, mode, clue):
    state = state_after([], clue=mode)
    assert ask(agent(Associative, specificity=specificity), state, 2) == {"clue": clue}


def test_associative_chameleon_blends_in_then_follows_its_best_guess():
    assert ask(agent(Associative), state_after([], chameleon=2), 2) == {"clue": "sweet"}
    state = state_after(["monkey", "peel"], chameleon=3)  # seats 2 and 0 spoke; 3 is next
    assert ask(agent(Associative), state, 3)["clue"] in TABLE.clues_of("banana")


def test_associative_votes_for_the_least_fitting_clue():
    state = state_after(["tropical", "juicy", "pie", "sweet"])
    assert ask(agent(Associative), state, 0) == {"vote": 3}
    assert probe(agent(Associative), state, 0, "suspect") == {"seat": 3}
    assert probe(agent(Associative), state, 0, "suspect_of", 1) == {"of": 1, "seat": 3}
    # The chameleon (seat 3) looks for the clue that fits its beliefs least: "wine" (seat 0).
    state = state_after(["tropical", "wine", "pie", "chutney"])
    assert ask(agent(Associative), state, 3) == {"vote": 0}
    assert probe(agent(Associative), state, 3, "self_role") == {"role": "chameleon"}


def test_associative_chameleon_guesses_the_most_probable_word():
    state = _to_guess(state_after(["peel", "monkey", "tropical", "yellow"], chameleon=1), chameleon=1)
    assert ask(agent(Associative), state, 1) == {"guess": "banana"}


def test_associative_refuses_subset_clues():
    with pytest.raises(ValueError, match="subset"):
        ask(agent(Associative), state_after([], clue="subset"), 2)


# -- whole games ------------------------------------------------------------------------------
@pytest.mark.parametrize("strategy, params", [
    ("chameleon/trivial", {"words": 8}),
    ("chameleon/trivial", {"words": 8, "clue": "sentence"}),
    ("chameleon/revealing", {"words": 8, "clue": "sentence"}),
    ("chameleon/ambiguity", {"words": 10, "clue": "subset"}),
    ("chameleon/associative", {"words": 8}),
    ("chameleon/associative", {"words": 8, "clue": "sentence", "players": 3}),
])
def test_whole_games_validate_with_probes_recorded(strategy, params):
    params = GAME.params(params)
    n = GAME.players(params)

    def replay(seed: int) -> list[dict[str, Any]]:
        setup_ = GAME.deal(params, rng_for(seed, "deal"))
        agents = [make(strategy, {}, rng_for(seed, f"agent-{s}"), strategy, "chameleon") for s in range(n)]
        for made in agents:
            if isinstance(made, Associative):
                made.associations = TABLE
        roles = [GAME.role_of(params, setup_, s) for s in range(n)]
        return asyncio.run(play_alone(GAME, params, setup_, Seating(agents, GAME.seat_names(params, setup_), roles),
                                      seed=seed, tournament="t", created="2026-11-21"))

    for seed in range(4):
        records = replay(seed)
        assert encode(records) == encode(replay(seed))
        # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
        checked = check_bytes(f"g-{seed}.jsonl", encode(records), derive=False)
        assert checked.ok, [str(p) for p in checked.problems]
        assert not any(r.get("attempts") for r in records)  # every decision was legal first time
        kinds = {r["probe"] for r in records if r["type"] == "probe"}
        assert kinds == {"suspect", "suspect_of", "secret"}  # each role is asked what it can be wrong about


@pytest.mark.parametrize("strategy, params", [
    ("chameleon/associative", {}),
    ("chameleon/associative", {"clue": "sentence", "players": 3}),
    ("chameleon/ambiguity", {"words": 20, "clue": "subset"}),
])
def test_strategies_play_the_shipped_deck_and_table(strategy, params):
    params = SHIPPED.params(params)
    n = SHIPPED.players(params)
    for seed in range(6):
        setup_ = SHIPPED.deal(params, rng_for(seed, "deal"))
        agents = [make(strategy, {"specificity": seed / 5} if "associative" in strategy else {},
                       rng_for(seed, f"agent-{s}"), strategy, "chameleon") for s in range(n)]
        roles = [SHIPPED.role_of(params, setup_, s) for s in range(n)]
        seating = Seating(agents, SHIPPED.seat_names(params, setup_), roles)
        records = asyncio.run(play_alone(SHIPPED, params, setup_, seating, seed=seed, tournament="t",
                                         created="2026-11-21"))
        assert not any(r.get("attempts") for r in records)
        # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
        assert check_bytes(f"s-{seed}.jsonl", encode(records), derive=False).ok
