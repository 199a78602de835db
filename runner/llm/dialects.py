"""JSON Schema as each structured-output API accepts it.

gamenight builds one schema per decision (runner/agents/llm/schemas.py), with every bound the
rules know. The APIs each accept a different subset and refuse a request (HTTP 400) that uses a
keyword outside it, so each adapter sends the schema without the keywords its API refuses (its
provider's `schema_refuses`, runner/llm/providers.py). The rules still check every bound: dropping
one only makes the decoder less strict, never the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

def for_api(schema: Mapping[str, Any], refused: frozenset[str] | None) -> dict[str, Any]:
    """The schema as an API takes it: without the `refused` keywords, or as it is when None."""
    return dict(schema) if refused is None else without(schema, refused)


def without(schema: Mapping[str, Any], refused: frozenset[str]) -> dict[str, Any]:
    """A copy of `schema` without the `refused` keywords, at every depth (property names are kept).

    A list of lists to choose from (a Cost Sharing split) becomes a list of numbers of that
    length: these APIs are not known to take lists as enum values.
    """
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, list) for v in enum):
        size = len(enum[0])
        schema = {"type": "array", "items": {"type": "number"}, "minItems": size, "maxItems": size}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in refused:
            continue
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {name: without(sub, refused) for name, sub in value.items()}
        elif isinstance(value, Mapping):
            out[key] = without(value, refused)
        elif isinstance(value, list):
            out[key] = [without(v, refused) if isinstance(v, Mapping) else v for v in value]
        else:
            out[key] = value
    return out
