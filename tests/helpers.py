"""Small helpers several test packages share."""

from __future__ import annotations

from typing import Any

from runner.replay.identity import expected_ids


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
