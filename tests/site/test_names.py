"""Names made safe to show (`visible`) and to compare (`skeleton`, `confusable`, after Unicode TR39;
`fold` and `lookalike`, case, separators and punctuation ignored as well)."""

from __future__ import annotations

import pytest

from site_builder.names import confusable, fold, lookalike, skeleton, visible


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


# Accepted beside the board's names before case and separators were folded (issue 32).
CASE_AND_SEPARATORS = [
    ("GEMMA3-270M", "gemma3-270m"),
    ("gemma3_270m", "gemma3-270m"),
    ("gemma-3-270m", "gemma3-270m"),
    ("gemma3 270m", "gemma3-270m"),
    ("gemma3.270m", "gemma3-270m"),
    ("Gemma3—270M", "gemma3-270m"),     # an em dash
    ("Assoc", "assoc"),
    ("ann", "Ann"),
    ("ANN", "Ann"),
    ("local_cpu", "local-cpu"),
    ("builtin_", "builtin"),
    ("Straße", "STRASSE"),                # full case folding: sharp s is ss
]


@pytest.mark.parametrize("a, b", CASE_AND_SEPARATORS)
def test_names_differing_in_case_or_separators_fold_alike(a, b):
    assert fold(a) == fold(b)
    assert lookalike(a, b) and lookalike(b, a)
    assert not confusable(a, b)  # the TR39 skeleton alone keeps them apart


@pytest.mark.parametrize("other", LOOKALIKES)
def test_every_confusable_is_a_lookalike(other):
    assert lookalike(other, "gemma3-270m")


@pytest.mark.parametrize("a, b", [
    ("Вob", "bob"),        # a Cyrillic capital Ve: looks like "Bob", which is "bob" but for case
    ("ВOB", "bob"),
    ("cIaude", "Claude"),       # capital I for l, and case
    ("GPT-4O", "gpt-40"),       # capital O for zero, and case
])
def test_a_lookalike_and_a_case_change_together_are_caught(a, b):
    assert lookalike(a, b)


# A digit written for a letter, either way round (issue 41: "l0cal-cpu" passed beside "local-cpu").
DIGITS_FOR_LETTERS = [
    ("l0cal-cpu", "local-cpu"),          # zero for o
    ("local-cpu", "l0cal-cpu"),          # and o for zero
    ("gpt-4o", "gpt-40"),
    ("bui1tin", "builtin"),              # one for l (already a TR39 confusable)
    ("1ocal-cpu", "local-cpu"),
    ("gemm4", "gemma"),
    ("5eer", "seer"),
    ("b00t", "boot"),
    ("r4nk3d", "ranked"),
    ("l\u0660cal-cpu", "local-cpu"),   # an Arabic-Indic zero
    ("ranked-1-gemma3-27om-2026-11-28-a", "ranked-1-gemma3-270m-2026-11-28-a"),  # past the readings' limit
]


@pytest.mark.parametrize("a, b", DIGITS_FOR_LETTERS)
def test_a_digit_for_a_letter_is_a_lookalike(a, b):
    assert lookalike(a, b) and lookalike(b, a)


@pytest.mark.parametrize("a, b", [
    ("gemma3-270m", "gemma3-270m"),        # identical: the caller's business
    ("gemma3-270m", "gemma3-270m-v2"),
    ("gpt-4o", "gpt-4"),
    ("llama-3", "llama-8"),
    ("gpt-4o", "gpt-4s"),
    ("my-model", "my-modem"),
    ("qwen2.5-7b", "qwen2.5-1.5b"),
    ("Ann", "Anna"),
    ("play-dana-3", "play-dana-4"),
    ("gpt+cot", "gptcot"),                 # a symbol is not a separator
    ("llama-6b", "llama-8b"),              # no two digits share a letter
    ("qwen-6b", "qwen-9b"),
    ("phi-2", "phi-3"),
])
def test_names_that_differ_visibly_are_not_lookalikes(a, b):
    assert not lookalike(a, b) and not lookalike(b, a)


def test_fold_is_stable_and_drops_only_separators_and_punctuation():
    assert fold("gemma3-270m") == fold(fold("gemma3-270m"))
    assert fold(" a-b_c.d/e:f (g) \u00a0h\u3000i ") == fold("abcdefghi")
    assert fold("caf\u00e9") != fold("cafe")  # an accent shows
