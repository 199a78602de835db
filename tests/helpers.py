"""Small helpers several test packages share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.games.base import Game
from runner.play import Seating, play
from runner.rerun.identity import expected_ids


def relabelled(header: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The header with the agent named `old` named `new`: in its seats, in the matchup label, and
    in the game id, which follows from them, as if the runner had played the game so named."""
    for player in header["players"]:
        if player["agent"]["name"] == old:
            player["agent"]["name"] = new
    label = header["matchup"]
    if label.startswith("lineup: "):
        names = [new if name == old else name for name in label[len("lineup: "):].split(", ")]
        header["matchup"] = "lineup: " + ", ".join(names)
    else:
        parts = [part.partition(": ") for part in label.split("; ")]
        header["matchup"] = "; ".join(f"{role}: {new if name == old else name}" for role, _, name in parts)
    header["game_id"] = next(expected_ids(header))
    return header


async def play_alone(game: Game, params: Mapping[str, Any], setup: Mapping[str, Any], seating: Seating, *,
                     seed: int, tournament: str, **options: Any) -> list[dict[str, Any]]:
    """`play` for a game played on its own: named as the one game of a lineup of its seats, with
    the id the validator derives for that lineup (its agents written as the runner writes them)."""
    matchup = "lineup: " + ", ".join(str(agent.description["name"]) for agent in seating.agents)
    named = {"tournament": tournament, "game": game.name, "variant": dict(params), "seed": seed, "matchup": matchup,
             "players": [{"agent": agent.description} for agent in seating.agents]}
    return await play(game, params, setup, seating, seed=seed, tournament=tournament,
                      game_id=next(expected_ids(named)), matchup=matchup, **options)
