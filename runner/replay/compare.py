"""Comparing two JSON values: where the rules' output and a replay's record first differ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from runner.replay.format import field_key


def first_difference(expected: Any, actual: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ: (path, expected, actual), or None.

    Numbers compare by value but booleans never equal numbers, as in JSON.
    """
    if _same_json(expected, actual):
        return None
    diff = _difference(expected, actual)
    if diff is None:
        return None
    steps, left, right = diff
    return (where + "".join(reversed(steps)), left, right)


def _same_json(expected: Any, actual: Any) -> bool:
    """A quick yes for the common case (the rules made exactly the recorded event): the same JSON
    text (so no bool is taken for a number, nor an int for a float), and where the text holds a
    null, which NaN and infinities also become, equal values; otherwise the full comparison decides."""
    try:
        text = orjson.dumps(expected)
        return text == orjson.dumps(actual) and (b"null" not in text or expected == actual)
    except TypeError:  # not JSON (a key that is not a string): compare in full
        return False


def _difference(expected: Any, actual: Any) -> tuple[list[str], Any, Any] | None:
    """`first_difference` with the path as steps from the leaf up (only built for a difference)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        same_kind = isinstance(expected, bool) and isinstance(actual, bool)
        return None if same_kind and expected == actual else ([], expected, actual)
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in expected:
            if key not in actual:
                return ([field_key(key)], expected[key], "(missing)")
            diff = _difference(expected[key], actual[key])
            if diff:
                diff[0].append(field_key(key))
                return diff
        for key in actual:
            if key not in expected:
                return ([field_key(key)], "(no such field)", actual[key])
        return None
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return ([], list(expected), list(actual))
        for i, (a, b) in enumerate(zip(expected, actual)):
            diff = _difference(a, b)
            if diff:
                diff[0].append(f"[{i}]")
                return diff
        return None
    numbers = (int, float)
    if isinstance(expected, numbers) and isinstance(actual, numbers):
        return None if expected == actual else ([], expected, actual)
    if type(expected) is not type(actual) or expected != actual:
        return ([], expected, actual)
    return None
