"""An on-disk cache of model replies, so that a killed run resumes without paying again for the
calls of the games it was playing, and a tournament run again reproduces its replays.

An entry is keyed by a SHA-256 of the complete request (provider, base URL, model, every setting
that shapes the reply, the messages, the JSON Schema) and of its place in the run: the game, the
seat and the how-many-th call of that seat it is. The place matters: two games may send a model
the very same prompt, and with sampling on each must get its own draw, not a copy of the
other's. An entry holds the reply and its accounting only: no key, no header, no prompt text.
Entries are written atomically; a corrupt or partial entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from runner.llm.types import ChatModel, Completion, Message, ModelSettings

#: Bumped when the key or the entry format changes (old entries are then simply not found).
CACHE_VERSION = 1
#: Settings that shape a reply; how a model is reached (key variable, timeout) does not.
_REPLY_SETTINGS = ("provider", "base_url", "model", "temperature", "top_p", "max_tokens", "seed", "stop",
                   "reasoning_effort", "thinking_budget", "structured_output", "extra_body", "system_role")
#: The Completion fields an entry keeps (an error is never cached).
_KEPT = ("text", "finish_reason", "model_reported", "input_tokens", "output_tokens", "latency_ms", "retries",
         "reasoning", "structured", "reasoning_tokens", "cached_input_tokens", "cache_write_input_tokens")
_TYPES: dict[str, tuple[type, ...]] = {
    "text": (str,), "finish_reason": (str, type(None)), "model_reported": (str, type(None)),
    "input_tokens": (int, type(None)), "output_tokens": (int, type(None)), "latency_ms": (int, float),
    "retries": (int,), "reasoning": (str, type(None)), "structured": (str, type(None)),
    "reasoning_tokens": (int, type(None)), "cached_input_tokens": (int, type(None)),
    "cache_write_input_tokens": (int, type(None)),  # absent from entries written before it was kept
}


def request_key(settings: ModelSettings, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                place: str) -> str:
    """The SHA-256 naming one call: the complete request and its place in the run."""
    shaping = {name: getattr(settings, name) for name in _REPLY_SETTINGS}
    shaping["base_url"] = (settings.base_url or "").rstrip("/") or None
    request = {"v": CACHE_VERSION, "settings": shaping,
               "messages": [[m.role, m.content] for m in messages],
               "schema": schema, "place": place}
    text = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Replies on disk under `root`, one small JSON file per call (`<2 hex>/<64 hex>.json`)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.hits = 0
        self.stored = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        """The cached reply, or None (missing, unreadable or not of the expected shape)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or entry.get("v") != CACHE_VERSION or entry.get("key") != key:
            return None
        values = {name: entry.get(name) for name in _KEPT}
        if any(not isinstance(values[name], kinds) or isinstance(values[name], bool)
               for name, kinds in _TYPES.items()):
            return None
        self.hits += 1
        return Completion(**values, cached=True)

    def put(self, key: str, completion: Completion) -> None:
        """Keep a successful reply (errors are never cached); a failed write is only a lost entry."""
        if completion.error is not None or completion.text is None:
            return
        kept = {name: value for name, value in asdict(completion.for_record()).items() if name in _KEPT}
        entry = {"v": CACHE_VERSION, "key": key, **kept}
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False)
            os.replace(tmp, path)
            self.stored += 1
        except OSError:
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass


class CachedChatModel:
    """A ChatModel answering from the cache when it can, for one seat of one game (`scope`)."""

    def __init__(self, model: ChatModel, cache: ResponseCache, scope: str):
        self.model = model
        self.cache = cache
        self.scope = scope
        self._calls = 0

    @property
    def settings(self) -> ModelSettings:
        return self.model.settings

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None = None) -> Completion:
        place = f"{self.scope}#{self._calls}"
        self._calls += 1
        sent_schema = schema if self.settings.structured_output else None
        key = request_key(self.settings, messages, sent_schema, place)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        completion = await self.model.complete(messages, schema)
        self.cache.put(key, completion)
        return completion

