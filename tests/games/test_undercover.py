"""Undercover rules: clue turns and formats, the vote and its three MAgIC outcomes, hidden words."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from runner.agents.builtin import make
from runner.games import IllegalAction, SetupError
from runner.games.undercover import Undercover, contains_word, normalise_clue
from runner.play import Seating, play, rng_for
from runner.replay.format import encode
from runner.rerun.validate import check_bytes

PAIRS = [{"id": "wig-hat", "civilian": "wig", "undercover": "hat"},
         {"id": "tea-coffee", "civilian": "tea", "undercover": "coffee"}]
GAME = Undercover(pairs=PAIRS)
WIG_HAT = {"id": "wig-hat", "civilian": "wig", "undercover": "hat"}


def start(players=4, undercover=1, clue="word", rounds=2, pair=WIG_HAT):
    params = GAME.params({"players": players, "clue": clue, "rounds": rounds})
    setup = {"pair": dict(pair), "undercover": undercover}
    GAME.check_setup(params, setup)
    return GAME.start(params, setup)


def give_clues(state, word="thing"):
    """Every clue turn of every round, all saying `word`."""
    while state.pending().phase == "clue":
        state.act(state.pending().seats[0], {"clue": word})


def play_votes(state, votes):
    give_clues(state)
    for seat, target in enumerate(votes):
        state.act(seat, {"vote": target})
    return state.outcome()


# -- the vote: every MAgIC outcome ---------------------------------------------------------
VOTE_CASES = [
    # (id, players, undercover, votes, accused, outcome, winners)
    ("civilians-unanimous-on-undercover", 4, 1, [1, 0, 1, 1], 1, "civilians_win", [0, 2, 3]),
    ("civilians-majority-on-undercover-at-seat-0", 4, 0, [1, 0, 0, 0], 0, "civilians_win", [1, 2, 3]),
    ("plurality-without-majority-accuses", 5, 4, [4, 4, 1, 0, 3], 4, "civilians_win", [0, 1, 2, 3]),
    ("civilian-accused-undercover-wins", 4, 1, [2, 2, 1, 2], 2, "undercover_wins", [1]),
    ("undercover-helps-frame-a-civilian", 3, 2, [1, 2, 1], 1, "undercover_wins", [2]),
    ("two-way-tie-is-even", 4, 1, [1, 0, 1, 0], None, "even_vote", []),
    ("three-way-tie-in-three-players-is-even", 3, 0, [1, 2, 0], None, "even_vote", []),
    ("tie-between-two-civilians-is-even", 4, 3, [1, 2, 1, 2], None, "even_vote", []),
]


@pytest.mark.parametrize("players,undercover,votes,accused,outcome,winners",
                         [c[1:] for c in VOTE_CASES], ids=[c[0] for c in VOTE_CASES])
def test_vote_outcomes(players, undercover, votes, accused, outcome, winners):
    state = start(players=players, undercover=undercover)
    result = play_votes(state, votes)
    assert result["status"] == "complete"
    assert result["winners"] == winners
    detail = result["result"]
    assert detail["accused"] == accused
    assert detail["magic_outcome"] == outcome
    assert detail["votes"] == votes
    assert detail["tally"] == [votes.count(s) for s in range(players)]
    assert detail["undercover"] == undercover
    assert detail["words"] == {"civilian": "wig", "undercover": "hat"}


def test_vote_result_event_reveals_everything_to_all():
    state = start(players=3, undercover=2)
    play_votes(state, [2, 2, 0])
    last = state.events[-1]
    assert last["phase"] == "vote_result" and last["vis"] == "all" and last["kind"] == "info"
    assert last["data"]["votes"] == [2, 2, 0]
    assert last["data"]["undercover"] == 2
    assert GAME.reveal_phases == frozenset({"vote_result"})


# -- clues: formats and the own-word rule ----------------------------------------------------
CLUE_CASES = [
    # (id, mode, own word, clue, normalised or None if refused, words of the refusal message)
    ("word-plain", "word", "wig", "bald", "bald", None),
    ("word-stripped", "word", "wig", " bald\t", "bald", None),
    ("word-hyphen-apostrophe", "word", "wig", "o'clock-ish", "o'clock-ish", None),
    ("word-curly-apostrophe", "word", "wig", "rock’n’roll", "rock’n’roll", None),
    ("word-accented", "word", "wig", "perruque-élégante", "perruque-élégante", None),
    ("word-longer-word-is-not-own", "word", "wig", "wigs", "wigs", None),
    ("word-own-word", "word", "wig", "wig", None, "own word"),
    ("word-own-word-other-case", "word", "wig", "WiG", None, "own word"),
    ("word-own-word-hyphenated", "word", "wig", "wig-stand", None, "own word"),
    ("word-two-words", "word", "wig", "fake hair", None, "one word"),
    ("word-digits", "word", "wig", "r2d2", None, "one word"),
    ("word-punctuation", "word", "wig", "hair.", None, "one word"),
    ("word-only-dashes", "word", "wig", "--", None, "one word"),
    ("word-too-long", "word", "wig", "a" * 41, None, "40 characters"),
    ("word-empty", "word", "wig", "   ", None, "empty"),
    ("word-not-text", "word", "wig", 42, None, "text"),
    ("sentence-plain", "sentence", "wig", "It sits on your head.", "It sits on your head.", None),
    ("sentence-spaces-collapsed", "sentence", "wig", "  It   sits\ton  heads ", "It sits on heads", None),
    ("sentence-single-word", "sentence", "wig", "hair", "hair", None),
    ("sentence-thirty-words", "sentence", "wig", " ".join(["la"] * 30), " ".join(["la"] * 30), None),
    ("sentence-own-word-inside", "sentence", "wig", "A WIG, surely.", None, "own word"),
    ("sentence-own-word-possessive", "sentence", "wig", "the wig's colour", None, "own word"),
    ("sentence-own-word-folded", "sentence", "straße", "a long STRASSE", None, "own word"),
    ("sentence-two-lines", "sentence", "wig", "first line\nsecond line", None, "single line"),
    ("sentence-thirty-one-words", "sentence", "wig", " ".join(["la"] * 31), None, "31 words; it must have 1 to 30"),
    ("sentence-too-many-characters", "sentence", "wig", " ".join(["x" * 40] * 8), None, "327 characters; at most 300"),
    ("sentence-control-character", "sentence", "wig", "ring\x07ring", None, "control"),
    ("sentence-empty", "sentence", "wig", "", None, "empty"),
    ("sentence-not-text", "sentence", "wig", ["a", "list"], None, "text"),
]


@pytest.mark.parametrize("mode,own,clue,expected,error", [c[1:] for c in CLUE_CASES],
                         ids=[c[0] for c in CLUE_CASES])
def test_clue_rules(mode, own, clue, expected, error):
    if expected is not None:
        assert normalise_clue(clue, mode, own) == expected
    else:
        with pytest.raises(IllegalAction, match=error):
            normalise_clue(clue, mode, own)


def test_the_refusal_of_an_own_word_clue_does_not_quote_the_word():
    with pytest.raises(IllegalAction) as info:
        normalise_clue("a wig", "sentence", "wig")
    assert "wig" not in str(info.value).replace("own word", "")


@pytest.mark.parametrize("text,word,found", [
    ("ice-cream cone", "ice-cream", True), ("ice-creams", "ice-cream", False),
    ("Cat's toy", "cat", True), ("catalogue", "cat", False), ("concat", "cat", False),
], ids=["hyphenated-word", "plural-of-hyphenated", "possessive", "prefix", "suffix"])
def test_whole_word_matching(text, word, found):
    assert contains_word(text, word) is found


def test_the_undercover_may_say_the_civilian_word_and_vice_versa():
    state = start(players=3, undercover=0)
    state.act(0, {"clue": "wig"})  # the undercover holds "hat"
    state.act(1, {"clue": "hat"})  # a civilian holds "wig"
    with pytest.raises(IllegalAction, match="own word"):
        state.act(2, {"clue": "wig"})


def test_clues_go_in_seat_order_for_each_round_then_the_vote_opens():
    state = start(players=3, rounds=2)
    order = []
    while state.pending().phase == "clue":
        pending = state.pending()
        assert not pending.simultaneous and len(pending.seats) == 1
        order.append((state.legal(pending.seats[0])["round"], pending.seats[0]))
        state.act(pending.seats[0], {"clue": "thing"})
    assert order == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    pending = state.pending()
    assert pending.phase == "vote" and pending.simultaneous and pending.seats == (0, 1, 2)


def test_a_single_clue_round_is_a_variant():
    state = start(players=3, rounds=1)
    for seat in range(3):
        state.act(seat, {"clue": "thing"})
    assert state.pending().phase == "vote"


@pytest.mark.parametrize("who,action,error", [
    (1, {"clue": "thing"}, "not to act"),
    (0, {"vote": 1}, "exactly the field"),
    (0, {"clue": "thing", "vote": 1}, "exactly the field"),
    (0, "thing", "must be an object"),
], ids=["out-of-turn", "vote-during-clues", "extra-field", "not-an-object"])
def test_illegal_clue_turns(who, action, error):
    state = start(players=3)
    with pytest.raises(IllegalAction, match=error):
        state.act(who, action)
    assert state.events == []


@pytest.mark.parametrize("seat,action,error", [
    (0, {"vote": 0}, "yourself"),
    (0, {"vote": 3}, "seat number from 0 to 2"),
    (0, {"vote": -1}, "seat number"),
    (0, {"vote": True}, "seat number"),
    (0, {"vote": 1.0}, "seat number"),
    (0, {"vote": "1"}, "seat number"),
    (0, {"clue": "thing"}, "exactly the field"),
], ids=["self", "out-of-range", "negative", "bool", "float", "string", "clue-during-vote"])
def test_illegal_votes(seat, action, error):
    state = start(players=3)
    give_clues(state)
    with pytest.raises(IllegalAction, match=error):
        state.act(seat, action)


def test_voting_twice_is_refused():
    state = start(players=3)
    give_clues(state)
    state.act(0, {"vote": 1})
    with pytest.raises(IllegalAction, match="not to act"):
        state.act(0, {"vote": 2})


def test_the_game_is_over_after_the_vote():
    state = start(players=3)
    play_votes(state, [1, 0, 0])
    assert state.pending() is None
    with pytest.raises(IllegalAction, match="over"):
        state.act(0, {"vote": 1})


# -- what players see ------------------------------------------------------------------------
def test_each_player_is_told_its_word_and_never_its_role():
    state = start(players=4, undercover=2)
    for seat in range(4):
        obs = state.observe(seat)
        assert obs["private"] == {"word": "hat" if seat == 2 else "wig"}
        assert "undercover" not in json.dumps(obs["public"]) and "role" not in json.dumps(obs)


def test_clues_are_public_and_votes_stay_private_until_all_are_in():
    state = start(players=3, undercover=1)
    give_clues(state)
    assert all(ev["vis"] == "all" for ev in state.events)
    state.act(0, {"vote": 1})
    state.act(1, {"vote": 0})
    seen_by_2 = state.observe(2)["log"]
    assert not any(ev["phase"] == "vote" for ev in seen_by_2)
    assert [ev["data"] for ev in state.observe(0)["log"] if ev["phase"] == "vote"] == [{"vote": 1}]
    state.act(2, {"vote": 1})
    assert state.observe(2)["log"][-1]["data"]["votes"] == [1, 0, 1]


def test_probes_are_asked_once_at_the_start_of_the_vote():
    state = start(players=3)
    asked = []
    while state.pending() is not None:
        asked.append(state.probes())
        pending = state.pending()
        seat = pending.seats[0]
        state.act(seat, state.random_action(seat, random.Random(seat)))
    assert asked == [()] * 6 + [("suspect", "suspect_of", "self_role"), (), ()]


def test_probe_answers_are_checked():
    state = start(players=3)
    give_clues(state)
    state.check_probe(0, "self_role", {"role": "undercover"})
    state.check_probe(0, "suspect_of", {"of": 1, "seat": 2})
    for bad in ({"role": "chameleon"}, {"seat": 0}, {"of": 1, "seat": 1}):
        kind = "self_role" if "role" in bad else ("suspect_of" if "of" in bad else "suspect")
        with pytest.raises(IllegalAction):
            state.check_probe(0, kind, bad)


# -- parameters, setups and counterfactuals --------------------------------------------------
def test_default_parameters():
    assert GAME.params({}) == {"players": 4, "rounds": 2, "clue": "sentence"}
    assert GAME.roles == ("undercover", "civilian")


@pytest.mark.parametrize("raw,field", [
    ({"players": 2}, "params.players"), ({"players": 13}, "params.players"),
    ({"players": True}, "params.players"), ({"players": "4"}, "params.players"),
    ({"rounds": 0}, "params.rounds"), ({"rounds": 11}, "params.rounds"),
    ({"clue": "subset"}, "params.clue"), ({"ties": "random"}, "params"),
], ids=["two-players", "thirteen-players", "bool-players", "string-players", "no-rounds",
        "too-many-rounds", "unknown-clue-mode", "unknown-parameter"])
def test_bad_parameters_name_their_field(raw, field):
    with pytest.raises(SetupError) as info:
        GAME.params(raw)
    assert info.value.field == field


PARAMS4 = {"players": 4, "rounds": 2, "clue": "word"}


@pytest.mark.parametrize("setup,field", [
    ({"pair": WIG_HAT}, "setup"),
    ({"pair": WIG_HAT, "undercover": 1, "order": [0, 1]}, "setup"),
    ({"pair": {"civilian": "wig"}, "undercover": 1}, "setup.pair"),
    ({"pair": {**WIG_HAT, "x": 1}, "undercover": 1}, "setup.pair"),
    ({"pair": {**WIG_HAT, "undercover": "WIG"}, "undercover": 1}, "setup.pair.undercover"),
    ({"pair": {**WIG_HAT, "civilian": "top hat"}, "undercover": 1}, "setup.pair.civilian"),
    ({"pair": {**WIG_HAT, "civilian": 5}, "undercover": 1}, "setup.pair.civilian"),
    ({"pair": {**WIG_HAT, "id": 7}, "undercover": 1}, "setup.pair.id"),
    ({"pair": WIG_HAT, "undercover": 4}, "setup.undercover"),
    ({"pair": WIG_HAT, "undercover": -1}, "setup.undercover"),
    ({"pair": WIG_HAT, "undercover": False}, "setup.undercover"),
    ([], "setup"),
], ids=["missing-undercover", "unknown-field", "pair-missing-word", "pair-unknown-field",
        "same-word-twice", "word-with-space", "word-not-text", "id-not-text", "seat-out-of-range",
        "negative-seat", "bool-seat", "not-an-object"])
def test_bad_setups_name_their_field(setup, field):
    with pytest.raises(SetupError) as info:
        GAME.check_setup(PARAMS4, setup)
    assert info.value.field == field


def test_a_pair_without_id_is_accepted():
    GAME.check_setup(PARAMS4, {"pair": {"civilian": "wig", "undercover": "hat"}, "undercover": 0})


def test_deal_draws_pair_and_undercover_seat_from_the_generator():
    params = GAME.params({"players": 4})
    rng = random.Random(5)
    setups = [GAME.deal(params, rng) for _ in range(400)]
    for setup in setups:
        GAME.check_setup(params, setup)
        assert setup["pair"] in PAIRS
    seats = [s["undercover"] for s in setups]
    assert all(60 < seats.count(s) < 140 for s in range(4))
    assert {s["pair"]["id"] for s in setups} == {"wig-hat", "tea-coffee"}
    assert GAME.deal(params, random.Random(9)) == GAME.deal(params, random.Random(9))


def test_roles_follow_the_setup():
    setup = {"pair": WIG_HAT, "undercover": 2}
    assert [GAME.role_of(PARAMS4, setup, s) for s in range(4)] == ["civilian", "civilian", "undercover", "civilian"]


def test_counterfactuals_of_a_civilian_move_the_undercover_elsewhere():
    setup = {"pair": WIG_HAT, "undercover": 2}
    alts = GAME.counterfactuals(PARAMS4, setup, 0, random.Random(0))
    assert sorted(a["undercover"] for a in alts) == [1, 3]
    assert all(a["pair"] == WIG_HAT for a in alts)


def test_counterfactuals_of_the_undercover_make_it_a_civilian_with_the_same_word():
    setup = {"pair": WIG_HAT, "undercover": 2}
    alts = GAME.counterfactuals(PARAMS4, setup, 2, random.Random(0))
    assert sorted(a["undercover"] for a in alts) == [0, 1, 3]
    for alt in alts:
        GAME.check_setup(PARAMS4, alt)
        assert alt["pair"]["civilian"] == "hat" and alt["pair"]["undercover"] == "wig"
        assert GAME.start(PARAMS4, alt).private(2) == GAME.start(PARAMS4, setup).private(2)
        assert GAME.role_of(PARAMS4, alt, 2) == "civilian"


def test_content_is_read_only_when_dealing(monkeypatch):
    from runner import content

    def refuse(name):
        raise AssertionError(f"content {name!r} read too early")

    monkeypatch.setattr(content, "load", refuse)
    game = Undercover()
    game.params({})
    game.check_setup(PARAMS4, {"pair": WIG_HAT, "undercover": 0})
    with pytest.raises(AssertionError, match="undercover_pairs"):
        game.deal(game.params({}), random.Random(0))


# -- a whole game through the runner and the validator ---------------------------------------
def test_a_played_replay_validates_and_a_forged_outcome_is_caught():
    params = GAME.params({"players": 4})
    setup = GAME.deal(params, rng_for(3, "deal"))
    agents = [make("random", {}, rng_for(3, f"agent-{s}"), "random", "undercover") for s in range(4)]
    seating = Seating(agents, GAME.seat_names(params, setup), [GAME.role_of(params, setup, s) for s in range(4)])
    records = asyncio.run(play(GAME, params, setup, seating, seed=3, game_id="uc-3", tournament="t",
                               matchup="m", created="2026-01-01"))
    assert check_bytes("uc.jsonl", encode(records), derive=False).ok  # a hand-picked pair
    forged = json.loads(json.dumps(records))
    real = forged[-1]["result"]["magic_outcome"]
    forged[-1]["result"]["magic_outcome"] = "even_vote" if real != "even_vote" else "civilians_win"
    checked = check_bytes("uc.jsonl", encode(forged), derive=False)
    assert not checked.ok and "magic_outcome" in str(checked.problems[0])


@pytest.mark.parametrize("schedule, asked", [
    (None, [False] * 6 + [True, False, False]),  # the default: once, before the vote
    ("before_vote", [False] * 6 + [True, False, False]),
    ("every_round", [False, False, False, True, False, False, True, False, False]),  # MAgIC's code
    ("every_clue", [False] + [True] * 6 + [False, False]),
])
def test_probe_schedule_says_when_beliefs_are_asked(schedule, asked):
    rules = {"players": 3, "rounds": 2} if schedule is None else {"players": 3, "rounds": 2, "probe_schedule": schedule}
    state = GAME.start(GAME.params(rules), {"pair": dict(WIG_HAT), "undercover": 1})
    seen = []
    while state.pending() is not None:
        seen.append(bool(state.probes()))
        seat = state.pending().seats[0]
        state.act(seat, state.random_action(seat, random.Random(seat)))
    assert seen == asked


def test_probe_schedule_default_is_left_out_of_the_variant_and_others_are_refused():
    assert GAME.params({"probe_schedule": "before_vote"}) == GAME.params({})
    assert "probe_schedule" not in GAME.params({})
    for bad in ("after_vote", "", 2):
        with pytest.raises(SetupError, match="probe_schedule"):
            GAME.params({"probe_schedule": bad})
