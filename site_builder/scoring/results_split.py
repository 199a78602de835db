"""The results file cut into parts a static host serves: an index and one file per section or slice.

GitHub Pages warns from 50 MB a file and a board with thousands of agents makes a results file of
hundreds of MB (the many-agents benchmark measured 183 MB at 10,000). The published site therefore
carries the results as parts: `results/index.json` holds the file's scalar fields and, in order,
each part's file, where in the results it goes, its size and its SHA-256; each part is a whole
top-level section when that fits in `PART_BYTES`, else the section's entries (a mapping) or runs of
consecutive items (a list), cut again as deep as needed. Joining the parts in the index's order
gives the results object back, equal to the one that was cut (`join`; tested at every size).

Part files are named after the schema's own section names and a number, never after a key that
comes from a replay (an agent's key), so a stranger's string never becomes a file name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

INDEX_FORMAT = "gamenight.results-parts"
INDEX_VERSION = 1
INDEX_NAME = "index.json"
#: A part is cut again when its text is over this (a fifth of the per-file limit site_builder/hosting.py
#: checks, so that no part comes near it however the entries fall).
PART_BYTES = 10_000_000

#: A step into the results: a mapping's key or a list's position.
Step = str | int


@dataclass(frozen=True)
class Part:
    """One file of the cut: at `path` in the results goes `value` (kind "value"), or the list
    `value`'s items go at the end of the list at `path` (kind "items"), or the mapping `value`'s
    entries are added to the mapping at `path` (kind "entries")."""

    name: str
    path: tuple[Step, ...]
    kind: str
    value: Any
    text: str | None = None  # the file's text when the cut already made it (to size the part)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def _size(value: Any) -> int:
    return len(_text(value).encode("utf-8"))


def split(results: Mapping[str, Any], limit: int = PART_BYTES) -> tuple[dict[str, Any], list[Part]]:
    """The results' scalar fields (kept in the index) and its parts, in the order `join` needs."""
    scalars = {k: v for k, v in results.items() if not isinstance(v, (dict, list))}
    parts: list[Part] = []
    for section, value in results.items():
        if section in scalars:
            continue
        numbered = iter(range(1, 1 << 62))
        cut = list(_cut((section,), value, limit, lambda: f"{section}-{next(numbered)}.json"))
        # A section that fits is one part, named after the section alone.
        parts.extend([replace(cut[0], name=f"{section}.json")] if len(cut) == 1 else cut)
    return scalars, parts


def _cut(path: tuple[Step, ...], value: Any, limit: int, name: Callable[[], str]) -> Iterator[Part]:
    """`value` at `path` as parts of at most `limit` bytes each (a scalar over it stays whole):
    a mapping as runs of its entries, a list as runs of its items, an entry or item too big
    alone cut the same way in turn."""
    text = _text(value)
    if len(text.encode("utf-8")) <= limit or not value or not isinstance(value, (dict, list)):
        yield Part(name(), path, "value", value, text)
        return
    mapping = isinstance(value, dict)
    yield Part(name(), path, "value", {} if mapping else [])  # the container, filled by the parts after it
    kind = "entries" if mapping else "items"
    pairs = list(value.items()) if mapping else list(enumerate(value))
    run: list[tuple[Any, Any]] = []
    # A part's text is 5 bytes of brackets and newlines, each entry's line(s) as they stand inside
    # it (one level deeper), and 2 bytes (",\n") between entries: sizes are exact, not guessed.
    run_bytes = 3

    def flush() -> Iterator[Part]:
        nonlocal run, run_bytes
        if run:
            yield Part(name(), path, kind, dict(run) if mapping else [item for _, item in run])
        run, run_bytes = [], 3

    for key, entry in pairs:
        size = _size({key: entry} if mapping else [entry]) - 5
        if 5 + size > limit:  # too big alone: what came before it, then the entry cut on its own
            yield from flush()
            if not mapping:
                yield Part(name(), path, "items", [None])  # its place in the list, filled by the parts below
            yield from _cut((*path, key if mapping else -1), entry, limit, name)
            continue
        if run and run_bytes + size + 2 > limit:
            yield from flush()
        run.append((key, entry))
        run_bytes += size + 2
    yield from flush()


def join(scalars: Mapping[str, Any], parts: Sequence[tuple[Sequence[Step], str, Any]],
         order: Sequence[str] | None = None) -> dict[str, Any]:
    """The results object from the index's scalar fields and its parts ((path, kind, value), in
    the index's order); its top-level fields in `order` (default: scalars, then the parts')."""
    results: dict[str, Any] = dict(scalars)
    for path, kind, value in parts:
        *above, last = list(path)
        holder: Any = results
        for step in above:
            holder = holder[step]
        if kind == "value":
            holder[last] = value
        elif kind == "items":
            holder[last].extend(value)
        elif kind == "entries":
            holder[last].update(value)
        else:
            raise ValueError(f"unknown part kind {kind!r}")
    return results if order is None else {key: results[key] for key in order}


def listing(parts: Sequence[Part]) -> list[dict[str, Any]]:
    """What the Downloads page says of each part file: its name and its section, "part k of n"
    when the section is cut (by position only: a key inside a section may be a stranger's)."""
    counts: dict[Step, int] = {}
    for part in parts:
        counts[part.path[0]] = counts.get(part.path[0], 0) + 1
    seen: dict[Step, int] = {}
    out = []
    for part in parts:
        section = part.path[0]
        seen[section] = seen.get(section, 0) + 1
        cut = f", part {seen[section]} of {counts[section]}" if counts[section] > 1 else ""
        out.append({"file": part.name, "what": f"{section}{cut}"})
    return out


def write(results: Mapping[str, Any], folder: Path, limit: int = PART_BYTES,
          cut: tuple[dict[str, Any], list[Part]] | None = None) -> list[Path]:
    """Write the results' parts and their index into `folder` (`cut`: the results already
    `split`); the paths written, index first."""
    scalars, parts = split(results, limit) if cut is None else cut
    folder.mkdir(parents=True, exist_ok=True)
    entries, written = [], []
    for part in parts:
        data = (part.text if part.text is not None else _text(part.value)).encode("utf-8")
        (folder / part.name).write_bytes(data)
        written.append(folder / part.name)
        entries.append({"file": part.name, "path": list(part.path), "kind": part.kind, "bytes": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()})
    index = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "order": list(results), "scalars": scalars,
             "parts": entries}
    (folder / INDEX_NAME).write_text(_text(index), encoding="utf-8")
    return [folder / INDEX_NAME, *written]


class PartsError(ValueError):
    """A results index or one of its parts is not what it should be; the message names the file."""


def read(path: Path) -> dict[str, Any]:
    """The results from a results file, or from the index of its parts (each part's digest checked)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise PartsError(f"{path}: {err}") from None
    if not (isinstance(data, dict) and data.get("format") == INDEX_FORMAT):
        return data
    if data.get("version") != INDEX_VERSION:
        raise PartsError(f"{path}: field 'version': expected {INDEX_VERSION}, found {data.get('version')!r}")
    loaded = []
    for n, entry in enumerate(data.get("parts") or [], 1):
        name = entry.get("file")
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            raise PartsError(f"{path}: part {n}: field 'file': not a file name beside the index: {name!r}")
        try:
            raw = (path.parent / name).read_bytes()
        except OSError as err:
            raise PartsError(f"{path}: part {n} ({name}): {err.strerror or err}") from None
        if hashlib.sha256(raw).hexdigest() != entry.get("sha256"):
            raise PartsError(f"{path}: part {n} ({name}): field 'sha256': the file's digest differs")
        loaded.append((entry["path"], entry["kind"], json.loads(raw)))
    try:
        return join(data.get("scalars") or {}, loaded, data.get("order"))
    except (KeyError, IndexError, TypeError, ValueError) as err:
        raise PartsError(f"{path}: the parts do not fit together ({err!r})") from None
