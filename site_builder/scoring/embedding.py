"""An offline, deterministic text embedder for the Werewolf paper's Text Distance: hashed bag of words.

`hashed-bow-v1`: lower-cased word unigrams and bigrams, each hashed with BLAKE2b into one of
2^20 buckets, weighted by sublinear term frequency 1 + ln(tf), L2-normalised. Weights are
never negative, so the cosine similarity of two embeddings is in [0, 1] and the cosine
distance 1 - cos is in [0, 1]: 0 for texts with the same words in the same proportions, 1 for
texts sharing no word (barring a bucket collision). No download, no network, no global state.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

NAME = "hashed-bow-v1"
DIMENSIONS = 2 ** 20
#: What the results record about the embedder, so a number can be traced to how it was made.
INFO = {"name": NAME, "package": "gamenight", "version": "1", "dimensions": DIMENSIONS, "features": "word unigrams + bigrams, lower-cased",
        "hash": "blake2b-64 mod 2^20", "weight": "1 + ln(tf)", "norm": "L2"}

# Words: runs of letters/digits, with inner apostrophes kept ("i'm", "don't").
_WORD = re.compile(r"\w+(?:['’]\w+)*")

Embedding = Mapping[int, float]  # sparse: bucket -> weight


def tokens(text: str) -> list[str]:
    """The words of a text, lower-cased; a text without any word falls back to its non-space runs."""
    lowered = text.casefold().replace("’", "'")
    words = _WORD.findall(lowered)
    return words if words else lowered.split()


def features(text: str) -> Counter[str]:
    """Unigram and bigram counts (bigrams marked so they never collide with a unigram string)."""
    words = tokens(text)
    counts: Counter[str] = Counter(words)
    counts.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return counts


@lru_cache(maxsize=262144)  # words and word pairs repeat across statements: hash each once
def bucket(feature: str) -> int:
    """A stable bucket for a feature (BLAKE2b, unlike Python's salted hash())."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % DIMENSIONS


@lru_cache(maxsize=8192)  # statements repeat across games (scripted players): embed each once
def _embedding(text: str) -> tuple[tuple[int, float], ...]:
    return tuple(embed(text).items())


def embed(text: str) -> dict[int, float]:
    """The L2-normalised sparse embedding of a text (empty for a text with no characters)."""
    weights: dict[int, float] = {}
    for feature, tf in features(text).items():
        b = bucket(feature)
        weights[b] = weights.get(b, 0.0) + 1.0 + math.log(tf)
    norm = math.sqrt(sum(w * w for w in weights.values()))
    return {b: w / norm for b, w in weights.items()} if norm > 0 else {}


def cosine_distance(a: Embedding, b: Embedding) -> float:
    """1 - cos(a, b) for normalised embeddings: exactly 0 for equal ones; an empty one is unrelated to the rest."""
    if a == b:
        return 0.0  # exactly, whatever the rounding of a self dot product
    if not a or not b:
        return 1.0
    # Summing the shared buckets in sorted order makes the distance exactly symmetric.
    dot = sum(a[k] * b[k] for k in sorted(a.keys() & b.keys()))
    # Rounding can push 1 - dot a hair outside [0, 1].
    return min(1.0, max(0.0, 1.0 - dot))


def distance_matrix(texts: Sequence[str]) -> list[list[float]]:
    """The n x n matrix of cosine distances between the texts' embeddings (the Werewolf paper Eq. text_distance).

    All dot products at once (the game's buckets as dense columns); each pair is computed once
    and mirrored, so the matrix is exactly symmetric; equal embeddings are exactly 0 apart and an
    empty embedding is 1 from any other, as in `cosine_distance`.
    """
    distinct = list(dict.fromkeys(texts))
    where = [distinct.index(t) for t in texts] if len(distinct) < len(texts) else list(range(len(texts)))
    sparse = [_embedding(t) for t in distinct]
    columns: dict[int, int] = {}
    rows, cols, weights = [], [], []
    for row, vector in enumerate(sparse):
        for bucket, weight in vector:
            rows.append(row)
            cols.append(columns.setdefault(bucket, len(columns)))
            weights.append(weight)
    dense = np.zeros((len(sparse), len(columns)))
    dense[rows, cols] = weights
    distance = np.clip(1.0 - dense @ dense.T, 0.0, 1.0)  # rounding can push 1 - dot a hair outside [0, 1]
    empty = np.array([not v for v in sparse])
    distance[empty, :] = 1.0
    distance[:, empty] = 1.0
    groups: dict[tuple[tuple[int, float], ...], int] = {}  # equal embeddings share a group
    group = np.array([groups.setdefault(v, len(groups)) for v in sparse])
    distance[group[:, None] == group[None, :]] = 0.0
    upper = np.triu(distance, 1)
    distance = upper + upper.T
    index = np.array(where)
    return distance[np.ix_(index, index)].tolist()
