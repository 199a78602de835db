"""The associative Undercover player: its clues, its self-awareness, its votes and probe answers."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from runner.agents.associative import Associations
from runner.agents.base import ProbeRequest, Request
from runner.agents.builtin import make, strategies
from runner.games import get
from runner.games.undercover import Undercover, contains_word
from runner.play import Seating, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes
from tests.helpers import play_alone

CLUES = {
    "wig": {"hair": 5, "fake": 4, "bald": 4, "theater": 3, "synthetic": 3, "head": 3, "curly": 2,
            "costume": 2, "blonde": 2},
    "hat": {"head": 5, "brim": 4, "sun": 3, "wear": 3, "cap": 3, "fashion": 2, "felt": 2, "costume": 2,
            "winter": 1},
    "cap": {"head": 4, "baseball": 5, "visor": 4, "sun": 3, "wear": 2, "team": 2, "cotton": 2, "hat": 3},
    "crown": {"king": 5, "gold": 4, "jewel": 4, "head": 3, "royal": 4, "queen": 3, "throne": 2, "wear": 1},
    "coffee": {"bean": 5, "espresso": 4, "caffeine": 4, "morning": 3, "cup": 3, "hot": 3, "bitter": 2,
               "drink": 3, "milk": 1},
    "tea": {"leaf": 5, "kettle": 4, "caffeine": 3, "cup": 3, "hot": 3, "drink": 3, "green": 2, "herbal": 2,
            "milk": 2},
    "juice": {"orange": 5, "fruit": 4, "squeeze": 3, "drink": 3, "cold": 2, "glass": 2, "sweet": 2, "apple": 2},
    "milk": {"cow": 5, "white": 4, "dairy": 4, "drink": 3, "glass": 2, "calcium": 3, "cold": 2, "cereal": 2},
    "piano": {"keys": 5, "pedal": 4, "grand": 4, "music": 3, "chord": 3, "ivory": 2, "concert": 3, "play": 2},
    "guitar": {"strings": 5, "strum": 4, "chord": 3, "music": 3, "rock": 3, "pick": 3, "concert": 2, "play": 2},
    "violin": {"bow": 5, "strings": 4, "orchestra": 4, "music": 3, "chin": 3, "concert": 2, "play": 2, "wood": 2},
    "drum": {"beat": 5, "stick": 4, "rhythm": 4, "loud": 3, "music": 3, "band": 3, "concert": 2, "play": 2},
    # A word whose strongest associations contain it: the rules forbid those as its clues.
    "ice": {"ice-cube": 5, "ice-rink": 5, "cold": 4, "frozen": 4, "winter": 3, "slippery": 3, "drink": 2},
    "snow": {"cold": 4, "winter": 5, "flake": 4, "white": 3, "frozen": 3, "ski": 3, "snowman": 3},
}
TABLE = Associations(CLUES)
PAIRS = [{"id": "wig-hat", "civilian": "wig", "undercover": "hat"},
         {"id": "coffee-tea", "civilian": "coffee", "undercover": "tea"},
         {"id": "piano-guitar", "civilian": "piano", "undercover": "guitar"},
         {"id": "ice-snow", "civilian": "ice", "undercover": "snow"}]
GAME = Undercover(pairs=PAIRS)


def agent(seat=0, table=TABLE, **params):
    a = make("undercover/associative", params, rng_for(0, f"agent-{seat}"), "assoc", "undercover")
    a.associations = table
    return a


def state_after(clues, players=4, undercover=1, civilian="wig", odd="hat", mode="word"):
    """A game in which the seats have given `clues` in turn order."""
    params = GAME.params({"players": players, "clue": mode})
    state = GAME.start(params, {"pair": {"civilian": civilian, "undercover": odd}, "undercover": undercover})
    for clue in clues:
        state.act(state.pending().seats[0], {"clue": clue})
    return state


def request(state, seat):
    return Request("undercover", seat, state.pending().phase, state.observe(seat), state.legal(seat))


def probe(state, seat, kind, about=None):
    return ProbeRequest("undercover", seat, kind, state.observe(seat), GAME.roles, about)


def ask(a, state, seat, kind, about=None):
    answer = a.answer_probe(probe(state, seat, kind, about))
    state.check_probe(seat, kind, answer)
    return answer


# -- clues -----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["word", "sentence"])
def test_a_civilian_opens_with_an_association_of_its_word(mode):
    state = state_after([], mode=mode)
    clue = agent(0).decide(request(state, 0))["clue"]
    state.act(0, {"clue": clue})  # legal
    said = TABLE.known(clue)
    assert len(said) == 1 and said[0] in CLUES["wig"]
    if mode == "sentence":
        assert clue == f"It makes me think of {said[0]}."


def test_specificity_goes_from_shared_to_telling_clues():
    neighbours = {"hat", "cap", "crown"}

    def shared(clue):
        return any(clue in CLUES[w] for w in neighbours)

    generic = agent(0, specificity=0, jitter=0).decide(request(state_after([]), 0))["clue"]
    telling = agent(0, specificity=1, jitter=0).decide(request(state_after([]), 0))["clue"]
    assert shared(generic) and generic == "head"
    assert not shared(telling)


def test_a_player_does_not_repeat_its_own_clue():
    a = agent(0, specificity=1, jitter=0)
    first = a.decide(request(state_after([], players=3), 0))["clue"]
    assert first == "hair"  # the clue that singles "wig" out best
    state = state_after([first, "head", "bald"], players=3, undercover=1)
    second = a.decide(request(state, 0))["clue"]
    assert second != first and second in CLUES["wig"]


@pytest.mark.parametrize("specificity", [0, 0.5, 1])
@pytest.mark.parametrize("mode", ["word", "sentence"])
def test_clues_never_contain_the_own_word(specificity, mode):
    # "ice-cube" and "ice-rink" are ice's strongest associations, and illegal for it.
    state = state_after([], players=3, undercover=2, civilian="ice", odd="snow", mode=mode)
    for seat in range(6):
        a = agent(seat, specificity=specificity)
        pending = state.pending().seats[0]
        clue = a.decide(request(state, pending))["clue"]
        own = "snow" if pending == 2 else "ice"
        assert not contains_word(clue, own)
        state.act(pending, {"clue": clue})


# -- self-awareness, suspicion and votes -------------------------------------------------------
def test_the_odd_one_out_realises_it_and_blends_in_with_the_others_word():
    # Seat 3 holds "hat"; the three others describe a wig.
    state = state_after(["bald", "synthetic", "fake"], players=4, undercover=3)
    a = agent(3)
    belief = a.belief(state.observe(3))
    assert belief.believes_undercover(3) and belief.majority_word == "wig"
    clue = a.decide(request(state, 3))["clue"]
    assert clue in CLUES["wig"] and not contains_word(clue, "hat")
    state.act(3, {"clue": clue})
    for clue in ("curly", "blonde", "theater"):
        state.act(state.pending().seats[0], {"clue": clue})
    second = a.decide(request(state, 3))["clue"]
    assert second in CLUES["wig"] and second != clue
    state.act(3, {"clue": second})
    assert ask(a, state, 3, "self_role") == {"role": "undercover"}


def test_a_civilian_spots_the_clue_that_does_not_fit_and_votes_for_it():
    # Seat 0 holds "wig"; seat 2 (the undercover, "hat") talks about brims and the sun.
    clues = ["bald", "synthetic", "brim", "fake", "hair", "curly", "sun", "theater"]
    state = state_after(clues, players=4, undercover=2)
    a = agent(0)
    assert ask(a, state, 0, "self_role") == {"role": "civilian"}
    assert ask(a, state, 0, "suspect") == {"seat": 2}
    assert ask(a, state, 0, "suspect_of", 1) == {"of": 1, "seat": 2}
    assert ask(a, state, 0, "suspect_of", 3) == {"of": 3, "seat": 2}
    # Seat 2 is thought to hold the odd word, so it is thought to suspect someone else.
    assert ask(a, state, 0, "suspect_of", 2)["seat"] != 2
    assert a.decide(request(state, 0)) == {"vote": 2}


def test_the_undercover_knows_the_others_suspect_it():
    # Seat 0 holds "hat" and spoke first, about brims; the others then described a wig.
    state = state_after(["brim", "bald", "synthetic", "fake"], players=4, undercover=0)
    a = agent(0)
    blend = a.decide(request(state, 0))["clue"]
    state.act(0, {"clue": blend})
    for clue in ("hair", "curly", "theater"):
        state.act(state.pending().seats[0], {"clue": clue})
    assert ask(a, state, 0, "self_role") == {"role": "undercover"}
    for other in (1, 2, 3):
        assert ask(a, state, 0, "suspect_of", other) == {"of": other, "seat": 0}
    assert ask(a, state, 0, "suspect")["seat"] != 0


def test_the_suspect_probe_agrees_with_the_vote_even_on_a_tie():
    # Everyone said the same thing: every other seat fits equally badly, the vote is a draw.
    state = state_after(["head"] * 8, players=4, undercover=2)
    votes = Counter()
    for seed in range(12):
        a = make("undercover/associative", {}, rng_for(seed, "agent-0"), "a", "undercover")
        a.associations = TABLE
        suspect = ask(a, state, 0, "suspect")["seat"]
        vote = a.decide(request(state, 0))["vote"]
        assert vote == suspect and vote != 0
        votes[vote] += 1
    assert set(votes) == {1, 2, 3}


def test_the_undercover_votes_for_the_civilian_who_fits_the_majority_word_least():
    # Seat 3 holds "hat" and knows it; among the wig-describers seat 1 is the vaguest.
    clues = ["bald", "head", "synthetic", "brim", "fake", "costume", "curly", "sun"]
    state = state_after(clues, players=4, undercover=3)
    a = agent(3)
    assert a.belief(state.observe(3)).believes_undercover(3)
    assert a.decide(request(state, 3)) == {"vote": 1}


def test_the_belief_copes_with_free_text_and_words_the_table_does_not_know():
    clues = ["It is something you wear, honestly.", "Zorblax quintessence!", "bald people like it",
             "made of synthetic hair", "Fake, but convincing.", "hmm", "curly ones?", "on stage"]
    state = state_after(clues, players=4, undercover=1, mode="sentence")
    a = agent(0)
    belief = a.belief(state.observe(0))
    assert sum(belief.p_undercover) == pytest.approx(1)
    assert ask(a, state, 0, "self_role") == {"role": "civilian"}
    # Seat 1 said nothing the table knows: its clues fit the wig no better than anything else.
    assert a.decide(request(state, 0)) == {"vote": 1}


# -- whole games -------------------------------------------------------------------------------
def self_play(game, params_raw, seeds, table=None, agent_params=None):
    """Replays of associative self-play; every one must validate."""
    params = game.params(params_raw)
    n = game.players(params)
    games = []
    for seed in seeds:
        setup = game.deal(params, rng_for(seed, "deal"))
        agents = [make("undercover/associative", agent_params or {}, rng_for(seed, f"agent-{s}"), "a",
                       "undercover") for s in range(n)]
        if table is not None:
            for a in agents:
                a.associations = table
        seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
        records = asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="t", created="2026-01-01"))
        # Dealt by hand for the scenario, so checked by the rules alone (not derived from the seed).
        assert check_bytes(f"uc-{seed}.jsonl", encode(records), derive=False).ok
        assert not any(r.get("attempts") for r in records), "a built-in agent made an illegal move"
        games.append(records)
    return games


def beliefs(games):
    """(self-role answers right, asked), (civilian suspects right, asked), outcome counts."""
    role, suspect, outcomes = [0, 0], [0, 0], Counter()
    for records in games:
        undercover = records[0]["setup"]["undercover"]
        outcomes[records[-1]["result"]["magic_outcome"]] += 1
        for r in records:
            if r["type"] != "probe":
                continue
            if r["probe"] == "self_role":
                role[0] += r["answer"]["role"] == ("undercover" if r["seat"] == undercover else "civilian")
                role[1] += 1
            elif r["probe"] == "suspect" and r["seat"] != undercover:
                suspect[0] += r["answer"]["seat"] == undercover
                suspect[1] += 1
    return role, suspect, outcomes


@pytest.mark.parametrize("raw", [{"clue": "word", "players": 4}, {"clue": "sentence", "players": 5}],
                         ids=["word-4-players", "sentence-5-players"])
def test_self_play_on_a_small_table_beats_guessing(raw):
    role, suspect, outcomes = beliefs(self_play(GAME, raw, range(24), table=TABLE))
    n = raw["players"]
    assert role[1] == 24 * n and suspect[1] == 24 * (n - 1)
    # Guessing would be right about one's role (n-1)/n of the time by always saying "civilian"
    # and would find the undercover 1/(n-1) of the time.
    assert role[0] / role[1] > 0.9
    assert suspect[0] / suspect[1] > 0.6
    assert outcomes["civilians_win"] > outcomes["undercover_wins"] > 0


def test_self_play_with_the_shipped_content():
    """The shipped pairs and association table make a playable, non-trivial game."""
    role, suspect, outcomes = beliefs(self_play(get("undercover"), {"clue": "word", "players": 4}, range(16)))
    assert role[0] / role[1] > 0.75
    assert suspect[0] / suspect[1] > 0.5
    assert outcomes["civilians_win"] > 0 and outcomes["undercover_wins"] > 0


# -- parameters ------------------------------------------------------------------------------
@pytest.mark.parametrize("params,error", [
    ({"specificity": 1.5}, "specificity"), ({"specificity": "high"}, "specificity"),
    ({"specificity": True}, "specificity"), ({"jitter": -0.1}, "jitter"), ({"depth": 2}, "no parameter"),
], ids=["specificity-above-1", "text-specificity", "bool-specificity", "negative-jitter", "unknown"])
def test_parameters_are_checked(params, error):
    with pytest.raises(ValueError, match=error):
        make("undercover/associative", params, rng_for(0, "x"), "x", "undercover")


def test_the_strategy_is_registered_for_undercover_only():
    assert "undercover/associative" in strategies()
    with pytest.raises(ValueError, match="plays undercover"):
        make("undercover/associative", {}, rng_for(0, "x"), "x", "chameleon")
