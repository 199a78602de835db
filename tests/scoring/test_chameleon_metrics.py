"""Golden tests of the 002 Chameleon metrics: matchup rates and posterior curves."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pytest
from builders import builtin, llm, replay, scored

from runner.agents.associative import Associations
from site_builder.scoring import chameleon
from site_builder.scoring.model import AgentInfo, agent_key
from site_builder.scoring.stats import wilson

GPT = llm("gpt", "gpt-x")
CLAUDE = llm("claude", "claude-y", provider="anthropic")
TRIV = builtin("triv", "chameleon/trivial")
X, Y, Z = (agent_key(a) for a in (GPT, CLAUDE, TRIV))
AGENTS = {agent_key(a): AgentInfo(agent_key(a), a["name"], {k: v for k, v in a.items() if k != "name"})
          for a in (GPT, CLAUDE, TRIV)}
FRUIT = ["apple", "lemon", "plum", "grape"]
_ids = iter(range(10_000))


def game(agents, *, chameleon_seat, secret="apple", order=(0, 1, 2), clues=("red", "yellow", "sour"),
         votes=None, tie=None, guess=None, forfeit=None, words=FRUIT, rules=None):
    """A scored 3-player Chameleon game played with the given inputs (forfeit: seat that fails to clue)."""
    setup = {"card": {"id": "fruit", "topic": "Fruit", "words": list(words)}, "secret": secret,
             "chameleon": chameleon_seat, "order": list(order)}
    inputs = []
    for seat, clue in zip(order, clues):
        if seat == forfeit:
            inputs.append(("forfeit", seat, "no legal clue after 3 attempts"))
            break
        inputs.append(("act", seat, {"clue": clue}))
    if forfeit is None:
        inputs += [("act", s, {"vote": v}) for s, v in enumerate(votes)]
        if tie is not None:
            inputs.append(("chance", tie))
        if guess is not None:
            inputs.append(("act", chameleon_seat, {"guess": guess}))
    params = {"players": len(order), "words": len(words), **(rules or {})}
    return scored(replay("chameleon", setup, agents, inputs, rules=params, game_id=f"golden-{next(_ids)}"))


def assert_rate(got, k, n):
    assert got["n"] == n
    assert got["value"] == pytest.approx(k / n)
    assert got["ci"] == pytest.approx(list(wilson(k, n)))


# --- the golden corpus for matchups ------------------------------------------------------
# Variant N3-K4-word-random, chameleon GPT at seat 0, non-chameleons CLAUDE:
IDENTIFIED_WRONG = dict(votes=[1, 0, 0], guess="lemon")   # tally [2,1,0]: seat 0 accused, wrong guess
IDENTIFIED_RIGHT = dict(votes=[1, 0, 0], guess="apple")   # identified, guesses the secret
NOT_IDENTIFIED = dict(votes=[1, 2, 1])                    # seat 1 accused: chameleon wins
TIE_BROKEN = dict(votes=[1, 2, 0], tie=0, guess="plum")   # 1-1-1 tie, chance picks seat 0, wrong guess


def golden_games():
    g = [game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, **IDENTIFIED_WRONG),
         game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, **IDENTIFIED_RIGHT),
         game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, **NOT_IDENTIFIED),
         game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, **TIE_BROKEN),
         game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, forfeit=1),                     # invalid
         # mixed non-chameleons (CLAUDE, TRIV), chameleon GPT at seat 2: identified, wrong guess
         game([CLAUDE, TRIV, GPT], chameleon_seat=2, votes=[2, 2, 0], guess="plum"),
         # TRIV chameleon against GPT: both games invalid
         game([TRIV, GPT, GPT], chameleon_seat=0, forfeit=0),
         game([GPT, TRIV, GPT], chameleon_seat=1, forfeit=2),
         # CLAUDE chameleon against GPT: not identified
         game([GPT, GPT, CLAUDE], chameleon_seat=2, votes=[1, 0, 0]),
         # Variant N3-K4-word-even: 1-1-1 vote is even, nobody accused, nobody wins
         game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, votes=[1, 2, 0], rules={"ties": "even"})]
    return g


@pytest.fixture(scope="module")
def games():
    return golden_games()


def test_golden_games_are_what_the_comments_say(games):
    assert [g.result.get("magic_outcome") for g in games] == [
        "non_chameleons_win", "chameleon_guessed", "chameleon_wins", "non_chameleons_win", None,
        "non_chameleons_win", None, None, "chameleon_wins", "even_vote"]
    assert games[3].result["tie"] and games[3].result["identified"]
    assert games[9].result["even"] and games[9].winners == ()


def cells_of(out, key):
    """The cells of one variant, by (chameleon, non-chameleon)."""
    return {(c["chameleon"], c["non_chameleon"]): c for c in out["cells"] if c["key"] == key}


def test_matchup_rates_by_hand(games):
    out = chameleon.matchups(games, AGENTS, seed=0)
    assert [v["key"] for v in out["variants"]] == ["N3-K4-word-even", "N3-K4-word-random"]
    rand = out["variants"][1]
    assert rand["variant"] == {"players": 3, "words": 4, "clue": "word", "ties": "random"}
    cells = cells_of(out, "N3-K4-word-random")
    assert all(c["variant"] == rand["variant"] for c in cells.values())
    main = cells[(X, Y)]
    # 5 games, 1 invalid: valid 4/5; identified in 3 of the 4 valid (wrong, right, tie);
    # non-chameleons win 2 of 4 (wrong guess, tie + wrong guess); right guess 1 of 3 identified.
    assert main["games"] == 5
    assert_rate(main["valid_ratio"], 4, 5)
    assert_rate(main["identification"], 3, 4)
    assert_rate(main["non_chameleon_win"], 2, 4)
    assert_rate(main["second_chance"], 1, 3)
    mixed = cells[(X, chameleon.MIXED)]
    assert mixed["games"] == 1
    assert_rate(mixed["valid_ratio"], 1, 1)
    assert_rate(mixed["identification"], 1, 1)
    assert_rate(mixed["non_chameleon_win"], 1, 1)
    assert_rate(mixed["second_chance"], 0, 1)
    reverse = cells[(Y, X)]
    assert_rate(reverse["identification"], 0, 1)
    assert_rate(reverse["non_chameleon_win"], 0, 1)
    assert reverse["second_chance"] is None  # never identified: no guess to score
    assert rand["games"] == 5 + 1 + 2 + 1


def test_all_invalid_cell(games):
    cell = cells_of(chameleon.matchups(games, AGENTS, seed=0), "N3-K4-word-random")[(Z, X)]
    assert cell["games"] == 2
    assert_rate(cell["valid_ratio"], 0, 2)
    assert cell["identification"] is None and cell["non_chameleon_win"] is None and cell["second_chance"] is None


def test_even_vote_is_neither_identification_nor_win(games):
    out = chameleon.matchups(games, AGENTS, seed=0)
    assert out["variants"][0]["variant"]["ties"] == "even" and out["variants"][0]["games"] == 1
    (cell,) = cells_of(out, "N3-K4-word-even").values()
    assert (cell["chameleon"], cell["non_chameleon"]) == (X, Y)
    assert_rate(cell["valid_ratio"], 1, 1)
    assert_rate(cell["identification"], 0, 1)
    assert_rate(cell["non_chameleon_win"], 0, 1)
    assert cell["second_chance"] is None


def test_heatmap_axes_and_labels(games):
    out = chameleon.matchups(games, AGENTS, seed=0)
    rand = out["variants"][1]
    # By label: claude, gpt, triv; "mixed" last.
    assert rand["agents"] == [Y, X, Z, chameleon.MIXED]
    assert rand["chameleon_agents"] == [Y, X, Z]
    assert rand["non_chameleon_agents"] == [Y, X, chameleon.MIXED]
    # cells: variants in order (even before random), then along the axes
    assert [(c["key"], c["chameleon"], c["non_chameleon"]) for c in out["cells"]] == [
        ("N3-K4-word-even", X, Y), ("N3-K4-word-random", Y, X), ("N3-K4-word-random", X, Y),
        ("N3-K4-word-random", X, chameleon.MIXED), ("N3-K4-word-random", Z, X)]
    assert out["labels"] == {Y: "claude", X: "gpt", Z: "triv", chameleon.MIXED: "mixed"}


def test_no_games_and_other_games_ignored(games):
    empty = {"cells": [], "variants": [], "labels": {}}
    assert chameleon.matchups([], AGENTS, seed=0) == empty
    other = dataclasses.replace(games[0], game="undercover", game_id="golden-other")
    assert chameleon.matchups([other], AGENTS, seed=0) == empty
    assert chameleon.matchups([*games, other], AGENTS, seed=0) == chameleon.matchups(games, AGENTS, seed=0)


def test_order_of_games_changes_nothing(games):
    want = chameleon.matchups(games, AGENTS, seed=0)
    json.dumps(want, allow_nan=False)
    for s in range(5):
        shuffled = list(games)
        random.Random(s).shuffle(shuffled)
        assert chameleon.matchups(shuffled, AGENTS, seed=s) == want


def test_rates_are_probabilities(games):
    for cell in chameleon.matchups(games, AGENTS, seed=0)["cells"]:
        for name in ("valid_ratio", "identification", "non_chameleon_win", "second_chance"):
            r = cell[name]
            if r is not None:
                assert 0 <= r["ci"][0] <= r["value"] <= r["ci"][1] <= 1


# --- posterior curves --------------------------------------------------------------------
# Tiny table: every row sums to 3 + 5 (self) = 8; vocabulary of 6 tokens + 1 unseen slot;
# smoothing 1 -> P(c | x) = (w + 1) / 15: P(red | apple) = 4/15, P(red | lemon) = 1/15, ...
TABLE = Associations({"apple": {"red": 3}, "lemon": {"yellow": 3}, "plum": {"purple": 3}}, smoothing=1.0)
THREE = ["apple", "lemon", "plum"]


def h(*probs):
    """Entropy in bits, written out for the expected values."""
    return sum(p * math.log2(1 / p) for p in probs)


@pytest.fixture(scope="module")
def curve_games():
    return [
        # chameleon GPT at seat 1 (its "grape" is skipped); CLAUDE says red, then yellow; secret apple
        game([CLAUDE, GPT, CLAUDE], chameleon_seat=1, secret="apple", order=(0, 1, 2),
             clues=("red", "grape", "yellow"), votes=[1, 0, 1], guess="apple", words=THREE),
        # chameleon TRIV at seat 0, speaking second; CLAUDE says red twice; secret lemon
        game([TRIV, CLAUDE, CLAUDE], chameleon_seat=0, secret="lemon", order=(2, 0, 1),
             clues=("red", "sour", "red"), votes=[1, 0, 0], guess="plum", words=THREE),
        # invalid: left out of the curves
        game([GPT, CLAUDE, CLAUDE], chameleon_seat=0, forfeit=2, words=THREE),
    ]


def test_posterior_curve_by_hand(curve_games):
    out = chameleon.posterior_curves(curve_games, AGENTS, seed=3, table=TABLE)
    (curve,) = out["curves"]
    assert curve["key"] == "N3-K3-word-random" and curve["non_chameleon"] == Y
    assert curve["chameleon_agents"] == [X, Z]
    assert curve["games"] == 2
    assert curve["estimator"] == {"name": "association-table", "smoothing": 1.0, "self_weight": 5, "vocabulary": 6}
    assert curve["prior_bits"] == pytest.approx(math.log2(3))
    assert [p["m"] for p in curve["points"]] == [0, 1, 2]
    # m = 0: uniform prior in both games.
    # m = 1: both heard "red": (4, 1, 1)/6. Game 1's secret apple is top; game 2's lemon is tied 2nd.
    # m = 2: game 1 heard red, yellow: (4, 4, 1)/9, apple tied first with lemon;
    #        game 2 heard red, red: (16, 1, 1)/18, lemon tied second with plum.
    want_entropy = [h(1 / 3, 1 / 3, 1 / 3),
                    h(4 / 6, 1 / 6, 1 / 6),
                    (h(4 / 9, 4 / 9, 1 / 9) + h(16 / 18, 1 / 18, 1 / 18)) / 2]
    want_topk = [[(1 / 3 + 1 / 3) / 2, (2 / 3 + 2 / 3) / 2, 1],
                 [(1 + 0) / 2, (1 + 1 / 2) / 2, 1],
                 [(1 / 2 + 0) / 2, (1 + 1 / 2) / 2, 1]]
    for point, entropy, topk in zip(curve["points"], want_entropy, want_topk):
        assert point["entropy"]["value"] == pytest.approx(entropy)
        assert point["entropy"]["n"] == 2
        lo, hi = point["entropy"]["ci"]
        assert lo <= point["entropy"]["value"] + 1e-12 and point["entropy"]["value"] <= hi + 1e-12
        assert [t["k"] for t in point["top_k"]] == [1, 2, 3]
        for t, value in zip(point["top_k"], topk):
            assert t["n"] == 2 and t["value"] == pytest.approx(value)
            assert t["ci"] == pytest.approx(list(wilson(value * 2, 2)))
    # Both games have the same prior entropy, so every bootstrap resample has the same mean.
    assert curve["points"][0]["entropy"]["ci"] == pytest.approx([math.log2(3), math.log2(3)])
    # The interval of m = 2 lies between the two games' entropies.
    lo, hi = curve["points"][2]["entropy"]["ci"]
    high, low = h(4 / 9, 4 / 9, 1 / 9), h(16 / 18, 1 / 18, 1 / 18)
    assert low - 1e-12 <= lo <= hi <= high + 1e-12
    assert out["labels"] == {Y: "claude", X: "gpt", Z: "triv"}


def test_subset_curve_is_exact():
    g = game([CLAUDE, CLAUDE, GPT], chameleon_seat=2, secret="apple", order=(0, 1, 2),
             clues=(["apple", "lemon", "plum"], ["apple", "lemon"], None), votes=[2, 2, 0], guess="lemon",
             rules={"clue": "subset"})
    (curve,) = chameleon.posterior_curves([g], AGENTS, seed=0)["curves"]
    assert curve["estimator"] == {"name": "subset-exact"}
    assert curve["prior_bits"] == 2.0
    # m = 0: uniform over 4; m = 1: over {apple, lemon, plum}; m = 2: over {apple, lemon}.
    assert [p["entropy"]["value"] for p in curve["points"]] == pytest.approx([2.0, math.log2(3), 1.0])
    want = [[1 / 4, 2 / 4, 3 / 4, 1], [1 / 3, 2 / 3, 1, 1], [1 / 2, 1, 1, 1]]
    for point, topk in zip(curve["points"], want):
        assert [t["value"] for t in point["top_k"]] == pytest.approx(topk)


def test_posterior_curves_edge_cases(curve_games):
    assert chameleon.posterior_curves([], AGENTS, seed=0) == {"curves": [], "labels": {}}
    assert chameleon.posterior_curves([curve_games[2]], AGENTS, seed=0, table=TABLE) == {"curves": [], "labels": {}}


def test_posterior_curves_ignore_game_order(curve_games):
    want = chameleon.posterior_curves(curve_games, AGENTS, seed=7, table=TABLE)
    json.dumps(want, allow_nan=False)
    shuffled = [curve_games[2], curve_games[0], curve_games[1]]
    assert chameleon.posterior_curves(shuffled, AGENTS, seed=7, table=TABLE) == want
