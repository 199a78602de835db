"""Reading and writing replay files strictly: every problem names its line and field."""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypedDict

import orjson

FORMAT_NAME = "gamenight.replay"
#: Every format version, the newest last. A writer records the lowest version whose fields the
#: replay uses, so replays without version-2 fields stay byte-identical to those older runners wrote.
FORMAT_VERSIONS = (1, 2, 3, 4, 5, 6, 7)
#: What version 2 added (docs/replay-format.md, "Versions"): unanswered probes, and fields of
#: model calls and language-model agents. A version-1 file holding one of them is refused.
V2_PROBE_FIELDS = frozenset(("about", "error"))
V2_PROBE_KINDS = frozenset(("secret", "suspected"))  # questions a role can be wrong about, added in version 2
V2_CALL_FIELDS = frozenset(("reasoning", "structured", "reasoning_tokens", "cached_input_tokens", "cached"))
V2_AGENT_FIELDS = frozenset(("top_p", "stop", "reasoning_effort", "thinking_budget", "structured_output",
                             "structured_reasoning", "extra_body", "system_role"))
#: What version 3 added: seats played by people (agent kind "human") and the time each of their
#: decisions took (`took_ms` on their events and probes).
V3_RECORD_FIELDS = frozenset(("took_ms",))
#: What version 4 added to judge annotations: the `suspicion` dimension (with its `suspects`) and
#: failed evaluations (`failure`).
V4_JUDGE_FIELDS = frozenset(("suspects", "failure"))
V4_JUDGE_DIMENSIONS = frozenset(("suspicion",))
#: What a judge line evaluates (its `dimension`), in the order the judge appends them (runner/judge.py).
JUDGE_DIMENSIONS = ("engagement", "wonder", "attraction", "variation", "memorability", "suspicion")
#: What version 6 added to model calls: the input tokens written to the provider's prompt cache.
V6_CALL_FIELDS = frozenset(("cache_write_input_tokens",))
#: Longest accepted line, in bytes (LLM evidence can be long; a stranger's file cannot be huge).
MAX_LINE_BYTES = 4 * 1024 * 1024
#: Largest accepted replay file, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Most lines accepted in one file. One game needs a few hundred at most (even with a belief
#: probe per pair of seats); the bound keeps checking a hostile file to seconds.
MAX_LINES = 20_000
#: Deepest accepted nesting of lists and objects in one line. Real replays need fewer than ten
#: levels; the limit keeps every recursive step after parsing (schema, comparison, the site)
#: far from Python's recursion limit.
MAX_DEPTH = 64
#: Longest accepted integer literal, in digits.
MAX_INT_DIGITS = 40
#: Problems reported per file; beyond this the file is clearly broken and more would be noise.
MAX_PROBLEMS = 50
#: Schema problems reported per line.
MAX_LINE_PROBLEMS = 10
RECORD_TYPES = ("header", "event", "probe", "outcome", "judge")

# -- typed views of records ---------------------------------------------------------------------
# The JSON lines (and schema.json, which checks them) stay the truth: these TypedDicts only name,
# for a reader and a type checker, the fields a record that passed the checks has. Nothing is
# converted; a record is still the dict that orjson read. Optional fields are in a total=False
# subclass (NotRequired[...] is not seen through this module's string annotations on Python 3.11).

#: What plays a seat: a built-in scripted strategy, a language model, or a person (version 3).
AgentKind = Literal["builtin", "llm", "human"]
AGENT_KINDS: tuple[AgentKind, ...] = ("builtin", "llm", "human")


class _AgentName(TypedDict):
    """The fields every agent description has."""

    name: str
    kind: AgentKind


class AgentDescription(_AgentName, total=False):
    """A seat's `agent`: `name` and `kind` always; the other fields by kind (schema.json, llmAgent...)."""

    strategy: str  # builtin
    params: dict[str, Any]  # builtin
    provider: str  # llm, and every field below
    model: str
    model_reported: str | None
    base_url: str | None
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    design: str
    design_params: dict[str, Any]
    prompt_version: str
    top_p: float | None
    stop: list[str]
    reasoning_effort: str
    thinking_budget: int
    structured_output: Literal["json_schema", "json_object", "tool"]
    structured_reasoning: int
    extra_body: dict[str, Any]
    system_role: bool


class Player(TypedDict):
    """One entry of the header's `players`: a seat, its name, its role and who plays it."""

    seat: int
    name: str
    role: str
    agent: AgentDescription


class Provenance(TypedDict):
    """What wrote the replay, and when."""

    runner: str
    runner_version: str
    created: str


class _HeaderFields(TypedDict):
    """The fields every header has."""

    type: Literal["header"]
    format: str
    version: int
    game_id: str
    game: str
    variant: dict[str, Any]
    seed: int
    tournament: str
    matchup: str
    players: list[Player]
    setup: dict[str, Any]
    max_attempts: int
    provenance: Provenance


class Header(_HeaderFields, total=False):
    """The first line of a replay: the game, its rules variant, seed, tournament and players."""

    suite: dict[str, Any]  # version 5: the ranked suite's deal
    verify: dict[str, Any]  # version 7: the deal of a verification of a suite's row (runner/verify.py)


class _EventFields(TypedDict):
    """The fields every event has."""

    type: Literal["event"]
    n: int
    kind: Literal["action", "chance", "info", "forfeit"]
    phase: str
    seat: int | None
    data: dict[str, Any]
    vis: Literal["all"] | list[int]


class Event(_EventFields, total=False):
    """One step of the game: a move, a chance draw, information given, or a forfeit."""

    attempts: list[dict[str, Any]]  # the refused tries before the move
    evidence: dict[str, Any]  # a model's calls
    took_ms: int  # version 3: a person's time


class _ProbeFields(TypedDict):
    """The fields every probe has."""

    type: Literal["probe"]
    seat: int
    probe: Literal["suspect", "suspect_of", "self_role", "secret", "suspected"]
    answer: dict[str, Any] | None


class Probe(_ProbeFields, total=False):
    """A seat's answer to a belief question; `answer` is None when it could not be used."""

    about: int  # the seat asked about (suspect_of)
    error: str  # why the answer could not be used
    evidence: dict[str, Any]
    took_ms: int


def agent_kind(agent: Mapping[str, Any] | None) -> AgentKind | None:
    """The kind of an agent description ("builtin", "llm" or "human"); None if it names none of them."""
    kind = agent.get("kind") if isinstance(agent, Mapping) else None
    return kind if kind in AGENT_KINDS else None


# Characters that would break the one-problem-per-line output (or drive a terminal) if printed.
_UNPRINTABLE = ({c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, 0x85)}
                # Line separators, and the bidirectional controls that can make a message read
                # differently from what it says (e.g. U+202E reverses the text after it).
                | {c: f"\\u{c:04x}" for c in (0x2028, 0x2029, 0x061C, 0x200E, 0x200F,
                                                *range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def _printable(text: str) -> str:
    """`text` on one line, control characters and unpaired surrogates escaped."""
    return text.translate(_UNPRINTABLE).encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a replay file: where, which field, and why."""

    path: str
    line: int
    message: str
    field: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.field + ': ' if self.field else ''}{self.message}"
        return _printable(text)


@dataclass(frozen=True)
class Record:
    """One parsed line of a replay."""

    line: int
    data: dict[str, Any]


class DuplicateKey(ValueError):
    pass


def show(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of `value` for messages (long values are cut)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def kind_of(value: Any) -> str:
    """The JSON kind of a value, in words ("a string", "a list", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(f"duplicate key {show(key)}: a key may appear only once in an object")
        obj[key] = value
    return obj


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (JSON has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:30]} is too large to represent")
    return value


def _short_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer with {digits} digits is too long (the limit is {MAX_INT_DIGITS})")
    return int(text)


_LONG_DIGITS = re.compile(r"[0-9]{%d}" % (MAX_INT_DIGITS + 1))
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")
_TOO_DEEP = f"lists and objects are nested more than {MAX_DEPTH} levels deep"


def _too_deep(text: str) -> bool:
    """Whether valid JSON `text` nests deeper than MAX_DEPTH (in C-speed passes, no recursion)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(MAX_DEPTH):  # each pass removes one level: the innermost pairs
        if not brackets:
            return False
        brackets = _EMPTY_PAIR.sub("", brackets)
    return bool(brackets)


def _not_unicode(value: Any) -> bool:
    """Whether a key or string anywhere in `value` holds an unpaired surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        for key, child in (item.items() if isinstance(item, dict) else enumerate(item)):
            for text in (key, child):
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        return True
            if isinstance(child, (dict, list)):
                stack.append(child)
    return False


def loads_strict(text: str) -> Any:
    """Parse JSON refusing duplicate keys, NaN, Infinity, overflowing numbers, nesting deeper
    than MAX_DEPTH and unpaired surrogates; ValueError (JSONDecodeError for syntax) says why."""
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants,
                           parse_float=_finite_float,
                           parse_int=_short_int if _LONG_DIGITS.search(text) else None)
    except RecursionError:
        raise ValueError(_TOO_DEEP) from None
    # Cheap tests first: most lines cannot be too deep nor hold a surrogate escape.
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(text):
        raise ValueError(_TOO_DEEP)
    if _SURROGATE_ESCAPE.search(text) and isinstance(value, (dict, list)) and _not_unicode(value):
        raise ValueError("a string holds an unpaired surrogate escape (\\ud800 to \\udfff), "
                         "which is not valid Unicode")
    return value


def dumps(record: Mapping[str, Any]) -> str:
    """The canonical one-line JSON of a record (stable, so equal games give equal bytes)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@cache
def schema() -> dict[str, Any]:
    """The machine-readable JSON Schema of replay lines (runner/replay/schema.json)."""
    text = resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)


# -- schema checking ----------------------------------------------------------------------
# Four keywords are replaced: "required" and "additionalProperties" so that each problem names
# the missing or unknown field itself; "uniqueItems" because jsonschema's own compares items
# pairwise, which a long list of objects turns into minutes of work; and "items" so that a list
# already too long is not checked item by item.

def _required(validator: Any, required: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "object"):
        for key in required:
            if key not in instance:
                yield ValidationError("this required field is missing", path=[key])


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import Draft202012Validator, ValidationError

    if allowed is not False or "patternProperties" in schema:
        yield from Draft202012Validator.VALIDATORS["additionalProperties"](validator, allowed, instance, schema)
        return
    if validator.is_type(instance, "object"):
        known = schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield ValidationError(f"unknown field (the known fields here are: {', '.join(known)})", path=[key])


def _canonical(value: Any) -> Any:
    """A hashable form of a JSON value in which equal values (as the schema sees them) are equal."""
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    return ("number", value)  # 1 and 1.0 are the same JSON number


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if unique and validator.is_type(instance, "array"):
        seen: set[Any] = set()
        for item in instance:
            key = _canonical(item)
            if key in seen:
                yield ValidationError(f"must not list the same item twice ({show(item, 30)} is repeated)")
                return
            seen.add(key)


def _items(validator: Any, items: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import Draft202012Validator

    if validator.is_type(instance, "array") and len(instance) > schema.get("maxItems", len(instance)):
        return  # "maxItems" reports it
    yield from Draft202012Validator.VALIDATORS["items"](validator, items, instance, schema)


@cache
def _validators() -> dict[str, Any]:
    from jsonschema import Draft202012Validator, validators

    # JSON integers only: jsonschema would also accept 1.0 where an integer is required.
    checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    strict = validators.extend(Draft202012Validator, {
        "required": _required, "additionalProperties": _additional_properties,
        "uniqueItems": _unique_items, "items": _items}, type_checker=checker)
    full = schema()
    found = {}
    for kind in RECORD_TYPES:
        sub = {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": f"#/$defs/{kind}"}
        found[kind] = strict(sub, format_checker=None)
    return found


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def field_key(key: Any) -> str:
    """One step of a field path: ".name", "[3]", or '["odd key"]'."""
    if isinstance(key, int):
        return f"[{key}]"
    key = str(key)
    return f".{key}" if _IDENTIFIER.match(key) else f"[{show(key, 40)}]"


def _field_path(parts: Iterable[Any]) -> str:
    return "".join(field_key(part) for part in parts).removeprefix(".")


_TYPE_NAMES = {"object": "an object", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}


def _schema_message(error: Any) -> str:
    """The plain-language reason of one jsonschema error."""
    rule, expected, value = error.validator, error.validator_value, error.instance
    described = error.schema.get("description") if isinstance(error.schema, Mapping) else None
    got = show(value)
    if rule in ("required", "additionalProperties", "uniqueItems"):
        return error.message  # already plain (see the replaced keywords above)
    if rule == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        return f"must be {' or '.join(_TYPE_NAMES.get(n, n) for n in names)}, not {kind_of(value)} ({got})"
    if rule == "const":
        return f"must be {show(expected)}, not {got}"
    if rule == "enum":
        return f"must be one of {', '.join(show(x) for x in expected)}; got {got}"
    if rule == "minimum":
        return f"must be at least {expected}; got {got}"
    if rule == "maximum":
        return f"must be at most {expected}; got {got}"
    if rule in ("minLength", "maxLength"):
        bound = "at least" if rule == "minLength" else "at most"
        return f"must have {bound} {expected} character(s); it has {len(value)}"
    if rule in ("minItems", "maxItems"):
        bound = "at least" if rule == "minItems" else "at most"
        return f"must have {bound} {expected} item(s); it has {len(value)}"
    if rule == "pattern":
        return f"must be {described}; got {got}" if described else f"must match {expected}; got {got}"
    if rule in ("oneOf", "anyOf"):
        return f"must be {described}; got {got}" if described else f"is none of the allowed forms; got {got}"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _path_order(error: Any) -> list[tuple[int, Any]]:
    return [(0, p) if isinstance(p, int) else (1, str(p)) for p in error.absolute_path]


_NAME = re.compile(r"[a-z_]{1,40}\Z")
_EVENT_KEYS = frozenset(("type", "n", "kind", "phase", "seat", "data", "vis"))
_EVENT_KINDS = frozenset(("action", "chance", "info", "forfeit"))
_PROBE_KEYS = frozenset(("type", "seat", "probe", "answer"))
_PROBE_KINDS = frozenset(("suspect", "suspect_of", "self_role"))  # version 1's; the others take the full schema


def _is_seat(value: Any) -> bool:
    return type(value) is int and 0 <= value <= 63


def _plainly_valid(data: dict[str, Any]) -> bool:
    """True if `data` is an event or probe without optional fields that the schema accepts.

    Such lines are most of every replay; checking them directly is many times faster than
    jsonschema. Anything else (or anything doubtful) goes through the full schema, which also
    words the messages, so this shortcut can only ever skip work, never accept more.
    """
    kind = data.get("type")
    if kind == "event":
        vis = data["vis"] if "vis" in data else None
        return (data.keys() == _EVENT_KEYS and type(data["n"]) is int and data["n"] >= 0
                and type(data["kind"]) is str and data["kind"] in _EVENT_KINDS and type(data["phase"]) is str
                and _NAME.match(data["phase"]) is not None
                and (data["seat"] is None or _is_seat(data["seat"])) and type(data["data"]) is dict
                and (vis == "all" or (type(vis) is list and len(vis) <= 64 and all(map(_is_seat, vis))
                                      and len(set(vis)) == len(vis))))
    if kind == "probe":
        return (data.keys() == _PROBE_KEYS and _is_seat(data["seat"]) and type(data["probe"]) is str
                and data["probe"] in _PROBE_KINDS
                and type(data["answer"]) is dict)
    if kind == "outcome":
        winners = data.get("winners")
        return (data.keys() == _OUTCOME_KEYS and data["status"] in ("complete", "invalid")
                and type(winners) is list and len(winners) <= 64 and all(map(_is_seat, winners))
                and len(set(winners)) == len(winners) and type(data["result"]) is dict)
    if kind == "header":
        return _plain_header(data)
    return False


_OUTCOME_KEYS = frozenset(("type", "status", "winners", "result"))
_HEADER_KEYS = frozenset(("type", "format", "version", "game_id", "game", "variant", "seed", "tournament",
                          "matchup", "players", "setup", "max_attempts", "provenance"))
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}\Z")
_STRATEGY = re.compile(r"[a-z_]+(/[a-z_]+)?\Z")
_CREATED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2})?)?\Z")


def _short(value: Any, low: int, high: int) -> bool:
    return type(value) is str and low <= len(value) <= high


def _plain_header(data: dict[str, Any]) -> bool:
    """A header whose players are all built-in agents, checked directly (see _plainly_valid)."""
    if data.keys() != _HEADER_KEYS:
        return False
    provenance, players = data["provenance"], data["players"]
    if not (data["format"] == FORMAT_NAME and type(data["version"]) is int and data["version"] in FORMAT_VERSIONS
            and type(data["game_id"]) is str and _SLUG.match(data["game_id"])
            and type(data["game"]) is str and _NAME.match(data["game"])
            and type(data["variant"]) is dict and type(data["setup"]) is dict
            and type(data["seed"]) is int and 0 <= data["seed"] <= 9223372036854775807
            and type(data["tournament"]) is str and _SLUG.match(data["tournament"])
            and _short(data["matchup"], 0, 200)
            and type(data["max_attempts"]) is int and 1 <= data["max_attempts"] <= 20
            and type(provenance) is dict and provenance.keys() == {"runner", "runner_version", "created"}
            and _short(provenance["runner"], 0, 200) and _short(provenance["runner_version"], 0, 200)
            and type(provenance["created"]) is str and _CREATED.match(provenance["created"])
            and type(players) is list and 1 <= len(players) <= 64):
        return False
    for player in players:
        agent = player.get("agent") if type(player) is dict else None
        if not (type(player) is dict and player.keys() == {"seat", "name", "role", "agent"} and _is_seat(player["seat"])
                and _short(player["name"], 1, 80) and type(player["role"]) is str and _NAME.match(player["role"])
                and type(agent) is dict and agent.keys() == {"name", "kind", "strategy", "params"}
                and agent_kind(agent) == "builtin" and _short(agent["name"], 1, 120)
                and type(agent["strategy"]) is str and _STRATEGY.match(agent["strategy"])
                and type(agent["params"]) is dict):
            return False
    return True


def schema_problems(path: str, record: Record) -> list[Problem]:
    """Schema problems of one parsed line (dispatching on its "type")."""
    data = record.data
    if not isinstance(data, dict):
        return [Problem(path, record.line, f"each line must be a JSON object {{...}}, not {kind_of(data)}")]
    if "type" not in data:
        return [Problem(path, record.line, "missing: every line needs a type "
                        f"({', '.join(RECORD_TYPES)})", "type")]
    kind = data["type"]
    if kind not in RECORD_TYPES:
        return [Problem(path, record.line, f"must be one of {', '.join(map(show, RECORD_TYPES))}; "
                        f"got {show(kind)}", "type")]
    if _plainly_valid(data):
        return []
    errors = list(itertools.islice(_validators()[kind].iter_errors(data), MAX_LINE_PROBLEMS + 1))
    problems = [Problem(path, record.line, _schema_message(e), _field_path(e.absolute_path))
                for e in sorted(errors[:MAX_LINE_PROBLEMS], key=_path_order)]
    if len(errors) > MAX_LINE_PROBLEMS:
        problems.append(Problem(path, record.line, f"this line has more problems; only the first "
                                f"{MAX_LINE_PROBLEMS} are shown"))
    return problems


def limit_problems(path: str, problems: list[Problem]) -> list[Problem]:
    """At most MAX_PROBLEMS problems, and a note if some were left out."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [Problem(path, problems[MAX_PROBLEMS].line, "more problems follow; "
                                              f"only the first {MAX_PROBLEMS} of the file are shown")]


# -- reading ------------------------------------------------------------------------------

def _canonical_value(line: bytes) -> Any:
    """The value of a line written in canonical compact form (as the runner writes nearly every
    line), else _NOT_CANONICAL. Such a line re-encodes to its own bytes, so it has no duplicate
    key, no NaN, no lone surrogate and no number orjson would have changed: the strict parser
    would read the same value, only slower."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _NOT_CANONICAL
    if orjson.dumps(value) != line or (line.count(b"[") + line.count(b"{") > MAX_DEPTH
                                       and _too_deep(line.decode("utf-8"))):
        return _NOT_CANONICAL
    return value


_NOT_CANONICAL = object()


def _line_problem(line: bytes) -> tuple[Any, str | None]:
    """The parsed value of one line, or the reason it is not one strict JSON value."""
    if len(line) > MAX_LINE_BYTES:
        return None, f"the line is {len(line):,} bytes long; the limit is {MAX_LINE_BYTES:,}"
    value = _canonical_value(line)
    if value is not _NOT_CANONICAL:
        return value, None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (f"not valid UTF-8: byte {exc.start + 1} of the line (0x{line[exc.start]:02x}) "
                      "cannot start or continue a character")
    if not text.strip():
        return None, "blank line: every line of a replay must hold one JSON object"
    try:
        return loads_strict(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg.removesuffix(' at')} (column {exc.colno})"
    except ValueError as exc:  # strict-mode refusals, already worded for people
        return None, str(exc)


def parse_lines(path: str, raw: bytes) -> tuple[list[Record], list[Problem]]:
    """Split a file's bytes into parsed lines; problems for lines that are not strict JSON."""
    if not raw:
        return [], [Problem(path, 1, "the file is empty: a replay has a header line, its events "
                            "and an outcome line")]
    if len(raw) > MAX_FILE_BYTES:
        return [], [Problem(path, 0, f"the file is {len(raw):,} bytes; the limit is {MAX_FILE_BYTES:,}")]
    if raw.count(b"\n") > MAX_LINES:
        return [], [Problem(path, MAX_LINES + 1, f"the file has more than {MAX_LINES:,} lines; "
                            "one game needs far fewer")]
    problems: list[Problem] = []
    records: list[Record] = []
    lines = raw.split(b"\n")
    complete = lines[-1] == b""  # the file ends with a newline
    if complete:
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if len(problems) > MAX_PROBLEMS:
            break
        data, problem = _line_problem(line)
        if problem:
            problems.append(Problem(path, number, problem))
        else:
            records.append(Record(number, data))
    else:
        if not complete:
            problems.append(Problem(path, len(lines), "the file ends in the middle of this line "
                                    "(there is no final newline): it may be truncated"))
    return records, limit_problems(path, problems)


def read_file(path: str | os.PathLike[str]) -> tuple[list[Record], list[Problem]]:
    """Read a replay file; its records that parse, and the problems of those that do not."""
    name = str(path)
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            # A link could make a replay of any file on the machine (or of one outside the corpus).
            return [], [Problem(name, 0, "a symbolic link; a replay must be a regular file, not a link to one")]
        if not stat.S_ISREG(info.st_mode):
            return [], [Problem(name, 0, "not a regular file")]
        if info.st_size > MAX_FILE_BYTES:
            return [], [Problem(name, 0, f"the file is {info.st_size:,} bytes; the limit is {MAX_FILE_BYTES:,}")]
        with open(path, "rb", opener=_no_follow) as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)  # bounded even if the file grows meanwhile
    except OSError as exc:
        return [], [Problem(name, 0, f"cannot read the file: {exc.strerror or exc}")]
    return parse_lines(name, raw)


def _no_follow(path: str, flags: int) -> int:
    """Open without following a link put in place since the check (O_NOFOLLOW where there is one)."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


def iter_replay_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every *.jsonl file under the given files and folders, sorted, each once (links included,
    so that reading them reports them; folders behind links are not entered)."""
    seen: set[str] = set()
    for p in paths:
        path = Path(p)
        if path.is_dir():
            root = path.resolve()
            # Path order: by the parts under the folder (all share the folder's), compared as
            # strings; Paths are made only for the files, and after sorting.
            found = [(path.joinpath(*parts), key) for parts, key in sorted(_walk(path, root), key=_parts_order)]
        else:
            found = [(path, str(path.absolute() if path.is_symlink() else path.resolve()))]
        for f, key in found:
            if key not in seen:
                seen.add(key)
                yield f


_FOLDS_CASE = os.path.normcase("A") != "A"  # Windows


def _parts_order(item: tuple[tuple[str, ...], str]) -> Any:
    """Sort key of a walked file: its parts, case-folded where the system ignores case."""
    return [os.path.normcase(p) for p in item[0]] if _FOLDS_CASE else item[0]


def _walk(folder: Path, resolved: Path, under: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """(parts under the walked folder, resolved path) of every *.jsonl regular file or link under
    `folder`, not entering linked folders; one directory listing per folder, no call per file (a
    corpus has 100,000)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_symlink():
                if entry.name.endswith(".jsonl"):
                    yield (*under, entry.name), str(Path(entry.path).absolute())
            elif entry.is_dir():
                yield from _walk(folder / entry.name, resolved / entry.name, (*under, entry.name))
            elif entry.name.endswith(".jsonl") and entry.is_file():
                yield (*under, entry.name), os.path.join(resolved, entry.name)


def encode(records: Iterable[Mapping[str, Any]]) -> bytes:
    """The bytes of a replay file."""
    return "".join(dumps(r) + "\n" for r in records).encode("utf-8")


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` so that `path` either keeps its old content or has all of the new one.

    The bytes go to a temporary file in the same folder, are flushed to disk, and the file is
    renamed over `path`; a crash leaves at most a stray temporary file, never a half replay.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a replay is meant to be shared
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def version_2_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-2 field in a replay's records."""
    for i, data in enumerate(records):
        kind = data.get("type")
        if kind == "probe":
            if data.get("answer", {}) is None:
                yield i, "answer", "an unanswered probe (answer null)"
            if data.get("probe") in V2_PROBE_KINDS:
                yield i, "probe", f"the probe {data['probe']!r}"
            for key in sorted(V2_PROBE_FIELDS & data.keys()):
                yield i, key, f"the probe field {key!r}"
        if kind == "header":
            for p, player in enumerate(data.get("players") or ()):
                agent = player.get("agent") if isinstance(player, Mapping) else None
                if isinstance(agent, Mapping):
                    for key in sorted(V2_AGENT_FIELDS & agent.keys()):
                        yield i, f"players[{p}].agent.{key}", f"the agent field {key!r}"
        if kind == "judge" and isinstance(data.get("judge"), Mapping):
            for key in sorted(V2_AGENT_FIELDS & data["judge"].keys()):
                yield i, f"judge.{key}", f"the agent field {key!r}"
        if isinstance(data.get("evidence"), Mapping) and "notes" in data["evidence"]:
            yield i, "evidence.notes", "the evidence field 'notes'"
        calls = (data.get("evidence") or {}).get("calls") if isinstance(data.get("evidence"), Mapping) else None
        for c, call in enumerate(calls or ()):
            if isinstance(call, Mapping):
                for key in sorted(V2_CALL_FIELDS & call.keys()):
                    yield i, f"evidence.calls[{c}].{key}", f"the call field {key!r}"


def version_3_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-3 field in a replay's records."""
    for i, data in enumerate(records):
        if data.get("type") == "header":
            for p, player in enumerate(data.get("players") or ()):
                agent = player.get("agent") if isinstance(player, Mapping) else None
                if isinstance(agent, Mapping) and agent_kind(agent) == "human":
                    yield i, f"players[{p}].agent.kind", "a seat played by a person (agent kind 'human')"
        for key in sorted(V3_RECORD_FIELDS & data.keys()):
            yield i, key, f"the field {key!r}"


def version_4_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-4 field in a replay's records."""
    for i, data in enumerate(records):
        if data.get("type") != "judge":
            continue
        if data.get("dimension") in V4_JUDGE_DIMENSIONS:
            yield i, "dimension", f"the judge dimension {data['dimension']!r}"
        for key in sorted(V4_JUDGE_FIELDS & data.keys()):
            yield i, key, f"the judge field {key!r}"


def version_5_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-5 field in a replay's records."""
    for i, data in enumerate(records):
        if data.get("type") == "header" and "suite" in data:
            yield i, "suite", "the header field 'suite' (a game of a ranked suite)"


def version_6_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-6 field in a replay's records."""
    for i, data in enumerate(records):
        calls = (data.get("evidence") or {}).get("calls") if isinstance(data.get("evidence"), Mapping) else None
        for c, call in enumerate(calls or ()):
            if isinstance(call, Mapping):
                for key in sorted(V6_CALL_FIELDS & call.keys()):
                    yield i, f"evidence.calls[{c}].{key}", f"the call field {key!r}"


def version_7_uses(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str, str]]:
    """(record index, field path, what) for every version-7 field in a replay's records."""
    for i, data in enumerate(records):
        if data.get("type") == "header" and "verify" in data:
            yield i, "verify", "the header field 'verify' (a game of a verification)"


def lowest_version(records: Iterable[Mapping[str, Any]]) -> int:
    """The lowest format version that can hold these records."""
    records = list(records)
    if next(version_7_uses(records), None) is not None:
        return 7
    if next(version_6_uses(records), None) is not None:
        return 6
    if next(version_5_uses(records), None) is not None:
        return 5
    if next(version_4_uses(records), None) is not None:
        return 4
    if next(version_3_uses(records), None) is not None:
        return 3
    return 2 if next(version_2_uses(records), None) is not None else 1
