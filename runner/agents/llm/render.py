"""Prompt text from a released prompt set's Jinja2 templates, rendered from what a seat may see only.

Every prompt is a pure function of the request (observation, legal actions, seat names) and
the agent's own state (persona, favor levels, its beliefs and plans), so two setups that a seat
cannot tell apart give it the same prompts. Text written by other players (clues, statements)
is shown as a JSON string literal, which keeps it on one line and visibly quoted.

The templates come in *prompt sets*, one folder per version under `prompts/` (docs/prompts.md).
A replay records the version its agent used, and the validator renders every recorded prompt
again with that set's templates, so a released set never changes: a new wording is a new set.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

PROMPTS = Path(__file__).parent / "prompts"
#: The register of released sets: the current version and each set's digest.
REGISTER = PROMPTS / "sets.toml"


#: The first prompt set that describes answers in words and refuses copied placeholders: older sets
#: keep showing the answer line by example, and their replays stay valid as they were played.
FIRST_DESCRIBING = 4


class UnknownPromptSet(ValueError):
    """A prompt version that is not a released set of this installation."""


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


_FILTERS = dict(q=_quote, who=_who, whos=_whos, choices=_choices, num=_number, clue=_clue, split=_split,
                listing=_and)


class PromptSet:
    """One released set of templates (a folder of `prompts/`), and how prompts are made from it."""

    def __init__(self, version: str, folder: Path):
        self.version = version
        self.folder = folder
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(folder),
            undefined=jinja2.StrictUndefined,  # a misspelt variable is a bug, not an empty string
            autoescape=False,  # plain text for a model, never HTML
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
        )
        self._env.filters.update(_FILTERS)

    def __repr__(self) -> str:
        return f"PromptSet({self.version!r})"

    @property
    def describes_answers(self) -> bool:
        """Whether the set describes each answer in words and refuses a reply that copies its wording
        (set 4 on, formats.py and copies.py) rather than showing it by example with placeholders."""
        return self.version.isdigit() and int(self.version) >= FIRST_DESCRIBING

    @property
    def environment(self) -> jinja2.Environment:
        """The Jinja2 environment of the set's templates (to read them, e.g. their literal text)."""
        return self._env

    def render(self, template: str, **context: Any) -> str:
        """A template rendered, with runs of blank lines folded to one and outer space trimmed."""
        text = self._env.get_template(template).render(**context)
        return re.sub(r"\n{3,}", "\n\n", text).strip()

    def files(self) -> list[Path]:
        """Every template file of the set, in a stable order."""
        return sorted(p for p in self.folder.rglob("*.j2") if p.is_file())

    def digest(self) -> str:
        """The SHA-256 of the set's file names and bytes: what the register holds for a released set."""
        digest = hashlib.sha256()
        for path in self.files():
            digest.update(path.relative_to(self.folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        return digest.hexdigest()


@functools.cache
def register() -> dict[str, Any]:
    """The register of released sets (`prompts/sets.toml`)."""
    with REGISTER.open("rb") as handle:
        return tomllib.load(handle)


def released() -> tuple[str, ...]:
    """Every released prompt version, oldest first."""
    return tuple(register()["sets"])


def current_version() -> str:
    """The prompt version new games are played with."""
    return str(register()["current"])


@functools.cache
def prompt_set(version: str | None = None) -> PromptSet:
    """The released set `version` (default: the current one); UnknownPromptSet if there is none."""
    version = current_version() if version is None else version
    if version not in released():
        raise UnknownPromptSet(f"{version!r} is not a released prompt set of this gamenight "
                               f"(released: {', '.join(released())})")
    return PromptSet(version, PROMPTS / version)


@dataclass(frozen=True)
class Scene:
    """What one seat may know at one point: the base of every prompt it is shown there."""

    game: str
    seat: int
    names: tuple[str, ...]
    observation: Mapping[str, Any]
    prompts: PromptSet = field(default_factory=prompt_set)

    def render(self, template: str, **extra: Any) -> str:
        """A template of this scene's prompt set, with the scene's context and `extra`."""
        return self.prompts.render(template, **self.context(**extra))

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
    return scene.render("system.j2", persona=persona, structured=structured)


def observation(scene: Scene, new_from: int | None = None) -> str:
    """What the seat knows and what it has seen happen, in readable form."""
    return scene.render(f"observation/{scene.game}.j2", new_from=new_from)
