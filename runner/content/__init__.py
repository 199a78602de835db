"""Game content shipped with gamenight (topic cards, word pairs, payoffs, ...), as data files."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load(name: str) -> Any:
    """The parsed JSON content file `name` (without extension) from this package."""
    text = resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)
