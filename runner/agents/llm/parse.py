"""Reading a model's reply: one `ANSWER: {json}` line, as real models write it, never a guess.

The rules (each broken rule is a `ParseError` whose message tells the model what to fix; the
agent hands it back to the runner, which asks again):

- A reply cut off by the length limit (finish reason "length") is refused whatever it holds.
- Reasoning is never read. Closed `<think>`, `<thinking>` and `<reasoning>` blocks are removed
  first (also a leading block whose opening tag the chat template wrote, seen as a lone closing
  tag); a reply that ends inside an open block has no answer, even if its last line looks like
  one: that line is a draft the model never committed to.
- The answer is the line starting with `ANSWER:` (any case; "Final answer:" too), which may be
  wrapped in Markdown emphasis or backticks (`**ANSWER:** {...}`, `` `ANSWER: {...}` ``), sit in
  a block quote or inside a code fence, and be followed by more prose. The JSON object may also
  start on the lines after a bare `ANSWER:` (often in a ```json fence).
- Two answer lines that say different things are refused as ambiguous; the same answer
  repeated is one answer.
- A reply that is exactly one JSON object (optionally fenced) is read as the answer object.
- After the marker comes one strict JSON object: no duplicate keys, no NaN, no words after it
  on the same line (only closing emphasis or backticks).
- The object has exactly the fields asked for, of the right JSON types.
- Players are named by their name as the prompt writes it, or as "Player N" (N counted from 1
  in seat order), ignoring case and runs of spaces. A bare number is refused as ambiguous
  (seat 2 or Player 2?); so is a text that names two different seats.
- Enumerated values (a Prisoner's Dilemma choice, a card word, a role, a strategy) are matched
  ignoring case and outer spaces and returned in their canonical spelling; if that finds
  nothing, spaces, hyphens and underscores are treated as the same character (so
  "non-chameleon" reads as `non_chameleon`) when that matches exactly one option.

Nothing is ever read from the prose around the answer line, so a legal-looking word in the
reasoning is never taken as the move. Whether the move is legal is for the rules engine to say.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from runner.agents.llm.formats import quoted
from runner.agents.llm.pgm import change_of
from runner.replay.format import kind_of, show

#: A line that gives the answer: optional quote marker, emphasis or backticks around the word.
_MARKER = re.compile(r"^\s*(?:>\s*)*[-#*_`~\s]*(?:final\s+)?answer[\s*_`]*:[\s*_`]*", re.IGNORECASE)
#: A code fence line (its info string, e.g. json, included).
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*[\w+-]*\s*$")
_REASONING_TAGS = "think|thinking|reasoning"
_CLOSED_BLOCK = re.compile(rf"<({_REASONING_TAGS})\s*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
#: An opening tag that starts a line: where models open a reasoning block (a tag named mid-sentence
#: is prose about tags, not a block).
_OPEN_TAG = re.compile(rf"^[ \t]*<({_REASONING_TAGS})\s*>", re.IGNORECASE | re.MULTILINE)
_CLOSE_TAG = re.compile(rf"</({_REASONING_TAGS})\s*>", re.IGNORECASE)
#: What may close an answer line after its JSON object: emphasis, backticks, a full stop.
_CLOSING = re.compile(r"^[\s*_`~.]*$")
_PLAYER_N = re.compile(r"player\s*#?\s*(\d{1,4})")
_SEPARATORS = re.compile(r"[\s_-]+")


class ParseError(ValueError):
    """A reply whose answer cannot be read; the message is written for the model."""


def without_reasoning(reply: str, expected: str) -> str:
    """The reply with its closed reasoning blocks removed; ParseError if it ends inside one."""
    text = _CLOSED_BLOCK.sub("\n", reply)
    if not _OPEN_TAG.search(text):
        # The chat template may open the block itself: the reply then starts inside it.
        closes = list(_CLOSE_TAG.finditer(text))
        if closes:
            text = text[closes[-1].end():]
    if _OPEN_TAG.search(text):
        tag = _OPEN_TAG.search(text).group(1)  # type: ignore[union-attr]
        raise ParseError(f"Your reply ended inside an unclosed <{tag}> block, so it gives no answer (a line "
                         f"inside your reasoning is only a draft). Close the block with </{tag}>, then end "
                         f"your reply with exactly one line of the form {expected}")
    return text


def answer_object(reply: str | None, finish_reason: str | None, expected: str) -> dict[str, Any]:
    """The JSON object of the reply's answer (see the module's rules); ParseError otherwise."""
    ending = f"End your reply with exactly one line of the form {expected}"
    if finish_reason == "length":
        raise ParseError("Your reply was cut off by the length limit before it was finished. "
                         f"Keep your reasoning shorter. {ending}")
    if reply is None or not reply.strip():
        raise ParseError(f"Your reply was empty. {ending}")
    whole = _whole_object([line for line in reply.splitlines() if not _FENCE.match(line)])
    if whole is not None:  # a bare JSON object (a structured reply): any tag inside it is its text
        return whole
    text = without_reasoning(reply, expected)
    lines = [line for line in text.splitlines() if not _FENCE.match(line)]
    marked = [i for i, line in enumerate(lines) if _MARKER.match(line)]
    if not marked:
        whole = _whole_object(lines)
        if whole is not None:
            return whole
        if not text.strip():
            raise ParseError(f"Your reply holds only reasoning and no answer. {ending}")
        raise ParseError(f"Your reply has no ANSWER line, so no move could be read from it. {ending}")
    if len(marked) == 1:
        return _answer_at(lines, marked[0], expected)
    try:
        answers = [_answer_at(lines, i, expected) for i in marked]
    except ParseError:
        answers = []
    if not answers or any(a != answers[0] for a in answers[1:]):
        raise ParseError(f"Your reply has {len(marked)} different ANSWER lines, so it is unclear which one is "
                         f"your move. Give exactly one. {ending}")
    return answers[0]  # the same answer repeated


def _whole_object(lines: list[str]) -> dict[str, Any] | None:
    """The reply's one JSON object when the reply (fences aside) is nothing else; None otherwise."""
    body = "\n".join(lines).strip()
    if not body.startswith("{"):
        return None
    try:
        value = json.loads(body, object_pairs_hook=_pairs_once, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _answer_at(lines: list[str], index: int, expected: str) -> dict[str, Any]:
    """The JSON object an answer line holds (or that starts on the lines after a bare marker)."""
    line = lines[index]
    payload = line[_MARKER.match(line).end():].strip()  # type: ignore[union-attr]
    if not payload:
        rest = "\n".join(lines[index + 1:]).strip()
        if not rest.startswith("{"):
            raise ParseError(f"Nothing follows ANSWER:. End your reply with exactly one line of the form {expected}")
        return _object_in(rest, expected, spread=True)
    if not payload.lstrip("`").startswith("{"):
        value = _strict_json(payload.strip("*_`~ ").rstrip("."), expected)
        raise ParseError(f"After ANSWER: there must be a JSON object in braces, got {kind_of(value)}. "
                         f"End your reply with exactly one line of the form {expected}")
    payload = payload.lstrip("`")
    try:
        return _object_in(payload, expected, spread=False)
    except ParseError:
        # An object spread over lines from the marker on (a raw line break in a statement, or
        # pretty-printed JSON) is still one unambiguous answer.
        rest = "\n".join([payload, *lines[index + 1:]])
        try:
            return _object_in(rest, expected, spread=True)
        except ParseError:
            pass
        raise


def _object_in(text: str, expected: str, *, spread: bool) -> dict[str, Any]:
    """The JSON object at the start of `text`, followed only by closing marks (or, when spread
    over lines, by anything on later lines)."""
    value, end = _decode(text, expected, strict=not spread)
    rest = text[end:]
    tail = rest.split("\n", 1)[0] if spread or "\n" in rest else rest
    if not _CLOSING.match(tail):
        raise ParseError("After ANSWER: write one JSON object and nothing else on that line: no words, "
                         f"quotes or backticks after it. Answer again with {expected}")
    if not isinstance(value, dict):
        raise ParseError(f"After ANSWER: there must be a JSON object in braces, got {kind_of(value)}. "
                         f"Answer again with {expected}")
    return value


def _decode(text: str, expected: str, *, strict: bool = True) -> tuple[Any, int]:
    """The JSON value at the start of `text` and where it ends; a ParseError that says what is wrong.

    `strict=False` lets a string hold a raw line break (a statement written over several lines).
    """
    try:
        return json.JSONDecoder(object_pairs_hook=_pairs_once, parse_constant=_no_constant,
                                strict=strict).raw_decode(text)
    except _Refused as exc:
        raise ParseError(f"{exc} Answer again with {expected}") from None
    except json.JSONDecodeError as exc:
        raise ParseError(f"The text after ANSWER: is not valid JSON ({exc.msg} at character "
                         f"{exc.pos + 1}). Use double quotes around strings, write line breaks inside a string "
                         f"as \\n, and put no words, quotes or backticks around the object. "
                         f"Answer again with {expected}") from None
    except RecursionError:
        raise ParseError(f"The JSON after ANSWER: is nested too deeply. Answer again with {expected}") from None


class _Refused(ValueError):
    """A JSON construct refused while parsing (a repeated key, NaN); the message says which."""


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise _Refused(f"The JSON object repeats the field(s) {quoted(repeated)}.")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number.")


def _strict_json(text: str, expected: str) -> Any:
    """`text` as one strict JSON value, or a ParseError that says what is wrong with it."""
    value, end = _decode(text, expected)
    if text[end:].strip():
        raise ParseError("After ANSWER: write one JSON object and nothing else: no words, "
                         f"quotes or backticks after it. Answer again with {expected}")
    return value


def exact_fields(obj: Mapping[str, Any], fields: Sequence[str], expected: str) -> None:
    """ParseError unless `obj` has exactly `fields`."""
    missing = [f for f in fields if f not in obj]
    extra = [k for k in obj if k not in fields]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"it lacks {quoted(missing)}")
        if extra:
            parts.append(f"it has the unexpected field(s) {quoted(extra)}")
        raise ParseError(f"The answer object must have exactly the field(s) {quoted(list(fields))}, but "
                         f"{' and '.join(parts)}. Answer again with {expected}")


def seat_of(value: Any, names: Sequence[str], field: str, expected: str) -> int:
    """The seat a player reference names: its name or "Player N", ignoring case and spacing."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ParseError(f'"{field}" must be a player\'s name in quotes, e.g. {json.dumps(names[0])}; '
                         f"a bare number such as {show(value)} is ambiguous. Answer again with {expected}")
    if not isinstance(value, str):
        raise ParseError(f'"{field}" must be a player\'s name as a string, got {kind_of(value)}. '
                         f"Answer again with {expected}")
    text = " ".join(value.split()).casefold()
    hits = {s for s, name in enumerate(names) if " ".join(name.split()).casefold() == text}
    numbered = _PLAYER_N.fullmatch(text)
    if numbered and 1 <= int(numbered.group(1)) <= len(names):
        hits.add(int(numbered.group(1)) - 1)
    if len(hits) > 1:
        both = quoted([names[s] for s in sorted(hits)])
        raise ParseError(f'"{field}": {show(value)} could mean {both}; write the name exactly. '
                         f"Answer again with {expected}")
    if not hits:
        raise ParseError(f'"{field}": {show(value)} is not a player. The players are {quoted(list(names))}. '
                         f"Answer again with {expected}")
    return hits.pop()


def canonical(value: Any, options: Sequence[str], field: str, expected: str) -> str:
    """The option `value` spells, ignoring case and outer spaces (then separators); ParseError."""
    if isinstance(value, str):
        text = value.strip().casefold()
        exact = [o for o in options if o.strip().casefold() == text]
        if len(exact) == 1:
            return exact[0]
        loose = [o for o in options if _SEPARATORS.sub("_", o.strip().casefold()) == _SEPARATORS.sub("_", text)]
        if len(loose) == 1:
            return loose[0]
    listed = quoted(list(options)) if len(options) <= 30 else f"one of the {len(options)} listed options"
    raise ParseError(f'"{field}" must be {listed}; got {show(value)}. Answer again with {expected}')


def text_of(value: Any, field: str, expected: str) -> str:
    """A string field as given (the rules check its content)."""
    if not isinstance(value, str):
        raise ParseError(f'"{field}" must be a string in double quotes, got {kind_of(value)}. '
                         f"Answer again with {expected}")
    return value


def read_action(obj: Mapping[str, Any], legal: Mapping[str, Any], names: Sequence[str],
                expected: str) -> dict[str, Any]:
    """The action an answer object states for the decision `legal` describes."""
    field = legal.get("field")
    if field is None:
        raise ValueError(f"the decision names no answer field: {legal!r}")
    exact_fields(obj, [field], expected)
    value = obj[field]
    if field in ("vote", "proposal", "accuse"):
        return {field: seat_of(value, names, field, expected)}
    if field == "look":
        if not isinstance(value, list) or len(value) != legal.get("count", 2):
            raise ParseError(f'"look" must be a list of {legal.get("count", 2)} player names, got '
                             f"{show(value)}. Answer again with {expected}")
        return {"look": [seat_of(v, names, "look", expected) for v in value]}
    if field in ("choice", "guess"):
        return {field: canonical(value, list(legal.get("options", [])), field, expected)}
    if field == "clue":
        return {"clue": _clue(value, legal, expected)}
    if field == "text":
        return {"text": text_of(value, field, expected)}
    if field == "split":
        return {"split": _split(value, len(legal.get("order", [])) or 3, expected)}
    if field == "contribution":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParseError(f'"contribution" must be a whole number written without quotes or a '
                             f"decimal point, got {show(value)}. Answer again with {expected}")
        return {"contribution": value}
    raise ValueError(f"no reader for decision field {field!r}")


def _clue(value: Any, legal: Mapping[str, Any], expected: str) -> Any:
    if legal.get("mode") != "subset":
        return text_of(value, "clue", expected)
    if value is None:
        return None
    if not isinstance(value, list):
        raise ParseError(f'"clue" must be a list of card words in quotes, or null; got {kind_of(value)}. '
                         f"Answer again with {expected}")
    return [canonical(v, list(legal.get("words", [])), "clue", expected) for v in value]


def _split(value: Any, size: int, expected: str) -> list[int | float]:
    if not isinstance(value, list) or len(value) != size:
        raise ParseError(f'"split" must be a list of {size} numbers (percentages in seat order), got '
                         f"{show(value)}. Answer again with {expected}")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise ParseError(f'every share of "split" must be a plain number (no quotes or % sign), got '
                             f"{show(item)}. Answer again with {expected}")
    return list(value)


def read_probe(obj: Mapping[str, Any], kind: str, about: int | None, roles: Sequence[str],
               names: Sequence[str], expected: str, words: Sequence[str] = ()) -> dict[str, Any]:
    """A probe answer in the replay's shape: {"seat"}, {"of", "seat"}, {"role"} or {"word"}."""
    if kind == "self_role":
        exact_fields(obj, ["role"], expected)
        return {"role": canonical(obj["role"], list(roles), "role", expected)}
    if kind == "secret":
        exact_fields(obj, ["word"], expected)
        return {"word": canonical(obj["word"], list(words), "word", expected)}
    exact_fields(obj, ["seat"], expected)
    seat = seat_of(obj["seat"], names, "seat", expected)
    if kind == "suspect_of":
        if about is None:
            raise ValueError("a suspect_of probe needs the player it is about")
        return {"of": about, "seat": seat}
    return {"seat": seat}


def read_judgement(obj: Mapping[str, Any], names: Sequence[str], me: int, roles: Sequence[str],
                   expected: str) -> dict[int, tuple[str, float]]:
    """A Judgement: per other player (seat), its likeliest role and that role's probability, 0.01
    to 1 (a percentage above 1 is read as such). Players left out are not judged (as in the Werewolf paper)."""
    judged: dict[int, tuple[str, float]] = {}
    for key, value in obj.items():
        seat = seat_of(key, names, "player", expected)
        if seat == me:
            raise ParseError(f"Judge only the other players, not yourself. Answer again with {expected}")
        if seat in judged:
            raise ParseError(f"{json.dumps(names[seat])} is judged twice. Answer again with {expected}")
        if not isinstance(value, Mapping):
            raise ParseError(f"The judgement of {json.dumps(names[seat])} must be an object with \"role\" and "
                             f"\"p\", got {kind_of(value)}. Answer again with {expected}")
        exact_fields(value, ("role", "p"), expected)
        role = canonical(value["role"], roles, "role", expected)
        p = value["p"]
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise ParseError(f'"p" of {json.dumps(names[seat])} must be a number, got {show(p)}. '
                             f"Answer again with {expected}")
        if 1 < p <= 100:
            p = p / 100  # a percentage
        if not 0.0 < p <= 1.0:
            raise ParseError(f'"p" of {json.dumps(names[seat])} must be from 0.01 to 1.00, got {show(value["p"])}. '
                             f"Answer again with {expected}")
        judged[seat] = (role, float(p))
    return judged


def read_plan(obj: Mapping[str, Any], expected: str, words: int) -> tuple[str, bool]:
    """A Strategy phase plan: its text, cut to `words` words, and whether it had to be cut."""
    exact_fields(obj, ("plan",), expected)
    text = " ".join(text_of(obj["plan"], "plan", expected).split())
    if not text:
        raise ParseError(f"The plan is empty. Answer again with {expected}")
    placeholder = re.search(r'"plan": "<(.+?)>"', expected)
    if placeholder and text.strip("<>. ").casefold() == placeholder.group(1).casefold():
        # Small models copy the form's placeholder: that is no plan.
        raise ParseError(f"Write your own plan in place of the placeholder. Answer again with {expected}")
    parts = text.split(" ")
    return (" ".join(parts[:words]), True) if len(parts) > words else (text, False)


def read_ratings(obj: Mapping[str, Any], names: Sequence[str], me: int, expected: str) -> dict[int, int]:
    """Favor ratings 1..10 by seat; players left out are simply not rated (as in the Werewolf paper)."""
    ratings: dict[int, int] = {}
    for key, value in obj.items():
        seat = seat_of(key, names, "player", expected)
        if seat == me:
            raise ParseError(f"Rate only the other players, not yourself. Answer again with {expected}")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
            raise ParseError(f"The rating of {json.dumps(names[seat])} must be a whole number from 1 to 10, "
                             f"got {show(value)}. Answer again with {expected}")
        if seat in ratings:
            raise ParseError(f"{json.dumps(names[seat])} is rated twice. Answer again with {expected}")
        ratings[seat] = value
    return ratings


def read_suspicion(obj: Mapping[str, Any], names: Sequence[str], views: Mapping[int, Sequence[int]],
                   expected: str) -> dict[int, dict[int, int]]:
    """A PGM update: per view (holder's seat), +1 / -1 / 0 per player it rates ("more", "less",
    "same"; "more suspicious", "no change" and the like read too). Views or players left out are
    unchanged; a view or player that is not asked for, or an unknown word, is refused."""
    def change(player: int, word: Any) -> int:
        found = change_of(word)
        if found is None:
            raise ParseError(f"Rate {json.dumps(names[player])} with \"more\", \"less\" or \"same\", got "
                             f"{show(word)}. Answer again with {expected}")
        return found

    return _read_views(obj, names, views, expected, ("word", "rate"), change)


def read_expectations(obj: Mapping[str, Any], names: Sequence[str], views: Mapping[int, Sequence[int]],
                      actions: Sequence[str], expected: str) -> dict[int, dict[int, int]]:
    """A PGM update in the game-theory games: per view (holder's seat), the index of the move named
    for each player it covers. Views or players left out are unchanged; others are refused."""
    return _read_views(obj, names, views, expected, ("move", "cover"),
                       lambda _, move: list(actions).index(canonical(move, list(actions), "move", expected)))


def _read_views(obj: Mapping[str, Any], names: Sequence[str], views: Mapping[int, Sequence[int]], expected: str,
                wording: tuple[str, str], read: Callable[[int, Any], int]) -> dict[int, dict[int, int]]:
    """An answer of one object per view (by its holder's name) of player: value, each value read by
    `read(player, value)`; `wording` is (what a value is, what a view does to a player) for messages."""
    value, verb = wording
    out: dict[int, dict[int, int]] = {}
    for key, entries in obj.items():
        view = seat_of(key, names, "view", expected)
        if view not in views:
            raise ParseError(f"{json.dumps(names[view])} is not one of the views to update. Answer again with "
                             f"{expected}")
        if view in out:
            raise ParseError(f"The view of {json.dumps(names[view])} is given twice. Answer again with {expected}")
        if not isinstance(entries, Mapping):
            raise ParseError(f"The view of {json.dumps(names[view])} must be an object of player: {value}, got "
                             f"{kind_of(entries)}. Answer again with {expected}")
        out[view] = {}
        for who, given in entries.items():
            player = seat_of(who, names, "player", expected)
            if player not in views[view]:
                raise ParseError(f"The view of {json.dumps(names[view])} does not {verb} "
                                 f"{json.dumps(names[player])}. Answer again with {expected}")
            out[view][player] = read(player, given)
    return out
