"""The shipped word and game content: file shapes and the rules the engines and agents rely on."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from runner import content

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: A card word, pair word or clue: lowercase letters, hyphens only between letters.
WORD = re.compile(r"^[a-z]+(?:-[a-z]+)*$")
#: Words a Title Case topic may keep in lowercase.
MINOR_WORDS = {"a", "and", "in", "of", "the"}
MIN_CLUES = 8
MIN_SPECIFIC = 2  # clues evoking only this word on a card: what a revealing clue is made of
MIN_PAIR_SHARED = 3
MIN_PAIR_OWN = 3
MAGIC_MULTIPLIERS = [1, 1.2, 1.5, 1.8, 2.2, 3, 5]
FEE_RANGE = (600_000, 2_000_000)
MAX_PASSENGERS_PER_FLIGHT = 450  # nothing flying carries more


def is_int(x: object) -> bool:
    """True for a real integer (JSON booleans load as bool, which Python counts as int)."""
    return isinstance(x, int) and not isinstance(x, bool)


def cards() -> list[dict]:
    return content.load("chameleon_cards")["cards"]


def pairs() -> list[dict]:
    return content.load("undercover_pairs")["pairs"]


def clues() -> dict[str, dict[str, int]]:
    return content.load("associations")["clues"]


def airlines() -> list[dict]:
    return content.load("cost_sharing_airlines")["airlines"]


# --- rule checkers (return human-readable problems; shipped content must give none) ---------------


def entry_problems(word: str, evoked: Mapping[str, object]) -> list[str]:
    """Problems with one association entry on its own: size, clue form, weights, self-reference."""
    out = []
    if len(evoked) < MIN_CLUES:
        out.append(f"{word}: {len(evoked)} clues, needs {MIN_CLUES}")
    for clue, weight in evoked.items():
        if not WORD.match(clue):
            out.append(f"{word}: clue {clue!r} is not a single lowercase word")
        if not (is_int(weight) and 1 <= weight <= 5):
            out.append(f"{word}: clue {clue!r} has weight {weight!r}, not an integer 1..5")
        if clue in word or word in clue:
            out.append(f"{word}: clue {clue!r} is or contains the word")
    if evoked and max((w for w in evoked.values() if is_int(w)), default=0) < 4:
        out.append(f"{word}: no strongly evoked clue (weight 4 or 5)")
    return out


def card_problems(words: Sequence[str], table: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Problems with the clues of one card: card words as clues, too few generic or specific clues."""
    out = []
    on_card = set(words)
    for word in words:
        evoked = table.get(word)
        if evoked is None:
            out.append(f"{word}: no association entry")
            continue
        others = set().union(*(table.get(o, {}) for o in on_card - {word}))
        if bad := sorted(c for c in evoked if c in on_card):
            out.append(f"{word}: clue(s) {bad} are words of the same card")
        shared = sum(c in others for c in evoked)
        if 3 * shared < len(evoked):
            out.append(f"{word}: only {shared} of {len(evoked)} clues are shared with another word of the card")
        if len(evoked) - shared < MIN_SPECIFIC:
            out.append(f"{word}: only {len(evoked) - shared} clues are specific to it on the card")
    return out


def pair_problems(a: str, b: str, table: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Problems with an Undercover pair: too little overlap, too little difference, or a giveaway."""
    if a not in table or b not in table:
        return [f"{w}: no association entry" for w in (a, b) if w not in table]
    out = []
    shared = set(table[a]) & set(table[b])
    if len(shared) < MIN_PAIR_SHARED:
        out.append(f"{a}/{b}: only {len(shared)} shared clues")
    for w in (a, b):
        if len(set(table[w]) - shared) < MIN_PAIR_OWN:
            out.append(f"{w}: only {len(set(table[w]) - shared)} clues of its own in the pair")
    for w, other in ((a, b), (b, a)):  # "books" may hint at "bookshop"; "bookshops" would name it
        if bad := sorted(c for c in table[w] if other in c):
            out.append(f"{w}: clue(s) {bad} name the other word of the pair")
    return out


# --- the checkers themselves catch what they should ------------------------------------------------

TOY = {
    "apple": {"sweet": 3, "tree": 3, "juicy": 2, "core": 5, "orchard": 4, "cider": 2, "crunchy": 3, "pie": 2},
    "lemon": {"sweet": 1, "tree": 2, "juicy": 2, "sour": 5, "citrus": 4, "zest": 3, "acid": 3, "squeeze": 2},
    "plum": {"sweet": 2, "tree": 3, "juicy": 2, "sour": 1, "prune": 5, "stone": 4, "jam": 3, "purple": 4},
}


@pytest.mark.parametrize("word, evoked, expected", [
    ("apple", TOY["apple"], []),
    ("apple", dict(list(TOY["apple"].items())[:7]), ["7 clues"]),
    ("apple", {**TOY["apple"], "Red": 2}, ["not a single lowercase word"]),
    ("apple", {**TOY["apple"], "big apple": 2}, ["not a single lowercase word", "contains the word"]),
    ("apple", {**TOY["apple"], "pie": 6}, ["weight 6"]),
    ("apple", {**TOY["apple"], "pie": 2.0}, ["weight 2.0"]),
    ("apple", {**TOY["apple"], "pie": True}, ["weight True"]),
    ("apple", {**TOY["apple"], "apples": 2}, ["contains the word"]),
    ("pineapple", {**TOY["apple"], "apple": 2}, ["contains the word"]),
    ("apple", {k: min(v, 3) for k, v in TOY["apple"].items()}, ["no strongly evoked clue"]),
], ids=["ok", "too-few", "uppercase", "space", "weight-high", "weight-float", "weight-bool",
        "contains-word", "inside-word", "all-weak"])
def test_entry_checker(word, evoked, expected):
    problems = entry_problems(word, evoked)
    assert len(problems) == len(expected), problems
    for problem, fragment in zip(problems, expected):
        assert fragment in problem


@pytest.mark.parametrize("table, words, expected", [
    (TOY, ["apple", "lemon", "plum"], []),
    ({**TOY, "lemon": {**TOY["lemon"], "plum": 1}}, ["apple", "lemon", "plum"], ["words of the same card"]),
    ({**TOY, "apple": {k: v for k, v in TOY["apple"].items() if k not in ("sweet", "tree", "juicy")}
      | {"newton": 2, "teacher": 1, "red": 1}}, ["apple", "lemon", "plum"], ["0 of 8 clues are shared"]),
    ({**TOY, "lemon": dict.fromkeys(TOY["apple"], 2)}, ["apple", "lemon", "plum"],
     ["only 0 clues are specific", "only 0 clues are specific"]),
    (TOY, ["apple", "lemon", "kiwi"], ["no association entry"]),
], ids=["ok", "card-word-as-clue", "no-generic-clues", "no-specific-clues", "missing-entry"])
def test_card_checker(table, words, expected):
    problems = card_problems(words, table)
    assert len(problems) == len(expected), problems
    for problem, fragment in zip(problems, expected):
        assert fragment in problem


@pytest.mark.parametrize("a, b, table, expected", [
    ("apple", "plum", TOY, []),
    ("apple", "lemon", {**TOY, "lemon": {k: v for k, v in TOY["lemon"].items() if k not in ("tree", "juicy")}
                        | {"yellow": 4, "tea": 2}}, ["only 1 shared"]),
    ("apple", "plum", {**TOY, "plum": {**TOY["apple"], "prune": 5}},
     ["apple: only 0 clues of its own", "plum: only 1 clues of its own"]),
    ("apple", "plum", {**TOY, "apple": {**TOY["apple"], "plums": 1}}, ["name the other word"]),
    ("apple", "kiwi", TOY, ["kiwi: no association entry"]),
], ids=["ok", "too-little-overlap", "no-difference", "partner-as-clue", "missing-entry"])
def test_pair_checker(a, b, table, expected):
    problems = pair_problems(a, b, table)
    assert len(problems) == len(expected), problems
    for problem, fragment in zip(problems, expected):
        assert fragment in problem


# --- file shapes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name, keys", [
    ("chameleon_cards", {"about", "cards"}),
    ("associations", {"about", "clues"}),
    ("undercover_pairs", {"about", "pairs"}),
    ("cost_sharing_airlines", {"about", "fees", "airlines"}),
    ("public_good", {"about", "multipliers", "endowment"}),
], ids=["chameleon_cards", "associations", "undercover_pairs", "cost_sharing_airlines", "public_good"])
def test_file_shape(name, keys):
    data = content.load(name)
    assert isinstance(data, dict) and set(data) == keys
    assert isinstance(data["about"], str) and len(data["about"].split()) >= 20


# --- Chameleon cards -------------------------------------------------------------------------------


def test_card_fields():
    for card in cards():
        assert set(card) == {"id", "topic", "words"}, card
        assert isinstance(card["id"], str) and SLUG.match(card["id"]), card["id"]
        assert isinstance(card["words"], list), card["id"]
        topic = card["topic"]
        assert isinstance(topic, str) and topic.strip() == topic and topic, card["id"]
        words = topic.split(" ")
        assert words[0][0].isupper(), topic
        assert all(w[0].isupper() or w in MINOR_WORDS for w in words), topic


def test_card_ids_unique():
    ids = Counter(c["id"] for c in cards())
    assert [i for i, n in ids.items() if n > 1] == []


def test_card_words_are_distinct_lowercase_tokens():
    for card in cards():
        bad = [w for w in card["words"] if not (isinstance(w, str) and WORD.match(w))]
        assert bad == [], card["id"]
        assert len(set(card["words"])) == len(card["words"]), f"{card['id']} repeats a word"


@pytest.mark.parametrize("size, minimum", [(16, 22), (10, 3), (15, 3), (20, 3)],
                         ids=["default-16", "ambiguity-10", "ambiguity-15", "ambiguity-20"])
def test_card_sizes(size, minimum):
    assert sum(len(c["words"]) == size for c in cards()) >= minimum


def test_default_cards_have_distinct_topics_and_no_card_is_repeated():
    topics = Counter(c["topic"] for c in cards() if len(c["words"]) == 16)
    assert [t for t, n in topics.items() if n > 1] == []
    word_sets = Counter(frozenset(c["words"]) for c in cards())
    assert max(word_sets.values()) == 1


# --- associations ----------------------------------------------------------------------------------


def used_words() -> set[str]:
    return {w for c in cards() for w in c["words"]} | {p[k] for p in pairs() for k in ("civilian", "undercover")}


def test_every_card_and_pair_word_has_an_entry_and_no_entry_is_stale():
    table = clues()
    assert sorted(used_words() - set(table)) == []
    assert sorted(set(table) - used_words()) == []


def test_association_entries():
    table = clues()
    assert all(isinstance(v, dict) for v in table.values())
    problems = [p for word, evoked in table.items() for p in entry_problems(word, evoked)]
    assert problems == []


@pytest.mark.parametrize("card_id", [c["id"] for c in content.load("chameleon_cards")["cards"]])
def test_card_clues_mix_generic_and_specific(card_id):
    card = next(c for c in cards() if c["id"] == card_id)
    assert card_problems(card["words"], clues()) == []


def test_weights_use_the_whole_scale():
    weights = Counter(w for evoked in clues().values() for w in evoked.values())
    assert set(weights) == {1, 2, 3, 4, 5}


# --- Undercover pairs ------------------------------------------------------------------------------


def test_pair_fields_and_counts():
    assert len(pairs()) >= 24
    for pair in pairs():
        assert set(pair) == {"id", "civilian", "undercover"}, pair
        assert isinstance(pair["id"], str) and SLUG.match(pair["id"]), pair
        for key in ("civilian", "undercover"):
            assert isinstance(pair[key], str) and WORD.match(pair[key]), pair
        assert pair["civilian"] != pair["undercover"], pair


def test_pairs_unique():
    assert max(Counter(p["id"] for p in pairs()).values()) == 1
    assert max(Counter(frozenset((p["civilian"], p["undercover"])) for p in pairs()).values()) == 1


@pytest.mark.parametrize("pair_id", [p["id"] for p in content.load("undercover_pairs")["pairs"]])
def test_pair_words_overlap_and_differ(pair_id):
    pair = next(p for p in pairs() if p["id"] == pair_id)
    assert pair_problems(pair["civilian"], pair["undercover"], clues()) == []


# --- Cost Sharing ----------------------------------------------------------------------------------


def test_fees():
    fees = content.load("cost_sharing_airlines")["fees"]
    assert isinstance(fees, list) and len(fees) >= 5
    assert all(is_int(f) and FEE_RANGE[0] <= f <= FEE_RANGE[1] for f in fees), fees
    assert len(set(fees)) == len(fees)


def test_airline_profiles():
    profiles = airlines()
    assert len(profiles) >= 20
    for a in profiles:
        assert set(a) == {"id", "flights_per_month", "passengers_per_month", "avg_flight_hours", "aircraft"}, a
        assert isinstance(a["id"], str) and SLUG.match(a["id"]), a
        assert is_int(a["flights_per_month"]) and a["flights_per_month"] > 0, a
        assert is_int(a["passengers_per_month"]) and a["passengers_per_month"] > 0, a
        hours = a["avg_flight_hours"]
        assert isinstance(hours, (int, float)) and not isinstance(hours, bool) and 0 < hours <= 24, a
        assert isinstance(a["aircraft"], str) and 0 < len(a["aircraft"]) <= 200, a
        assert a["passengers_per_month"] <= MAX_PASSENGERS_PER_FLIGHT * a["flights_per_month"], a
    assert max(Counter(a["id"] for a in profiles).values()) == 1


def usage(a: Mapping) -> tuple:
    return a["flights_per_month"], a["passengers_per_month"], a["avg_flight_hours"]


def test_airline_profiles_are_distinct_and_varied():
    profiles = airlines()
    assert max(Counter(usage(a) for a in profiles).values()) == 1
    passengers = [a["passengers_per_month"] for a in profiles]
    flights = [a["flights_per_month"] for a in profiles]
    assert max(passengers) >= 20 * min(passengers) and max(flights) >= 20 * min(flights)
    # Some profiles are near twins (within 10% on flights and passengers): a hard-to-argue split.
    close = [(a["id"], b["id"]) for i, a in enumerate(profiles) for b in profiles[i + 1:]
             if all(math.isclose(x, y, rel_tol=0.1) for x, y in zip(usage(a)[:2], usage(b)[:2]))]
    assert len(close) >= 2, close


# --- Public Good -----------------------------------------------------------------------------------


def test_public_good():
    data = content.load("public_good")
    assert data["multipliers"] == MAGIC_MULTIPLIERS
    assert all(isinstance(m, (int, float)) and not isinstance(m, bool) for m in data["multipliers"])
    assert is_int(data["endowment"]) and data["endowment"] == 100
