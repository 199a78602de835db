"""The closed forms and bounds of the Chameleon paper's section 4 at hand-computed points, and theory vs practice."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from builders import builtin, llm, replay, scored
from hypothesis import given
from hypothesis import strategies as st

from site_builder.scoring import theory
from site_builder.scoring.corpus import load
from site_builder.scoring.model import AgentInfo, agent_key
from site_builder.scoring.stats import wilson

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


# --- closed forms at hand-computed points ------------------------------------------------
def test_trivial_strategy():
    assert theory.trivial_win(4, 16) == pytest.approx(15 / 64)  # 002's "23%" = 1/4 x 15/16
    assert theory.trivial_win(3, 16) == pytest.approx(1 / 3 * 15 / 16)
    assert theory.trivial_identified(4) == pytest.approx(1 / 4)


def test_revealing_strategy():
    assert theory.revealing_win(4, 16) == 0.0
    assert theory.revealing_identified(5) == pytest.approx(1 / 5)


def test_proposition_1():
    assert theory.prop1_bound(4, 16, 0) == pytest.approx(1 / 4)
    # sqrt(15/16 * 16/15) = 1: 1/4 + 3/16.
    assert theory.prop1_bound(4, 16, 16 / 15) == pytest.approx(1 / 4 + 3 / 16)
    # N = 3, K = 4, alpha = 4/3: 1/3 + 2/9 * sqrt(3/4 * 4/3) = 1/3 + 2/9.
    assert theory.prop1_bound(3, 4, 4 / 3) == pytest.approx(5 / 9)
    with pytest.raises(ValueError):
        theory.prop1_bound(4, 16, -0.1)


def test_theta_and_phi():
    # Sub-collection sums of (0.7, 0.1, 0.2): 0, .7, .1, .2, .8, .9, .3, 1 -> closest to 1/2 is .3 (or .7).
    assert theory.theta([0.7, 0.1, 0.2]) == pytest.approx(0.3)
    assert theory.theta([1.0, 0.0, 0.0]) == 0.0
    assert theory.theta([0.5, 0.25, 0.25]) == pytest.approx(0.5)
    assert theory.phi(0.5) == 2.0
    assert theory.phi(0.25) == pytest.approx(math.log(3) / 0.5)
    assert theory.phi(0.0) == math.inf
    with pytest.raises(ValueError):
        theory.phi(0.6)


def test_proposition_2_points():
    # N = 4, K = 16: 6(K-1) = 90.
    assert theory.prop2_bound(4, 16, 1.5, 2.0) == pytest.approx(90 * math.exp(-3 * 1.5 * 2 / 2))
    assert theory.prop2_bound_proof(4, 16, 1.5, 2.0) == pytest.approx(90 * math.exp(-3 * 1.5 ** 2 * 2 / 16))
    # alpha = 1.5: (2 - 1.5)/1.5 = 1/3, exponent (N-1) alpha / (2 alpha - 2) = 4.5.
    assert theory.prop2_bound_simplified(4, 16, 1.5) == pytest.approx(90 / 3 ** 4.5)
    # proof form: exponent (N-1) alpha^2 / (16 (alpha - 1)) = 3 * 2.25 / 8.
    assert theory.prop2_bound_proof_simplified(4, 16, 1.5) == pytest.approx(90 / 3 ** (3 * 2.25 / 8))
    # phi floor at alpha = 1.5 is phi(1/4) = 2 log 3.
    assert theory.prop2_phi_floor(1.5) == pytest.approx(2 * math.log(3))
    # alpha = 2 (unique responses): the chameleon always knows the word.
    assert theory.prop2_bound_simplified(4, 16, 2.0) == 0.0
    assert theory.prop2_bound(4, 16, 2.0, theory.prop2_phi_floor(2.0)) == 0.0
    with pytest.raises(ValueError):
        theory.prop2_bound_simplified(4, 16, 1.0)


@pytest.mark.parametrize("n, k", [(3, 16), (4, 16), (4, 20), (8, 10)])
def test_proposition_2_simplification_is_the_general_form_at_the_phi_floor(n, k):
    for alpha in theory.PROP2_ALPHAS + (2.0,):
        floor = theory.prop2_phi_floor(alpha)
        assert theory.prop2_bound_simplified(n, k, alpha) == pytest.approx(theory.prop2_bound(n, k, alpha, floor))
        assert theory.prop2_bound_proof_simplified(n, k, alpha) == pytest.approx(
            theory.prop2_bound_proof(n, k, alpha, floor))


@given(alpha=st.floats(1.01, 1.99), share=st.floats(0, 1), split=st.floats(0, 1), n=st.integers(3, 12))
def test_proposition_2_simplification_bounds_every_revealing_pair(alpha, share, split, n):
    # An alpha-L1 revealing pair forces p_{w>w'} >= alpha/2; the rest is split freely.
    p_more = alpha / 2 + share * (1 - alpha / 2)
    rest = 1 - p_more
    p = [p_more, split * rest, (1 - split) * rest]
    t = theory.theta(p)
    assert t <= 1 - alpha / 2 + 1e-12
    general = theory.prop2_bound(n, 16, alpha, theory.phi(t))
    assert general <= theory.prop2_bound_simplified(n, 16, alpha) * (1 + 1e-9)


def test_proposition_2_statement_is_stronger_than_its_proof():
    # alpha phi / 2 > alpha^2 phi / 16 for alpha <= 2: the stated bound is the smaller one.
    for alpha in theory.PROP2_ALPHAS:
        assert theory.prop2_bound_simplified(4, 16, alpha) < theory.prop2_bound_proof_simplified(4, 16, alpha)


def test_proposition_3_and_ambiguity():
    assert theory.ambiguity_l(4, 20) == 4
    assert theory.ambiguity_l(3, 16) == 4
    assert theory.ambiguity_l(4, 16) is None
    # N = 4, l = 4: (log 5 + 0.4)/4 * 3/4.
    assert theory.prop3_bound(4, 4) == pytest.approx((math.log(5) + 0.4) / 4 * 3 / 4)
    # H_4 = 25/12: exact win 25/12 / 4 * 3/4 = 25/64, identified 25/48.
    assert theory.ambiguity_win(4, 4) == pytest.approx(25 / 64)
    assert theory.ambiguity_identified(4) == pytest.approx(25 / 48)
    # N = 3 (H_3 = 11/6), l = 4: 11/18 * 3/4.
    assert theory.ambiguity_win(3, 4) == pytest.approx(11 / 24)
    assert theory.prop3_bound(3, 1) == 0.0 and theory.ambiguity_win(3, 1) == 0.0


def test_proposition_3_bounds_the_exact_rate():
    for n in range(3, 40):
        for l in range(1, 7):
            assert theory.prop3_bound(n, l) <= theory.ambiguity_win(n, l) + 1e-15
        # the log N improvement over the trivial strategy
        assert theory.ambiguity_win(n, 4) > theory.trivial_win(n, 4 * (n + 1))


# --- curves and strategy checks on hand-built games --------------------------------------
GPT = llm("gpt", "gpt-x")
TRIV = builtin("chameleon/trivial", "chameleon/trivial")
REV = builtin("chameleon/revealing", "chameleon/revealing")
AMB = builtin("chameleon/ambiguity", "chameleon/ambiguity")
TRIV_TUNED = builtin("triv2", "chameleon/trivial", loud=True)
AGENTS = {agent_key(a): AgentInfo(agent_key(a), a["name"], {k: v for k, v in a.items() if k != "name"})
          for a in (GPT, TRIV, REV, AMB, TRIV_TUNED)}
_ids = iter(range(10_000))


def game(agent, *, chameleon_seat, votes, guess=None, words=("apple", "lemon", "plum", "grape"),
         forfeit=False, rules=None, others=None):
    """A 3-player word-clue game, order (0, 1, 2), secret apple; `others` replaces the non-chameleons."""
    agents = [others or agent] * 3
    agents[chameleon_seat] = agent
    setup = {"card": {"id": "fruit", "topic": "Fruit", "words": list(words)}, "secret": "apple",
             "chameleon": chameleon_seat, "order": [0, 1, 2]}
    if forfeit:
        inputs = [("forfeit", 0, "no legal clue")]
    else:
        inputs = [("act", s, {"clue": "fruit"}) for s in range(3)]
        inputs += [("act", s, {"vote": v}) for s, v in enumerate(votes)]
        if guess:
            inputs.append(("act", chameleon_seat, {"guess": guess}))
    params = {"players": 3, "words": len(words), **(rules or {})}
    return scored(replay("chameleon", setup, agents, inputs, rules=params, game_id=f"theory-{next(_ids)}"))


@pytest.fixture(scope="module")
def games():
    return [
        # trivial vs trivial, N=3, K=4: everyone votes player 1 (seat 0), seat 0 votes seat 1
        game(TRIV, chameleon_seat=0, votes=[1, 0, 0], guess="lemon"),  # identified, wrong: win
        game(TRIV, chameleon_seat=1, votes=[1, 0, 0]),                 # not identified
        game(TRIV, chameleon_seat=2, votes=[1, 0, 0]),                 # not identified
        # "revealing" agents whose non-chameleons win 3 games of 3 (far from the closed form 0)
        *[game(REV, chameleon_seat=0, votes=[1, 0, 0], guess="plum") for _ in range(3)],
        # the ambiguity agent outside its variant: no closed form
        game(AMB, chameleon_seat=1, votes=[1, 0, 0]),
        # trivial in a K = 5 card, only invalid games
        game(TRIV, chameleon_seat=0, votes=None, forfeit=True, words=("apple", "lemon", "plum", "grape", "fig")),
        # not a self-play of a default built-in: skipped by strategy_checks
        game(TRIV_TUNED, chameleon_seat=0, votes=[1, 0, 0], guess="apple"),
        game(TRIV, chameleon_seat=0, votes=[1, 0, 0], guess="apple", others=GPT),
    ]


def test_strategy_checks_by_hand(games):
    checks = theory.strategy_checks(games, AGENTS)
    assert [(c["strategy"], c["key"]) for c in checks] == [
        ("chameleon/trivial", "N3-K4-word-random"), ("chameleon/trivial", "N3-K5-word-random"),
        ("chameleon/revealing", "N3-K4-word-random"), ("chameleon/ambiguity", "N3-K4-word-random")]
    triv, triv_invalid, rev, amb = checks
    # trivial: closed form (1/3)(1 - 1/4) = 1/4; measured 1 win of 3.
    assert triv["closed_form"] == pytest.approx(1 / 4) and triv["formula"] == "(1/N)(1 - 1/K)"
    assert triv["measured"]["value"] == pytest.approx(1 / 3) and triv["measured"]["n"] == 3
    lo, hi = wilson(1, 3)
    assert lo < 1 / 4 < hi and triv["inside"] is True
    assert triv["identified"]["closed_form"] == pytest.approx(1 / 3)
    assert triv["identified"]["measured"]["value"] == pytest.approx(1 / 3) and triv["identified"]["inside"] is True
    # invalid games only: no measured rate, nothing to compare
    assert triv_invalid["games"] == 1 and triv_invalid["measured"] is None and triv_invalid["inside"] is None
    # revealing: closed form 0, measured 3/3 -> Wilson lower end 0.438... > 0: outside
    assert rev["closed_form"] == 0.0 and rev["measured"]["value"] == 1.0
    assert wilson(3, 3)[0] > 0.4 and rev["inside"] is False
    assert rev["identified"]["inside"] is False  # 1/3 vs 3 of 3
    # ambiguity on word clues with K = 4 = 1 x (3 + 1): pi^amb needs subset clues
    assert amb["closed_form"] is None and amb["inside"] is None and amb["measured"]["n"] == 1


def test_strategy_checks_none_and_order(games):
    assert theory.strategy_checks([], AGENTS) == []
    want = theory.strategy_checks(games, AGENTS)
    json.dumps(want, allow_nan=False)
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)
    assert theory.strategy_checks(shuffled, AGENTS) == want
    # the description is read from the key when the agent table lacks it
    assert theory.strategy_checks(games, {}) == want


def test_curves_by_hand(games):
    out = theory.curves(games, AGENTS)
    assert [(e["players"], e["words"]) for e in out] == [(3, 4), (3, 5)]
    k4, k5 = out
    assert k4["trivial"] == {"win": pytest.approx(1 / 3 * 3 / 4), "identified": pytest.approx(1 / 3)}
    assert k4["revealing"] == {"win": 0.0, "identified": pytest.approx(1 / 3)}
    assert k4["prop1"][0] == {"alpha": 0.0, "value": pytest.approx(1 / 3)}
    assert len(k4["prop1"]) == len(theory.PROP1_ALPHAS)
    assert all(1 < p["alpha"] < 2 for p in k4["prop2"])
    first = k4["prop2"][0]  # alpha = 1.05: 6(K-1) = 18, (0.95/1.05)^(2 * 1.05 / 0.1)
    assert first["alpha"] == 1.05 and first["value"] == pytest.approx(18 * (0.95 / 1.05) ** 21)
    assert first["proof_value"] == pytest.approx(18 * (0.95 / 1.05) ** (2 * 1.05 ** 2 / (16 * 0.05)))
    # K = 4 = 1 x (N + 1): l = 1, pi^amb cannot win; identified H_3 / 3 = 11/18.
    assert k4["prop3"] == {"l": 1, "bound": 0.0, "ambiguity_win": 0.0, "ambiguity_identified": pytest.approx(11 / 18)}
    assert k5["prop3"] is None
    rows = {(r["chameleon_label"], r["non_chameleon_label"]): r for r in k4["measured"]}
    assert set(rows) == {("chameleon/trivial", "chameleon/trivial"), ("chameleon/revealing", "chameleon/revealing"),
                         ("chameleon/ambiguity", "chameleon/ambiguity"), ("triv2", "triv2"),
                         ("chameleon/trivial", "gpt")}
    triv = rows[("chameleon/trivial", "chameleon/trivial")]
    assert triv["games"] == 3 and triv["key"] == "N3-K4-word-random"
    assert triv["non_chameleon_win"]["value"] == pytest.approx(1 / 3)
    assert triv["identification"]["value"] == pytest.approx(1 / 3)
    (only,) = k5["measured"]
    assert only["games"] == 1 and only["non_chameleon_win"] is None
    json.dumps(out, allow_nan=False)
    assert theory.curves([], AGENTS) == []


# --- acceptance: the shipped corpus ------------------------------------------------------
@pytest.mark.skipif(not SHIPPED.is_dir(), reason=f"the shipped corpus {SHIPPED} does not exist yet")
def test_shipped_corpus_strategies_match_their_closed_forms():
    """Each built-in 002 strategy's measured win rate lies inside its 95% Wilson interval."""
    files = sorted(SHIPPED.rglob("*-chameleon-*.jsonl")) or [SHIPPED]
    corpus = load(files)
    checks = theory.strategy_checks(corpus.games, corpus.agents)
    assert {c["strategy"] for c in checks} == set(theory.STRATEGIES)
    for c in checks:
        assert c["closed_form"] is not None, c
        assert c["inside"] is True, (c["strategy"], c["key"], c["closed_form"], c["measured"])
