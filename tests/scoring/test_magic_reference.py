"""The MAgIC reference-code reading beside the paper reading: one hand-built case per difference,
both values worked out by hand in the comments (docs/metrics/magic.md, "Two readings")."""

from __future__ import annotations

import pytest
from builders import replay, scored
from test_magic import AGENTS, B, CARD, KX, X, chameleon, cost_sharing, prisoners, public_good, undercover

from site_builder.scoring.magic import magic


def both(games, key=KX):
    out = magic(games, AGENTS, seed=1)
    assert out["reading"] == "paper" and out["alternative"]["reading"] == "reference"
    return out["agents"][key], out["alternative"]["agents"][key]


def chameleon_first(gid, agents, probes=()):
    """The chameleon at seat 0 (Player 1); seat 1 is accused, so the chameleon wins."""
    setup = {"card": CARD, "secret": "apple", "chameleon": 0, "order": [0, 1, 2]}
    inputs = [("act", s, {"clue": w}) for s, w in enumerate(["sweet", "red", "green"])]
    inputs += [("probe", *p) for p in probes]
    inputs += [("act", s, {"vote": v}) for s, v in enumerate([1, 2, 1])]
    game = scored(replay("chameleon", setup, agents, inputs, game_id=gid,
                         rules={"players": 3, "words": 4, "clue": "word", "ties": "even"}))
    assert game.result["magic_outcome"] == "chameleon_wins"
    return game


def test_second_order_is_one_unit_per_player_right_only_if_every_guess_is():
    # X holds both non-chameleon seats (0, 1); B is the chameleon at seat 2, never asked who it suspects.
    probes = [(0, "suspect", {"seat": 2}), (1, "suspect", {"seat": 0}),
              (0, "suspect_of", {"of": 1, "seat": 0}), (0, "suspect_of", {"of": 2, "seat": 0}),
              (1, "suspect_of", {"of": 0, "seat": 2}), (1, "suspect_of", {"of": 2, "seat": 1})]
    paper, ref = both([chameleon("r1", [X, X, B], "chameleon_wins", probes)])
    # Paper: first order, seat 0 names the chameleon, seat 1 does not: 1/2. Second order, one
    # unit per answer about a seat that answered: 0 about 1 (said 0, 1 did: right), 1 about 0
    # (said 2, 0 did: right); the guesses about the chameleon have no yardstick: 2/2. 3/4.
    assert paper["reasoning"]["value"] == pytest.approx(3 / 4)
    # Reference: first order the same 1/2. Second order one unit per player: seat 0's guesses
    # 0 (=1's own 0) and 0 (= argmax of the chameleon's empty row, 0): right; seat 1's guesses
    # 2 (=0's own 2) and 1 (not 0): wrong. 1/2. Reasoning 2/4; the two second-order units read
    # the chameleon's empty row and one of them (seat 0's) is right by it.
    assert ref["reasoning"]["value"] == pytest.approx(2 / 4)
    assert ref["reasoning"]["parts"]["inter"]["n"] == 2
    assert ref["reasoning"]["empty_rows"] == {"units": 2, "right": 1}
    assert "seat 0" in ref["reasons"]["reasoning"]


def test_the_chameleons_first_order_unit_is_right_only_when_it_sits_first():
    # X is the chameleon, once at seat 0 and once at seat 2; it names the secret word both times.
    first = chameleon_first("f1", [X, B, B], [(0, "secret", {"word": "apple"}), (1, "suspect", {"seat": 0}),
                                              (2, "suspect", {"seat": 0}), (0, "suspect_of", {"of": 1, "seat": 2}),
                                              (0, "suspect_of", {"of": 2, "seat": 1})])
    last = chameleon("f2", [B, B, X], "chameleon_wins", [(2, "secret", {"word": "apple"})])
    paper, ref = both([first])
    # Paper: the secret word is its first-order unit (right); its guesses about seats 1 and 2
    # (2 and 1) miss their own answers (0 and 0): 1/3.
    assert paper["reasoning"]["value"] == pytest.approx(1 / 3)
    # Reference: its own suspicion row is empty, argmax seat 0 = itself: "right"; its second-order
    # unit is wrong (2 is not 0): 1/2. The first-order unit is right only by the empty row.
    assert ref["reasoning"]["value"] == pytest.approx(1 / 2)
    assert ref["reasoning"]["empty_rows"] == {"units": 1, "right": 1}
    paper, ref = both([last])
    # Seated last: paper 1/1 (the secret word); reference first order 0 (argmax 0 is not seat 2)
    # and second order right only because both empty rows of seats 0 and 1 have argmax 0 and so
    # does its own empty guess row: 1/2, both units read empty rows, the second is right by them.
    assert paper["reasoning"]["value"] == 1.0
    assert ref["reasoning"]["value"] == pytest.approx(1 / 2)
    assert ref["reasoning"]["empty_rows"] == {"units": 2, "right": 1}


def test_the_undercovers_own_first_order_unit_is_always_wrong():
    # X is the undercover (seat 1); civilians B at 0 and 2.
    probes = [(1, "suspect", {"seat": 0}), (1, "suspect_of", {"of": 0, "seat": 2}),
              (1, "suspect_of", {"of": 2, "seat": 0}), (0, "suspect", {"seat": 1}), (2, "suspect", {"seat": 0})]
    paper, ref = both([undercover("u1", [B, X, B], "civilians_win", probes)])
    # Paper: its own suspect cannot name itself, so it is no unit; 0's own is 1 (X said 2: wrong),
    # 2's own is 0 (X said 0: right): 1/2.
    assert paper["reasoning"]["value"] == pytest.approx(1 / 2) and paper["reasoning"]["n"] == 2
    # Reference: first order 0 (it named 0, not itself, 1); second order wrong (one guess missed): 0/2.
    assert ref["reasoning"]["value"] == 0.0 and ref["reasoning"]["n"] == 2
    assert "empty_rows" not in ref["reasoning"]  # every row read was an answer
    # No self_role answers: the script would stop before storing Reasoning; the reason says so.
    assert "line 338" in ref["reasons"]["reasoning"]


def test_deception_counts_even_votes_as_wins_and_its_lambda_term_over_distinct_outcomes():
    games = [
        chameleon("d1", [B, B, X], "chameleon_wins"),      # flag 2: a win in both readings
        chameleon("d2", [B, B, X], "even_vote"),           # flag 3: a win for the script only
        chameleon("d3", [B, B, X], "non_chameleons_win"),  # flag 0: a loss in both
        undercover("d4", [B, X, B], "even_vote"),          # flag 2: a win for the script only
        chameleon("d5", [X, X, B], "chameleon_guessed"),   # flag 1 as a non-chameleon: right guess
        chameleon("d6", [X, X, B], "non_chameleons_win"),  # flag 0: wrong guess
        chameleon("d7", [X, X, B], "non_chameleons_win"),  # flag 0: wrong guess
    ]
    paper, ref = both(games)
    # Paper: blending 1/4; wrong guesses 2 of 3; raw 1/4 + 0.25 x 2/3 = 5/12, scaled (5/12) / 1.25 = 1/3.
    assert paper["deception"]["raw"] == pytest.approx(5 / 12)
    assert paper["deception"]["scaled"] == pytest.approx(1 / 3)
    # Reference: blending 3/4 (flags 2, 3 and 2 are not 0); flags seen as a non-chameleon: {0, 1},
    # right-guess flag present: 1/2; raw 3/4 + 0.25 x 1/2 = 7/8, scaled 7/8 / 1.25 = 0.7.
    assert ref["deception"]["raw"] == pytest.approx(7 / 8)
    assert ref["deception"]["scaled"] == pytest.approx(0.7)
    assert ref["deception"]["parts"]["blend"]["value"] == pytest.approx(3 / 4)
    assert ref["deception"]["parts"]["right_guess_flag"]["value"] == pytest.approx(1 / 2)
    assert ref["radar"]["values"][2] == pytest.approx(0.7)


def test_deception_is_undefined_where_the_script_divides_by_zero():
    # Only ever a non-chameleon: paper = the lambda term alone (wrong guess 1/1, scaled 1);
    # the script divides by zero (no game as the hidden role).
    paper, ref = both([chameleon("z1", [X, X, B], "non_chameleons_win")])
    assert paper["deception"]["scaled"] == 1.0
    assert ref["deception"] is None and "divides by zero" in ref["reasons"]["deception"]
    assert ref["radar"]["values"][2] is None
    # A hidden role, but no non-chameleon game ended in a guess (flags 0 or 1): again undefined;
    # the paper reading has its blending term, 1/1.
    paper, ref = both([chameleon("z2", [B, B, X], "chameleon_wins"), chameleon("z3", [X, X, B], "even_vote")])
    assert paper["deception"]["scaled"] == 1.0
    assert ref["deception"] is None and "identified" in ref["reasons"]["deception"]


def test_self_awareness_pools_the_chameleons_role_answers():
    games = [
        chameleon("s1", [B, B, X], "chameleon_wins", [(2, "self_role", {"role": "chameleon"})]),  # right
        chameleon("s2", [X, X, B], "chameleon_wins", [(0, "self_role", {"role": "non_chameleon"}),  # right
                                                      (1, "self_role", {"role": "chameleon"})]),    # wrong
        undercover("s3", [B, X, B], "civilians_win", [(1, "self_role", {"role": "civilian"})]),     # wrong
    ]
    paper, ref = both(games)
    # Paper: Chameleon players are told their role, so only Undercover counts: 0/1.
    assert paper["self_awareness"]["scaled"] == 0.0 and paper["self_awareness"]["n"] == 1
    # Reference: every answer pooled, no weight: 1 + 1 + 0 + 0 of 4 = 1/2.
    assert ref["self_awareness"]["value"] == pytest.approx(1 / 2) and ref["self_awareness"]["n"] == 4
    assert ref["self_awareness"]["parts"]["chameleon"]["n"] == 3


def test_rationality_pools_the_two_games_decisions():
    games = [prisoners("p1", [X, B, B], [["defect"] * 3, ["cooperate"] * 3]),     # 1 of 2 rounds defected
             public_good("g1", [X, B, B], [[0, 10, 10]] * 4)]                       # least in 4 of 4
    paper, ref = both(games)
    # Paper: the mean of the two rates, (1/2 + 4/4) / 2 = 3/4. Reference: (1 + 4) / (2 + 4) = 5/6.
    assert paper["rationality"]["scaled"] == pytest.approx(3 / 4)
    assert ref["rationality"]["value"] == pytest.approx(5 / 6) and ref["rationality"]["n"] == 6


def test_metrics_the_readings_share_are_the_same_numbers():
    games = [chameleon("e1", [X, X, B], "non_chameleons_win"), undercover("e2", [B, X, B], "undercover_wins")]
    paper, ref = both(games)
    for name in ("games", "roles", "win_rate", "judgement", "cooperation"):
        assert ref[name] == paper[name], name


def test_coordination_counts_an_agreed_split_equal_to_the_agents_own():
    # Every airline proposes 50/25/25; X (seat 0) is in two successful games: once its own
    # proposal is voted, once B's (seat 1) identical one.
    paper, ref = both([cost_sharing("k1", [X, B, B], [0, 0, 0]), cost_sharing("k2", [X, B, B], [1, 1, 1])])
    # Paper: X made the agreed proposal in 1 of 2. Reference: the agreed split is X's own in 2 of 2.
    assert paper["coordination"]["value"] == pytest.approx(1 / 2)
    assert ref["coordination"]["value"] == 1.0 and ref["coordination"]["n"] == 2
    assert paper["cooperation"] == ref["cooperation"]
