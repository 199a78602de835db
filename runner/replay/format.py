"""Reading and writing replay files strictly: every problem names its line and field."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

FORMAT_NAME = "gamenight.replay"
FORMAT_VERSION = 1
#: Longest accepted line, in bytes (LLM evidence can be long; a stranger's file cannot be huge).
MAX_LINE_BYTES = 4 * 1024 * 1024
#: Largest accepted replay file, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
RECORD_TYPES = ("header", "event", "probe", "outcome")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a replay file: where, which field, and why."""

    path: str
    line: int
    message: str
    field: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


@dataclass(frozen=True)
class Record:
    """One parsed line of a replay."""

    line: int
    data: dict[str, Any]


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str) -> Any:
    """Parse JSON refusing duplicate keys, NaN and Infinity."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)


def dumps(record: Mapping[str, Any]) -> str:
    """The canonical one-line JSON of a record (stable, so equal games give equal bytes)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@cache
def schema() -> dict[str, Any]:
    """The machine-readable JSON Schema of replay lines (runner/replay/schema.json)."""
    text = resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validators() -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    full = schema()
    validators = {}
    for kind in RECORD_TYPES:
        sub = {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": f"#/$defs/{kind}"}
        validators[kind] = Draft202012Validator(sub, format_checker=None)
    return validators


def _field_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def schema_problems(path: str, record: Record) -> list[Problem]:
    """Schema problems of one parsed line (dispatching on its "type")."""
    data = record.data
    if not isinstance(data, dict):
        return [Problem(path, record.line, f"each line must be a JSON object, got {type(data).__name__}")]
    kind = data.get("type")
    if kind not in RECORD_TYPES:
        return [Problem(path, record.line, f"must be one of {list(RECORD_TYPES)}, got {kind!r}", "type")]
    problems = []
    for error in sorted(_validators()[kind].iter_errors(data), key=lambda e: list(e.absolute_path)):
        field = _field_path(error.absolute_path)
        message = error.message
        if error.validator == "additionalProperties":
            message = message.replace("Additional properties are not allowed", "unknown field(s)")
        if len(message) > 300:
            message = message[:300] + "..."
        problems.append(Problem(path, record.line, message, field))
    return problems


def parse_lines(path: str, raw: bytes) -> tuple[list[Record], list[Problem]]:
    """Split a file's bytes into parsed lines; problems for lines that are not strict JSON."""
    problems: list[Problem] = []
    records: list[Record] = []
    if not raw:
        return [], [Problem(path, 0, "the file is empty")]
    if len(raw) > MAX_FILE_BYTES:
        return [], [Problem(path, 0, f"the file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")]
    if not raw.endswith(b"\n"):
        problems.append(Problem(path, raw.count(b"\n") + 1, "the last line has no newline: the file may be truncated"))
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_BYTES:
            problems.append(Problem(path, number, f"the line is {len(line)} bytes; the limit is {MAX_LINE_BYTES}"))
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(path, number, f"not valid UTF-8 (byte {exc.start} of the line)"))
            continue
        if not text.strip():
            problems.append(Problem(path, number, "blank line"))
            continue
        try:
            data = loads_strict(text)
        except DuplicateKey as exc:
            problems.append(Problem(path, number, str(exc)))
            continue
        except (ValueError, RecursionError) as exc:
            problems.append(Problem(path, number, f"not valid JSON: {exc}"))
            continue
        records.append(Record(number, data))
    return records, problems


def read_file(path: str | os.PathLike[str]) -> tuple[list[Record], list[Problem]]:
    """Read a replay file; its records that parse, and the problems of those that do not."""
    name = str(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            return [], [Problem(name, 0, f"the file is {size} bytes; the limit is {MAX_FILE_BYTES}")]
        raw = Path(path).read_bytes()
    except OSError as exc:
        return [], [Problem(name, 0, f"cannot read the file: {exc.strerror or exc}")]
    return parse_lines(name, raw)


def iter_replay_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every *.jsonl file under the given files and folders, sorted, each once."""
    seen: set[Path] = set()
    for p in paths:
        path = Path(p)
        found = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield f


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
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
