"""Free-text answers that copy the question instead of answering it: a placeholder, a template in
brackets, or a piece of the prompt's own instructions.

Small models fill the answer form with its own wording: a clue `<your clue, one line>`, a
statement `<your statement>`. The rules accept any text, so such a move would be scored as play.
From prompt set 4 on (`PromptSet.describes_answers`) the agent refuses it like an unreadable
answer and asks again, recording the reason in the attempt; the validator, which plays the agent
again from the recorded replies, derives the same refusals. The scorer counts the same copies in
every replay, of any set (site_builder/scoring/placeholders.py).

What counts as copied is derived from the prompt set itself, never typed by hand:

- a **template**: the whole text in brackets (`<...>`, `[...]`, `{...}`), or holding an
  angle-bracketed slot of two words or more (`I think <player name> is lying`);
- a **placeholder**: the text is, word for word (case, spacing and punctuation aside), a
  placeholder of the set's answer forms (sets 2 and 3: what their `ANSWER:` lines hold between
  angle brackets; set 4 on: the words that describe a free-text value, formats.FREE_TEXT) or one
  of its comma-separated parts of two words or more (`your clue`, `one line`), or is one with
  a single word slipped in (`your clue here`, `your-one-word-cleared-clue`);
- an **instruction**: the text, at least `MIN_WORDS` words long, is a run of the set's own
  wording for this game: the literal text of its templates (rules, questions, the view of the
  game) and of its answer rules. Numbers are left out on both sides, since the templates fill
  them in. A text that merely uses a word of the rules, or quotes another player, is not one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from runner import games
from runner.agents.llm.formats import FREE_TEXT, AnswerStyle
from runner.agents.llm.render import PromptSet, prompt_set
from runner.replay.format import show

#: The fewest words a text needs to count as a copied instruction (fewer is a word of the rules).
MIN_WORDS = 3
#: Decision fields whose value is free text the rules accept as is.
FREE_FIELDS = ("clue", "text")
#: What each free-text field is, for the refusal message.
_NOUNS = {"clue": "clue", "text": "statement", "plan": "plan"}

_WORD = re.compile(r"[^\W\d_]+")
_WHOLE_BRACKETS = re.compile(r"^(?:<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\})$", re.DOTALL)
_SLOT = re.compile(r"<[^<>\n]*[^\W\d_][^<>\n]*\s[^<>\n]*[^\W\d_][^<>\n]*>")
_PLACEHOLDER = re.compile(r"<([^<>]+)>")
_PARTS = re.compile(r"[,;:()]")


@dataclass(frozen=True)
class Copy:
    """How a text copies its prompt: `kind` ("template", "placeholder" or "instruction") and the
    copied `phrase` as the prompt set words it."""

    kind: str
    phrase: str

    def describe(self) -> str:
        """The copy in a few words, for a refusal message."""
        if self.kind == "template":
            return f"is a template in brackets ({show(self.phrase, 80)})"
        if self.kind == "placeholder":
            return f"repeats the answer form's placeholder {show(self.phrase, 80)}"
        return f"copies the wording of the question ({show(self.phrase, 80)})"


def words(text: str) -> tuple[str, ...]:
    """A text's words for comparison: letters only, case folded (digits and punctuation dropped)."""
    return tuple(_WORD.findall(text.casefold()))


@dataclass(frozen=True)
class Wording:
    """What a prompt set says to a seat of one game: its placeholder phrases and its instruction
    runs, both as word sequences joined by single spaces (runs padded with a space each side)."""

    placeholders: Mapping[str, str]  # words -> the phrase as written
    runs: tuple[str, ...]

    @functools.cached_property
    def longest(self) -> int:
        """The most words a placeholder has."""
        return max((key.count(" ") + 1 for key in self.placeholders), default=0)

    def copy_in(self, text: str) -> Copy | None:
        """How `text` copies this wording, or None if it does not."""
        bare = text.strip().strip("\"'`*_ ").strip()
        if _WHOLE_BRACKETS.match(bare):
            return Copy("template", bare)
        slot = _SLOT.search(text)
        if slot:
            return Copy("template", slot.group(0))
        said = words(text)
        if not said:
            return None
        joined = " ".join(said)
        if joined in self.placeholders:
            return Copy("placeholder", self.placeholders[joined])
        for left_out in range(len(said)) if 2 < len(said) <= self.longest + 1 else ():
            # The placeholder with one word slipped in: "your clue here", "your-one-word-cleared-clue".
            nearly = " ".join(said[:left_out] + said[left_out + 1:])
            if nearly in self.placeholders:
                return Copy("placeholder", self.placeholders[nearly])
        if len(said) >= MIN_WORDS:
            padded = f" {joined} "
            if any(padded in run for run in self.runs):
                return Copy("instruction", text.strip())
        return None


@functools.cache
def wording(version: str, game: str) -> Wording:
    """The wording of prompt set `version` for a seat of `game` (UnknownPromptSet if the set is
    not released here)."""
    prompts = prompt_set(version)
    placeholders: dict[str, str] = {}
    for phrase in _placeholder_texts(prompts):
        for part in (phrase, *_PARTS.split(phrase)):
            said = words(part)
            if len(said) >= 2:  # one word ("more" of "more, less or same") is a word, not a placeholder
                placeholders.setdefault(" ".join(said), part.strip())
    runs = [*_template_text(prompts, game), *_rule_texts(prompts)]
    padded = tuple(f" {' '.join(said)} " for run in runs if (said := words(run)))
    return Wording(placeholders, padded)


def copy_of(text: str, version: str, game: str) -> Copy | None:
    """How a free-text move of `game`, prompted with set `version`, copies its prompt (None if not)."""
    return wording(version, game).copy_in(text)


def free_texts(action: Any) -> Iterator[tuple[str, str]]:
    """The free-text values of a move: (field, text) for a clue or statement written as text."""
    if isinstance(action, Mapping):
        for field in FREE_FIELDS:
            if isinstance(action.get(field), str):
                yield field, action[field]


def refusal(action: Any, prompts: PromptSet, game: str, expected: str) -> str | None:
    """The refusal of a move that copies its prompt, written for the model (None if it does not,
    or if the set is one that did not refuse copies)."""
    if not prompts.describes_answers:
        return None
    for field, text in free_texts(action):
        copied = copy_of(text, prompts.version, game)
        if copied:
            return refused(field, copied, expected)
    return None


def refused(field: str, copied: Copy, expected: str) -> str:
    """The message refusing a copied `field`."""
    noun = _NOUNS.get(field, "answer")
    return (f'"{field}" {copied.describe()} instead of giving a {noun} of your own. Write your own {noun}. '
            f"Answer again with {expected}")


def _placeholder_texts(prompts: PromptSet) -> Iterator[str]:
    """The placeholders of the set's answer forms: the bracketed parts of its example lines (sets
    2 and 3), or the words describing each free-text value (set 4 on)."""
    if prompts.describes_answers:
        yield from FREE_TEXT.values()
        return
    for text in _rule_texts(prompts):
        yield from _PLACEHOLDER.findall(text)


def _rule_texts(prompts: PromptSet) -> Iterator[str]:
    """Every answer rule the set can close a prompt with, in every style (sample players and options)."""
    names, roles = ("Ann", "Bob"), ("villager", "werewolf")
    views = [("Ann", ["Bob"]), ("Bob", ["Ann"])]
    for structured in (False, True):
        for reasoning in (0, 200):
            style = AnswerStyle(structured=structured, reasoning_chars=reasoning, described=prompts.describes_answers)
            expected = [style.action(legal) for legal in _SAMPLE_DECISIONS]
            expected += [style.probe(kind, roles) for kind in ("suspect", "self_role", "secret")]
            expected += [style.judgement(names, roles), style.expect(views, ("cooperate", "defect")),
                         style.pgm(views), style.favor(names), style.plan()]
            yield from (style.rule(e) for e in expected)


#: One decision of every kind, as the rules engines' `legal` describes it (its answer form only
#: reads these fields).
_SAMPLE_DECISIONS: tuple[Mapping[str, Any], ...] = (
    {"field": "clue", "mode": "subset"}, {"field": "clue", "mode": "sentence"}, {"field": "clue", "mode": "word"},
    {"field": "vote"}, {"field": "accuse"}, {"field": "guess"}, {"field": "split", "order": ["A", "B", "C"]},
    {"field": "proposal"}, {"field": "choice", "options": ["cooperate", "defect"]},
    {"field": "contribution", "min": 0, "max": 10}, {"field": "text"}, {"field": "look", "count": 2},
)

_GAME_FOLDERS = ("rules", "ask", "observation")


def _template_text(prompts: PromptSet, game: str) -> Iterator[str]:
    """The literal text of every template a seat of `game` can be shown (other games' rules,
    questions and views left out): the text between the template's tags, read as one, and each
    of its quoted strings."""
    env = prompts.environment
    for path in prompts.files():
        relative = path.relative_to(prompts.folder)
        if relative.parts[0] in _GAME_FOLDERS and not _of_game(relative.stem, game):
            continue
        tokens = list(env.lex(path.read_text(encoding="utf-8")))
        # The text around the values the template fills in reads as one ("Round _ of _: it is your
        # turn ..."), since a copy fills them in too, or leaves them out.
        yield " ".join(value for _, kind, value in tokens if kind == "data")
        yield from (value for _, kind, value in tokens if kind == "string")


def _of_game(stem: str, game: str) -> bool:
    """Whether a template of a game folder can be shown in `game`: its own, or one of no game."""
    name = stem.lstrip("_")
    owner = next((g for g in games.available() if name.startswith(g)), None)
    return owner is None or owner == game


__all__ = ["FREE_FIELDS", "MIN_WORDS", "Copy", "Wording", "copy_of", "free_texts", "refusal", "refused", "words",
           "wording"]
