"""The answer line the model is asked for, per decision field: one wording for prompts and errors.

The same text is shown in the prompt ("end your reply with ...") and repeated in every parse
error, so that a model that got the form wrong is told again exactly what is expected.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: What a player is called in an answer: its name as the prompt writes it.
PLAYER = "<player name>"


def quoted(words: Sequence[str]) -> str:
    """Options as a readable list of JSON strings: "a", "b" or "c"."""
    items = [json.dumps(w, ensure_ascii=False) for w in words]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


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


#: The longest plan the Strategy phase may write (004: "in no more than 80 words").
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


@dataclass(frozen=True)
class AnswerStyle:
    """How an agent is asked to answer: an ANSWER line in free text, or (with structured outputs)
    only the JSON object, optionally with a bounded "reasoning" field first."""

    structured: bool = False
    reasoning_chars: int = 0

    def rule(self, expected: str) -> str:
        """The closing instruction of a prompt asking for the answer `expected` (an ANSWER line)."""
        if not self.structured:
            return f"End your reply with exactly one line of this form, with nothing after it:\n{expected}"
        shape = expected.removeprefix("ANSWER: ")
        note = ""
        if self.reasoning_chars:
            shape = shape.replace("{", '{"reasoning": "<your brief thinking>", ', 1)
            note = f' Think briefly in "reasoning" (at most {self.reasoning_chars} characters) first.'
        return f"Reply with only a JSON object of this form.{note}\n{shape}"


__all__ = ["PLAN_WORDS", "PLAYER", "AnswerStyle", "action_format", "expect_format", "favor_format", "judgement_format",
           "pgm_format",
           "plan_format", "probe_format", "quoted"]
