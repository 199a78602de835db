"""The answer the model is asked for, per decision field: one wording for prompts and errors.

The same text is shown in the prompt ("end your reply with ...") and repeated in every parse
error, so that a model that got the form wrong is told again exactly what is expected.

Two wordings, by prompt set. Sets 2 and 3 show the answer by example, a line with placeholders
(`ANSWER: {"clue": "<your clue, one line>"}`), and small models copy the placeholder as their
move. From set 4 on the answer is described in words (`Described`: "a JSON object with one
field, "clue": your clue, ..."), with no literal a model can copy; structured outputs carry the
shape, and a reply that copies the description anyway is refused (copies.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: What a player is called in an answer: its name as the prompt writes it.
PLAYER = "<player name>"


def quoted(words: Sequence[str], last: str = "or") -> str:
    """Options as a readable list of JSON strings: "a", "b" or "c" (`last`: the word before the last)."""
    items = [json.dumps(w, ensure_ascii=False) for w in words]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def action_format(legal: Mapping[str, Any]) -> str:
    """The `ANSWER: {...}` line for the decision `legal` describes."""
    field = legal.get("field")
    if field == "clue":
        mode = legal.get("mode")
        if mode == "subset":
            return 'ANSWER: {"clue": ["<card word>", "<card word>"]}  (any number of card words, or {"clue": null})'
        if mode == "sentence":
            return 'ANSWER: {"clue": "<your clue, one line>"}'
        return 'ANSWER: {"clue": "<your one-word clue>"}'
    if field in ("vote", "accuse"):
        return f'ANSWER: {{"{field}": "{PLAYER}"}}'
    if field == "guess":
        return 'ANSWER: {"guess": "<a word of the card>"}'
    if field == "split":
        order = legal.get("order") or ["A", "B", "C"]
        shares = ", ".join(f"<share of {name}>" for name in order)
        return f'ANSWER: {{"split": [{shares}]}}  (numbers, summing to 100)'
    if field == "proposal":
        return 'ANSWER: {"proposal": "<airline name>"}'
    if field == "choice":
        return f'ANSWER: {{"choice": "<{" or ".join(legal.get("options", []))}>"}}'
    if field == "contribution":
        return (f'ANSWER: {{"contribution": <whole number from {legal.get("min", 0)} '
                f'to {legal.get("max")}>}}')
    if field == "text":
        return 'ANSWER: {"text": "<your statement>"}'
    if field == "look":
        return f'ANSWER: {{"look": ["{PLAYER}", "{PLAYER}"]}}'
    raise ValueError(f"no answer format for decision field {field!r}")


def probe_format(kind: str, roles: Sequence[str] = ()) -> str:
    """The `ANSWER: {...}` line of a belief probe."""
    if kind in ("suspect", "suspect_of"):
        return f'ANSWER: {{"seat": "{PLAYER}"}}'
    if kind == "self_role":
        return f'ANSWER: {{"role": "<{" or ".join(roles)}>"}}'
    if kind == "suspected":
        return f'ANSWER: {{"seat": "{PLAYER}"}}'
    if kind == "secret":
        return 'ANSWER: {"word": "<a word of the card>"}'
    raise ValueError(f"unknown probe kind {kind!r}")


def judgement_format(others: Sequence[str], roles: Sequence[str]) -> str:
    """The `ANSWER: {...}` line of the Judgement phase: each other player's likeliest role and its chance."""
    shown = others[:2]
    pairs = ", ".join(f'{json.dumps(name, ensure_ascii=False)}: {{"role": "<{" or ".join(roles)}>", '
                      f'"p": <0.01 to 1.00>}}' for name in shown)
    more = ", ..." if len(others) > len(shown) else ""
    return f"ANSWER: {{{pairs}{more}}}"


def expect_format(views: Sequence[tuple[str, Sequence[str]]], actions: Sequence[str]) -> str:
    """The `ANSWER: {...}` line of a PGM update in the game-theory games: per view, a move per player."""
    return _views_line(views, json.dumps(f"<{' or '.join(actions)}>"))


def _views_line(views: Sequence[tuple[str, Sequence[str]]], placeholder: str) -> str:
    """`ANSWER: {"<holder>": {"<player>": <placeholder>, ...}, ...}`: one object per view."""
    parts = []
    for holder, players in views:
        inner = ", ".join(f"{json.dumps(name, ensure_ascii=False)}: {placeholder}" for name in players)
        parts.append(f"{json.dumps(holder, ensure_ascii=False)}: {{{inner}}}")
    return "ANSWER: {" + ", ".join(parts) + "}"


#: The longest plan the Strategy phase may write (the Werewolf paper: "in no more than 80 words").
PLAN_WORDS = 80


def plan_format() -> str:
    """The `ANSWER: {...}` line of the Strategy phase: a short plan in the model's own words."""
    return f'ANSWER: {{"plan": "<your strategy for this move, at most {PLAN_WORDS} words>"}}'


def favor_format(others: Sequence[str]) -> str:
    """The `ANSWER: {...}` line of the Favor Dynamics call: a rating per other player."""
    shown = others[:2]
    pairs = ", ".join(f"{json.dumps(name, ensure_ascii=False)}: <1 to 10>" for name in shown)
    more = ", ..." if len(others) > len(shown) else ""
    return f"ANSWER: {{{pairs}{more}}}"


def pgm_format(views: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The `ANSWER: {...}` line of a PGM update: per view (by its holder's name), a word per player."""
    return _views_line(views, '"<more, less or same>"')


class Described(str):
    """An answer described in words (prompt set 4 on): the text parse errors repeat ("Answer again
    with ..."), and `shape`, the JSON object in words, which the closing rule builds on."""

    shape: str

    def __new__(cls, text: str, shape: str) -> "Described":
        described = super().__new__(cls, text)
        described.shape = shape
        return described


def _one_field(field: str, value: str) -> str:
    """The words for an object of one field: `a JSON object with one field, "clue": <value>`."""
    return f"a JSON object with one field, {json.dumps(field)}: {value}"


#: What each free-text value is, in words (prompt set 4 on): the copy check (copies.py) refuses a
#: move that is one of these phrases instead of the thing they describe.
FREE_TEXT = {
    "sentence": "your clue, in your own words, one line of text as a JSON string",
    "word": "your clue, in your own words, a single word as a JSON string",
    "text": "your statement, in your own words, as a JSON string",
    "plan": f"your strategy for this move, in your own words, at most {PLAN_WORDS} words, as a JSON string",
}


def described_action(legal: Mapping[str, Any]) -> str:
    """The answer object of a decision, in words."""
    field = legal.get("field")
    if field == "clue":
        mode = legal.get("mode")
        if mode == "subset":
            return _one_field("clue", "a list of the card's words you choose (any number of them, each a JSON "
                                      "string), or null to name none")
        return _one_field("clue", FREE_TEXT["sentence" if mode == "sentence" else "word"])
    if field == "vote":
        return _one_field(field, "the name of the player you vote for, as a JSON string")
    if field == "accuse":
        return _one_field(field, "the name of the player you pick, as a JSON string")
    if field == "guess":
        return _one_field(field, "the word of the card you guess, as a JSON string")
    if field == "split":
        order = legal.get("order") or ["A", "B", "C"]
        return _one_field(field, f"a list of {len(order)} numbers, the shares of {_listing(order)} in that order, "
                                 "adding up to 100")
    if field == "proposal":
        return _one_field(field, "the name of the airline whose proposal you vote for, as a JSON string")
    if field == "choice":
        return _one_field(field, quoted(list(legal.get("options", []))))
    if field == "contribution":
        return _one_field(field, f"the points you contribute, a whole number from {legal.get('min', 0)} to "
                                 f"{legal.get('max')} written without quotes")
    if field == "text":
        return _one_field(field, FREE_TEXT["text"])
    if field == "look":
        return _one_field(field, f"a list of the names of the {legal.get('count', 2)} players you look at")
    raise ValueError(f"no answer format for decision field {field!r}")


def described_probe(kind: str, roles: Sequence[str] = ()) -> str:
    """The answer object of a belief probe, in words."""
    if kind in ("suspect", "suspect_of", "suspected"):
        return _one_field("seat", "the name of the player you choose, as a JSON string")
    if kind == "self_role":
        return _one_field("role", quoted(list(roles)))
    if kind == "secret":
        return _one_field("word", "the word of the card you choose, as a JSON string")
    raise ValueError(f"unknown probe kind {kind!r}")


def described_judgement(roles: Sequence[str]) -> str:
    """The answer object of the Judgement phase, in words."""
    return ("a JSON object with a field for each other player you judge, named exactly as the question names them; "
            f'each holds an object with two fields: "role", {quoted(list(roles))}, and "p", how likely that role is, '
            "a number from 0.01 to 1.00")


def described_views(views: Sequence[tuple[str, Sequence[str]]], words: Sequence[str]) -> str:
    """The answer object of a PGM update, in words: per view, one of `words` per player it covers."""
    holders = quoted([holder for holder, _ in views], "and")
    return (f"a JSON object with a field for each view listed above, named after the player whose view it is "
            f"({holders}); each holds an object with a field for each player that view covers, named exactly as "
            f"above, holding {quoted(list(words))}")


def described_favor() -> str:
    """The answer object of the Favor Dynamics call, in words."""
    return ("a JSON object with a field for each player you rate, named exactly as the question names them, "
            "holding a whole number from 1 to 10")


def described_plan() -> str:
    """The answer object of the Strategy phase, in words."""
    return _one_field("plan", FREE_TEXT["plan"])


def _listing(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class AnswerStyle:
    """How an agent is asked to answer: an ANSWER line in free text, or (with structured outputs)
    only the JSON object, optionally with a bounded "reasoning" field first; the answer shown by
    example with placeholders (prompt sets 2 and 3) or described in words (`described`, set 4 on)."""

    structured: bool = False
    reasoning_chars: int = 0
    described: bool = False

    def rule(self, expected: str) -> str:
        """The closing instruction of a prompt asking for the answer `expected`."""
        if isinstance(expected, Described):
            return self._described_rule(expected)
        if not self.structured:
            return f"End your reply with exactly one line of this form, with nothing after it:\n{expected}"
        shape = expected.removeprefix("ANSWER: ")
        note = ""
        if self.reasoning_chars:
            shape = shape.replace("{", '{"reasoning": "<your brief thinking>", ', 1)
            note = f' Think briefly in "reasoning" (at most {self.reasoning_chars} characters) first.'
        return f"Reply with only a JSON object of this form.{note}\n{shape}"

    def _described_rule(self, expected: Described) -> str:
        if not self.structured:
            return (f"End your reply with exactly one line that starts with ANSWER: followed by {expected.shape}. "
                    "Write nothing after that line.")
        reasoning = (f' Put one more field first: "reasoning", your brief thinking before you answer, at most '
                     f"{self.reasoning_chars} characters." if self.reasoning_chars else "")
        return f"Reply with only {expected.shape}.{reasoning}"

    def _expected(self, shape: str) -> Described:
        """An answer described in words: as parse errors name it, and its shape."""
        return Described(shape if self.structured else f"ANSWER: followed by {shape}", shape)

    # The expected answer of each kind of call, in this style's wording.
    def action(self, legal: Mapping[str, Any]) -> str:
        return self._expected(described_action(legal)) if self.described else action_format(legal)

    def probe(self, kind: str, roles: Sequence[str] = ()) -> str:
        return self._expected(described_probe(kind, roles)) if self.described else probe_format(kind, roles)

    def judgement(self, others: Sequence[str], roles: Sequence[str]) -> str:
        return self._expected(described_judgement(roles)) if self.described else judgement_format(others, roles)

    def expect(self, views: Sequence[tuple[str, Sequence[str]]], actions: Sequence[str]) -> str:
        return self._expected(described_views(views, actions)) if self.described else expect_format(views, actions)

    def pgm(self, views: Sequence[tuple[str, Sequence[str]]]) -> str:
        return (self._expected(described_views(views, ("more", "less", "same"))) if self.described
                else pgm_format(views))

    def favor(self, others: Sequence[str]) -> str:
        return self._expected(described_favor()) if self.described else favor_format(others)

    def plan(self) -> str:
        return self._expected(described_plan()) if self.described else plan_format()


__all__ = ["FREE_TEXT", "PLAN_WORDS", "PLAYER", "AnswerStyle", "Described", "action_format", "expect_format", "favor_format", "judgement_format",
           "pgm_format",
           "plan_format", "probe_format", "quoted"]
