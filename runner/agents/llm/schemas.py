"""JSON Schemas of the answers a model is asked for, built per decision from the legal actions.

With structured outputs (constrained decoding) the provider forces the reply to match the
schema: enums of the legal words, players or options, integer ranges, fixed-length lists.
Every schema is strict (`additionalProperties: false`, every property required) and carries
every bound the rules know; the provider adapters drop the keywords their API refuses
(runner/llm/dialects.py). The reply is still read by `parse.py` and checked by the rules: a
schema narrows what a model can say, it never decides what is legal.

A schema may put a bounded free-text `reasoning` property first, so that a model constrained
to JSON can still think before it commits to the move (`reasoning_chars` > 0, at most 1,000:
llama.cpp expands a maxLength into grammar rules and fails on much longer ones).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The free-text field a schema may put before the answer fields.
REASONING = "reasoning"
#: Longest clue, statement or free text a schema allows (the rules check the real limits).
_WORD_CHARS = 40
_ONE_WORD = "^[A-Za-z][A-Za-z'-]*$"
_SENTENCE_CHARS = 300


def _object(properties: Mapping[str, Any], reasoning_chars: int) -> dict[str, Any]:
    """A strict object schema: the reasoning first (when wanted), then the answer fields."""
    props: dict[str, Any] = {}
    if reasoning_chars > 0:
        props[REASONING] = {"type": "string", "maxLength": reasoning_chars}
    props.update(properties)
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _names(seats: Sequence[Any], names: Sequence[str]) -> dict[str, Any]:
    """One of the given seats, by display name."""
    return {"type": "string", "enum": [names[s] for s in seats]}


def _enum(options: Sequence[Any]) -> dict[str, Any]:
    return {"type": "string", "enum": [str(o) for o in options]}


def action_schema(legal: Mapping[str, Any], names: Sequence[str], reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of the answer to the decision `legal` describes (the rules engine's `legal`)."""
    field = legal.get("field")
    if field in ("vote", "proposal", "accuse"):
        value = _names(legal.get("options", []), names)
    elif field == "look":
        count = int(legal.get("count", 2))
        value = {"type": "array", "items": _names(legal.get("options", []), names),
                 "minItems": count, "maxItems": count}
    elif field in ("choice", "guess"):
        value = _enum(legal.get("options", []))
    elif field == "clue":
        mode = legal.get("mode")
        if mode == "subset":
            words = list(legal.get("words", []))
            value = {"anyOf": [{"type": "array", "items": _enum(words), "maxItems": len(words)},
                               {"type": "null"}]}
        elif mode == "word":
            # One word of letters (with inner hyphens or apostrophes): legal in both games that ask
            # for one, which then check the rest (e.g. that it is not one's own word).
            value = {"type": "string", "pattern": _ONE_WORD, "maxLength": _WORD_CHARS}
        else:
            value = {"type": "string", "maxLength": _SENTENCE_CHARS}
    elif field == "text":
        # No maxLength: llama.cpp turns one into a grammar that fails (and takes its server down)
        # beyond about a thousand characters. The rules check the statement's length.
        value = {"type": "string"}
    elif field == "split":
        # No JSON Schema can say "sums to 100", and a decoder held to three free numbers writes
        # shares it cannot add up (a 270M model wrote [1, 2, 3] every time). So the schema lists
        # the splits in whole steps of SPLIT_STEP that sum to 100; APIs that do not take a list of
        # lists get three numbers instead (runner/llm/dialects.py), and the rules check the sum.
        value = {"enum": split_grid(len(legal.get("order", [])) or 3)}
    elif field == "contribution":
        low, high = int(legal.get("min", 0)), int(legal.get("max", 0))
        # Every allowed amount, listed where that is short: some servers ignore integer bounds.
        value = ({"type": "integer", "enum": list(range(low, high + 1))} if high - low <= MAX_LISTED
                 else {"type": "integer", "minimum": low, "maximum": high})
    else:
        raise ValueError(f"no answer schema for decision field {field!r}")
    return _object({field: value}, reasoning_chars)


#: The step of the splits a structured Cost Sharing proposal chooses from (231 splits of three).
SPLIT_STEP = 5
#: Integer ranges up to this long are listed as an enum.
MAX_LISTED = 200


def split_grid(size: int, step: int = SPLIT_STEP, total: int = 100) -> list[list[int]]:
    """Every split of `total` among `size` shares in whole multiples of `step`, in a fixed order."""
    if size == 1:
        return [[total]]
    return [[first, *rest] for first in range(total, -1, -step) for rest in split_grid(size - 1, step, total - first)]


def probe_schema(kind: str, about: int | None, seat: int, roles: Sequence[str], names: Sequence[str],
                 reasoning_chars: int = 0, words: Sequence[str] = ()) -> dict[str, Any]:
    """The schema of a belief probe's answer (`words`: the card, for the Chameleon's `secret`)."""
    if kind == "self_role":
        return _object({"role": _enum(roles)}, reasoning_chars)
    if kind == "secret":
        return _object({"word": _enum(words)}, reasoning_chars)
    if kind == "suspected":
        return _object({"seat": _names(range(len(names)), names)}, reasoning_chars)
    if kind == "suspect":
        seats = [s for s in range(len(names)) if s != seat]
    elif kind == "suspect_of":
        seats = [s for s in range(len(names)) if s != about]
    else:
        raise ValueError(f"unknown probe kind {kind!r}")
    return _object({"seat": _names(seats, names)}, reasoning_chars)


def judgement_schema(others: Sequence[str], roles: Sequence[str], reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of a Judgement: for every other player, a role of the game and its probability."""
    guess = _object({"role": _enum(roles), "p": {"type": "number", "minimum": 0.01, "maximum": 1.0}}, 0)
    return _object({name: guess for name in others}, reasoning_chars)


#: Characters a structured plan may take: 80 words of ordinary English, with room to spare.
PLAN_CHARS = 600


def plan_schema(reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of a Strategy phase answer: the plan as text."""
    return _object({"plan": {"type": "string", "maxLength": PLAN_CHARS}}, reasoning_chars)


def favor_schema(others: Sequence[str], reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of a Favor Dynamics rating: 1 to 10 for every other player."""
    return _object({name: {"type": "integer", "minimum": 1, "maximum": 10} for name in others}, reasoning_chars)


def pgm_schema(views: Sequence[tuple[str, Sequence[str]]], reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of a PGM update: per view (by its holder's name), "more", "less" or "same" per player."""
    return expect_schema(views, ["more", "less", "same"], reasoning_chars)


def expect_schema(views: Sequence[tuple[str, Sequence[str]]], words: Sequence[str],
                  reasoning_chars: int = 0) -> dict[str, Any]:
    """The schema of a PGM update: per view (by its holder's name), one of `words` per player it covers
    (a suspicion change, or a next move in the game-theory games)."""
    word = _enum(words)
    return _object({holder: _object({name: word for name in players}, 0) for holder, players in views},
                   reasoning_chars)


def without_reasoning(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A structured answer without its reasoning field: what the readers of `parse.py` expect."""
    return {k: v for k, v in answer.items() if k != REASONING}
