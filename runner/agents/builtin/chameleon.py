"""Built-in Chameleon strategies: the ones analysed in the Chameleon paper, section 4, and an associative player.

Every strategy reads only its observation: its role (and the secret word unless it is the
chameleon), the card, the playing order and the clues said so far.
"""

from __future__ import annotations

import random
import re
from abc import abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from runner.agents.associative import Associations, shipped
from runner.agents.base import ProbeRequest, Request, ScriptedAgent
from runner.games.chameleon import as_word_clue, fold

Obs = Mapping[str, Any]


# -- reading an observation ---------------------------------------------------------------
def card_words(obs: Obs) -> list[str]:
    return list(obs["public"]["words"])


def play_order(obs: Obs) -> list[int]:
    return list(obs["public"]["order"])


def clue_mode(obs: Obs) -> str:
    return obs["public"]["clue_mode"]


def is_chameleon(obs: Obs) -> bool:
    return obs["private"]["role"] == "chameleon"


def clues_heard(obs: Obs) -> dict[int, Any]:
    """Clue of each seat that has spoken, by seat, in speaking order."""
    return {ev["seat"]: ev["data"]["clue"] for ev in obs["log"]
            if ev["kind"] == "action" and ev["phase"] == "clue"}


def first_other(order: Sequence[int], seat: int) -> int:
    """The first player in playing order who is not `seat`."""
    return next(s for s in order if s != seat)


def named_words(clue: Any, words: Sequence[str]) -> list[str]:
    """The card words a clue names: the word itself, a word inside a sentence, a subset's words."""
    if clue is None:
        return []
    if isinstance(clue, list):
        return list(clue)
    text = fold(clue)
    found = []
    for word in words:
        pattern = r"(?<![\w'-])" + re.escape(fold(word)) + r"(?![\w'-])"
        if fold(word) == text or re.search(pattern, text):
            found.append(word)
    return found


def say(mode: str, word: str, template: str) -> Any:
    """A clue built around `word` in the variant's format (subset mode: the singleton)."""
    if mode == "word":
        return as_word_clue(word)
    if mode == "sentence":
        return template.format(word)
    return [word]


class ChameleonAgent(ScriptedAgent):
    """Shared plumbing: dispatch on the phase; beliefs answered from the same rules as the vote."""

    def decide(self, request: Request) -> dict[str, Any]:
        obs = request.observation
        if request.phase == "clue":
            return {"clue": self.clue(obs, request.seat)}
        if request.phase == "vote":
            return {"vote": self.vote_of(obs, request.seat, request.seat)}
        if request.phase == "tie_pick":
            return {"accuse": self.pick(obs, request.seat, list(request.legal["options"]))}
        return {"guess": self.guess(obs, request.seat)}

    def fits(self, obs: Obs) -> None:
        """ValueError if this strategy cannot play the game `obs` is from (`cannot_play` of its rules)."""
        misfit = self.cannot_play({"clue": clue_mode(obs), "players": len(play_order(obs)),
                                   "words": len(card_words(obs))})
        if misfit:
            raise ValueError(misfit)

    def pick(self, obs: Obs, seat: int, tied: list[int]) -> int:
        """The Chameleon paper's tie rule: accuse, among the tied, the player it would vote for; otherwise the first
        tied player other than itself (the chameleon never picks itself when it can help it)."""
        choice = self.vote_of(obs, seat, seat)
        if choice in tied:
            return choice
        return next((s for s in tied if s != seat), tied[0])

    def probe_answer(self, request: ProbeRequest) -> dict[str, Any] | None:
        obs, me = request.observation, request.seat
        if request.kind == "self_role":
            return {"role": obs["private"]["role"]}
        if request.kind == "suspect":
            return {"seat": self.vote_of(obs, me, me)}
        if request.kind == "secret":  # asked of the chameleon: its best guess so far
            return {"word": self.guess(obs, me)}
        about = request.about
        assert about is not None
        return {"of": about, "seat": self.vote_of(obs, me, about)}

    @abstractmethod
    def clue(self, obs: Obs, seat: int) -> Any:
        """The clue to give at this seat's turn."""

    @abstractmethod
    def vote_of(self, obs: Obs, me: int, voter: int) -> int:
        """Whom `voter` votes for, as this player believes (`voter == me`: its own vote)."""

    @abstractmethod
    def guess(self, obs: Obs, seat: int) -> str:
        """The second-chance guess of the secret word."""


class Trivial(ChameleonAgent):
    """The Chameleon paper's trivial 0-KL concealing strategy: say nothing about the word, vote for player 1."""

    strategy = "chameleon/trivial"

    def clue(self, obs: Obs, seat: int) -> Any:
        # The same response whatever the secret word is, so it carries no information about it.
        topic = obs["public"]["topic"]
        mode = clue_mode(obs)
        if mode == "word":
            return as_word_clue(topic.lower())
        if mode == "sentence":
            return f"It belongs to the topic {topic}."
        return None

    def vote_of(self, obs: Obs, me: int, voter: int) -> int:
        return first_other(play_order(obs), voter)

    def guess(self, obs: Obs, seat: int) -> str:
        words = card_words(obs)
        heard = [c for s, c in clues_heard(obs).items() if s != seat]
        if clue_mode(obs) == "subset":
            # Consistent words: those in every non-null subset said by the others.
            consistent = set(words)
            for clue in heard:
                if clue is not None:
                    consistent &= set(clue)
            candidates = [w for w in words if w in consistent]
        else:
            named = {w for c in heard for w in named_words(c, words)}
            candidates = [w for w in words if w in named]
        return self.rng.choice(candidates or words)


class Revealing(ChameleonAgent):
    """The Chameleon paper's 2-L1 pairwise revealing strategy: non-chameleons say the secret word itself."""

    strategy = "chameleon/revealing"
    template = "The secret word is {}."

    def revealed(self, obs: Obs, seat: int) -> str | None:
        """The card word the others named most often (earliest on a tie), if any."""
        words = card_words(obs)
        named = [w for s, c in clues_heard(obs).items() if s != seat for w in named_words(c, words)]
        return Counter(named).most_common(1)[0][0] if named else None

    def clue(self, obs: Obs, seat: int) -> Any:
        if not is_chameleon(obs):
            return say(clue_mode(obs), obs["private"]["secret"], self.template)
        word = self.revealed(obs, seat) or self.rng.choice(card_words(obs))
        return say(clue_mode(obs), word, self.template)

    def vote_of(self, obs: Obs, me: int, voter: int) -> int:
        # The odd one out if exactly one clue differs from the most common one, else player 1.
        clues = clues_heard(obs)
        keys = {s: _clue_key(c) for s, c in clues.items()}
        ranked = Counter(keys.values()).most_common()
        if len(ranked) > 1 and ranked[0][1] > ranked[1][1]:
            odd = [s for s, k in keys.items() if k != ranked[0][0]]
            if len(odd) == 1 and odd[0] != voter:
                return odd[0]
        return first_other(play_order(obs), voter)

    def guess(self, obs: Obs, seat: int) -> str:
        return self.revealed(obs, seat) or self.rng.choice(card_words(obs))


def _clue_key(clue: Any) -> Any:
    """A clue in a form where equal clues compare equal (case and spacing ignored)."""
    if clue is None:
        return None
    if isinstance(clue, list):
        return tuple(sorted(fold(w) for w in clue))
    return " ".join(fold(clue).split())


class Ambiguity(ChameleonAgent):
    """The Chameleon paper's history-dependent pi^amb (subset clues; K = l(N+1)) and the chameleon's best reply.

    Non-chameleons keep a shrinking set that always holds the secret word, removing l words a
    turn; the first response that breaks the pattern marks the chameleon. The chameleon keeps a
    random subset of the right size (it cannot know which words are safe to drop).
    """

    strategy = "chameleon/ambiguity"

    @classmethod
    def cannot_play(cls, rules: Mapping[str, Any]) -> str | None:
        mode, n, k = rules["clue"], rules["players"], rules["words"]
        if mode != "subset":
            return f"chameleon/ambiguity plays only the 'subset' clue variant (this game uses {mode!r} clues)"
        if k % (n + 1):
            return (f"chameleon/ambiguity needs K = l(N+1) words: {k} words do not split into groups of "
                    f"N+1 = {n + 1} for {n} players")
        return None

    def _shape(self, obs: Obs) -> tuple[int, int]:
        """(N, l) of this game; ValueError if the rules do not fit pi^amb."""
        self.fits(obs)
        n = len(play_order(obs))
        return n, len(card_words(obs)) // (n + 1)

    def responses(self, obs: Obs) -> list[Any]:
        """r_0 (the card) followed by the responses r_1..r_i given so far, in playing order."""
        clues = clues_heard(obs)
        return [card_words(obs)] + [clues[s] for s in play_order(obs) if s in clues]

    def clue(self, obs: Obs, seat: int) -> Any:
        n, l = self._shape(obs)
        r = self.responses(obs)
        i = len(r)  # this seat answers r_i
        previous = r[-1]
        if previous is None or len(previous) != l * (n + 2 - i):
            return None
        size = l * (n + 1 - i)
        if is_chameleon(obs):
            keep = set(self.rng.sample(previous, size))
        else:
            secret = obs["private"]["secret"]
            if secret not in previous:
                return None
            keep = {secret, *self.rng.sample([w for w in previous if w != secret], size - 1)}
        return [w for w in previous if w in keep]

    def vote_of(self, obs: Obs, me: int, voter: int) -> int:
        n, l = self._shape(obs)
        order = play_order(obs)
        # The chameleon does not know the secret: it checks only the sizes and nesting.
        secret = None if is_chameleon(obs) else obs["private"]["secret"]
        if voter == me and secret is None:
            return first_other(order, voter)
        r = self.responses(obs)
        for i in range(1, len(r)):
            response = r[i]
            conforming = (response is not None and len(response) == l * (n + 1 - i)
                          and (secret in response if secret is not None
                               else r[i - 1] is not None and set(response) <= set(r[i - 1])))
            if not conforming and order[i - 1] != voter:
                return order[i - 1]
        return first_other(order, voter)

    def guess(self, obs: Obs, seat: int) -> str:
        self._shape(obs)
        words = card_words(obs)
        r = self.responses(obs)
        c = play_order(obs).index(seat) + 1
        later = r[c + 1:]
        # Before its own turn (a belief asked after an earlier clue), only the narrowest set said so
        # far is known: the else branch.
        if c < len(r) and all(x is None for x in later):
            # Identified although the rest stayed silent: the secret is among the words it dropped.
            before, mine = r[c - 1], r[c]
            pool = [w for w in before if mine is None or w not in mine] if before is not None else []
        else:
            pool = next(x for x in reversed(r) if x is not None)
        return self.rng.choice(pool or words)


class Associative(ChameleonAgent):
    """A player that reasons with the shipped word-association table.

    Non-chameleon: gives a clue of the secret word whose specificity is a parameter (1: the
    clue that best singles the word out on this card, 0: the one most shared with the rest of
    the card) and votes for the player whose clue is least likely under the secret word.
    Chameleon: keeps a Bayesian posterior over the card from the others' clues, gives a clue of
    its best guess that fits its beliefs (a generic clue if it speaks first), votes for the
    player whose clue looks least likely under its beliefs, and guesses the most probable word.
    """

    strategy = "chameleon/associative"
    defaults = {"specificity": 0.5}
    template = "It makes me think of {}."

    def __init__(self, params: Mapping[str, Any], rng: random.Random, name: str):
        super().__init__(params, rng, name)
        spec = self.params["specificity"]
        if isinstance(spec, bool) or not isinstance(spec, (int, float)) or not 0 <= spec <= 1:
            raise ValueError(f"chameleon/associative: specificity must be a number in [0, 1], got {spec!r}")
        #: The association table; None means the shipped one, loaded on first use.
        self.associations: Associations | None = None

    @property
    def table(self) -> Associations:
        if self.associations is None:
            self.associations = shipped()
        return self.associations

    @classmethod
    def cannot_play(cls, rules: Mapping[str, Any]) -> str | None:
        if rules["clue"] == "subset":
            return "chameleon/associative gives word or sentence clues, not 'subset' clues"
        return None

    def _mode(self, obs: Obs) -> str:
        self.fits(obs)
        return clue_mode(obs)

    def belief(self, obs: Obs, seat: int) -> list[float]:
        """The chameleon's posterior over the card words from the others' clues."""
        heard = [c for s, c in clues_heard(obs).items() if s != seat]
        return self.table.posterior(heard, card_words(obs))

    def clue(self, obs: Obs, seat: int) -> Any:
        mode = self._mode(obs)
        words = card_words(obs)
        if not is_chameleon(obs):
            word = self.table.choose_clue(obs["private"]["secret"], words, self.params["specificity"],
                                          exclude=words)
        elif not clues_heard(obs):
            word = self.table.common_clue(words, exclude=words)
        else:
            belief = self.belief(obs, seat)
            best = words[max(range(len(words)), key=lambda i: (belief[i], -i))]
            word = self.table.common_clue(words, belief, among=self.table.clues_of(best), exclude=words)
        return say(mode, word, self.template)

    def vote_of(self, obs: Obs, me: int, voter: int) -> int:
        self._mode(obs)
        clues = clues_heard(obs)
        order = play_order(obs)
        if is_chameleon(obs):
            words = card_words(obs)
            belief = self.belief(obs, me)

            def fit(clue: Any) -> float:
                return sum(b * self.table.p_text(clue, w) for b, w in zip(belief, words))
        else:
            secret = obs["private"]["secret"]

            def fit(clue: Any) -> float:
                return self.table.p_text(clue, secret)

        # The least fitting clue; the earliest speaker on a tie. Asked for a belief before every
        # clue is in (probe_schedule "every_clue"), it weighs only the clues said so far.
        spoken = [s for s in order if s != voter and s in clues]
        if not spoken:
            return first_other(order, voter)
        return min(spoken, key=lambda s: (fit(clues[s]), order.index(s)))

    def guess(self, obs: Obs, seat: int) -> str:
        self._mode(obs)
        words = card_words(obs)
        belief = self.belief(obs, seat)
        top = max(belief)
        return self.rng.choice([w for w, b in zip(words, belief) if b >= top * (1 - 1e-9)])


STRATEGIES = [Trivial, Revealing, Ambiguity, Associative]
