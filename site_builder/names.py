"""Names people and agents choose, made safe to show and to compare.

`visible` cleans a free-text name (a commit author, an agent label) for display: it removes what
renders as nothing or reorders what follows (control and format characters, bidirectional
overrides, zero-width and other default-ignorable code points) and collapses whitespace, so a name
shows as what it is.

`skeleton` and `confusable` follow Unicode TR39 (https://www.unicode.org/reports/tr39/#def-skeleton):
two strings whose skeletons are equal look alike ("gеmma" with a Cyrillic е, "27Om" with a letter O,
"rn" for "m"). The confusable classes come from the `confusable-homoglyphs` package (Unicode's
confusables.txt), never from a hand-made table.

`lookalike` is how names are compared where a name must not pass for another (agents, people and
tournaments on the board, site_builder/submission/ownership.py): equal skeletons, or equal `fold`s (case,
separators and punctuation ignored as well), so "GEMMA3-270M", "gemma3_270m" and "gemma-3-270m"
all look like "gemma3-270m"; a digit also reads as the letter it is written for ("l0cal-cpu" looks
like "local-cpu", and "gpt-4o" like "gpt-40").
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from functools import cache, lru_cache

from confusable_homoglyphs import confusables

# Default-ignorable code points that are not of category Cf (DerivedCoreProperties.txt), plus the
# tag and variation-selector block (U+E0000-U+E0FFF, default-ignorable whether assigned or not).
_IGNORABLE_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
                     (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
# Control, format (which holds every bidirectional control, U+200B-U+200F, U+2060-U+2064, U+FEFF, the
# soft hyphen) and line/paragraph separators.
_IGNORABLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def ignorable(char: str) -> bool:
    """Whether one character renders as nothing, or only changes how its neighbours render."""
    code = ord(char)
    return (unicodedata.category(char) in _IGNORABLE_CATEGORIES
            or any(low <= code <= high for low, high in _IGNORABLE_RANGES))


def _drop_ignorable(text: str) -> str:
    return "".join(c for c in text if not ignorable(c))


def visible(text: str) -> str:
    """`text` as it shows: default-ignorable, control and bidirectional-control characters removed,
    every run of whitespace (tabs, newlines, U+2028 included) one space, no space at either end.

    visible("Jane\\u202e eoD\\u200b") == "Jane eoD"; visible(" a\\t\\n b ") == "a b".
    """
    # Whitespace first, so "Jane\nDoe" stays two words rather than becoming "JaneDoe".
    spaced = "".join(" " if c.isspace() else c for c in text)
    return " ".join(_drop_ignorable(spaced).split())


@cache
def _prototypes() -> dict[str, str]:
    """Each character that has a look-alike -> the string every member of its confusable class maps to.

    The package's data maps a character to its homoglyphs and is symmetric, so single characters are
    joined into classes (union-find) with the smallest code point as the representative. A character
    whose homoglyph is a sequence ("m" and "rn") maps to that sequence, itself mapped character by
    character, so "m" and "rn" share a skeleton. Entries are put in NFD (as skeleton's input is) and
    cleared of the U+200E marks the data wraps right-to-left entries in.
    """
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        parent.setdefault(c, c)
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    expansions: dict[str, set[str]] = {}
    for key, entries in confusables.confusables_data.items():
        a = unicodedata.normalize("NFD", _drop_ignorable(key))
        for entry in entries:
            b = unicodedata.normalize("NFD", _drop_ignorable(entry["c"]))
            if not a or not b or a == b:
                continue
            if len(a) == 1 and len(b) == 1:
                x, y = find(a), find(b)
                if x != y:
                    parent[max(x, y)] = min(x, y)  # the root is always the class's smallest code point
            elif len(a) == 1:
                expansions.setdefault(a, set()).add(b)
            elif len(b) == 1:
                expansions.setdefault(b, set()).add(a)
            # a sequence like another sequence: skeletons map characters, so it cannot be used
    for c in list(parent) + list(expansions):
        find(c)
    by_class: dict[str, str] = {}
    for c, sequences in expansions.items():
        root = find(c)
        best = min(sequences)
        by_class[root] = min(by_class.get(root, best), best)  # deterministic whatever the member order

    resolved: dict[str, str] = {}

    def resolve(c: str, visiting: frozenset[str]) -> str:
        root = find(c)
        if root in resolved:
            return resolved[root]
        sequence = by_class.get(root)
        if sequence is None or root in visiting:  # a cycle: stop at the representative
            return root
        out = "".join(resolve(x, visiting | {root}) for x in sequence)
        resolved[root] = out
        return out

    table = {}
    for c in list(parent):
        target = resolve(c, frozenset())
        if target != c:
            table[c] = target
    return table


def skeleton(text: str) -> str:
    """TR39's skeleton of `text` after NFKC: NFD, default-ignorable code points and whitespace runs
    cleaned as `visible` does, every character mapped to its confusable class's prototype, NFD again.
    Equal skeletons mean the strings look alike; the skeleton itself is not meant to be shown."""
    text = visible(unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text)))
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in text))


def confusable(a: str, b: str) -> bool:
    """Whether two different strings look alike (equal skeletons). Identical strings are not
    confusable: the caller decides what a repeated name means. Strings equal only after NFKC
    ("ｇemma" and "gemma") are confusable: they are different names that look the same."""
    return a != b and skeleton(a) == skeleton(b)


def _separator(char: str) -> bool:
    """Whether a character is a space, separator or punctuation mark (Unicode categories Z* and P*)."""
    return unicodedata.category(char)[0] in "ZP"


def _unseparated(text: str) -> str:
    return "".join(c for c in text if not _separator(c))


#: The letters a digit is written for ("l0cal" for "local", "gemm4" for "gemma"): each digit, of any
#: script, may also be read as these. No two digits share a letter (6 and 8 would both be "b", 6
#: and 9 both "g"), so names that differ in a digit ("llama-6b", "llama-8b") stay apart; 1 is
#: already "l" in the TR39 skeleton, and 6 has no reading of its own.
DIGIT_LETTERS: dict[int, tuple[str, ...]] = {0: ("o",), 1: ("l", "i"), 2: ("z",), 3: ("e",), 4: ("a",),
                                             5: ("s",), 7: ("t",), 8: ("b",), 9: ("g",)}


@cache
def _readings(char: str) -> tuple[str, ...]:
    """How one character (of a name in NFD) may be read once case, separators and punctuation are
    ignored: case folded then its skeleton (what `fold` takes), and its skeleton case folded then
    skeleton again (a look-alike capital, Cyrillic "В" for "B", read as "b"); for a separator or
    punctuation mark also nothing, since the skeleton maps some (an em dash) to a letter; for a digit
    also the letters it is written for (DIGIT_LETTERS), so "l0cal" reads as "local" and, since
    names are compared by shared readings, "local" as "l0cal"."""
    readings = [_unseparated(skeleton(char.casefold())), _unseparated(skeleton(skeleton(char).casefold()))]
    if _separator(char):
        readings.insert(0, "")
    for letter in DIGIT_LETTERS.get(unicodedata.digit(char, None), ()):  # type: ignore[call-overload]
        readings.append(_unseparated(skeleton(letter)))
    return tuple(dict.fromkeys(readings))


def _characters(text: str) -> str:
    """`text` as skeleton reads it: NFKC, cleaned as `visible` does, NFD."""
    return visible(unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text)))


def fold(text: str) -> str:
    """The key under which names differing only in case, separators or punctuation are one:
    NFKC, case folded, TR39 skeleton, every space, separator and punctuation mark removed.

    fold("GEMMA3-270M") == fold("gemma3_270m") == fold("gemma-3-270m") == fold("gemma3-270m").
    Not meant to be shown."""
    return "".join(_readings(c)[0] for c in _characters(text))


#: Beyond this many readings of one name, only the two uniform ones are compared.
_MAX_READINGS = 256


@lru_cache(maxsize=65536)
def readings(text: str) -> frozenset[str]:
    """Every way `text` may be read, character by character (`_readings`).

    Two orders are needed, per character: case folding first misses a look-alike capital
    (Cyrillic "В" lower-cases to "в", which looks like no Latin letter, yet "В" looks like "B"),
    skeleton first misses a case pair that the skeleton sends apart ("O" becomes "0", "o" stays
    "o"); a name may use both ("ВOB" and "bob"). Joining the two relations into one table of
    characters would close them transitively and make much of the alphabet one letter (r, t, u, y
    and z among them). The reading that takes the second way throughout is a function of the TR39
    skeleton, so confusable names always share a reading. Two names look alike exactly when they
    share a reading, so a set of names can be indexed by their readings (site_builder/submission/reserved.py)."""
    options = [_readings(c) for c in _characters(text)]
    if math.prod(len(o) for o in options) > _MAX_READINGS:
        return frozenset("".join(o[min(i, len(o) - 1)] for o in options) for i in range(3))
    return frozenset("".join(parts) for parts in itertools.product(*options))


def lookalike(a: str, b: str) -> bool:
    """Whether two different names could be taken for one another: confusable (equal skeletons),
    or equal but for case, separators and punctuation (equal folds), or both together ("ВOB", with
    a Cyrillic В and a letter O, and "bob"). Identical strings are not look-alikes: the caller
    decides what a repeated name means."""
    return a != b and not readings(a).isdisjoint(readings(b))
