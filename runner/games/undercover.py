"""Undercover (MAgIC): civilians share a word, one undercover holds a related one; clues, then a vote."""

from __future__ import annotations

import copy
import random
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from runner import content
from runner.games.base import (Action, Game, IllegalAction, Pending, Seat, SetupError, State,
                               action_fields, check_keys, is_int, majority, probe_schedule, require)
from runner.games.facts import Facts, HiddenRole, Outcome

ROLES = ("undercover", "civilian")
CLUE_MODES = ("word", "sentence")
#: When the belief probes are asked: once, before the vote (the default); also at the end of each
#: round of clues, as the MAgIC reference code does; or after every clue (docs/games/undercover.md).
PROBE_SCHEDULES = ("before_vote", "every_round", "every_clue")
MIN_PLAYERS, MAX_PLAYERS = 3, 12
MAX_WORD_CHARS = 40
MAX_SENTENCE_WORDS = 30
MAX_SENTENCE_CHARS = 300
OUTCOMES = ("undercover_wins", "civilians_win", "even_vote")
#: MAgIC's credits per outcome (MAgIC A.2, read as in the brief): (the undercover, each civilian).
MAGIC_CREDITS = {"undercover_wins": (3, 0), "civilians_win": (0, 3), "even_vote": (2, 1)}
#: One word: letters, with hyphens and apostrophes (straight or curly) allowed.
WORD_RE = re.compile(r"^(?:[^\W\d_]|['’-])+$")
#: Filler for random clues; none of these is likely to be a pair word, and any that is is skipped.
RANDOM_CLUE_WORDS = ("thing", "object", "useful", "common", "small", "large", "bright", "soft",
                     "round", "heavy", "daily", "outside", "quiet", "popular", "old", "new")


def is_word(text: Any) -> bool:
    """True for one word of letters, hyphens and apostrophes, at most 40 characters."""
    return (isinstance(text, str) and 0 < len(text) <= MAX_WORD_CHARS and WORD_RE.match(text) is not None
            and any(ch.isalpha() for ch in text))


def contains_word(text: str, word: str) -> bool:
    """True if `word` occurs in `text` as a whole word, ignoring case (full Unicode case folding)."""
    pattern = rf"(?<!\w){re.escape(word.casefold())}(?!\w)"
    return re.search(pattern, text.casefold()) is not None


def normalise_clue(clue: Any, mode: str, own_word: str) -> str:
    """The clue stripped (sentences: whitespace runs made single spaces); IllegalAction if not allowed."""
    if not isinstance(clue, str):
        raise IllegalAction(f"the clue must be text, got {type(clue).__name__}")
    text = clue.strip()
    if not text:
        raise IllegalAction("the clue is empty")
    if mode == "word":
        if not is_word(text):
            raise IllegalAction(f"the clue must be one word of letters (hyphens and apostrophes allowed), "
                                f"at most {MAX_WORD_CHARS} characters; got {text[:60]!r}")
    else:
        if len(text.splitlines()) > 1:
            raise IllegalAction("the clue must be a single line")
        text = " ".join(text.split())
        if any(unicodedata.category(ch) == "Cc" for ch in text):
            raise IllegalAction("the clue must not contain control characters")
        words = len(text.split())
        if words > MAX_SENTENCE_WORDS:
            raise IllegalAction(f"the clue has {words} words; it must have 1 to {MAX_SENTENCE_WORDS}")
        if len(text) > MAX_SENTENCE_CHARS:
            raise IllegalAction(f"the clue has {len(text)} characters; at most {MAX_SENTENCE_CHARS} are allowed")
    # The message does not quote the word: refused attempts of a public action may be shown to all.
    if contains_word(text, own_word):
        raise IllegalAction("the clue must not contain your own word (checked as a whole word, in any case)")
    return text


class UndercoverState(State):
    """Clue rounds in seat order, then one simultaneous vote revealed when complete."""

    def __init__(self, game: Game, params: Mapping[str, Any], setup: Mapping[str, Any]):
        super().__init__(game, params, setup)
        self.n = params["players"]
        self.clues_given = 0  # clue turns taken so far, over all rounds
        self.votes: dict[Seat, Seat] = {}
        self.result: dict[str, Any] | None = None

    def word_of(self, seat: Seat) -> str:
        pair = self.setup["pair"]
        return pair["undercover"] if seat == self.setup["undercover"] else pair["civilian"]

    def _pending(self) -> Pending | None:
        if self.clues_given < self.n * self.params["rounds"]:
            return Pending("act", "clue", (self.clues_given % self.n,))
        if self.result is None:
            waiting = tuple(s for s in range(self.n) if s not in self.votes)
            return Pending("act", "vote", waiting, simultaneous=True)
        return None

    def legal(self, seat: Seat) -> dict[str, Any]:
        pending = self._pending()
        if pending is not None and pending.phase == "clue":
            return {"field": "clue", "mode": self.params["clue"],
                    "round": self.clues_given // self.n + 1, "rounds": self.params["rounds"],
                    "rule": ("one word of letters (hyphens and apostrophes allowed), at most 40 characters"
                             if self.params["clue"] == "word" else
                             f"one line of 1 to {MAX_SENTENCE_WORDS} words")
                            + "; it must not contain your own word"}
        return {"field": "vote", "options": [s for s in range(self.n) if s != seat]}

    def _check(self, seat: Seat, phase: str, action: Action) -> Action:
        if phase == "clue":
            action_fields(action, ["clue"])
            return {"clue": normalise_clue(action["clue"], self.params["clue"], self.word_of(seat))}
        action_fields(action, ["vote"])
        target = action["vote"]
        if not is_int(target) or not 0 <= target < self.n:
            raise IllegalAction(f"the vote must be a seat number from 0 to {self.n - 1}, got {target!r}")
        if target == seat:
            raise IllegalAction("you cannot vote for yourself")
        return {"vote": target}

    def _apply(self, seat: Seat, phase: str, action: Action) -> None:
        if phase == "clue":
            self.clues_given += 1
            return
        self.votes[seat] = action["vote"]
        if len(self.votes) < self.n:
            return
        votes = [self.votes[s] for s in range(self.n)]
        tally = [votes.count(s) for s in range(self.n)]
        top = majority(self.votes)
        undercover = self.setup["undercover"]
        accused = top[0] if len(top) == 1 else None
        if accused is None:
            outcome = "even_vote"
        else:
            outcome = "civilians_win" if accused == undercover else "undercover_wins"
        pair = self.setup["pair"]
        self.result = {"votes": votes, "tally": tally, "accused": accused, "magic_outcome": outcome,
                       "undercover": undercover,
                       "words": {"civilian": pair["civilian"], "undercover": pair["undercover"]}}
        self._emit("info", "vote_result", None, self.result, "all")

    def probes(self) -> tuple[str, ...]:
        # Beliefs are asked when every clue is in and nobody has voted yet; under "every_round" also
        # at the end of each earlier round of clues, under "every_clue" after each clue.
        if self.votes or self.clues_given == 0 or self.pending() is None:
            return ()
        schedule = self.params.get("probe_schedule", PROBE_SCHEDULES[0])
        last = self.clues_given == self.n * self.params["rounds"]
        if (last or schedule == "every_clue"
                or (schedule == "every_round" and self.clues_given % self.n == 0)):
            return ("suspect", "suspect_of", "self_role")
        return ()

    def private(self, seat: Seat) -> dict[str, Any]:
        return {"word": self.word_of(seat)}  # never the role: players must infer it

    def public(self) -> dict[str, Any]:
        return {"players": self.n, "rounds": self.params["rounds"], "clue": self.params["clue"]}

    def _result(self) -> tuple[list[Seat], dict[str, Any]]:
        assert self.result is not None
        outcome = self.result["magic_outcome"]
        undercover = self.setup["undercover"]
        if outcome == "undercover_wins":
            winners = [undercover]
        elif outcome == "civilians_win":
            winners = [s for s in range(self.n) if s != undercover]
        else:
            winners = []
        return winners, copy.deepcopy(self.result)  # never share lists with the logged event

    def random_action(self, seat: Seat, rng: random.Random) -> Action:
        if self._pending().phase == "vote":
            return {"vote": rng.choice([s for s in range(self.n) if s != seat])}
        # Skip filler equal to either pair word, so the same draw is legal for every seat.
        pair = self.setup["pair"]
        words = [w for w in RANDOM_CLUE_WORDS
                 if not contains_word(w, pair["civilian"]) and not contains_word(w, pair["undercover"])]
        if self.params["clue"] == "word":
            return {"clue": rng.choice(words)}
        return {"clue": " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))}

    def illegal_examples(self, seat: Seat) -> list[Any]:
        if self._pending().phase == "vote":
            return [{"vote": seat}, {"vote": self.n}, {"vote": -1}, {"vote": True}, {"vote": str((seat + 1) % self.n)},
                    {"vote": float((seat + 1) % self.n)}, {}, {"vote": (seat + 1) % self.n, "why": "x"}]
        word = self.word_of(seat)
        bad: list[Any] = [{"clue": word}, {"clue": word.upper()}, {"clue": ""}, {"clue": "   "},
                          {"clue": 7}, {"clue": None}, {}, {"clue": "fine", "extra": 1}, "fine"]
        if self.params["clue"] == "word":
            bad += [{"clue": "two words"}, {"clue": "x" * 41}, {"clue": "dot."}, {"clue": "r2d2"}]
        else:
            bad += [{"clue": "one line\nand another"}, {"clue": " ".join(["word"] * 31)},
                    {"clue": f"it is like a {word}!"}, {"clue": "bell\x07ring"}]
        return bad


def check_pair(pair: Any, field: str) -> None:
    """Raise SetupError unless `pair` is {"civilian", "undercover"[, "id"]} with two different words."""
    check_keys(pair, ["civilian", "undercover"], field, optional=["id"])
    for key in ("civilian", "undercover"):
        require(is_word(pair[key]), f"{field}.{key}",
                "must be one word of letters (hyphens and apostrophes allowed), at most 40 characters")
    require(pair["civilian"].casefold() != pair["undercover"].casefold(), f"{field}.undercover",
            "must differ from the civilian word")
    if "id" in pair:
        require(isinstance(pair["id"], str) and 0 < len(pair["id"]) <= 80, f"{field}.id",
                "must be a string of 1 to 80 characters")


class Undercover(Game):
    """N players, one undercover with a different word; nobody is told their role."""

    name = "undercover"
    title = "Undercover"
    roles = ROLES
    reveal_phases = frozenset({"vote_result"})
    options = {"probe_schedule": PROBE_SCHEDULES}

    def __init__(self, pairs: Sequence[Mapping[str, Any]] | None = None):
        self._pairs = None if pairs is None else [dict(p) for p in pairs]

    def pairs(self) -> list[dict[str, Any]]:
        """The word pairs to deal from: the explicit ones, else the shipped content (read on first use)."""
        if self._pairs is None:
            return content.load("undercover_pairs")["pairs"]
        return self._pairs

    def params(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        check_keys(raw, [], "params", optional=["players", "rounds", "clue", "probe_schedule"])
        players = raw.get("players", 4)
        require(is_int(players) and MIN_PLAYERS <= players <= MAX_PLAYERS, "params.players",
                f"must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}")
        rounds = raw.get("rounds", 2)
        require(is_int(rounds) and 1 <= rounds <= 10, "params.rounds", "must be an integer from 1 to 10")
        clue = raw.get("clue", "sentence")
        require(clue in CLUE_MODES, "params.clue", f"must be one of {list(CLUE_MODES)}")
        return {"players": players, "rounds": rounds, "clue": clue, **probe_schedule(raw, PROBE_SCHEDULES)}

    def players(self, params: Mapping[str, Any]) -> int:
        return params["players"]

    def deal(self, params: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        pairs = self.pairs()
        if not pairs:
            raise SetupError("content.undercover_pairs", "there are no word pairs to deal from")
        pair = rng.choice(pairs)
        return {"pair": {k: pair[k] for k in ("id", "civilian", "undercover") if k in pair},
                "undercover": rng.randrange(params["players"])}

    def check_setup(self, params: Mapping[str, Any], setup: Any) -> None:
        check_keys(setup, ["pair", "undercover"], "setup")
        check_pair(setup["pair"], "setup.pair")
        undercover = setup["undercover"]
        require(is_int(undercover) and 0 <= undercover < params["players"], "setup.undercover",
                f"must be a seat from 0 to {params['players'] - 1}")

    def role_of(self, params: Mapping[str, Any], setup: Mapping[str, Any], seat: Seat) -> str:
        return "undercover" if seat == setup["undercover"] else "civilian"

    def start(self, params: Mapping[str, Any], setup: Mapping[str, Any]) -> State:
        return UndercoverState(self, params, setup)

    def counterfactuals(self, params, setup, seat, rng) -> list[dict[str, Any]]:
        pair = dict(setup["pair"])
        others = [s for s in range(params["players"]) if s != seat]
        if seat != setup["undercover"]:
            # A civilian cannot tell which other seat holds the odd word.
            return [{"pair": pair, "undercover": s} for s in others if s != setup["undercover"]]
        # The undercover cannot tell its word from the majority's: it may as well be a civilian.
        swapped = {**pair, "civilian": pair["undercover"], "undercover": pair["civilian"]}
        return [{"pair": swapped, "undercover": s} for s in others]


GAME = Undercover()

FACTS = Facts(
    winning="the civilians win by accusing the undercover, the undercover if a civilian is accused; "
            "a tied vote has no winner",
    outcome=Outcome("magic_outcome", {"civilians_win": "civilians win", "undercover_wins": "undercover wins",
                                      "even_vote": "even vote"}),
    default_opponent="undercover/associative",
    goals={None: "Work out from the clues whether your word is the odd one out. The civilians win if "
                 "the vote accuses the undercover; the undercover wins if it accuses a civilian."},
    roles_public_at="vote_result", setup_public_at="vote_result",
    hidden=HiddenRole("undercover", called="the undercover", told=False, talk=("clue",)),
    magic=True,
)
