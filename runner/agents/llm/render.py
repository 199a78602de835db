"""Prompt text from the Jinja2 templates in `prompts/`, rendered from what a seat may see only.

Every prompt is a pure function of the request (observation, legal actions, seat names) and
the agent's own state (persona, favor levels, its beliefs and plans), so two setups that a seat
cannot tell apart give it the same prompts. Text written by other players (clues, statements)
is shown as a JSON string literal, which keeps it on one line and visibly quoted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

PROMPTS = Path(__file__).parent / "prompts"

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(PROMPTS),
    undefined=jinja2.StrictUndefined,  # a misspelt variable is a bug, not an empty string
    autoescape=False,  # plain text for a model, never HTML
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=False,
)


def _quote(value: Any) -> str:
    """Text from a replay as a one-line JSON string literal."""
    return json.dumps(value, ensure_ascii=False)


@jinja2.pass_context
def _who(context: Mapping[str, Any], seat: int) -> str:
    """A seat's display name; the reader's own seat is marked "(you)"."""
    name = context["names"][seat]
    return f"{name} (you)" if seat == context["seat"] else name


@jinja2.pass_context
def _choices(context: Mapping[str, Any], options: Sequence[Any]) -> str:
    """Options as the exact JSON strings to answer with: seats by name, anything else as is."""
    shown = [context["names"][o] if isinstance(o, int) and not isinstance(o, bool) else o for o in options]
    return ", ".join(_quote(o) for o in shown)


@jinja2.pass_context
def _whos(context: Mapping[str, Any], seats: Sequence[int]) -> str:
    """Several seats as "A, B and C"."""
    return _and([_who(context, s) for s in seats])


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _number(value: Any) -> str:
    """A number with thousands separators and without a needless ".0"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,}".rstrip("0").rstrip(".")


def _clue(value: Any) -> str:
    """A Chameleon or Undercover clue: a quoted text, a list of card words, or the null response."""
    if value is None:
        return "null (no words)"
    if isinstance(value, list):
        return "[" + ", ".join(_quote(v) for v in value) + "]"
    return _quote(value)


def _split(shares: Sequence[Any], order: Sequence[str]) -> str:
    """A Cost Sharing split as "Airline A 40%, Airline B 30%, Airline C 30%"."""
    return ", ".join(f"{name} {_number(share)}%" for name, share in zip(order, shares, strict=False))


_ENV.filters.update(q=_quote, who=_who, whos=_whos, choices=_choices, num=_number, clue=_clue, split=_split,
                    listing=_and)


def render(template: str, **context: Any) -> str:
    """A template rendered, with runs of blank lines folded to one and outer space trimmed."""
    text = _ENV.get_template(template).render(**context)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@dataclass(frozen=True)
class Scene:
    """What one seat may know at one point: the base of every prompt it is shown there."""

    game: str
    seat: int
    names: tuple[str, ...]
    observation: Mapping[str, Any]

    def context(self, **extra: Any) -> dict[str, Any]:
        """Template variables: the seat, names, private and public info and the visible log."""
        others = [s for s in range(len(self.names)) if s != self.seat]
        return {"game": self.game, "seat": self.seat, "me": self.names[self.seat],
                "names": list(self.names), "n": len(self.names), "others": others,
                "private": self.observation.get("private", {}),
                "public": self.observation.get("public", {}),
                "log": list(self.observation.get("log", [])), "new_from": None, **extra}


def system_prompt(scene: Scene, persona: str | None, structured: bool = False) -> str:
    """The rules of the game as gamenight plays them, the seat's identity, and how to answer."""
    return render("system.j2", **scene.context(persona=persona, structured=structured))


def observation(scene: Scene, new_from: int | None = None) -> str:
    """What the seat knows and what it has seen happen, in readable form."""
    return render(f"observation/{scene.game}.j2", **scene.context(new_from=new_from))


def prompt_files() -> list[Path]:
    """Every template file, in a stable order."""
    return sorted(p for p in PROMPTS.rglob("*.j2") if p.is_file())


#: Modules whose text ends up in prompts (answer formats, strategy menus, persona and favor words,
#: PGM beliefs).
_PROMPT_MODULES = ("formats.py", "strategies.py", "persona.py", "favor.py", "pgm.py")


def prompts_digest() -> str:
    """A short hash of every template and of the modules that write prompt text: part of the
    recorded prompt version, so that a change of wording is never mistaken for the same agent."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in [*prompt_files(), *(package / name for name in _PROMPT_MODULES)]:
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:10]
