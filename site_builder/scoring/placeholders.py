"""Moves that copy the answer form: how many of a language-model seat's free-text moves (clues and
statements written as text) repeat a placeholder, a template or an instruction of the prompt set
that prompted it, rather than saying something (docs/metrics.md, "Copied placeholders").

What a copy is comes from the runner (runner/agents/llm/copies.py), which derives it from the
prompt set's own templates and answer forms: the same test refuses such a move from prompt set 4
on, so a valid game of set 4 has none; games of sets 2 and 3 were played before the refusal and
keep theirs, counted here. Guesses, votes and card-word clues are chosen from the rules' options
and are not free text.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from runner.replay.format import agent_kind
from site_builder.scoring.model import ScoredGame
from site_builder.scoring.stats import rate

#: The digest piece of a game: per seat, [free-text moves, copies] (None for a seat that is not a
#: language model, or whose prompt set this gamenight does not have).
PIECE = "placeholders"


@functools.cache
def _prompt_version(agent: str) -> str | None:
    """The prompt set a language-model agent (by key) names; None for any other agent."""
    try:
        description = json.loads(agent)
    except ValueError:
        return None
    if not isinstance(description, Mapping) or agent_kind(description) != "llm":
        return None
    version = description.get("prompt_version")
    return version if isinstance(version, str) else None


def game_copies(game: ScoredGame) -> list[list[int] | None]:
    """Per seat of `game`: [its free-text moves, how many copy its prompt], or None (not counted)."""
    versions = [_prompt_version(seat.agent) for seat in game.seats]
    if not any(versions):
        return [None] * len(game.seats)
    from runner.agents.llm.copies import copy_of, free_texts  # the prompt sets: only for model games
    from runner.agents.llm.render import UnknownPromptSet

    counts: list[list[int] | None] = [[0, 0] if v else None for v in versions]
    for event in game.events:
        seat = event.get("seat")
        if event.get("kind") != "action" or not isinstance(seat, int) or not 0 <= seat < len(counts):
            continue
        tally, version = counts[seat], versions[seat]
        if tally is None or version is None:
            continue
        for _, text in free_texts(event.get("data")):
            try:
                copied = copy_of(text, version, game.game)
            except UnknownPromptSet:  # a set newer than this gamenight: not counted rather than guessed
                counts[seat] = None
                break
            tally[0] += 1
            tally[1] += copied is not None
    return counts


def agent_copies(games: Iterable[ScoredGame], agent: str) -> list[int]:
    """[free-text moves, copies] of `agent` over `games` (from each game's digest when it has one)."""
    total = [0, 0]
    for game in games:
        for seat, tally in zip(game.seats, game.piece(PIECE, game_copies)):
            if tally is not None and seat.agent == agent:
                total[0] += tally[0]
                total[1] += tally[1]
    return total


def share(moves: int, copied: int) -> dict[str, Any] | None:
    """The results' entry: moves, copies and their share with its Wilson interval (None without
    a free-text move)."""
    if moves <= 0:
        return None
    return {"moves": moves, "copied": copied, "share": rate(copied, moves)}
