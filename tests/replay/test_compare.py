"""Where two JSON values first differ, as the checker reports it."""

import pytest

from runner.replay.compare import first_difference


@pytest.mark.parametrize("expected, actual, difference", [
    ({"a": [1, 2]}, {"a": [1, 2.0]}, None),
    ({"a": 1}, {"a": True}, (".a", 1, True)),
    ({"a": 1}, {}, (".a", 1, "(missing)")),
    ({}, {"odd key": 1}, ('["odd key"]', "(no such field)", 1)),
    ([1, [2, 3]], [1, [2, 4]], ("[1][1]", 3, 4)),
    ([1], [1, 2], ("", [1], [1, 2])),
    ("1", 1, ("", "1", 1)),
    ({"seat": None, "a": [0]}, {"seat": None, "a": [0]}, None),
    ({"a": None}, {"a": float("nan")}, (".a", None, float("nan"))),
    ({"a": float("inf")}, {"a": None}, (".a", float("inf"), None)),
    ([float("nan")], [float("nan")], ("[0]", float("nan"), float("nan"))),
], ids=["numbers-by-value", "bool-is-not-a-number", "missing-key", "extra-odd-key", "nested-list",
        "length", "string-vs-number", "equal-with-null", "null-is-not-nan", "infinity-is-not-null",
        "nan-is-not-nan"])
def test_first_difference(expected, actual, difference):
    found = first_difference(expected, actual)
    # NaN is unequal to itself: compare how the results print.
    assert repr(found) == repr(difference)
