"""Offline posteriors over a Chameleon card from the clues heard (stand-in for the Chameleon paper, section 5.3).

The Chameleon paper estimates P(w | r_1..r_m), proportional to prod_i P(r_i | w), from web-search counts. The
scorer must work offline and reproducibly, so P(r | w) comes instead from the shipped word
association table (`runner/agents/associative.py`: smoothed table weights, sentence clues read
through their known tokens). Subset clues (the response space of the Chameleon paper, section 4.2) need no
table: the exact posterior is uniform over the card words that every non-null subset contains.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from runner.agents.associative import SELF_WEIGHT, Associations, shipped

ASSOCIATION = "association-table"
SUBSET_EXACT = "subset-exact"
#: Probabilities closer than this (relative) are treated as tied when ranking words.
TIE_TOLERANCE = 1e-9


def estimator(clue_mode: str, table: Associations | None = None) -> dict[str, Any]:
    """The name and constants of the estimator used for a clue mode (reported with results)."""
    if clue_mode == "subset":
        return {"name": SUBSET_EXACT}
    used = table if table is not None else shipped()
    return {"name": ASSOCIATION, "smoothing": used.smoothing, "self_weight": SELF_WEIGHT,
            "vocabulary": len(used.vocabulary)}


def association_posterior(clues: Sequence[str], words: Sequence[str],
                          table: Associations | None = None) -> list[float]:
    """P(w | clues) over `words` with P(clue | w) from the association table, uniform prior."""
    used = table if table is not None else shipped()
    return used.posterior(list(clues), list(words))


def subset_posterior(clues: Sequence[Sequence[str] | None], words: Sequence[str]) -> list[float]:
    """Uniform over the words contained in the most non-null subsets heard.

    When some word is in every non-null subset this is the exact posterior (each subset is
    known to contain the secret). When the subsets contradict each other (no common word) it
    is the limit of a model in which a response misses the secret with a tiny probability:
    the words consistent with the largest number of responses share the mass.
    """
    counts = [0] * len(words)
    for clue in clues:
        if clue is None:  # the null response says nothing about the word
            continue
        held = set(clue)
        for i, word in enumerate(words):
            if word in held:
                counts[i] += 1
    best = max(counts)
    support = [c == best for c in counts]
    size = sum(support)
    return [1.0 / size if s else 0.0 for s in support]


def posterior(clue_mode: str, clues: Sequence[Any], words: Sequence[str],
              table: Associations | None = None) -> list[float]:
    """The posterior for a clue mode: exact for subsets, association table otherwise."""
    if clue_mode == "subset":
        return subset_posterior(clues, words)
    return association_posterior(clues, words, table)


def entropy_bits(probs: Sequence[float]) -> float:
    """Shannon entropy in bits (0 log 0 = 0)."""
    return -sum(p * math.log2(p) for p in probs if p > 0) + 0.0


def top_k_hits(probs: Sequence[float], index: int) -> list[float]:
    """For k = 1..len(probs): the probability that word `index` is among the k most likely, ties
    broken uniformly at random.

    With a words strictly more likely and b words tied with it (itself included), the word is
    surely in the top k if a + b <= k, surely not if a >= k, and otherwise in (k - a)/b of the
    equally likely orderings of the tie. For k = 1 this is the success chance of a guesser who
    picks uniformly among the most likely words.
    """
    p = probs[index]
    above = tied = 0
    for q in probs:
        if math.isclose(q, p, rel_tol=TIE_TOLERANCE):
            tied += 1
        elif q > p:
            above += 1
    return [0.0 if above >= k else 1.0 if above + tied <= k else (k - above) / tied
            for k in range(1, len(probs) + 1)]
