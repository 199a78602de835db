r"""The viewer's data shards: how games' lines are packed, found and read back.

A game's viewer data and its model exchanges are packed with other games' into gzip shards.
The shard is found from the game id alone: shard_hash(id) modulo a power-of-two bucket count
written to a tiny manifest (MANIFEST) the viewer fetches first; common.js computes the same
hash. A shard is text lines "<id>\t<json>\n" sorted by id, gzip-compressed with no time stamp,
so a shard's bytes depend on its games only.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from site_builder.viewer.files import CALLS_DIR, DATA_DIR, GZIP_LEVEL, ReplayDataError

#: A game id as the replay format allows it (checked again here: it becomes a file name).
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}\Z")
#: The manifest of the shards: bucket counts of the data and calls shards.
MANIFEST = f"{DATA_DIR}/index.json"
SHARD_SUFFIX = ".jsonl.gz"


def shard_hash(game_id: str) -> int:
    """FNV-1a (32 bits) over the id's UTF-8 bytes, then murmur3's finaliser so the low bits used
    as the bucket depend on every byte; common.js computes the same."""
    if not GAME_ID.match(game_id):
        raise ReplayDataError(f"game id {game_id!r} is not a slug of letters, digits, '.', '_' or '-'")
    h = 0x811C9DC5
    for byte in game_id.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def bucket_count(games: int, per_shard: int) -> int:
    """The smallest power of two of buckets holding `games` at most `per_shard` to a bucket on average."""
    buckets = 1
    while games > buckets * per_shard:
        buckets *= 2
    return buckets


def shard_name(bucket: int) -> str:
    return f"{bucket:x}{SHARD_SUFFIX}"


def pack(lines: Mapping[str, str]) -> bytes:
    """A shard: the lines of its games by id, gzip-compressed with no time stamp."""
    text = "".join(f"{game_id}\t{lines[game_id]}\n" for game_id in sorted(lines))
    return gzip.compress(text.encode("utf-8"), compresslevel=GZIP_LEVEL, mtime=0)


def unpack(raw: bytes) -> dict[str, str]:
    """The lines of a shard by game id."""
    out = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        game_id, _, text = line.partition("\t")
        out[game_id] = text
    return out


def read_packed(site: str | os.PathLike[str], game_id: str, calls: bool = False) -> dict[str, Any] | None:
    """A game's viewer data (or its exchanges) as the viewer finds it in a built site; None if absent."""
    site = Path(site)
    counts = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    folder, buckets = (CALLS_DIR, counts["calls"]) if calls else (DATA_DIR, counts["data"])
    path = site / folder / shard_name(shard_hash(game_id) % buckets)
    text = unpack(path.read_bytes()).get(game_id) if path.is_file() else None
    return json.loads(text) if text is not None else None


def packed_ids(site: str | os.PathLike[str], calls: bool = False) -> list[str]:
    """The ids of every game in a built site's data (or exchange) shards, sorted."""
    folder = Path(site) / (CALLS_DIR if calls else DATA_DIR)
    return sorted(game_id for path in folder.glob(f"*{SHARD_SUFFIX}") for game_id in unpack(path.read_bytes()))
