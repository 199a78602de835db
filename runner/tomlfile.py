"""TOML files nobody vouches for (tournament files, a submitted folder's plan, judge files): read
into plain tables, or refused with a one-line message saying where, never a traceback.

tomllib itself fails on hostile input in ways that are not TOMLDecodeError: a value nested a few
hundred arrays or inline tables deep exhausts Python's recursion limit, and an integer of more
than 4,300 digits exceeds its integer conversion limit. Tables nested deeper than MAX_DEPTH are
refused after parsing too, so that nothing that walks a table later (the secret check, the
canonical JSON of game ids) can recurse out of the stack either.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: Tables and arrays nested in one another (a tournament file needs three or four levels).
MAX_DEPTH = 32
#: Longest message shown: a value quoted in it may be a whole line of a hostile file.
MAX_MESSAGE = 1000
#: Digits Python turns into an int (the interpreter's own limit, 4,300 by default).
_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class TomlError(ValueError):
    """A file that is not a TOML document gamenight reads: the line (0 when unknown) and why."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


class FileProblem(ValueError):
    """A TOML file that cannot be read or parsed; the message names the file (and the line)."""


def read_file(path: str | os.PathLike[str], limit: int, where: str | None = None) -> tuple[dict[str, Any], bytes]:
    """The tables of the TOML file at `path` (at most `limit` bytes read, even if it grows meanwhile)
    and its bytes; FileProblem, its message starting with `where` (default: the path), otherwise."""
    where = str(path) if where is None else where
    try:
        with open(path, "rb") as handle:
            data, size = handle.read(limit + 1), os.fstat(handle.fileno()).st_size
    except OSError as exc:
        raise FileProblem(f"{where}: cannot read: {exc.strerror or exc}") from None
    try:
        return parse(data, limit, size), data
    except TomlError as exc:
        raise FileProblem(f"{where}:{exc.line}: {exc.message}" if exc.line else f"{where}: {exc.message}") from None


def read_checked(path: str | os.PathLike[str], limit: int, where: str, check: Callable[[dict[str, Any], str, str], T],
                 error: type[Exception], known: type[Exception], what: str) -> T:
    """The file at `path` read (at most `limit` bytes) and checked by `check(tables, where, text)`;
    anything wrong, `known` from the check or anything unforeseen, becomes one line of `error`
    starting with `where` (a broken file must never end a command with a traceback)."""
    try:
        raw, data = read_file(path, limit, where)
    except FileProblem as exc:
        raise error(str(exc)) from None
    try:
        return check(raw, where, data.decode("utf-8"))
    except known as exc:
        raise error(one_line(str(exc))) from None
    except Exception as exc:  # noqa: BLE001 - see above
        raise error(one_line(f"{where}: cannot be read as {what} ({type(exc).__name__}: {exc})")) from None


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` on one line (control characters escaped), cut to `limit` characters."""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # unpaired surrogates
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse(raw: bytes, limit: int, size: int | None = None) -> dict[str, Any]:
    """The tables of a TOML file of at most `limit` bytes; TomlError (line and why) otherwise.
    `size` is the file's size when `raw` holds only its start (at least `limit` + 1 bytes of it)."""
    if len(raw) > limit:
        raise TomlError(0, f"the file is {max(size or 0, len(raw)):,} bytes; at most {limit:,} are read")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TomlError(raw.count(b"\n", 0, exc.start) + 1, f"not UTF-8 text (byte {exc.start + 1:,} of the file)"
                        ) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+)", str(exc))
        raise TomlError(int(where.group(1)) if where else 0, one_line(f"not valid TOML: {exc}")) from None
    except RecursionError:
        raise TomlError(_deep_line(text), f"not read: arrays or inline tables nested more than {MAX_DEPTH} deep"
                        ) from None
    except ValueError as exc:  # an integer past the interpreter's digit limit (tomllib lets int() raise)
        long = re.search(rf"\d{{{_MAX_DIGITS},}}", text)
        if long is None:
            raise TomlError(0, one_line(f"not read: {exc}")) from None
        raise TomlError(text.count("\n", 0, long.start()) + 1,
                        f"not read: a number of more than {_MAX_DIGITS:,} digits") from None
    too_deep = _too_deep(table)
    if too_deep is not None:
        raise TomlError(_deep_line(text), one_line(f"{too_deep}: tables or arrays nested more than {MAX_DEPTH} "
                                                   "deep; no more are read"))
    return table


def _too_deep(table: dict[str, Any]) -> str | None:
    """The key path of a value nested deeper than MAX_DEPTH (the file's top table is level 1), or
    None; walked without recursion, and no deeper than that."""
    stack: list[tuple[Any, str, int]] = [(table, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            items = [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            items = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
        else:
            continue
        if depth > MAX_DEPTH:
            return path
        stack.extend((item, name, depth + 1) for name, item in items)
    return None


def _deep_line(text: str) -> int:
    """The line where brackets and braces first nest past MAX_DEPTH (strings and comments skipped
    roughly: only to say where), or 0."""
    depth = 0
    quote = ""
    line = 1
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\n":
            line += 1
            if quote in ('"', "'"):
                quote = ""  # a one-line string ends at the line's end at the latest
        elif quote:
            if char == "\\" and quote.startswith('"'):
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote) - 1
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif char in "]}":
            depth = max(0, depth - 1)
        i += 1
    return 0
