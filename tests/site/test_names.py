"""Names made safe to show (`visible`) and to compare (`skeleton`, `confusable`, after Unicode TR39)."""

from __future__ import annotations

import pytest

from site_builder.names import confusable, skeleton, visible


@pytest.mark.parametrize("text, shown", [
    ("Jane Doe", "Jane Doe"),
    ("  Jane \t\n Doe  ", "Jane Doe"),
    ("Jane\nDoe", "Jane Doe"),                         # a line break is a space, not nothing
    ("Jane\u2028Doe\u2029", "Jane Doe"),              # line and paragraph separators
    ("Eve\u202eliam\u202c", "Eveliam"),               # right-to-left override and its pop
    ("a\u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061cb", "ab"),
    ("ze\u200bro\u200c\u200d\u2060\ufeffwidth", "zerowidth"),
    ("soft\u00adhyphen", "softhyphen"),
    ("a\x00\x07\x1b[31mb\x7f\x85c", "a[31mb c"),     # NEL (U+0085) is a line break
    ("hangul\u115f\u1160\u3164\uffa0filler", "hangulfiller"),
    ("v\ufe0fs\U000e0100\u034f\u17b4\u180bx", "vsx"),  # variation selectors, grapheme joiner, ...
    ("tag\U000e0041\U000e007f", "tag"),
    ("\u200b\u202e", ""),
    ("@octocat", "@octocat"),                          # visible only cleans: what an @ means is the caller's
    ("Ünïcödé 名前 ±", "Ünïcödé 名前 ±"),
])
def test_visible_removes_what_does_not_show(text, shown):
    assert visible(text) == shown


def test_visible_is_idempotent_and_printable():
    for text in ("a\u202e\u200bb\t c", "\x1c\x1d x \u3000 y", "\U000e0001\U000e0020z"):
        assert visible(visible(text)) == visible(text)
        assert visible(text).isprintable()


LOOKALIKES = [
    "g\u0435mma3-270m",    # Cyrillic small ie
    "gemma3-27Om",         # capital letter O for zero
    "gemma3-270rn",        # r n for m
    "gemma3\u200b-270m",   # zero-width space
    "\uff47emma3-270m",    # fullwidth g
    "gemma3-270m\u202e",   # a trailing bidirectional override
    "gemma3\u2010270m",    # Unicode hyphen
    "gemma3-2\U0001d7d50m",  # mathematical bold digit seven
    " gemma3-270m",
]


@pytest.mark.parametrize("other", LOOKALIKES)
def test_lookalikes_of_an_agent_label_are_confusable(other):
    assert skeleton(other) == skeleton("gemma3-270m")
    assert confusable(other, "gemma3-270m") and confusable("gemma3-270m", other)


@pytest.mark.parametrize("a, b, expected", [
    ("gemma3-270m", "gemma3-270m", False),             # identical: the caller's business
    ("gemma3-270m", "gemma3-270m-v2", False),
    ("gpt-4o", "gpt-4", False),
    ("gpt-4o", "gpt-4O", False),                        # o and O do not look alike
    ("llama-3", "llama-8", False),
    ("claude", "c1aude", True),                         # digit one for l
    ("claude", "cIaude", True),                         # capital I for l
    ("paypal", "p\u0430yp\u0430l", True),               # Cyrillic a
    ("modern", "rnodern", True),
    ("caf\u00e9", "cafe\u0301", True),                  # composed and decomposed: the same text
    ("agent", "agent ", True),
    ("agent one", "agent\u00a0one", True),              # no-break space
    ("Agent", "agent", False),                          # case is visible
])
def test_confusable_scenarios(a, b, expected):
    assert confusable(a, b) is expected
    assert confusable(b, a) is expected


def test_skeleton_maps_a_sequence_and_its_lookalike_alike():
    assert skeleton("m") == skeleton("rn")
    assert skeleton("\u0435") == skeleton("e") == "e"
    assert skeleton("x\u200b\u2066y") == skeleton("xy")
    assert skeleton("gemma3-270m") == skeleton(skeleton("gemma3-270m"))  # stable on its own output
