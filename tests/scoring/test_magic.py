"""Golden tests of the MAgIC metrics: hand-built replays, expected values worked out by hand."""

from __future__ import annotations

import json
import math
import random

import pytest
from builders import builtin, llm, replay, scored
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t

from site_builder.scoring.magic import FULL_AREA, magic, radar_area, welch
from site_builder.scoring.model import AgentInfo, agent_key

X = llm("x", "gpt-4o")
PGM = llm("x", "gpt-4o", design="pgm")
B = builtin("b")
KX, KP, KB = agent_key(X), agent_key(PGM), agent_key(B)
AGENTS = {agent_key(d): AgentInfo(agent_key(d), d["name"], {k: v for k, v in d.items() if k != "name"})
          for d in (X, PGM, B)}
Z = 1.959963984540054
SIN = math.sin(2 * math.pi / 7)

CARD = {"id": "fruit-4", "topic": "Fruit", "words": ["apple", "pear", "plum", "fig"]}
PAIR = {"id": "violin-cello", "civilian": "violin", "undercover": "cello"}
PAYOFFS = {"cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}
AIRLINES = [{"id": f"air-{i}", "flights_per_month": 10 * (i + 1), "passengers_per_month": 100,
             "avg_flight_hours": 1.0, "aircraft": "jets"} for i in range(3)]

# Votes (seats 0, 1, 2) and guess giving each MAgIC outcome when the chameleon sits at seat 2.
CHAMELEON_PLAYS = {
    "non_chameleons_win": ([2, 2, 0], "pear"),
    "chameleon_guessed": ([2, 2, 0], "apple"),
    "chameleon_wins": ([1, 0, 0], None),  # seat 0 accused
    "even_vote": ([1, 2, 0], None),  # one vote each
}
# Votes giving each Undercover outcome when the undercover sits at seat 1.
UNDERCOVER_VOTES = {"civilians_win": [1, 0, 1], "undercover_wins": [2, 2, 0], "even_vote": [1, 2, 0]}


def chameleon(gid, agents, outcome, probes=()):
    votes, guess = CHAMELEON_PLAYS[outcome]
    setup = {"card": CARD, "secret": "apple", "chameleon": 2, "order": [0, 1, 2]}
    inputs = [("act", s, {"clue": w}) for s, w in enumerate(["red", "green", "sweet"])]
    inputs += [("probe", *p) for p in probes]
    inputs += [("act", s, {"vote": v}) for s, v in enumerate(votes)]
    if guess:
        inputs.append(("act", 2, {"guess": guess}))
    game = scored(replay("chameleon", setup, agents, inputs, game_id=gid,
                         rules={"players": 3, "words": 4, "clue": "word", "ties": "even"}))
    assert game.result["magic_outcome"] == outcome
    return game


def undercover(gid, agents, outcome, probes=()):
    inputs = [("act", s, {"clue": w}) for s, w in enumerate(["music", "strings", "bow"])]
    inputs += [("probe", *p) for p in probes]
    inputs += [("act", s, {"vote": v}) for s, v in enumerate(UNDERCOVER_VOTES[outcome])]
    game = scored(replay("undercover", {"pair": PAIR, "undercover": 1}, agents, inputs, game_id=gid,
                         rules={"players": 3, "rounds": 1}))
    assert game.result["magic_outcome"] == outcome
    return game


def cost_sharing(gid, agents, votes):
    """One round; everyone proposes the same split; unanimous votes agree on that proposer."""
    inputs = [("act", s, {"split": [50, 25, 25]}) for s in range(3)]
    inputs += [("act", s, {"proposal": v}) for s, v in enumerate(votes)]
    return scored(replay("cost_sharing", {"fee": 900, "airlines": AIRLINES}, agents, inputs, game_id=gid,
                         rules={"rounds": 1}))


def prisoners(gid, agents, rounds):
    inputs = [("act", s, {"choice": c}) for choices in rounds for s, c in enumerate(choices)]
    return scored(replay("prisoners_dilemma", {"payoffs": PAYOFFS}, agents, inputs, game_id=gid,
                         rules={"rounds": len(rounds)}))


def public_good(gid, agents, rounds):
    inputs = [("act", s, {"contribution": c}) for amounts in rounds for s, c in enumerate(amounts)]
    return scored(replay("public_good", {"multiplier": 2, "endowment": 100}, agents, inputs, game_id=gid,
                         rules={"rounds": len(rounds)}))


def forfeit(gid, game, agents, setup, rules, seat=0):
    raw = replay(game, setup, agents, [("forfeit", seat, "no legal move after 3 attempts")], game_id=gid, rules=rules)
    out = scored(raw)
    assert out.status == "invalid"
    return out


def of(games, key=KX, seed=1):
    return magic(games, AGENTS, seed=seed)["agents"][key]


def wilson(k, n):
    """The 95% Wilson interval, written out."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


# -- per-role win rates ------------------------------------------------------------------------

@pytest.mark.parametrize("outcome, hidden, side", [
    ("non_chameleons_win", 0, 2), ("chameleon_guessed", 1, 1), ("chameleon_wins", 2, 0), ("even_vote", 1, 1)])
def test_chameleon_credit_table(outcome, hidden, side):
    as_chameleon = of([chameleon("c1", [B, B, X], outcome)])
    assert as_chameleon["roles"]["chameleon"]["value"] == pytest.approx(hidden / 2)
    assert as_chameleon["roles"]["chameleon"]["credits"] == hidden
    assert as_chameleon["roles"]["chameleon"]["n"] == 1
    assert as_chameleon["roles"]["non_chameleon"] is None
    # Two non-chameleon seats of one agent share one outcome: one unit, not two.
    as_side = of([chameleon("c1", [X, X, B], outcome)])
    assert as_side["roles"]["non_chameleon"]["value"] == pytest.approx(side / 2)
    assert as_side["roles"]["non_chameleon"]["n"] == 1
    assert as_side["roles"]["chameleon"] is None


@pytest.mark.parametrize("outcome, hidden, side", [
    ("undercover_wins", 3, 0), ("civilians_win", 0, 3), ("even_vote", 2, 1)])
def test_undercover_credit_table(outcome, hidden, side):
    as_undercover = of([undercover("u1", [B, X, B], outcome)])
    assert as_undercover["roles"]["undercover"]["value"] == pytest.approx(hidden / 3)
    assert as_undercover["roles"]["undercover"]["max_credit"] == 3
    as_civilian = of([undercover("u1", [X, B, X], outcome)])
    assert as_civilian["roles"]["civilian"]["value"] == pytest.approx(side / 3)
    assert as_civilian["roles"]["civilian"]["n"] == 1


def win_rate_games():
    return [
        chameleon("a-c1", [B, B, X], "chameleon_wins"),  # chameleon: 2 credits
        chameleon("a-c2", [B, B, X], "non_chameleons_win"),  # chameleon: 0 credits
        undercover("a-u1", [X, B, B], "civilians_win"),  # civilian: 3 of 3
        cost_sharing("a-s1", [X, B, B], [1, 1, 1]),  # agreement
        prisoners("a-p1", [X, B, B], [["defect", "cooperate", "defect"], ["cooperate"] * 3]),  # totals 4, 2, 4
        public_good("a-g1", [X, B, B], [[10, 3, 3]]),  # X keeps least: loses
    ]


def test_win_rate_over_roles_played():
    report = of(win_rate_games())
    roles = report["roles"]
    assert roles["chameleon"]["value"] == pytest.approx((2 + 0) / (2 * 2))
    assert roles["chameleon"]["ci"] == pytest.approx(wilson(1, 2))
    assert roles["civilian"]["value"] == pytest.approx(1.0)
    assert roles["cost_sharing"]["value"] == 1.0
    # A tie for the highest total is a win, but not a strict one.
    assert roles["prisoners_dilemma"]["value"] == 1.0
    assert roles["prisoners_dilemma"]["strict"]["value"] == 0.0
    assert roles["public_good"]["value"] == 0.0
    assert roles["non_chameleon"] is None and roles["undercover"] is None
    win = report["win_rate"]
    assert win["value"] == pytest.approx((0.5 + 1 + 1 + 1 + 0) / 5)
    assert win["roles"] == ["chameleon", "civilian", "cost_sharing", "prisoners_dilemma", "public_good"]
    assert (win["roles_played"], win["roles_total"], win["n"]) == (5, 7, 6)
    assert 0 <= win["ci"][0] <= win["ci"][1] <= 1


def test_a_forfeit_is_a_loss_in_the_forfeiters_roles_and_changes_nothing_else():
    games = win_rate_games()
    forfeits = [
        forfeit("a-z1", "prisoners_dilemma", [X, B, B], {"payoffs": PAYOFFS}, {"rounds": 2}),
        forfeit("a-z2", "public_good", [X, B, B], {"multiplier": 2, "endowment": 100}, {"rounds": 1}),
    ]
    report = of(games + forfeits)
    assert report["games"] == {"counted": 8, "forfeits": 2, "left_out": 0}
    roles = report["roles"]
    assert roles["prisoners_dilemma"]["value"] == pytest.approx(1 / 2)  # the win of a-p1, the loss of a-z1
    assert roles["prisoners_dilemma"]["strict"]["value"] == 0.0
    assert roles["public_good"]["value"] == 0.0 and roles["public_good"]["n"] == 2
    assert report["win_rate"]["value"] == pytest.approx((0.5 + 1 + 1 + 0.5 + 0) / 5)
    without = of(games)
    for name in ("judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination",
                 "rationality"):
        assert report[name] == without[name], name


def test_another_agents_forfeit_changes_nothing_for_the_others():
    games = win_rate_games()
    theirs = [forfeit("a-z1", "prisoners_dilemma", [B, X, X], {"payoffs": PAYOFFS}, {"rounds": 2}),
              forfeit("a-z2", "chameleon", [B, X, X], {"card": CARD, "secret": "apple", "chameleon": 2,
                                                         "order": [0, 1, 2]},
                      {"players": 3, "words": 4, "clue": "word", "ties": "even"})]
    with_theirs = of(games + theirs)
    assert with_theirs["games"] == {"counted": 6, "forfeits": 0, "left_out": 2}
    without = of(games)
    del with_theirs["games"], without["games"]
    assert with_theirs == without
    assert of(games + theirs, key=KB)["games"]["forfeits"] == 2


def test_only_forfeits_gives_losses_and_nothing_else():
    games = [forfeit("z1", "prisoners_dilemma", [X, B, B], {"payoffs": PAYOFFS}, {"rounds": 2}),
             forfeit("z2", "cost_sharing", [X, B, B], {"fee": 900, "airlines": AIRLINES}, {"rounds": 1})]
    report = of(games)
    assert report["games"] == {"counted": 2, "forfeits": 2, "left_out": 0}
    assert report["roles"]["prisoners_dilemma"]["value"] == 0.0 and report["roles"]["cost_sharing"]["value"] == 0.0
    assert report["win_rate"]["value"] == 0.0
    for name in ("judgement", "reasoning", "deception", "self_awareness", "cooperation", "coordination",
                 "rationality"):
        assert report[name] is None, name
    assert report["radar"]["area"] is None


def test_no_games_in_a_role_is_absent_not_zero():
    report = of([prisoners("p1", [X, B, B], [["cooperate"] * 3])])
    assert report["roles"]["prisoners_dilemma"]["value"] == 1.0
    assert [r for r, v in report["roles"].items() if v is None] == [
        "chameleon", "non_chameleon", "undercover", "civilian", "cost_sharing", "public_good"]
    assert report["judgement"] is None and report["cooperation"] is None and report["self_awareness"] is None
    # The Rationality of a cooperator is 0, a real zero, while the absent parts stay None.
    assert report["rationality"]["scaled"] == 0.0
    assert report["rationality"]["parts"]["public_good"] is None
    assert report["radar"]["values"] == [None, None, None, None, None, None, 0.0]
    assert report["radar"]["area"] is None


# -- abilities ---------------------------------------------------------------------------------

def test_judgement_counts_votes_of_non_chameleons_and_civilians():
    # X at seats 0 and 1 (non-chameleons): seat 0 votes the chameleon (seat 2), seat 1 votes seat 0.
    setup = {"card": CARD, "secret": "apple", "chameleon": 2, "order": [0, 1, 2]}
    clues = [("act", s, {"clue": w}) for s, w in enumerate(["red", "green", "sweet"])]
    votes = [("act", 0, {"vote": 2}), ("act", 1, {"vote": 0}), ("act", 2, {"vote": 0})]
    games = [
        scored(replay("chameleon", setup, [X, X, B], clues + votes, game_id="j1",
                      rules={"players": 3, "words": 4, "ties": "even"})),
        undercover("j2", [X, B, B], "civilians_win"),  # X (seat 0) votes the undercover, seat 1
        chameleon("j3", [B, B, X], "non_chameleons_win"),  # X is the chameleon: its vote is not counted
    ]
    report = of(games)["judgement"]
    assert report["value"] == pytest.approx((1 + 1) / 3)
    assert (report["n"], report["games"]) == (3, 2)
    assert report["ci"] == pytest.approx(wilson(2, 3))


def test_reasoning_first_and_second_order():
    probes = [
        (0, "suspect", {"seat": 2}),  # X, non-chameleon: right
        (1, "suspect", {"seat": 0}),  # B
        (2, "suspect", {"seat": 0}),  # X as the chameleon: not counted
        (0, "suspect_of", {"of": 1, "seat": 0}),  # B did suspect 0: right
        (2, "suspect_of", {"of": 1, "seat": 2}),  # B did not suspect 2: wrong
        (0, "suspect_of", {"of": 2, "seat": 1}),  # seat 2's answer is left out: not counted
    ]
    game1 = chameleon("r1", [X, B, X], "chameleon_wins", probes)
    game2 = undercover("r2", [X, B, B], "civilians_win", [
        (0, "suspect", {"seat": 2}),  # the undercover is 1: wrong
        (0, "suspect_of", {"of": 2, "seat": 1}),  # seat 2 answered nothing: not counted
    ])
    report = of([game1, game2])["reasoning"]
    assert report["value"] == pytest.approx((1 + 1) / (2 + 2))
    assert report["n"] == 4 and report["games"] == 2
    assert report["parts"]["gold"]["value"] == pytest.approx(1 / 2)
    assert report["parts"]["inter"]["value"] == pytest.approx(1 / 2)
    assert report["parts"]["inter"]["n"] == 2


def test_guesses_about_the_chameleons_own_suspect_are_left_out_with_it():
    # The chameleon (seat 2, agent B) was asked who the chameleon is by an earlier runner and
    # answered seat 0. That answer is not read, so X's guesses about it count nowhere, whether
    # they match it (seat 0) or not (seat 1); X's guess about seat 1 (B answered seat 2) counts.
    probes = [(0, "suspect", {"seat": 2}), (1, "suspect", {"seat": 2}), (2, "suspect", {"seat": 0}),
              (0, "suspect_of", {"of": 2, "seat": 0}),  # matches the unread answer: not counted
              (1, "suspect_of", {"of": 2, "seat": 1}),  # differs from it: not counted either
              (0, "suspect_of", {"of": 1, "seat": 2})]  # right
    report = of([chameleon("i1", [X, X, B], "non_chameleons_win", probes)])["reasoning"]
    # gold: seats 0 and 1 both name the chameleon, 2/2; inter: 1/1. Reasoning = 3/3.
    assert report["parts"]["inter"]["n"] == 1 and report["parts"]["inter"]["value"] == 1.0
    assert report["value"] == 1.0 and report["n"] == 3


def test_deception_blending_and_wrong_guesses():
    games = [
        chameleon("d1", [B, B, X], "chameleon_wins"),  # X blends: win
        chameleon("d2", [B, B, X], "chameleon_guessed"),  # identified but guessed: win
        chameleon("d3", [B, B, X], "non_chameleons_win"),  # loss
        undercover("d4", [B, X, B], "undercover_wins"),  # win
        undercover("d5", [B, X, B], "even_vote"),  # nobody wins
        chameleon("d6", [X, X, B], "non_chameleons_win"),  # the opposing chameleon guessed wrong
        chameleon("d7", [X, B, B], "chameleon_guessed"),  # ... guessed right
        chameleon("d8", [X, B, B], "chameleon_wins"),  # no guess: feeds no part
    ]
    report = of(games)["deception"]
    raw = 3 / 5 + 0.25 * (1 / 2)
    assert report["raw"] == pytest.approx(raw)
    assert report["scaled"] == pytest.approx(raw / 1.25)
    assert report["max"] == 1.25
    assert report["n"] == 7
    assert report["parts"]["blend"]["value"] == pytest.approx(3 / 5)
    assert report["parts"]["wrong_guesses"]["n"] == 2
    lo, hi = report["ci"]
    assert 0 <= lo <= hi <= 1


def test_deception_without_guesses_is_not_rescaled():
    report = of([chameleon("d1", [B, B, X], "chameleon_wins"), chameleon("d2", [B, B, X], "even_vote")])["deception"]
    assert report["raw"] == report["scaled"] == pytest.approx(1 / 2)
    assert report["parts"]["wrong_guesses"] is None and report["max"] == 1


def test_self_awareness_counts_only_roles_not_told():
    # Everyone in The Chameleon is told their role, so runners no longer ask it; answers that
    # earlier runners recorded are left out. Undercover players are not told: those count.
    games = [
        chameleon("s1", [B, B, X], "chameleon_wins", [(2, "self_role", {"role": "chameleon"})]),
        chameleon("s3", [X, B, B], "chameleon_wins", [(0, "self_role", {"role": "non_chameleon"})]),
        undercover("s4", [B, X, B], "civilians_win", [(1, "self_role", {"role": "civilian"})]),  # wrong
        undercover("s5", [X, B, B], "civilians_win", [(0, "self_role", {"role": "civilian"})]),  # right
    ]
    report = of(games)["self_awareness"]
    assert report["raw"] == report["scaled"] == pytest.approx(1 / 2)
    assert report["n"] == 2
    assert of(games[:2])["self_awareness"] is None  # Chameleon games alone: not measured


def test_the_chameleons_guess_of_the_secret_is_a_first_order_deduction():
    games = [
        chameleon("r1", [B, B, X], "chameleon_wins", [(2, "secret", {"word": "apple"}),        # right
                                                      (2, "suspect", {"seat": 0})]),          # it knows: left out
        chameleon("r2", [B, B, X], "chameleon_wins", [(2, "secret", {"word": "pear"})]),       # wrong
    ]
    report = of(games)["reasoning"]
    assert report["value"] == pytest.approx(1 / 2) and report["n"] == 2


def test_cooperation_and_coordination():
    games = [
        cost_sharing("k1", [X, B, B], [0, 0, 0]),  # success, X proposed
        cost_sharing("k2", [X, B, B], [1, 1, 1]),  # success, B proposed
        cost_sharing("k3", [X, B, B], [0, 1, 2]),  # failure
        cost_sharing("k4", [B, X, X], [2, 2, 2]),  # success, X's second seat proposed
    ]
    report = of(games)
    assert report["cooperation"]["value"] == pytest.approx(3 / 4)
    assert report["cooperation"]["n"] == 4
    assert report["coordination"]["value"] == pytest.approx(2 / 3)
    assert report["coordination"]["n"] == 3
    # The role's win rate counts seats: 1 + 1 + 0 + 2 successes over 5 seats.
    assert report["roles"]["cost_sharing"]["value"] == pytest.approx(4 / 5)
    assert report["roles"]["cost_sharing"]["n"] == 5


def test_coordination_absent_without_success():
    report = of([cost_sharing("k3", [X, B, B], [0, 1, 2])])
    assert report["cooperation"]["value"] == 0.0
    assert report["coordination"] is None


def test_rationality_and_ties_in_prisoners_dilemma_and_public_good():
    games = [
        # X defects in 1 of 2 rounds; totals 4, 2, 4: X ties for the highest (a win, not strict).
        prisoners("q1", [X, B, B], [["defect", "cooperate", "defect"], ["cooperate"] * 3]),
        # X ties for the least in round 1, not in round 2; keeps 85 against 92: loses.
        public_good("q2", [X, B, B], [[5, 5, 9], [10, 3, 3]]),
        # Everyone gives 4: all tie for the least and for the highest final.
        public_good("q3", [X, B, B], [[4, 4, 4]]),
    ]
    report = of(games)
    rationality = report["rationality"]
    raw = 1 / 2 + (1 + 0 + 1) / (2 + 1)
    assert rationality["raw"] == pytest.approx(raw)
    assert rationality["scaled"] == pytest.approx(raw / 2)
    assert rationality["parts"]["prisoners_dilemma"]["n"] == 2
    assert rationality["parts"]["public_good"]["n"] == 3
    assert rationality["n"] == 3
    roles = report["roles"]
    assert roles["prisoners_dilemma"]["value"] == 1.0 and roles["prisoners_dilemma"]["strict"]["value"] == 0.0
    assert roles["public_good"]["value"] == pytest.approx(1 / 2)
    assert roles["public_good"]["strict"]["value"] == 0.0
    # The strict winner of q2 is seat 1 (B): a strict win for B.
    assert of(games, KB)["roles"]["public_good"]["strict"]["value"] == pytest.approx(1 / 4)


# -- radar -------------------------------------------------------------------------------------

def test_radar_area_of_known_polygons():
    assert radar_area([1] * 7) == pytest.approx(3.5 * SIN)
    assert FULL_AREA == pytest.approx(3.5 * SIN)
    assert radar_area([0.5] * 7) == pytest.approx(3.5 * SIN / 4)
    assert radar_area([1, 1, 0, 0, 0, 0, 0]) == pytest.approx(0.5 * SIN)
    assert radar_area([1, 0, 1, 0, 1, 0, 0]) == 0
    # A square: four axes at radius 1 make a square of diagonal 2, area 2.
    assert radar_area([1, 1, 1, 1]) == pytest.approx(2)


def test_radar_of_an_agent_with_every_metric():
    probes = [(0, "suspect", {"seat": 2}), (1, "suspect", {"seat": 0}), (0, "suspect_of", {"of": 1, "seat": 0}),
              (0, "self_role", {"role": "non_chameleon"}), (1, "self_role", {"role": "chameleon"})]
    games = [
        chameleon("w1", [X, X, B], "non_chameleons_win", probes),  # votes 2, 2: both right; wrong guess
        cost_sharing("w2", [X, B, B], [0, 0, 0]),
        prisoners("w3", [X, B, B], [["defect"] * 3, ["cooperate"] * 3]),
        # X as the undercover (not told its role) knows it: self-awareness 1; winning keeps deception 1.
        undercover("w4", [B, X, B], "undercover_wins", [(1, "self_role", {"role": "undercover"})]),
    ]
    radar = of(games)["radar"]
    values = [1.0, 2 / 3, 1.0, 1.0, 1.0, 1.0, 1 / 2]
    assert radar["axes"] == ["judgement", "reasoning", "deception", "self_awareness", "cooperation",
                             "coordination", "rationality"]
    assert radar["values"] == pytest.approx(values)
    products = 1 * 2 / 3 + 2 / 3 * 1 + 1 * 1 + 1 * 1 + 1 * 1 + 1 * 1 / 2 + 1 / 2 * 1
    assert radar["area"]["value"] == pytest.approx(0.5 * SIN * products)
    assert radar["relative_area"]["value"] == pytest.approx(products / 7)
    assert radar["area"]["n"] == 4
    # Every resample that keeps all four games is the full sample: the interval is a point.
    assert radar["area"]["ci"] == pytest.approx([0.5 * SIN * products] * 2)


# -- vanilla vs enhanced -----------------------------------------------------------------------

def negotiations(prefix, agent, outcomes):
    return [cost_sharing(f"{prefix}{i}", [agent, B, B], [1, 1, 1] if ok else [0, 1, 2])
            for i, ok in enumerate(outcomes)]


def test_comparison_significant():
    games = negotiations("v", X, [0, 0, 0, 0, 0, 1]) + negotiations("e", PGM, [1, 1, 1, 1, 1, 0])
    result = magic(games, AGENTS, seed=3)
    [comparison] = result["comparisons"]
    assert (comparison["vanilla"], comparison["enhanced"], comparison["design"]) == (KX, KP, "pgm")
    assert comparison["model"] == AGENTS[KX].base_key
    cooperation = comparison["metrics"]["cooperation"]
    # Means 1/6 and 5/6, sample variances 1/6 each, 6 games each.
    se = math.sqrt((1 / 6) / 6 + (1 / 6) / 6)
    t = (5 / 6 - 1 / 6) / se
    assert cooperation["t"] == pytest.approx(t)
    # Welch's degrees of freedom: (2a)^2 / (2 a^2 / 5) = 10 with a = 1/36.
    assert cooperation["p_value"] == pytest.approx(2 * student_t.sf(t, 10))
    assert cooperation["significant"] is True
    assert (cooperation["vanilla"], cooperation["enhanced"]) == (pytest.approx(1 / 6), pytest.approx(5 / 6))
    assert cooperation["difference"] == pytest.approx(4 / 6)
    assert (cooperation["n_vanilla"], cooperation["n_enhanced"]) == (6, 6)
    # Coordination has a single successful vanilla game; judgement has no games at all.
    assert "coordination" not in comparison["metrics"] and "judgement" not in comparison["metrics"]
    assert comparison["metrics"]["win_rate"]["t"] == pytest.approx(t)


def test_comparison_not_significant():
    games = negotiations("v", X, [0, 0, 0, 1]) + negotiations("e", PGM, [1, 1, 1, 0])
    cooperation = magic(games, AGENTS, seed=3)["comparisons"][0]["metrics"]["cooperation"]
    t = (3 / 4 - 1 / 4) / math.sqrt(0.25 / 4 + 0.25 / 4)  # = sqrt(2), 6 degrees of freedom
    assert cooperation["t"] == pytest.approx(t)
    assert cooperation["p_value"] == pytest.approx(2 * student_t.sf(math.sqrt(2), 6))
    assert cooperation["p_value"] > 0.05 and cooperation["significant"] is False


def test_no_comparison_without_both_designs():
    assert magic(negotiations("v", X, [1, 0, 1]), AGENTS, seed=3)["comparisons"] == []


def test_welch_with_constant_samples():
    assert welch([1.0, 1.0], [1.0, 1.0]) == (None, None)
    assert welch([1.0, 1.0], [0.0, 0.0]) == (None, 0.0)


# -- properties --------------------------------------------------------------------------------

def test_order_of_games_changes_nothing():
    games = win_rate_games() + [chameleon("o1", [X, X, B], "non_chameleons_win",
                                          [(0, "suspect", {"seat": 2}), (0, "self_role", {"role": "chameleon"})])]
    # Enough games with different values that a resample drawn in another order would differ.
    games += negotiations("o-s", X, [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1])
    games += [prisoners(f"o-p{i}", [X, B, B], [["defect" if r < i else "cooperate"] * 3 for r in range(4)])
              for i in range(5)]
    expected = json.dumps(magic(games, AGENTS, seed=5), sort_keys=True, allow_nan=False)
    shuffled = list(games)
    random.Random(4).shuffle(shuffled)
    assert json.dumps(magic(shuffled, AGENTS, seed=5), sort_keys=True) == expected
    assert json.dumps(magic(list(reversed(games)), AGENTS, seed=5), sort_keys=True) == expected


def _in_unit(entry):
    if entry is None:
        return
    headline = entry.get("scaled", entry.get("value"))
    assert 0 <= headline <= 1
    if entry["ci"] is not None:
        assert 0 <= entry["ci"][0] <= entry["ci"][1] <= 1


outcomes = st.sampled_from(sorted(CHAMELEON_PLAYS))
seats3 = st.lists(st.sampled_from(["x", "b"]), min_size=3, max_size=3)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cham=st.lists(st.tuples(outcomes, seats3), max_size=3),
       pd=st.lists(st.lists(st.sampled_from(["cooperate", "defect"]), min_size=3, max_size=3), min_size=1, max_size=3),
       pg=st.lists(st.integers(0, 30), min_size=3, max_size=3),
       cs=st.lists(st.integers(0, 2), min_size=3, max_size=3))
def test_every_value_is_in_the_unit_interval(cham, pd, pg, cs):
    pick = {"x": X, "b": B}
    games = [chameleon(f"h{i}", [pick[a] for a in seats], outcome,
                       [(s, "self_role", {"role": "chameleon"}) for s in range(3)])
             for i, (outcome, seats) in enumerate(cham)]
    games += [prisoners("hp", [X, B, X], pd), public_good("hg", [X, X, B], [pg]), cost_sharing("hs", [B, X, B], cs)]
    for key, report in magic(games, AGENTS, seed=2)["agents"].items():
        for name in ("win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation",
                     "coordination", "rationality"):
            _in_unit(report[name])
        for role in report["roles"].values():
            _in_unit(role)
        area = report["radar"]["relative_area"]
        if area is not None:
            _in_unit(area)


def test_an_equal_split_agreement_credits_every_airline_that_proposed_it():
    # agreement = "same_split": X (seat 0) and B (seat 1) propose 40/30/30, B (seat 2) 50/25/25;
    # the votes name 0, 1, 0: equal splits, so the game ends in agreement although two airlines'
    # proposals were named. Cooperation 1/1; Coordination (paper: X made the agreed proposal) 1/1;
    # under the default rule the same votes are no agreement and the game fails: 0/1, no Coordination.
    def game(gid, agreement):
        inputs = [("act", s, {"split": split}) for s, split in enumerate([[40, 30, 30], [40, 30, 30], [50, 25, 25]])]
        inputs += [("act", s, {"proposal": v}) for s, v in enumerate([0, 1, 0])]
        return scored(replay("cost_sharing", {"fee": 900, "airlines": AIRLINES}, [X, B, B], inputs, game_id=gid,
                             rules={"rounds": 1, "agreement": agreement}))

    equal = game("eq", "same_split")
    assert equal.result["success"] and equal.result["agreed_proposers"] == [0, 1]
    assert equal.result["agreed_proposer"] is None
    out = magic([equal], AGENTS, seed=1)
    for reading in (out["agents"][KX], out["alternative"]["agents"][KX]):
        assert (reading["cooperation"]["value"], reading["coordination"]["value"]) == (1.0, 1.0)
    strict = magic([game("st", "same_proposer")], AGENTS, seed=1)["agents"][KX]
    assert strict["cooperation"]["value"] == 0.0 and strict["coordination"] is None
