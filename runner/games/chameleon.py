"""The Chameleon (the Chameleon paper, MAgIC): clues in a random order, a secret vote, a second-chance guess.

One seat is the chameleon and does not know the secret word of the topic card; the others do.
Every seat gives one clue in the dealt playing order, then all vote at once for another seat.
The most-voted seat is accused; if that is the chameleon it may guess the secret word.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from runner import content
from runner.games.base import (Action, Game, IllegalAction, Pending, Seat, SetupError, State,
                               action_fields, check_keys, is_int, majority, probe_schedule, require)
from runner.games.facts import Facts, HiddenRole, Outcome

CLUE_MODES = ("word", "sentence", "subset")
#: How a tied vote is settled: "random" draws the accused uniformly among the tied (recorded chance);
#: "even" makes it its own outcome (MAgIC); "pick" is the Chameleon paper's own text: a uniformly drawn player
#: (recorded chance) picks the accused among the tied (a decision of that player).
TIE_RULES = ("random", "even", "pick")
MIN_PLAYERS, MAX_PLAYERS = 3, 20
MIN_WORDS, MAX_WORDS = 2, 100
#: Longest one-word clue, card word and topic, in characters.
WORD_CHARS, CARD_WORD_CHARS, TOPIC_CHARS = 40, 40, 80
#: A sentence clue: one line of at most this many words and characters.
SENTENCE_WORDS, SENTENCE_CHARS = 30, 300
#: Characters a one-word clue may hold besides letters and digits.
WORD_JOINERS = "-'’"
#: When the belief probes are asked: once, when every clue is in and before the vote (the default),
#: or after every clue, as the MAgIC reference code does (docs/games/chameleon.md, "Probes").
PROBE_SCHEDULES = ("before_vote", "every_clue")
#: MAgIC's credits per outcome (MAgIC A.2, read as in the brief): (the chameleon, each other seat).
#: The MAgIC win rates and the ranked suite's deal values both score an outcome by them.
MAGIC_CREDITS = {"non_chameleons_win": (0, 2), "even_vote": (1, 1), "chameleon_wins": (2, 0),
                 "chameleon_guessed": (1, 1)}


def fold(text: str) -> str:
    """The form in which words are compared: stripped and case-folded."""
    return text.strip().casefold()


def _one_line(text: str) -> bool:
    """True if `text` has no line break or other control character (tabs count as spaces)."""
    return not any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") and ch != "\t" for ch in text)


def word_clue(value: Any) -> str:
    """A one-word clue normalised (stripped); IllegalAction saying what is wrong."""
    if not isinstance(value, str):
        raise IllegalAction(f"the clue must be a string of one word, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise IllegalAction("the clue is empty; say one word")
    if len(text) > WORD_CHARS:
        raise IllegalAction(f"the clue has {len(text)} characters; at most {WORD_CHARS} are allowed")
    bad = sorted({ch for ch in text if not (ch.isalnum() or ch in WORD_JOINERS)})
    if bad:
        what = "spaces" if bad == [" "] else "the character(s) " + " ".join(repr(c) for c in bad)
        raise IllegalAction(f"the clue must be a single word of letters, digits, hyphens or "
                            f"apostrophes; it contains {what}")
    if not any(ch.isalnum() for ch in text):
        raise IllegalAction("the clue must contain a letter or a digit")
    return text


def sentence_clue(value: Any) -> str:
    """A one-line clue of 1..30 words, whitespace collapsed; IllegalAction otherwise."""
    if not isinstance(value, str):
        raise IllegalAction(f"the clue must be a string (one line of text), got {type(value).__name__}")
    if not _one_line(value.strip()):
        raise IllegalAction("the clue must be a single line of text, without line breaks or "
                            "control characters")
    text = " ".join(value.split())
    count = len(text.split())
    if not 1 <= count <= SENTENCE_WORDS:
        raise IllegalAction(f"the clue has {count} words; it must have 1 to {SENTENCE_WORDS}")
    if len(text) > SENTENCE_CHARS:
        raise IllegalAction(f"the clue has {len(text)} characters; at most {SENTENCE_CHARS} are allowed")
    return text


def subset_clue(value: Any, words: Sequence[str]) -> list[str] | None:
    """A subset of the card (in card order), or None for the null response; IllegalAction."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise IllegalAction("the clue must be a list of words of the card, or null")
    index = {fold(w): i for i, w in enumerate(words)}
    chosen: set[int] = set()
    for k, item in enumerate(value):
        if not isinstance(item, str):
            raise IllegalAction(f"clue item {k} must be a word of the card, got {type(item).__name__}")
        if fold(item) not in index:
            raise IllegalAction(f"clue item {k} ({item!r}) is not a word of the card")
        i = index[fold(item)]
        if i in chosen:
            raise IllegalAction(f"clue item {k} ({item!r}) repeats a word")
        chosen.add(i)
    return [words[i] for i in sorted(chosen)]


def as_word_clue(text: str) -> str:
    """Any text turned into a legal one-word clue (spaces and symbols become hyphens)."""
    out, dash = [], False
    for ch in text.strip():
        if ch.isalnum() or ch in "'’":
            out.append(ch)
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    word = "".join(out).strip("-")[:WORD_CHARS].strip("-")
    return word if any(ch.isalnum() for ch in word) else "pass"


class ChameleonState(State):
    """Clue turns in playing order, a simultaneous vote, maybe a tie-break, maybe a guess."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.n = params["players"]
        self.words: list[str] = list(self.setup["card"]["words"])
        self.order: list[Seat] = list(self.setup["order"])
        self.chameleon: Seat = self.setup["chameleon"]
        self.turn = 0  # how many clues have been given
        self.clues: list[Any] = [None] * self.n
        self.votes: dict[Seat, Seat] = {}
        self.top: list[Seat] = []
        self.settled = False  # whether the accusation is known
        self.accused: Seat | None = None
        self.guess: str | None = None
        self.picker: Seat | None = None  # under the "pick" rule: who picks among the tied

    @property
    def identified(self) -> bool:
        return self.settled and self.accused == self.chameleon

    def _pending(self) -> Pending | None:
        if self.turn < self.n:
            return Pending("act", "clue", (self.order[self.turn],))
        if len(self.votes) < self.n:
            waiting = tuple(s for s in range(self.n) if s not in self.votes)
            return Pending("act", "vote", waiting, simultaneous=True)
        if not self.settled and self.params["ties"] == "pick":
            if self.picker is None:
                return Pending("chance", "tie_picker", options=tuple(range(self.n)))
            return Pending("act", "tie_pick", (self.picker,))
        if not self.settled:
            return Pending("chance", "tie_break", options=tuple(self.top))
        if self.identified and self.guess is None:
            return Pending("act", "guess", (self.chameleon,))
        return None

    def legal(self, seat: Seat) -> dict[str, Any]:
        pending = self.pending()
        phase = pending.phase if pending else None
        mode = self.params["clue"]
        if phase == "clue":
            formats = {
                "word": f"one word of letters, digits, hyphens or apostrophes (at most {WORD_CHARS} characters)",
                "sentence": f"one line of text, 1 to {SENTENCE_WORDS} words",
                "subset": "a list of distinct words of the card, or null (the empty response)",
            }
            return {"field": "clue", "mode": mode, "format": formats[mode], "words": list(self.words)}
        if phase == "vote":
            return {"field": "vote", "options": [s for s in range(self.n) if s != seat]}
        if phase == "guess":
            return {"field": "guess", "options": list(self.words)}
        if phase == "tie_pick":
            return {"field": "accuse", "options": list(self.top)}
        return {}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        if phase == "clue":
            action_fields(action, ["clue"])
            mode = self.params["clue"]
            if mode == "word":
                return {"clue": word_clue(action["clue"])}
            if mode == "sentence":
                return {"clue": sentence_clue(action["clue"])}
            return {"clue": subset_clue(action["clue"], self.words)}
        if phase == "vote":
            action_fields(action, ["vote"])
            target = action["vote"]
            if not is_int(target) or not 0 <= target < self.n:
                raise IllegalAction(f"vote must be a seat number from 0 to {self.n - 1}, got {target!r}")
            if target == seat:
                raise IllegalAction("you cannot vote for yourself; vote for another player")
            return {"vote": target}
        if phase == "tie_pick":
            action_fields(action, ["accuse"])
            target = action["accuse"]
            if not is_int(target) or target not in self.top:
                raise IllegalAction(f"accuse one of the players tied for the most votes, seats {self.top}; "
                                    f"got {target!r}")
            return {"accuse": target}
        action_fields(action, ["guess"])
        guess = action["guess"]
        if not isinstance(guess, str):
            raise IllegalAction(f"the guess must be a word of the card, got {type(guess).__name__}")
        for word in self.words:
            if fold(word) == fold(guess):
                return {"guess": word}
        raise IllegalAction(f"{guess!r} is not a word of the card; guess one of the {len(self.words)} words")

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        if phase == "clue":
            self.clues[seat] = action["clue"]
            self.turn += 1
        elif phase == "vote":
            self.votes[seat] = action["vote"]
            if len(self.votes) == self.n:
                self._close_vote()
        elif phase == "tie_pick":
            self._settle(action["accuse"])
        else:
            self.guess = action["guess"]
            self._emit_end()

    def _close_vote(self) -> None:
        votes = [self.votes[s] for s in range(self.n)]
        tally = [votes.count(s) for s in range(self.n)]
        self.top = majority(self.votes)
        tie = len(self.top) > 1
        self._emit("info", "vote_result", None,
                   {"votes": votes, "tally": tally, "top": list(self.top), "tie": tie}, "all")
        if not tie:
            self._settle(self.top[0])
        elif self.params["ties"] == "even":
            self._settle(None)
        # else: a tie waits for the tie_break draw ("random") or for the picker's draw ("pick")

    def _apply_chance(self, phase: str, outcome: Any) -> None:
        if phase == "tie_picker":
            self.picker = outcome
        else:
            self._settle(outcome)

    def _settle(self, accused: Seat | None) -> None:
        self.settled = True
        self.accused = accused
        self._emit("info", "accusation", None,
                   {"accused": accused, "chameleon": self.chameleon, "identified": self.identified,
                    "even": accused is None}, "all")
        if not self.identified:
            self._emit_end()

    def _emit_end(self) -> None:
        winners, result = self._result()
        self._emit("info", "end", None,
                   {"secret": result["secret"], "guess": result["guess"],
                    "guess_correct": result["guess_correct"], "magic_outcome": result["magic_outcome"],
                    "winners": winners}, "all")

    def private(self, seat: Seat) -> dict[str, Any]:
        if seat == self.chameleon:
            return {"role": "chameleon"}
        return {"role": "non_chameleon", "secret": self.setup["secret"]}

    def public(self) -> dict[str, Any]:
        card = self.setup["card"]
        return {"card": card["id"], "topic": card["topic"], "words": list(self.words),
                "order": list(self.order), "clue_mode": self.params["clue"], "ties": self.params["ties"]}

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        secret = self.setup["secret"]
        even = self.accused is None
        correct = None if self.guess is None else self.guess == secret
        if even:
            outcome, winners = "even_vote", []
        elif not self.identified:
            outcome, winners = "chameleon_wins", [self.chameleon]
        elif correct:
            outcome, winners = "chameleon_guessed", [self.chameleon]
        else:
            outcome, winners = "non_chameleons_win", [s for s in range(self.n) if s != self.chameleon]
        votes = [self.votes[s] for s in range(self.n)]
        return winners, {
            "chameleon": self.chameleon, "secret": secret, "accused": self.accused,
            "tie": len(self.top) > 1, "even": even, "identified": self.identified,
            "guess": self.guess, "guess_correct": correct, "votes": votes,
            "tally": [votes.count(s) for s in range(self.n)], "magic_outcome": outcome,
        }

    def probes(self) -> tuple[str, ...]:
        # Beliefs are asked when every clue is in and before anyone votes, and under "every_clue"
        # also after each earlier clue. Each role is asked only what it can be wrong about
        # (Chameleon.probe_roles); `self_role` stays allowed so that replays of earlier runners,
        # which asked it, remain valid (the scorer ignores it).
        if self.votes or self.pending() is None:
            return ()
        every_clue = self.params.get("probe_schedule") == "every_clue"
        if self.turn == self.n or (every_clue and self.turn > 0):
            return ("suspect", "suspect_of", "self_role", "secret")
        return ()

    def _check_secret(self, word: Any) -> None:
        if not isinstance(word, str) or word not in self.words:
            raise IllegalAction(f"probe field 'word' must be a word of the card, got {word!r}")

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        pending = self.pending()
        phase = pending.phase if pending else None
        if phase == "vote":
            return {"vote": rng.choice([s for s in range(self.n) if s != seat])}
        if phase == "guess":
            return {"guess": rng.choice(self.words)}
        if phase == "tie_pick":
            return {"accuse": rng.choice(self.top)}
        mode = self.params["clue"]
        if mode == "subset":
            # Uniform over the 2^K subsets and the null response.
            pick = rng.randrange(2 ** len(self.words) + 1)
            if pick == 2 ** len(self.words):
                return {"clue": None}
            return {"clue": [w for i, w in enumerate(self.words) if pick >> i & 1]}
        word = rng.choice(self.words)
        if mode == "word":
            return {"clue": as_word_clue(word)}
        return {"clue": f"It reminds me of {word}."}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        pending = self.pending()
        phase = pending.phase if pending else None
        if phase == "vote":
            other = next(s for s in range(self.n) if s != seat)
            return [{"vote": seat}, {"vote": self.n}, {"vote": -1}, {"vote": True}, {"vote": "1"},
                    {"vote": float(other)}, {}, {"vote": other, "reason": "x"}, other]
        if phase == "tie_pick":
            outside = [{"accuse": s} for s in range(self.n) if s not in self.top][:1]
            return outside + [{"accuse": self.n}, {"accuse": True}, {"accuse": str(self.top[0])},
                              {"vote": self.top[0]}, {}, {"accuse": self.top[0], "x": 1}, self.top[0]]
        if phase == "guess":
            absent = self._absent_word()
            return [{"guess": absent}, {"guess": ""}, {"guess": 3}, {"guess": None},
                    {"guess": [self.words[0]]}, {}, {"guess": self.words[0], "x": 1}]
        if phase != "clue":
            return []
        common: list[Any] = [{}, {"clue": "x", "extra": 1}, ["clue"], "clue", {"clue": 7}]
        mode = self.params["clue"]
        if mode == "word":
            return common + [{"clue": "two words"}, {"clue": ""}, {"clue": "   "}, {"clue": "x" * 41},
                             {"clue": "semi;colon"}, {"clue": "--"}, {"clue": None}, {"clue": ["a"]}]
        if mode == "sentence":
            return common + [{"clue": ""}, {"clue": "first line\nsecond line"},
                             {"clue": " ".join(["word"] * (SENTENCE_WORDS + 1))}, {"clue": None},
                             {"clue": ["a", "list"]}, {"clue": "tab\x00null"}]
        w = self.words[0]
        return common + [{"clue": [self._absent_word()]}, {"clue": [w, w]}, {"clue": [w, w.upper()]},
                         {"clue": w}, {"clue": [1]}, {"clue": "null"}, {"clue": {"words": [w]}}]

    def _absent_word(self) -> str:
        """A word that is not on the card."""
        taken = {fold(w) for w in self.words}
        word = "zz-not-on-card"
        while fold(word) in taken:
            word += "-z"
        return word


class Chameleon(Game):
    """N players, a topic card of K words, one chameleon; rule variants for clues and ties."""

    name = "chameleon"
    title = "The Chameleon"
    roles = ("chameleon", "non_chameleon")
    reveal_phases = frozenset({"vote_result", "tie_break", "tie_picker", "tie_pick", "accusation", "guess", "end"})
    # Everyone is told their role, so nobody is asked it; the chameleon knows who the chameleon is,
    # and is asked instead which word is the secret (which the others know).
    probe_roles = {"chameleon": frozenset({"suspect_of", "secret"}),
                   "non_chameleon": frozenset({"suspect", "suspect_of"})}
    options = {"probe_schedule": PROBE_SCHEDULES}

    def __init__(self, cards: Sequence[Mapping[str, Any]] | None = None):
        # Explicit cards (tests, other decks) or, by default, the shipped deck read on first use.
        self._cards = list(cards) if cards is not None else None

    def cards(self) -> list[Mapping[str, Any]]:
        """The deck that `deal` draws from."""
        if self._cards is None:
            self._cards = list(content.load("chameleon_cards")["cards"])
        return self._cards

    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(raw, [], "params", optional=["players", "words", "clue", "ties", "probe_schedule"])
        players = raw.get("players", 4)
        require(is_int(players) and MIN_PLAYERS <= players <= MAX_PLAYERS, "params.players",
                f"must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}")
        words = raw.get("words", 16)
        require(is_int(words) and MIN_WORDS <= words <= MAX_WORDS, "params.words",
                f"must be an integer from {MIN_WORDS} to {MAX_WORDS}")
        clue = raw.get("clue", "word")
        require(clue in CLUE_MODES, "params.clue", f"must be one of {list(CLUE_MODES)}")
        ties = raw.get("ties", "random")
        require(ties in TIE_RULES, "params.ties", f"must be one of {list(TIE_RULES)}")
        out = {"players": players, "words": words, "clue": clue, "ties": ties}
        return {**out, **probe_schedule(raw, PROBE_SCHEDULES)}

    def players(self, params: Mapping[str, Any]) -> int:
        return params["players"]

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        k = params["words"]
        cards = [c for c in self.cards() if len(c["words"]) == k]
        if not cards:
            sizes = sorted({len(c["words"]) for c in self.cards()})
            raise SetupError("params.words", f"no card has exactly {k} words (card sizes: {sizes})")
        card = rng.choice(cards)
        n = params["players"]
        return {
            "card": {"id": card["id"], "topic": card["topic"], "words": list(card["words"])},
            "secret": rng.choice(card["words"]),
            "chameleon": rng.randrange(n),
            "order": rng.sample(range(n), n),
        }

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["card", "secret", "chameleon", "order"], "setup")
        card = setup["card"]
        check_keys(card, ["id", "topic", "words"], "setup.card")
        for key, limit in (("id", TOPIC_CHARS), ("topic", TOPIC_CHARS)):
            value = card[key]
            require(isinstance(value, str) and value.strip() == value and 0 < len(value) <= limit
                    and _one_line(value), f"setup.card.{key}",
                    f"must be a one-line string of 1 to {limit} characters without outer spaces")
        words = card["words"]
        k = params["words"]
        require(isinstance(words, list) and len(words) == k, "setup.card.words",
                f"must be a list of exactly {k} words (the variant's `words`)")
        seen: dict[str, int] = {}
        for i, word in enumerate(words):
            field = f"setup.card.words[{i}]"
            require(isinstance(word, str) and word.strip() == word and 0 < len(word) <= CARD_WORD_CHARS
                    and _one_line(word), field,
                    f"must be a one-line string of 1 to {CARD_WORD_CHARS} characters without outer spaces")
            require(fold(word) not in seen, field, f"repeats word {seen.get(fold(word))} of the card "
                    "(words are compared ignoring case)")
            seen[fold(word)] = i
        require(isinstance(setup["secret"], str) and setup["secret"] in words, "setup.secret",
                "must be one of the card's words, spelled as on the card")
        n = params["players"]
        require(is_int(setup["chameleon"]) and 0 <= setup["chameleon"] < n, "setup.chameleon",
                f"must be a seat number from 0 to {n - 1}")
        order = setup["order"]
        require(isinstance(order, list) and len(order) == n, "setup.order",
                f"must be a list of the {n} seats in playing order")
        for i, seat in enumerate(order):
            require(is_int(seat) and 0 <= seat < n, f"setup.order[{i}]",
                    f"must be a seat number from 0 to {n - 1}")
            require(seat not in order[:i], f"setup.order[{i}]", f"seat {seat} is listed twice")

    def role_of(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat) -> str:
        return "chameleon" if seat == setup["chameleon"] else "non_chameleon"

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return ChameleonState(self, params, setup)

    def counterfactuals(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat,
                        rng: random.Random) -> list[dict[str, Any]]:
        """The chameleon cannot know the secret; a non-chameleon cannot know who the chameleon is."""
        if seat == setup["chameleon"]:
            others = [w for w in setup["card"]["words"] if w != setup["secret"]]
            return [{**setup, "secret": w} for w in rng.sample(others, min(4, len(others)))]
        seats = [s for s in range(params["players"]) if s not in (seat, setup["chameleon"])]
        return [{**setup, "chameleon": s} for s in seats]


GAME = Chameleon()

FACTS = Facts(
    winning="the non-chameleons win by accusing the chameleon, unless it then guesses the secret word; "
            "otherwise the chameleon wins",
    outcome=Outcome("magic_outcome", {"non_chameleons_win": "non-chameleons win",
                                      "chameleon_wins": "chameleon not caught",
                                      "chameleon_guessed": "chameleon guessed the word", "even_vote": "even vote"}),
    default_opponent="chameleon/associative",
    goals={
        "chameleon": "You are the chameleon: blend in with your clue so you are not the most voted player, "
                     "and if you are accused, guess the secret word.",
        "non_chameleon": "You know the secret word: show it with your clue without giving it away, then vote "
                         "for the chameleon. You win together if the chameleon is accused and misses the word.",
    },
    roles_public_at="accusation", setup_public_at="end",  # the secret word comes last
    hidden=HiddenRole("chameleon", called="the chameleon", told=True, talk=("clue",)),
    magic=True,
)
