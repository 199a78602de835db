"""Where an Anthropic request asks for its prompt to be cached (`cache_control` breakpoints), and
what a provider's prompt cache would read and write for a run's calls (the dry run's estimate).

Anthropic caches a prefix of the prompt (tools, then system, then messages) only where a request
marks a content block with `cache_control`: at most 4 marks per request, and only a prefix at
least a model-dependent length long (1,024 to 4,096 tokens; a shorter one is neither cached nor
billed as a write). A later request that repeats a marked prefix exactly, up to a block boundary,
reads it at a tenth of the input price; writing one costs 1.25 times the input price (5-minute
cache, refreshed by each read). OpenAI and OpenAI-compatible servers cache long prefixes by
themselves, with nothing to mark.

gamenight's system prompts are short (300 to 550 tokens: the rules, the seat, how to answer), too
short to be cached alone, but every call of a seat repeats the previous call's start: the same
system prompt, then what the seat knows and what has happened so far, which only grows, then the
question. So each request marks

1. the end of the system prompt (read by the seat's later calls once it is long enough);
2. the furthest point an earlier request of the same conversation marked that this one still
   repeats exactly (what it reads);
3. the end of what this request has in common with the previous one, cut back to a line end:
   the next call most likely repeats it too (what it writes).

A conversation is known by everything that precedes its messages: the model, the tools or output
schema, the system prompt (which names the seat and its game). The planner keeps the last request
of the most recent conversations and the points they marked. The marks change the wire format
only: a message goes out as text blocks whose concatenation is its content, so the prompt the
model reads, and the one a replay records and the validator derives again, is the same with and
without them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: Anthropic's limit of `cache_control` marks in one request.
MAX_BREAKPOINTS = 4
#: The shortest prefix Anthropic caches for Claude Sonnet 4.5 and 4.6, in tokens (longer for some
#: models: 2,048 for Haiku 3 and 3.5, 4,096 for Opus 4.5 and Haiku 4.5). Used by the dry run.
ANTHROPIC_MIN_TOKENS = 1024
#: OpenAI caches prompts of at least 1,024 tokens, the hit counted in steps of 128 tokens.
OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128
#: Conversations remembered (a run's seats in play at once are far fewer).
CONVERSATIONS = 4096
#: Points remembered per conversation (a seat makes a few dozen calls in a game).
POINTS = 64

#: A place in a request's messages (the system prompt excluded): the prefix ends after this many
#: characters of the message at this index.
Point = tuple[int, int]
#: The messages after the system prompt, as (role, content).
Turns = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Marks:
    """The breakpoints of one request: after the system prompt, and at these points (in order).

    `splits` are the earlier marks the request still repeats and does not mark again: cut there
    too, its blocks split exactly as the requests that wrote those prefixes split theirs.
    """

    system: bool = False
    points: tuple[Point, ...] = ()
    splits: tuple[Point, ...] = ()

    def __len__(self) -> int:
        return int(self.system) + len(self.points)


@dataclass
class _Conversation:
    turns: tuple[tuple[str, str], ...]
    marks: Marks
    marked: dict[Point, str] = field(default_factory=dict)  # point -> digest of the prefix it ends


class PrefixPlanner:
    """The marks of each request, from what the same conversation sent before (one per endpoint)."""

    def __init__(self, conversations: int = CONVERSATIONS):
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._capacity = conversations

    def marks(self, head: str, system: bool, turns: Turns) -> Marks:
        """The marks for a request whose messages are `turns`, after `head` (a digest of all that
        precedes them) and a system prompt if `system`. A request sent again (a retry) gets the
        marks it had."""
        turns = tuple((str(role), str(content)) for role, content in turns)
        known = self._conversations.get(head)
        if known is not None:
            self._conversations.move_to_end(head)
            if known.turns == turns:
                return known.marks
        repeated = [] if known is None else _repeated(known.marked, turns)
        read = repeated[-1] if repeated else None
        write = None if known is None else _line_end(turns, common_point(turns, known.turns))
        points = [] if read is None else [read]
        if write is not None and (read is None or write > read):
            points.append(write)
        marks = Marks(system, tuple(points), tuple(p for p in repeated if p not in points))
        conversation = known or _Conversation(turns, marks)
        conversation.turns, conversation.marks = turns, marks
        for point in marks.points:
            conversation.marked.pop(point, None)
            conversation.marked[point] = prefix_digest(turns, point)
        while len(conversation.marked) > POINTS:
            conversation.marked.pop(next(iter(conversation.marked)))
        self._conversations[head] = conversation
        while len(self._conversations) > self._capacity:
            self._conversations.popitem(last=False)
        return marks


def common_point(a: Turns, b: Turns) -> Point | None:
    """Where two conversations stop being the same (None: not even their first characters)."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        same = len(os.path.commonprefix([x[1], y[1]])) if x[0] == y[0] else 0
        return _normal(a, (i, same))
    shorter = min(len(a), len(b))
    return (shorter - 1, len(a[shorter - 1][1])) if shorter else None


def _normal(turns: Turns, point: Point) -> Point | None:
    """A point at the start of a message is the end of the one before (None at the very start)."""
    index, chars = point
    if chars:
        return point
    return (index - 1, len(turns[index - 1][1])) if index else None


def _line_end(turns: Turns, point: Point | None) -> Point | None:
    """A point inside a message moved back to the end of its last whole line (a message's end stays)."""
    if point is None or point[1] == len(turns[point[0]][1]):
        return point
    index, chars = point
    return _normal(turns, (index, turns[index][1].rfind("\n", 0, chars) + 1))


def _repeated(marked: dict[Point, str], turns: Turns) -> list[Point]:
    """The earlier marks whose prefix `turns` repeats exactly, in order."""
    return [point for point in sorted(marked) if point[0] < len(turns) and point[1] <= len(turns[point[0]][1])
            and prefix_digest(turns, point) == marked[point]]


def prefix_digest(turns: Turns, point: Point) -> str:
    """A digest of the messages up to `point`."""
    index, chars = point
    prefix = [*turns[:index], (turns[index][0], turns[index][1][:chars])]
    return hashlib.sha256(json.dumps(prefix, ensure_ascii=False).encode()).hexdigest()


def head_digest(*parts: object) -> str:
    """A digest of what precedes a request's messages (model, tools, output schema, system prompt)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


@dataclass
class CacheUse:
    """Input tokens read from and written to a provider's prompt cache (estimates in the dry run)."""

    read: float = 0.0
    written: float = 0.0


class SimulatedCache:
    """What a provider's prompt cache would do with one conversation's calls, from their prompts.

    `kind` is a provider's caching kind (runner/llm/providers.py). "marked": the planner's marks,
    and Anthropic's documented cache (a marked prefix of at least `min_tokens` is written, a
    repeated one read). "automatic": OpenAI's caching of prompts of at least 1,024 tokens, the
    longest prefix shared with an earlier call read, in steps of 128 tokens. `tokens` counts a
    text's tokens (the dry run: characters / 4).
    """

    def __init__(self, kind: str, tokens: Callable[[str], float], min_tokens: int | None = None):
        self.kind = kind
        self.tokens = tokens
        self.min_tokens = min_tokens or (ANTHROPIC_MIN_TOKENS if kind == "marked" else OPENAI_MIN_TOKENS)
        self.planner = PrefixPlanner()
        self._stored: set[str] = set()
        self._earlier: list[tuple[str, Turns]] = []

    def call(self, system: str, turns: Turns, head: str = "") -> CacheUse:
        """The cache reads and writes of one call (and remember what it cached)."""
        if self.kind == "automatic":
            return self._automatic(system, turns)
        head = head_digest(head, system)
        marks = self.planner.marks(head, bool(system), turns)
        ends = ([(self.tokens(system), head)] if marks.system else []) + [
            (self.tokens(system) + self._length(turns, p), head + prefix_digest(turns, p)) for p in marks.points]
        read = max((length for length, key in ends if key in self._stored), default=0.0)
        written = 0.0
        for length, key in ends:
            if length >= self.min_tokens and key not in self._stored:
                self._stored.add(key)
                written = max(written, length - read)
        return CacheUse(read, written)

    def _automatic(self, system: str, turns: Turns) -> CacheUse:
        whole = (("system", system), *turns) if system else tuple(turns)
        best = 0.0
        for earlier in self._earlier:
            point = common_point(whole, earlier)
            if point is not None:
                best = max(best, self._length(whole, point))
        self._earlier.append(whole)
        if best < self.min_tokens:
            return CacheUse()
        return CacheUse(best // OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS, 0.0)

    def _length(self, turns: Turns, point: Point) -> float:
        index, chars = point
        return sum(self.tokens(content) for _, content in turns[:index]) + self.tokens(turns[index][1][:chars])
