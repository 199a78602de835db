"""Word-association helpers for the built-in word-game agents (Chameleon, Undercover).

The shipped table (`runner/content/associations.json`) maps a word to the clue words it evokes,
each with an integer weight from 1 (weakly) to 5 (strongly). This module turns it into a small
probabilistic model:

- `p_clue(clue, word)`: P(clue | word), the weights normalised per word, with additive
  smoothing over the whole vocabulary so that an unseen clue is unlikely but never impossible;
  a word also evokes itself with the top weight (saying the word itself is the most telling
  clue there is).
- `p_text(text, word)`: the same for a clue of several words (a sentence): the clue is read as
  "one of its known words is the association", i.e. the mean of P(token | word) over its tokens
  that the table knows (filler words are ignored).
- `posterior(texts, candidates)`: Bayes over candidate words from clues heard.
- `choose_clue(word, candidates, specificity)`: a clue for `word` that singles it out among
  `candidates` (specificity 1) or is shared with them as much as possible (specificity 0).
- `common_clue(candidates, belief)`: the clue most expected under a belief over candidates.

Everything is deterministic; ties break by weight, then alphabetically.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from runner import content

#: Weight with which every word evokes itself.
SELF_WEIGHT = 5
#: Default pseudo-weight added to every (word, vocabulary token) pair.
SMOOTHING = 0.05
#: Likelihoods (and clue rankings) one table remembers before it starts again.
CACHE_SIZE = 200_000
#: Words of a sentence clue that carry no association and are skipped.
FILLER = frozenset(
    "a an and are as at be but by clue for from has have i in is it it's its like makes me "
    "my of on or so that the think this to with word you".split())

_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def tokens(text: str) -> list[str]:
    """The lowercase word tokens of a clue (hyphenated words and contractions stay whole)."""
    return _TOKEN.findall(text.casefold().replace("’", "'"))


class Associations:
    """A word-association table with smoothed clue likelihoods."""

    def __init__(self, clues: Mapping[str, Mapping[str, int | float]], smoothing: float = SMOOTHING):
        if smoothing <= 0:
            raise ValueError("smoothing must be positive (an unseen clue must stay possible)")
        self.smoothing = smoothing
        self.table: dict[str, dict[str, float]] = {}
        for word, evoked in clues.items():
            key = word.casefold()
            row = {c.casefold(): float(w) for c, w in evoked.items() if c.casefold() != key}
            row[key] = float(SELF_WEIGHT)
            self.table[key] = row
        vocabulary = set(self.table)
        for row in self.table.values():
            vocabulary.update(row)
        self.vocabulary = frozenset(vocabulary)
        self._totals = {w: sum(row.values()) for w, row in self.table.items()}
        self._words = sorted(self.table)
        self._p_text: dict[tuple[str, str], float] = {}  # p_text is pure: each (text, word) once
        self._models: dict[str, tuple[dict[str, float], float]] = {}  # word -> (row, denominator)
        self._rankings: dict[tuple[str, tuple[str, ...]], list[str]] = {}  # see _ranked_clues

    def words(self) -> list[str]:
        """Every word that has an entry, sorted."""
        return list(self._words)

    def weight(self, word: str, clue: str) -> float:
        """The table weight of `clue` for `word` (0 if the table does not list it)."""
        return self.table.get(word.casefold(), {}).get(clue.casefold(), 0.0)

    def clues_of(self, word: str) -> list[str]:
        """The clues listed for `word` (not the word itself), strongest first."""
        key = word.casefold()
        row = self.table.get(key, {})
        return sorted((c for c in row if c != key), key=lambda c: (-row[c], c))

    def p_clue(self, clue: str, word: str) -> float:
        """P(clue | word), smoothed over the vocabulary (words unknown to the table: uniform)."""
        row, denominator = self._model(word)
        return (row.get(clue.casefold(), 0.0) + self.smoothing) / denominator

    def _model(self, word: str) -> tuple[dict[str, float], float]:
        """The row of `word` and the denominator of its smoothed likelihoods (kept: asked for often)."""
        model = self._models.get(word)
        if model is None:
            if len(self._models) > CACHE_SIZE:
                self._models.clear()
            key = word.casefold()
            size = len(self.vocabulary) + 1  # one extra slot for every token the table never saw
            model = self._models[word] = (self.table.get(key, {}), self._totals.get(key, 0.0) + self.smoothing * size)
        return model

    def known(self, text: str) -> list[str]:
        """The tokens of `text` that carry an association (known to the table, not filler)."""
        return [t for t in tokens(text) if t in self.vocabulary and t not in FILLER]

    def p_text(self, text: str, word: str) -> float:
        """P(clue text | word): mean of P(token | word) over the known tokens of the text.

        A text with no known token gets the probability of an unseen clue: it says nothing
        about the word, and it is as unlikely as any clue the table never lists.
        """
        cached = self._p_text.get((text, word))
        if cached is None:
            if len(self._p_text) > CACHE_SIZE:  # a long scoring run meets many clues: start again
                self._p_text.clear()
            known = self.known(text) or [""]
            cached = self._p_text[(text, word)] = sum(self.p_clue(t, word) for t in known) / len(known)
        return cached

    def p_text_all(self, text: str) -> dict[str, float]:
        """`p_text(text, word)` for every word of the table, in `words()` order (the text read once)."""
        known = self.known(text) or [""]
        out = {}
        for word in self._words:
            row, denominator = self._model(word)
            out[word] = sum((row.get(t, 0.0) + self.smoothing) / denominator for t in known) / len(known)
        return out

    def posterior(self, texts: Iterable[str], candidates: Sequence[str],
                  prior: Sequence[float] | None = None) -> list[float]:
        """P(word | clues) for each candidate (clues independent given the word)."""
        texts = list(texts)
        logs = []
        for i, word in enumerate(candidates):
            base = prior[i] if prior is not None else 1.0
            if base <= 0:
                logs.append(-math.inf)
                continue
            logs.append(math.log(base) + sum(math.log(self.p_text(t, word)) for t in texts))
        top = max(logs)
        if top == -math.inf:
            raise ValueError("the prior gives no candidate a positive probability")
        weights = [math.exp(x - top) for x in logs]
        total = sum(weights)
        return [w / total for w in weights]

    def evoked(self, texts: Iterable[str], k: int = 10, candidates: Sequence[str] | None = None
               ) -> list[tuple[str, float]]:
        """The `k` words (of `candidates`, default the whole table) most likely given the clues."""
        pool = list(candidates) if candidates is not None else self.words()
        probs = self.posterior(texts, pool)
        ranked = sorted(zip(pool, probs), key=lambda wp: (-wp[1], wp[0]))
        return ranked[:k]

    def singles_out(self, clue: str, word: str, candidates: Sequence[str]) -> float:
        """P(word | clue) with a uniform prior over `candidates` (and `word`): how telling it is."""
        pool = list(dict.fromkeys([word.casefold(), *(c.casefold() for c in candidates)]))
        own = self.p_clue(clue, word)
        return own / sum(self.p_clue(clue, c) for c in pool)

    def choose_clue(self, word: str, candidates: Sequence[str], specificity: float,
                    exclude: Iterable[str] = ()) -> str:
        """A listed clue of `word` ranked by how much it singles `word` out among `candidates`.

        specificity 1 picks the most telling clue, 0 the most shared one, values between pick
        the clue at that quantile of the ranking. Clues in `exclude` (e.g. the card's words) are
        never chosen; if nothing is left the word's strongest clue is returned anyway.
        """
        if not 0 <= specificity <= 1:
            raise ValueError(f"specificity must be in [0, 1], got {specificity}")
        banned = {e.casefold() for e in exclude} | {c.casefold() for c in candidates}
        every = self._ranked_clues(word, tuple(candidates))
        if not every:
            raise ValueError(f"the association table has no clue for {word!r}")
        ranked = [c for c in every if c not in banned] or every
        return ranked[round(specificity * (len(ranked) - 1))]

    def _ranked_clues(self, word: str, candidates: tuple[str, ...]) -> list[str]:
        """Every listed clue of `word`, least telling first (see choose_clue); kept, because the
        same word is clued among the same candidates game after game. The order is total (the
        clue itself breaks ties), so leaving banned clues out afterwards gives the same order."""
        ranked = self._rankings.get((word, candidates))
        if ranked is None:
            if len(self._rankings) > CACHE_SIZE:
                self._rankings.clear()
            ranked = self._rankings[word, candidates] = sorted(
                self.clues_of(word), key=lambda c: (round(self.singles_out(c, word, candidates), 12),
                                                    self.weight(word, c), c))
        return ranked

    def common_clue(self, candidates: Sequence[str], belief: Sequence[float] | None = None,
                    among: Iterable[str] | None = None, exclude: Iterable[str] = ()) -> str:
        """The clue with the highest expected likelihood sum_u belief(u) P(clue | u).

        With a uniform belief this is the clue most typical of the whole set of candidates (a
        safe, generic clue); `among` restricts the choice (default: the candidates' clues).
        """
        if belief is None:
            belief = [1.0 / len(candidates)] * len(candidates)
        banned = {e.casefold() for e in exclude} | {c.casefold() for c in candidates}
        pool = sorted({c.casefold() for c in among} if among is not None
                      else {c for u in candidates for c in self.clues_of(u)})
        options = [c for c in pool if c not in banned]
        if not options:
            raise ValueError("no clue is available to choose from")

        def expected(clue: str) -> float:
            return sum(b * self.p_clue(clue, u) for b, u in zip(belief, candidates))

        return min(options, key=lambda c: (-round(expected(c), 15), c))


@cache
def shipped() -> Associations:
    """The shipped association table, read on first use."""
    return Associations(content.load("associations")["clues"])
