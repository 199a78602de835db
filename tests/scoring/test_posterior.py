"""Golden values of the offline posterior estimators, on a tiny table built here."""

from __future__ import annotations

import math

import pytest

from runner.agents.associative import Associations
from site_builder.scoring import posterior as post

WORDS = ["apple", "lemon", "plum"]
# Each word lists one clue of weight 3 and evokes itself with weight 5, so every row sums to 8.
# Vocabulary: apple, lemon, plum, red, yellow, purple = 6 tokens, + 1 unseen slot = 7.
# With smoothing 1: P(c | x) = (w(c | x) + 1) / (8 + 7) = (w + 1) / 15.
TABLE = Associations({"apple": {"red": 3}, "lemon": {"yellow": 3}, "plum": {"purple": 3}}, smoothing=1.0)


def close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, abs=1e-12)


def test_association_posterior_one_clue():
    # P(red | apple) = 4/15, P(red | lemon) = P(red | plum) = 1/15 -> (4, 1, 1) / 6.
    close(post.association_posterior(["red"], WORDS, TABLE), [4 / 6, 1 / 6, 1 / 6])


def test_association_posterior_multiplies_clues():
    # red then yellow: (4*1, 1*4, 1*1) / 9.
    close(post.association_posterior(["red", "yellow"], WORDS, TABLE), [4 / 9, 4 / 9, 1 / 9])


def test_association_posterior_unknown_clue_changes_nothing_here():
    # An unseen token has probability 1/15 under every word (equal row sums): still uniform.
    close(post.association_posterior(["zebra"], WORDS, TABLE), [1 / 3, 1 / 3, 1 / 3])
    close(post.association_posterior([], WORDS, TABLE), [1 / 3, 1 / 3, 1 / 3])


def test_association_posterior_sentence_clue():
    # "It is red and yellow": filler words skipped, P(text | x) = mean over {red, yellow}:
    # apple (4 + 1)/30, lemon (1 + 4)/30, plum (1 + 1)/30 -> (5, 5, 2) / 12.
    close(post.association_posterior(["It is red and yellow"], WORDS, TABLE), [5 / 12, 5 / 12, 2 / 12])


def test_posterior_dispatches_on_clue_mode():
    close(post.posterior("word", ["red"], WORDS, TABLE), [4 / 6, 1 / 6, 1 / 6])
    close(post.posterior("sentence", ["red"], WORDS, TABLE), [4 / 6, 1 / 6, 1 / 6])
    close(post.posterior("subset", [["apple", "plum"]], WORDS), [1 / 2, 0, 1 / 2])


def test_subset_posterior_exact():
    words = ["a", "b", "c", "d"]
    close(post.subset_posterior([], words), [1 / 4] * 4)
    close(post.subset_posterior([["a", "b", "c"]], words), [1 / 3, 1 / 3, 1 / 3, 0])
    close(post.subset_posterior([["a", "b", "c"], None, ["a", "c"]], words), [1 / 2, 0, 1 / 2, 0])
    close(post.subset_posterior([None, None], words), [1 / 4] * 4)


def test_subset_posterior_contradictory_responses():
    words = ["a", "b", "c", "d"]
    # No word is in both: a and b are each consistent with one response of two.
    close(post.subset_posterior([["a"], ["b"]], words), [1 / 2, 1 / 2, 0, 0])
    # b is in two of three responses, a and c in one.
    close(post.subset_posterior([["a", "b"], ["b", "c"], ["a", "c"], ["b"]], words), [0, 1, 0, 0])
    # The empty subset contains no word: it leaves the others' verdict unchanged.
    close(post.subset_posterior([[]], words), [1 / 4] * 4)
    close(post.subset_posterior([[], ["d"]], words), [0, 0, 0, 1])


def test_entropy_bits():
    assert post.entropy_bits([1 / 4] * 4) == pytest.approx(2.0)
    assert post.entropy_bits([1.0, 0.0, 0.0]) == 0.0
    assert post.entropy_bits([1 / 2, 1 / 4, 1 / 4]) == pytest.approx(1.5)
    # (2/3, 1/6, 1/6): 2/3 log2(3/2) + 2 * 1/6 log2 6
    want = 2 / 3 * math.log2(3 / 2) + 2 / 6 * math.log2(6)
    assert post.entropy_bits([4 / 6, 1 / 6, 1 / 6]) == pytest.approx(want)


def test_top_k_hits_clear_ranking():
    probs = [0.5, 0.3, 0.2]
    assert post.top_k_hits(probs, 0) == [1.0, 1.0, 1.0]
    assert post.top_k_hits(probs, 1) == [0.0, 1.0, 1.0]
    assert post.top_k_hits(probs, 2) == [0.0, 0.0, 1.0]


def test_top_k_hits_ties_break_uniformly():
    # Uniform over 4: in the top k with probability k/4.
    assert post.top_k_hits([0.25] * 4, 2) == [0.25, 0.5, 0.75, 1.0]
    # One word above, the secret tied with one other: k=1 never, k=2 half the time, k=3 always.
    probs = [4 / 6, 1 / 6, 1 / 6]
    assert post.top_k_hits(probs, 1) == [0.0, 0.5, 1.0]
    # Tied for the top with one other: 1/2 at k=1.
    assert post.top_k_hits([4 / 9, 4 / 9, 1 / 9], 0)[0] == 0.5
    # Probabilities equal up to rounding count as tied.
    assert post.top_k_hits([0.1 + 0.2, 0.3, 0.4], 1)[1] == 0.5
    # A zero-probability secret tied with another zero at the bottom.
    assert post.top_k_hits([0.5, 0.5, 0.0, 0.0], 3)[2] == 0.5


def test_estimator_names():
    assert post.estimator("subset") == {"name": "subset-exact"}
    assert post.estimator("word", TABLE) == {"name": "association-table", "smoothing": 1.0, "self_weight": 5,
                                            "vocabulary": 6}
    shipped = post.estimator("sentence")
    assert shipped["name"] == "association-table" and shipped["smoothing"] == 0.05
