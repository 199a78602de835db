"""Built-in Undercover strategy: an associative player that infers its own role from the clues."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from runner.agents.associative import Associations, shipped
from runner.agents.base import ProbeRequest, Request, ScriptedAgent
from runner.games.base import IllegalAction
from runner.games.undercover import normalise_clue

# numpy is imported by the three vector helpers below, when a game is played: listing the
# strategies (`gamenight agents`, and every replay checked) imports this module and needs none.
if TYPE_CHECKING:
    import numpy as np

Obs = Mapping[str, Any]

#: How many words most related to the own word are considered as the pair's other word.
RELATED = 20
#: How many words evoked by the heard clues (all together, and per player) are considered too.
EVOKED_ALL, EVOKED_EACH = 10, 3
#: Words most related to the own word that a clue should single it out from.
NEIGHBOURS = 8
#: Prior pseudo-relatedness of a candidate that shares nothing with the own word.
PRIOR_FLOOR = 0.5
#: Filler used when no association is usable (the table lacks the word).
FALLBACK_CLUES = ("thing", "object", "common", "useful")


def clues_by_seat(obs: Obs) -> list[list[str]]:
    """Every clue given so far, per seat, in order."""
    out: list[list[str]] = [[] for _ in range(obs["public"]["players"])]
    for ev in obs["log"]:
        if ev["kind"] == "action" and ev["phase"] == "clue":
            out[ev["seat"]].append(ev["data"]["clue"])
    return out


@lru_cache(maxsize=512)  # one entry is a few tens of kB: enough for many concurrent games
def text_scores(table: Associations, text: str) -> dict[str, float]:
    """log P(text | word) for every word of the table.

    Cached across seats and decisions: every player scores the same public clues.
    """
    return {w: math.log(p) for w, p in table.p_text_all(text).items()}


@lru_cache(maxsize=512)
def text_vector(table: Associations, text: str) -> np.ndarray:
    """`text_scores` as a vector in `table.words()` order."""
    import numpy as np

    return np.fromiter(text_scores(table, text).values(), dtype=float)


def log_p(table: Associations, text: str, word: str) -> float:
    """log P(text | word), from the cache when the word is in the table."""
    scores = text_scores(table, text)
    return scores[word] if word in scores else math.log(table.p_text(text, word))


@lru_cache(maxsize=8)
def word_index(table: Associations) -> dict[str, int]:
    """Each table word's position in `table.words()` (and in `text_vector`)."""
    return {w: i for i, w in enumerate(table.words())}


def evoked(table: Associations, texts: Sequence[str], k: int) -> tuple[str, ...]:
    """The `k` table words that best explain all of `texts` (alphabetical on a tie)."""
    return _evoked(table, tuple(texts), k)


@lru_cache(maxsize=4096)  # every seat re-reads the same clues at each later point of a game
def _evoked(table: Associations, texts: tuple[str, ...], k: int) -> tuple[str, ...]:
    import numpy as np

    words = table.words()
    # Highest total first; a stable sort keeps tied words in their (alphabetical) order.
    return tuple(words[i] for i in np.argsort(-text_total(table, texts), kind="stable")[:k])


@lru_cache(maxsize=4096)
def text_total(table: Associations, texts: tuple[str, ...]) -> np.ndarray:
    """The sum of the texts' `text_vector`s, added in order (read-only: it is shared)."""
    import numpy as np

    total = np.zeros(len(table.words()))
    for text in texts:
        total += text_vector(table, text)
    total.flags.writeable = False
    return total


@lru_cache(maxsize=1024)
def related(table: Associations, word: str) -> list[tuple[str, float]]:
    """Other table words with their relatedness to `word` (shared clue weight), most related first."""
    key = word.casefold()
    keys = [key, *table.clues_of(key)]
    own = [table.weight(key, c) for c in keys]
    scores = []
    for other in table.words():
        if other != key:
            # Shared clues, plus either word evoking the other (each evokes itself at the top weight).
            row = table.table.get(other, {})  # = table.weight(other, c): words and clues are casefolded
            scores.append((other, sum(min(w, row.get(c, 0.0)) for w, c in zip(own, keys))))
    scores.sort(key=lambda ws: (-ws[1], ws[0]))
    return scores


def logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values))


@dataclass(frozen=True)
class Belief:
    """What an associative player concludes from the clues it has heard."""

    p_undercover: list[float]  # per seat: P(that seat is the undercover); own seat = P(I am)
    majority_word: str  # the word it thinks the civilians hold
    suspect_word: dict[int, str]  # per other seat: its most likely word if it were the undercover
    loglik: list[dict[str, float]]  # per seat: log P(its clues | word) for every word considered

    def believes_undercover(self, me: int) -> bool:
        return self.p_undercover[me] > 0.5

    def fit(self, seat: int, word: str) -> float:
        """How much better `word` explains the seat's clues than the best other word (log margin).

        A seat whose clues carry no known association fits every word equally: margin 0.
        """
        scores = self.loglik[seat]
        others = [v for w, v in scores.items() if w != word]
        return scores.get(word, 0.0) - max(others) if others else 0.0


class Associative(ScriptedAgent):
    """Gives clues associated with its word, infers whether its word is the odd one, votes on fit.

    Beliefs: every seat's clues are scored under candidate words (the words most related to its
    own word in the association table, plus the words the heard clues evoke most). Hypothesis
    "I am the undercover": all others share one candidate word. Hypothesis "seat j is": seat j
    holds some candidate word and the rest hold mine. Candidates are weighted by how related they
    are to the own word, because the pair's two words are related. Clues: as a civilian (or not
    sure), a clue of its own word at quantile `specificity` of how much it singles the word out
    among its neighbours (each clue drawn within `jitter` around it, so that civilians do not all
    say the same thing); once it believes it is the undercover, the clue most expected under the
    others' inferred word (and a little under its own). Vote: the other player whose clues fit
    the majority's inferred word least (ties drawn at random).
    """

    strategy = "undercover/associative"
    defaults = {"specificity": 0.5, "jitter": 0.25}
    template = "It makes me think of {}."

    def __init__(self, params: Mapping[str, Any], rng: Any, name: str):
        super().__init__(params, rng, name)
        spec = self.params["specificity"]
        if isinstance(spec, bool) or not isinstance(spec, (int, float)) or not 0 <= spec <= 1:
            raise ValueError(f"undercover/associative: specificity must be a number in [0, 1], got {spec!r}")
        jitter = self.params["jitter"]
        if isinstance(jitter, bool) or not isinstance(jitter, (int, float)) or not 0 <= jitter <= 1:
            raise ValueError(f"undercover/associative: jitter must be a number in [0, 1], got {jitter!r}")
        #: The association table; None means the shipped one, loaded on first use.
        self.associations: Associations | None = None
        self._beliefs: dict[tuple[int, int], Belief] = {}
        self._votes: dict[tuple[int, int], int] = {}

    @property
    def table(self) -> Associations:
        if self.associations is None:
            self.associations = shipped()
        return self.associations

    # -- beliefs -----------------------------------------------------------------------
    def related(self, word: str) -> list[tuple[str, float]]:
        """Other table words with their relatedness to `word`, most related first."""
        return related(self.table, word)

    def belief(self, obs: Obs) -> Belief:
        """The belief after the clues in `obs` (cached per point of the game)."""
        me = obs["seat"]
        cache_key = (me, len(obs["log"]))
        if cache_key not in self._beliefs:
            self._beliefs[cache_key] = self._infer(obs)
        return self._beliefs[cache_key]

    def _infer(self, obs: Obs) -> Belief:
        table = self.table
        me, own = obs["seat"], obs["private"]["word"].casefold()
        clues = clues_by_seat(obs)
        n = len(clues)
        others = [s for s in range(n) if s != me]
        heard = [c for s in others for c in clues[s]]
        relatedness = dict(self.related(own))
        candidates = [w for w, _ in self.related(own)[:RELATED]]
        if heard:
            candidates += evoked(table, heard, EVOKED_ALL)
            for s in others:
                if clues[s]:
                    candidates += evoked(table, clues[s], EVOKED_EACH)
        candidates = [w for w in dict.fromkeys(candidates) if w != own]
        weights = [relatedness.get(w, 0.0) + PRIOR_FLOOR for w in candidates]
        total_weight = sum(weights)
        log_prior = [math.log(w / total_weight) for w in weights]
        words = [own, *candidates]

        def loglik(seat: int, word: str) -> float:
            return sum(log_p(table, c, word) for c in clues[seat])

        index = word_index(table)
        ll = []
        for s in range(n):
            # Every table word's log-likelihood of the seat's clues at once, added in clue order.
            total = text_total(table, tuple(clues[s]))
            ll.append({w: float(total[index[w]]) if w in index else loglik(s, w) for w in words})
        if not candidates:  # a table with no other word: nothing to infer
            return Belief([1.0 / n] * n, own, {}, ll)
        # log P(clues | hypothesis); the prior over which seat is the undercover is uniform.
        log_h = [0.0] * n
        majority_post = [lp + sum(ll[s][c] for s in others) for lp, c in zip(log_prior, candidates)]
        log_h[me] = logsumexp(majority_post)
        suspect_word: dict[int, str] = {}
        for j in others:
            odd = [lp + ll[j][c] for lp, c in zip(log_prior, candidates)]
            log_h[j] = logsumexp(odd) + sum(ll[s][own] for s in others if s != j)
            suspect_word[j] = candidates[max(range(len(candidates)), key=lambda i: (odd[i], -i))]
        total = logsumexp(log_h)
        p = [math.exp(x - total) for x in log_h]
        if p[me] > 0.5:
            majority = candidates[max(range(len(candidates)), key=lambda i: (majority_post[i], -i))]
        else:
            majority = own
        return Belief(p, majority, suspect_word, ll)

    @staticmethod
    def least_fitting(belief: Belief, among: Sequence[int], word: str) -> list[int]:
        """The seats in `among` whose clues fit `word` least (several on a tie), in seat order."""
        fits = {s: round(belief.fit(s, word), 9) for s in among}
        low = min(fits.values())
        return [s for s in among if fits[s] == low]

    # -- decisions ---------------------------------------------------------------------
    def decide(self, request: Request) -> dict[str, Any]:
        obs = request.observation
        if request.phase == "vote":
            return {"vote": self.vote(obs)}
        return {"clue": self.clue(obs)}

    def vote(self, obs: Obs) -> int:
        """The seat to vote for (drawn once per point of the game, so the suspect probe agrees)."""
        me = obs["seat"]
        key = (me, len(obs["log"]))
        if key not in self._votes:
            others = [s for s in range(obs["public"]["players"]) if s != me]
            belief = self.belief(obs)
            self._votes[key] = self.rng.choice(self.least_fitting(belief, others, belief.majority_word))
        return self._votes[key]

    def clue(self, obs: Obs) -> str:
        table, me = self.table, obs["seat"]
        own = obs["private"]["word"]
        mode = obs["public"]["clue"]
        said = clues_by_seat(obs)[me]
        belief = self.belief(obs)
        neighbours = [w for w, score in self.related(own)[:NEIGHBOURS] if score > 0]
        pool = set(table.clues_of(own)) | set(neighbours)
        if belief.believes_undercover(me):
            target = belief.majority_word
            pool |= set(table.clues_of(target))
        banned = [c for c in pool if not self._legal(c, own, mode)] + [t for c in said for t in table.known(c)]
        try:
            if belief.believes_undercover(me):
                # Blend in: the clue most expected from the others' word, hedged towards our own.
                word = table.common_clue([target, own.casefold()], [0.75, 0.25],
                                         among=table.clues_of(target) + table.clues_of(own), exclude=banned)
            else:
                jitter = self.params["jitter"]
                spec = self.params["specificity"] + jitter * (self.rng.random() - 0.5)
                word = table.choose_clue(own, neighbours, min(1.0, max(0.0, spec)), exclude=banned)
        except ValueError:
            word = ""
        for option in (word, *table.clues_of(own), *FALLBACK_CLUES):
            if option and self._legal(option, own, mode):
                return self._say(option, own, mode)
        raise ValueError(f"undercover/associative found no legal clue for {own!r}")

    def _say(self, word: str, own: str, mode: str) -> str:
        if mode == "sentence":
            sentence = self.template.format(word)
            if self._legal(sentence, own, mode):
                return sentence
        return word

    @staticmethod
    def _legal(clue: str, own: str, mode: str) -> bool:
        return _legal_clue(clue, own, mode)

    # -- probes ------------------------------------------------------------------------
    def probe_answer(self, request: ProbeRequest) -> dict[str, Any] | None:
        obs = request.observation
        me = request.seat
        belief = self.belief(obs)
        if request.kind == "self_role":
            return {"role": "undercover" if belief.believes_undercover(me) else "civilian"}
        if request.kind == "suspect":
            return {"seat": self.vote(obs)}
        if request.kind == "suspect_of" and request.about is not None:
            return {"of": request.about, "seat": self.suspect_of(obs, request.about)}
        return None

    def suspect_of(self, obs: Obs, other: int) -> int:
        """Whom `other` most likely suspects: the seat whose clues fit `other`'s presumed word least."""
        belief = self.belief(obs)
        me = obs["seat"]
        n = obs["public"]["players"]
        among = [s for s in range(n) if s != other]  # may well be this very seat
        if not belief.believes_undercover(me) and other == self.vote(obs):
            # The seat we suspect presumably holds the odd word: it judges everyone by that word.
            return self.least_fitting(belief, among, belief.suspect_word.get(other, belief.majority_word))[0]
        return self.least_fitting(belief, among, belief.majority_word)[0]


@lru_cache(maxsize=65536)  # the same table clues are tried against the same words game after game
def _legal_clue(clue: str, own: str, mode: str) -> bool:
    try:
        normalise_clue(clue, mode, own)
    except IllegalAction:
        return False
    return True


STRATEGIES = [Associative]
