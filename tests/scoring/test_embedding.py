"""The offline text embedder behind Text Distance: determinism, hand-computed cosine distances."""

from __future__ import annotations

import ast
import math
import subprocess
import sys

from site_builder.scoring import embedding
from site_builder.scoring.embedding import cosine_distance, distance_matrix, embed, features, tokens


def test_name_and_version_are_recorded():
    assert embedding.NAME == "hashed-bow-v1"
    assert embedding.INFO["name"] == "hashed-bow-v1"
    assert embedding.INFO["dimensions"] == 2 ** 20


def test_tokens_lowercase_words_keep_inner_apostrophes_and_drop_punctuation():
    assert tokens("I'm the SEER, trust me!") == ["i'm", "the", "seer", "trust", "me"]
    assert tokens("Don’t") == ["don't"]
    # A text without any word falls back to its non-space runs rather than becoming empty.
    assert tokens("... ?!") == ["...", "?!"]


def test_features_are_unigrams_and_bigrams_with_counts():
    assert features("go go go") == {"go": 3, "go go": 2}
    assert features("red blue") == {"red": 1, "blue": 1, "red blue": 1}


def test_identical_texts_have_distance_zero_and_embedding_is_unit_length():
    a, b = embed("I am the Seer. Trust me."), embed("i am the seer trust me")
    assert a == b
    assert math.isclose(sum(w * w for w in a.values()), 1.0)
    assert cosine_distance(a, b) == 0.0


def test_unrelated_texts_have_distance_one():
    a, b = embed("alpha beta"), embed("gamma delta")
    assert not set(a) & set(b)  # no bucket shared: the premise of the hand value
    assert cosine_distance(a, b) == 1.0


def test_partial_overlap_by_hand():
    # "red blue" -> {red, blue, "red blue"}, "red green" -> {red, green, "red green"}, all weight 1:
    # cos = 1 / (sqrt(3) * sqrt(3)) = 1/3, distance 2/3.
    a, b = embed("red blue"), embed("red green")
    assert len(set(a) | set(b)) == 5
    assert math.isclose(cosine_distance(a, b), 2 / 3)


def test_sublinear_term_frequency_by_hand():
    # "go go go": go tf 3 -> 1 + ln 3, "go go" tf 2 -> 1 + ln 2; "go": go weight 1.
    w_go, w_bigram = 1 + math.log(3), 1 + math.log(2)
    expected = 1 - w_go / math.sqrt(w_go ** 2 + w_bigram ** 2)
    assert math.isclose(cosine_distance(embed("go go go"), embed("go")), expected)


def test_empty_texts():
    assert embed("") == {}
    assert embed("   ") == {}
    assert cosine_distance({}, {}) == 0.0
    assert cosine_distance({}, embed("hello")) == 1.0


def test_distance_matrix_is_symmetric_with_zero_diagonal():
    texts = ["I am the Seer", "I am a Villager", "the Seer lies", "I am the Seer"]
    m = distance_matrix(texts)
    for i in range(4):
        assert m[i][i] == 0.0
        for j in range(4):
            assert m[i][j] == m[j][i]
            assert 0.0 <= m[i][j] <= 1.0
    assert m[0][3] == 0.0
    assert m[0][1] > 0.0


def test_embedding_does_not_depend_on_python_hash_seed():
    code = "from site_builder.scoring.embedding import embed; print(sorted(embed('the quiet ones worry me').items()))"
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(outputs) == 1
    assert sorted(embed("the quiet ones worry me").items()) == ast.literal_eval(outputs.pop())
